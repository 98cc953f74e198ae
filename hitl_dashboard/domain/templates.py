"""Team templates as data: who is in the team and who produces the work under review."""

from __future__ import annotations

from dataclasses import dataclass

from hitl_dashboard.domain.policies import RISK_KEYWORDS, GatePolicy

PRODUCER_BY_TASK_TYPE = {"code": "coder", "copy": "copywriter", "ops": "operator"}


@dataclass(frozen=True)
class TeamTemplate:
    name: str
    agents: tuple[str, ...]
    fixed_task_type: str | None  # None: follow the planner's "TASK TYPE:" line

    def default_policy(self, task_type: str) -> GatePolicy:
        producers = (
            (PRODUCER_BY_TASK_TYPE[task_type],) if self.fixed_task_type
            else tuple(a for a in self.agents if a in PRODUCER_BY_TASK_TYPE.values())
        )
        return GatePolicy(mode="after_agent", agents=producers, keywords=RISK_KEYWORDS[:3])


TEMPLATES: dict[str, TeamTemplate] = {
    "code": TeamTemplate("code", ("planner", "coder"), "code"),
    "copy": TeamTemplate("copy", ("planner", "copywriter"), "copy"),
    "ops": TeamTemplate("ops", ("planner", "operator"), "ops"),
    # One team that can do all three; the planner's first message decides the route.
    "auto": TeamTemplate("auto", ("planner", "coder", "copywriter", "operator"), None),
}
