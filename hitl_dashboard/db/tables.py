"""Every table, registered with SQLModel.metadata: import this where the whole schema matters
(Alembic's env.py compares it with the database; the migration tests and benchmarks that copy
every conversation table). The *_models modules import models.py one way and nothing imports back,
so db/ has no import loop (the "db has no import loop" contract in pyproject.toml)."""

from hitl_dashboard.db import (  # noqa: F401 - registers them
    external_models,
    findings_models,
    live_models,
    models,
    questions_models,
    rule_models,
    slack_models,
    team_models,
    workspace_models,
)
