"""The CLI's commands, grouped by what they serve. Each module declares its parsers (`register`)
next to its handlers; the order here is the order of `--help`."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.cli.commands import (
    audit,
    conversations,
    database,
    exports,
    forks,
    mcp,
    reviews,
    rules,
    runner,
    slack,
    teams,
    tokens,
    users,
    webhooks,
    workspaces,
)

GROUPS = (database, users, workspaces, conversations, forks, exports, reviews, rules, runner, teams, tokens, webhooks,
          slack, mcp, audit)


def register_all(sub: Any) -> None:
    for group in GROUPS:
        group.register(sub)
