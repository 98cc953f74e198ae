"""Who may see and decide what. Enforced by the services, whatever the edge."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from hitl_dashboard.domain.enums import Action, Role
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound, PermissionDenied

READ_ALL_ROLES = {Role.MANAGER.value, Role.ADMIN.value}
# What an API token may do: everything its user may (full), or only ask for approvals and follow
# its own requests (approvals: the token a script outside the product holds).
FULL_SCOPE = "full"
APPROVALS_SCOPE = "approvals"
TOKEN_SCOPES = (FULL_SCOPE, APPROVALS_SCOPE)


# workspace id -> the roles held there
Memberships = tuple[tuple[int, frozenset[str]], ...]


@dataclass(frozen=True)
class Actor:
    """Who acts. roles: the instance's roles ("admin") plus, bound to one workspace (workspace_id),
    the roles held there, or unbound the roles held in any workspace: a summary for menus and the
    queues offered. Whether an actor may act on a thing is always asked of the thing's workspace
    (roles_in / within), never of that summary."""

    user_id: int
    username: str
    roles: frozenset[str]
    scope: str = FULL_SCOPE
    token_name: str = ""  # the API token it came with, as its owner named it ("" for sign-ins)
    memberships: Memberships = ()
    workspace_id: int | None = None  # bound: acts in this workspace only (a request's or a token's)

    def has(self, role: str) -> bool:
        return role in self.roles

    @property
    def is_admin(self) -> bool:
        """The instance admin: may act in every workspace, audited as such."""
        return Role.ADMIN.value in self.roles

    def roles_in(self, workspace_id: int | None) -> frozenset[str]:
        """The roles that count on a thing of `workspace_id`: the membership's, plus "admin" for the
        instance admin (who acts in any workspace, a bound one only when bound)."""
        if self.workspace_id is not None and workspace_id != self.workspace_id:
            return frozenset()
        own = dict(self.memberships).get(workspace_id, frozenset()) if workspace_id is not None else frozenset()
        return own | (frozenset({Role.ADMIN.value}) if self.is_admin else frozenset())

    def sees(self, workspace_id: int | None) -> bool:
        return bool(self.roles_in(workspace_id))

    def workspaces_with(self, *roles: str) -> frozenset[int] | None:
        """The workspaces where the actor holds one of `roles` (None: every workspace, the instance
        admin's answer when unbound). The filter of every list query."""
        if self.is_admin:
            return None if self.workspace_id is None else frozenset({self.workspace_id})
        return frozenset(w for w, held in self.memberships if (not roles or held & set(roles))
                         and (self.workspace_id is None or w == self.workspace_id))

    def visible_workspaces(self) -> frozenset[int] | None:
        return self.workspaces_with()

    def within(self, workspace_id: int, missing: str) -> Actor:
        """This actor bound to `workspace_id`, its roles those held there. Not a member: NotFound
        with `missing`, the same message as for a thing that does not exist."""
        if not self.sees(workspace_id):
            raise NotFound(missing)
        return replace(self, roles=self.roles_in(workspace_id), workspace_id=workspace_id)


def member_actor(user_id: int, username: str, instance_roles: Iterable[str], memberships: Memberships, *,
                 scope: str = FULL_SCOPE, token_name: str = "", workspace_id: int | None = None) -> Actor:
    """An Actor from the user record and memberships; `workspace_id` binds it (a token made for one
    workspace acts only there)."""
    if workspace_id is not None:
        memberships = tuple((w, r) for w, r in memberships if w == workspace_id)
    summary = frozenset(instance_roles) & {Role.ADMIN.value}
    for _, held in memberships:
        summary |= held
    return Actor(user_id, username, summary, scope=scope, token_name=token_name, memberships=memberships,
                 workspace_id=workspace_id)


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
    """Managers read their workspaces' audit trail (the queries filter by workspaces_with(MANAGER))."""
    require_role(actor, Role.MANAGER.value, Role.ADMIN.value, what="read the audit trail")


def check_can_manage_workspace(actor: Actor, workspace_id: int) -> None:
    """A workspace admin manages its members, teams, webhooks and Slack links; the instance admin any."""
    if not actor.roles_in(workspace_id) & {Role.WORKSPACE_ADMIN.value, Role.ADMIN.value}:
        raise PermissionDenied(f"{actor.username} may not manage this workspace: needs role workspace_admin")


def check_can_manage_users(actor: Actor) -> None:
    require_role(actor, Role.ADMIN.value, what="manage users")


def check_an_admin_remains(active_admins_after: int, what: str) -> None:
    """Nobody could manage users any more (or undo this) without an active admin: refuse. A Conflict,
    not a PermissionDenied: the same request is fine once another user holds the admin role."""
    if active_admins_after < 1:
        raise Conflict(f"cannot {what}: it would leave no active admin (make another user admin first)")
