"""The team editor's team-wide fields (issue 30): description, Python version, speaker order, the
gate policy, who approves tool calls, and the review deadline per role."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.domain.findings import PYTHON_VERSIONS, SEVERITIES
from hitl_dashboard.ui.components.team_fields import field, problem, select, text_input
from hitl_dashboard.ui.states.admin_teams import AdminTeamsState as Teams
from hitl_dashboard.ui.views.formatting import ROLE_LABELS
from hitl_dashboard.ui.views.team_form import REVIEW_ROLES, SlaRow

GATE_MODES = {"after_agent": "After a turn of the gated agents", "on_done": "When the work is done",
              "never": "Never (rules and tools only)"}
SPEAKER_MODES = {"planner_then_producer": "Planner, then the producer", "round_robin": "Each agent in turn",
                 "model_selected": "The planner's model picks"}
GRID = {"columns": rx.breakpoints(initial="1", sm="2"), "spacing": "3", "width": "100%"}


def scalar(label: str, name: str, key: str, hint: str = "", **props) -> rx.Component:
    return field(label, text_input(getattr(Teams, name), lambda v: Teams.set_field(name, v),
                                   f"team-{name.replace('_', '-')}", **props), key, hint)


def choice(label: str, name: str, key: str, choices, none: str = "") -> rx.Component:
    return field(label, select(choices, getattr(Teams, name), lambda v: Teams.set_field(name, v),
                               f"team-{name.replace('_', '-')}", label, none=none), key)


def team_fields() -> rx.Component:
    return rx.vstack(
        rx.heading("Team", size="3", as_="h2"),
        rx.grid(
            scalar("Description", "description", "description"),
            choice("Python of its code", "python_version", "python_version", {v: v for v in PYTHON_VERSIONS}),
            choice("Who speaks next", "speaker_mode", "speaker_order.mode", SPEAKER_MODES),
            choice("Planner", "planner", "speaker_order.planner", Teams.agent_names, none="no planner"),
            **GRID),
        spacing="2", width="100%",
    )


def gate_fields() -> rx.Component:
    return rx.vstack(
        rx.heading("Gates", size="3", as_="h2"),
        rx.grid(
            choice("When the agents stop", "gate_mode", "gates.mode", GATE_MODES),
            scalar("Gated agents", "gate_agents", "gates.agents", "comma separated; empty: the producer"),
            scalar("Keywords", "keywords", "gates.keywords", "Comma separated; any of them in a message opens a "
                   "review", placeholder="DROP TABLE, rm -rf"),
            scalar("Regex", "regex", "gates.regex", placeholder="optional"),
            scalar("Minimum confidence", "min_confidence", "gates.min_confidence", placeholder="0 to 1, optional"),
            choice("Findings that stop", "min_severity", "gates.min_finding_severity", {s: f"{s} and above"
                                                                                        for s in SEVERITIES},
                   none="none"),
            scalar("Turns without a review, at most", "max_turns", "gates.max_turns_without_review"),
            choice("Tool calls approved by", "tool_approver", "tool_approver",
                   {r: ROLE_LABELS.get(r, r) for r in REVIEW_ROLES}),
            **GRID),
        rx.foreach(Teams.stale_gate_tools, lambda name: rx.checkbox(
            "gates.tools lists " + name + ", not a tool of this team", checked=True, size="1", color_scheme="red",
            on_change=lambda on: Teams.toggle_gate_tool(name, on))),
        problem("gates.tools"), problem("gates"),
        spacing="2", width="100%",
    )


def sla_row(row: SlaRow, index: rx.Var[int]) -> rx.Component:
    return field(rx.match(row.role, *ROLE_LABELS.items(), row.role),
                 rx.input(value=row.hours, on_change=lambda v: Teams.set_sla(index, v), size="2", width="100%",
                          placeholder="server default", id="sla-" + row.role, inputmode="decimal"),
                 "sla_hours." + row.role)


def sla_fields() -> rx.Component:
    return rx.vstack(
        rx.heading("Review deadline (hours) per role", size="3", as_="h2"),
        rx.grid(rx.foreach(Teams.sla, sla_row), columns=rx.breakpoints(initial="1", sm="4"), spacing="3",
                width="100%", id="team-sla"),
        spacing="2", width="100%",
    )
