"""Refuse to run a hosted deployment that still carries demo credentials."""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import col, select

from hitl_dashboard.db.engine import check_pool_fits
from hitl_dashboard.db.models import User
from hitl_dashboard.services.transactions import reading
from hitl_dashboard.settings import get_settings


class UnsafeDeployment(RuntimeError):
    pass


def check_connection_pools() -> None:
    """On PostgreSQL: the web workers' pools fit the server's max_connections, or ConfigurationError
    with the arithmetic (db/pool_plan.py). Run by the web tier at start-up and by `check`."""
    check_pool_fits()


def check_hosted_ready() -> None:
    """Outside demo mode: the secret must not be the demo one (checked by Settings itself)
    and no demo user (known password 'demo') may exist."""
    settings = get_settings()  # raises on the demo secret when DEMO_MODE=false
    if settings.demo_mode:
        return
    try:
        with reading() as uow:
            demo = uow.session.exec(select(User.username).where(col(User.is_demo))).all()
    except SQLAlchemyError:
        return  # not migrated yet: `db upgrade` comes first and there are no users to worry about
    if demo:
        raise UnsafeDeployment(
            f"DEMO_MODE is false but demo users exist ({', '.join(demo)}); delete them or disable them "
            "before serving (they have the well-known password 'demo')."
        )
