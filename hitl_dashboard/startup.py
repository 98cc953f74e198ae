"""What a process prints when it cannot start: one line per problem on stderr, then exit.

Used by the entry points that are not our CLI (rxconfig.py under `reflex run`, the app module
under the web server, alembic's env.py): a traceback there would be 60 lines and bury the one that
matters. The CLI maps the same errors to its own exit codes (cli.py)."""

from __future__ import annotations

import sys
from typing import NoReturn

from hitl_dashboard.domain.errors import ConfigurationError
from hitl_dashboard.settings import Settings, get_settings

# The CLI's codes for the same errors (cli.py).
EXIT_CONFIGURATION = 2
EXIT_UNSAFE_DEPLOYMENT = 7


def settings_or_exit() -> Settings:
    try:
        return get_settings()
    except ConfigurationError as exc:
        exit_with(exc.problems, prefix="configuration error", code=EXIT_CONFIGURATION)


def ready_to_serve_or_exit() -> Settings:
    """Valid settings, connection pools that fit PostgreSQL's max_connections and, outside demo
    mode, no demo users: else one line and exit."""
    from hitl_dashboard.services.auth.preflight import UnsafeDeployment, check_connection_pools, check_hosted_ready

    settings = settings_or_exit()
    try:
        check_connection_pools()
    except ConfigurationError as exc:
        exit_with(exc.problems, prefix="configuration error", code=EXIT_CONFIGURATION)
    try:
        check_hosted_ready()
    except UnsafeDeployment as exc:
        exit_with([str(exc)], prefix="refusing to serve", code=EXIT_UNSAFE_DEPLOYMENT)
    teams_or_exit()
    return settings


def teams_or_exit() -> None:
    """The team files are read once, here: a bad one stops the start with its errors."""
    from hitl_dashboard.domain.errors import InvalidInput
    from hitl_dashboard.teams.catalogue import catalogue

    try:
        catalogue()
    except InvalidInput as exc:
        exit_with(str(exc).splitlines(), prefix="team file error", code=EXIT_CONFIGURATION)


def exit_with(lines: list[str], *, prefix: str, code: int) -> NoReturn:
    for line in lines:
        print(f"{prefix}: {line}", file=sys.stderr)
    sys.stderr.flush()
    # `from None` keeps the ValidationError chain out of any traceback printed above us.
    raise SystemExit(code) from None
