"""Who a review command of the operator's CLI acts as. The CLI runs with the database's own
credentials, so it may act as any user: the one named with --as, or, to read a queue without
--as, the first user (by name) who holds the queue's role."""

from __future__ import annotations

from sqlmodel import select

from hitl_dashboard.db.models import User
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.transactions import reading


def acting_reviewer(username: str | None, *, role: str | None = None) -> Actor:
    """The named user (NotFound, or PermissionDenied if disabled); without a name, someone with `role`."""
    with reading() as uow:
        if username:
            return users.get_actor(uow, username)
        for user in uow.session.exec(select(User).order_by(User.username)):
            if role in user.roles:
                return users.actor_of(user)
    raise InvalidInput(f"no user holds the role {role}; pass --as", "role")
