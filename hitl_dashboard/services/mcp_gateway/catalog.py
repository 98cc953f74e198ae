"""Which team a gateway connection serves: the team's newest version in the caller's workspace, and
its gateway section. Read again after a short while, so a saved team version reaches open sessions."""

from __future__ import annotations

import time
from dataclasses import dataclass

from hitl_dashboard.db.memberships import resolve_workspace
from hitl_dashboard.domain.errors import InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.teams import versions
from hitl_dashboard.services.transactions import reading
from hitl_dashboard.teams.gateway_model import GatewayDef

FRESH_S = 5.0  # how long a connection's team is kept before it is read again


@dataclass(frozen=True)
class GatewayTeam:
    name: str
    version_id: int
    workspace_id: int
    workspace: str  # its slug
    gateway: GatewayDef


_cache: dict[tuple[int, str, str | None], tuple[float, GatewayTeam]] = {}


def known_gateway_team(actor: Actor, team: str, workspace: str | None = None) -> GatewayTeam | None:
    """gateway_team, if it was read less than FRESH_S ago (no database, so no thread needed)."""
    cached = _cache.get((actor.user_id, team, workspace))
    return cached[1] if cached is not None and time.monotonic() - cached[0] < FRESH_S else None


def gateway_team(actor: Actor, team: str, workspace: str | None = None) -> GatewayTeam:
    """The team (NotFound, as any team the caller cannot see) and its gateway section (InvalidInput
    when it has none)."""
    known = known_gateway_team(actor, team, workspace)
    if known is not None:
        return known
    now = time.monotonic()
    with reading() as uow:
        found_in = resolve_workspace(uow.session, actor, workspace)
        found = versions.current(uow.session, team, found_in.id)
        if found is None:
            raise NotFound(f"team '{team}' does not exist")
        version, definition = found
    if definition.gateway is None:
        raise InvalidInput(f"team '{team}' has no gateway section: it names no upstream MCP server "
                           "(docs/mcp-gateway.md)", "team")
    assert version.id is not None and found_in.id is not None
    result = GatewayTeam(team, version.id, found_in.id, found_in.slug, definition.gateway)
    _cache[(actor.user_id, team, workspace)] = (now, result)
    return result
