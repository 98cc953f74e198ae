"""`db upgrade` (apply the Alembic revisions) and `check` (refuse demo credentials outside demo mode)."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.cli.output import emit
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.services.auth.preflight import check_connection_pools, check_hosted_ready
from hitl_dashboard.services.schema import upgrade_database
from hitl_dashboard.settings import get_settings


def register(sub: Any) -> None:
    leaf(group(sub, "db", "database"), "upgrade", "apply Alembic migrations to DATABASE_URL", handler="db upgrade")
    leaf(sub, "check", "refuse to serve with demo credentials outside demo mode (run before serving)")


@command("db upgrade")
def _db_upgrade(args) -> int:
    revision = upgrade_database()
    emit(args, {"revision": revision}, f"database at revision {revision}")
    return 0


@command("check")
def _check(args) -> int:
    check_connection_pools()  # ConfigurationError: the CLI's configuration exit code, with the arithmetic
    check_hosted_ready()
    mode = "demo" if get_settings().demo_mode else "hosted"
    emit(args, {"ok": True, "mode": mode}, f"configuration OK ({mode} mode)")
    return 0
