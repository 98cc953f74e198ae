"""Who a review command of the operator's CLI acts as. The CLI runs with the database's own
credentials, so it may act as any user: the one named with --as, or, to read a queue without
--as, the first active user (by name) who holds the queue's role: a deactivated one acts no more."""

from __future__ import annotations

from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.auth import users


def acting_reviewer(username: str | None, *, role: str | None = None) -> Actor:
    """The named user (NotFound, or PermissionDenied if disabled); without a name, someone with `role`."""
    if username:
        return users.find_actor(username)
    for user in users.list_users(None):
        if user.is_active:
            actor = users.actor_of(user)
            if role in actor.roles:  # held in some workspace (the queue then shows those workspaces')
                return actor
    raise InvalidInput(f"no active user holds the role {role}; pass --as", "role")
