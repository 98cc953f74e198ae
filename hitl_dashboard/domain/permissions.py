"""Who may see and decide what. Enforced by the services, whatever the edge."""

from __future__ import annotations

from dataclasses import dataclass

from hitl_dashboard.domain.enums import Action, Role
from hitl_dashboard.domain.errors import Conflict, InvalidInput, PermissionDenied

READ_ALL_ROLES = {Role.MANAGER.value, Role.ADMIN.value}
# What an API token may do: everything its user may (full), or only ask for approvals and follow
# its own requests (approvals: the token a script outside the product holds).
FULL_SCOPE = "full"
APPROVALS_SCOPE = "approvals"
TOKEN_SCOPES = (FULL_SCOPE, APPROVALS_SCOPE)


@dataclass(frozen=True)
class Actor:
    user_id: int
    username: str
    roles: frozenset[str]
    scope: str = FULL_SCOPE
    token_name: str = ""  # the API token it came with, as its owner named it ("" for sign-ins)

    def has(self, role: str) -> bool:
        return role in self.roles

    @property
    def is_admin(self) -> bool:
        return Role.ADMIN.value in self.roles


def require_role(actor: Actor, *roles: str, what: str) -> None:
    if not any(actor.has(role) for role in roles):
        raise PermissionDenied(f"{actor.username} may not {what}: needs role {' or '.join(roles)}")


def check_full_scope(actor: Actor) -> None:
    """An approvals-only token asks for approvals and follows its own requests: nothing else."""
    if actor.scope != FULL_SCOPE:
        raise PermissionDenied("this token may only request approvals (scope 'approvals')")


def check_can_claim(actor: Actor, required_role: str) -> None:
    if not (actor.has(required_role) or actor.is_admin):
        raise PermissionDenied(f"{actor.username} may not claim a {required_role} review")


def check_can_decide(
    actor: Actor,
    *,
    required_role: str,
    initiator_id: int,
    action: str,
    override_reason: str | None,
    author_ids: frozenset[int] = frozenset(),
) -> bool:
    """Returns True when the decision is an admin override. Raises when refused. author_ids: the
    people who wrote the content under review (a reviewer's "approve with my changes")."""
    if actor.user_id == initiator_id and action in (Action.APPROVE, Action.SKIP):
        # Four eyes: nobody signs off work they started, not even an admin.
        raise PermissionDenied(f"{actor.username} started this conversation and may not {action} it")
    if actor.user_id in author_ids and action in (Action.APPROVE, Action.SKIP):
        raise PermissionDenied(f"{actor.username} wrote this version (approved with their changes) "
                               f"and may not {action} it: another reviewer must")
    if actor.has(required_role):
        return False
    if actor.is_admin:
        if not (override_reason or "").strip():
            raise InvalidInput("an admin override needs a reason", "override_reason")
        return True
    raise PermissionDenied(f"{actor.username} may not decide a {required_role} review")


def check_can_read_audit(actor: Actor) -> None:
    require_role(actor, Role.MANAGER.value, Role.ADMIN.value, what="read the audit trail")


def check_can_manage_users(actor: Actor) -> None:
    require_role(actor, Role.ADMIN.value, what="manage users")


def check_an_admin_remains(active_admins_after: int, what: str) -> None:
    """Nobody could manage users any more (or undo this) without an active admin: refuse. A Conflict,
    not a PermissionDenied: the same request is fine once another user holds the admin role."""
    if active_admins_after < 1:
        raise Conflict(f"cannot {what}: it would leave no active admin (make another user admin first)")
