"""Calls that needed no approval are recorded as audit events (`mcp.forwarded`: who, which team,
server, tool, arguments, whether the upstream answered with an error, how long it took), written in
batches after the answer went back, so recording adds nothing to the call's latency. A gateway
killed between a call and the next write (at most FLUSH_S) loses those records; the calls ran."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.services.transactions import transaction

FLUSH_S = 0.5  # how often the adapter writes what was noted
MAX_NOTED = 10_000  # beyond it a write is overdue: the oldest records are counted, not kept


@dataclass(frozen=True)
class ForwardedCall:
    actor: str
    token: str
    workspace_id: int
    team: str
    server: str
    tool: str
    arguments: dict[str, Any]
    is_error: bool
    ms: float
    client: str


class CallLog:
    def __init__(self) -> None:
        self._noted: list[ForwardedCall] = []
        self._dropped = 0
        self._lock = threading.Lock()

    def note(self, call: ForwardedCall) -> None:
        with self._lock:
            if len(self._noted) >= MAX_NOTED:
                self._noted.pop(0)
                self._dropped += 1
            self._noted.append(call)

    def write(self) -> int:
        """Stores what was noted, in one transaction; how many calls."""
        with self._lock:
            noted, self._noted = self._noted, []
            dropped, self._dropped = self._dropped, 0
        if not noted:
            return 0
        with transaction() as uow:
            for call in noted:
                append_audit(uow.session, actor=call.actor, action="mcp.forwarded", workspace_id=call.workspace_id,
                             details={"team": call.team, "server": call.server, "tool": call.tool,
                                      "arguments": call.arguments, "is_error": call.is_error,
                                      "ms": round(call.ms, 2), "token": call.token, "client": call.client,
                                      **({"unrecorded_before": dropped} if dropped else {})})
                dropped = 0
        return len(noted)


call_log = CallLog()  # one per process: the HTTP gateway and the stdio one both write it
