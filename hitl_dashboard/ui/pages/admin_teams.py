"""Admin teams page (issue 10): the teams with their newest versions; one team's review rules and
prompts as a form, or its whole file as YAML; saving makes a new version (conversations already
running keep theirs). Problems show at their field, and all of them above the Save button."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.access import guarded
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.admin_teams import AdminTeamsState as Teams
from hitl_dashboard.ui.states.admin_teams import TeamRow, TrialRow
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import ROLE_LABELS
from hitl_dashboard.ui.views.team_form import APPROVALS, AgentRow, ChainRow, SlaRow, ToolRow

DENIED = "You need the admin role to manage teams."
GATE_MODES = {"after_agent": "After a turn of the gated agents", "on_done": "When the work is done",
              "never": "Never (rules and tools only)"}


def problem(path: str | rx.Var) -> rx.Component:
    # Teams.errors: a dict state var, an ObjectVar when read on the class; mypy sees a dict.
    return rx.cond(Teams.errors.contains(path),  # type: ignore[attr-defined]
                   rx.text(Teams.errors[path], size="1", color_scheme="red", class_name="field-error", role="alert"))  # type: ignore[index]


def field(label: str, control: rx.Component, path: str | rx.Var, hint: str = "") -> rx.Component:
    return rx.vstack(
        rx.el.label(rx.text(label, size="1", weight="medium"), control, style={"width": "100%"}),
        rx.cond(hint != "", rx.text(hint, size="1", color_scheme="gray")) if hint else rx.fragment(),
        problem(path), spacing="1", width="100%",
    )


def text_field(label: str, name: str, path: str, hint: str = "", **props) -> rx.Component:
    return field(label, rx.input(value=getattr(Teams, name), on_change=lambda v: Teams.set_field(name, v),
                                 size="2", width="100%", id=f"team-{name.replace('_', '-')}", **props), path, hint)


def options(values, value, on_change, id_, label) -> rx.Component:
    """values: {key: label}, or a list Var of keys (the team's model names)."""
    if isinstance(values, rx.Var):
        content = rx.select.content(rx.foreach(values, lambda v: rx.select.item(v, value=v)))
    else:
        content = rx.select.content(*[rx.select.item(text, value=key) for key, text in values.items()])
    return rx.select.root(rx.select.trigger(width="100%", id=id_, aria_label=label), content,
                          value=value, on_change=on_change, size="2")


def team_row(row: RowVar[TeamRow]) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.button(row.name, variant=rx.cond(Teams.selected == row.name, "solid", "ghost"),
                                           size="1", on_click=Teams.select(row.name), class_name="team-pick")),
        rx.table.cell(rx.hstack(
            rx.text("v", row.version, size="2"),
            rx.cond(row.problems.length() > 0,
                    rx.badge(rx.icon("triangle-alert", size=12), "fails the rule checks", color_scheme="amber",
                             size="1", class_name="team-warning")),
            spacing="2", align="center")),
        rx.table.cell(rx.text(row.source, size="1", color_scheme="gray", class_name="team-source")),
        rx.table.cell(rx.text(rx.cond(row.saved_by != "", row.saved_by, "from its file"), " · ", row.saved_at,
                              size="1", color_scheme="gray")),
        key=row.name, class_name="team-row", data_team=row.name,
    )


def agent_card(agent: RowVar[AgentRow], index: rx.Var[int]) -> rx.Component:
    path = "agents." + index.to_string()
    return rx.card(rx.vstack(
        rx.hstack(rx.text(agent.name, weight="bold", size="2"), rx.spacer(),
                  rx.box(options(Teams.models, agent.model, lambda v: Teams.set_agent(index, "model", v),
                                 "agent-model-" + agent.name, "Model of " + agent.name), width="12em"),
                  align="center", width="100%"),
        problem(path + ".model"),
        rx.el.label(rx.text("System prompt", size="1", weight="medium"),
                    rx.text_area(value=agent.prompt, on_change=lambda v: Teams.set_agent(index, "prompt", v),
                                 rows="4", width="100%", id="agent-prompt-" + agent.name),
                    style={"width": "100%"}),
        problem(path + ".system_prompt"),
        spacing="2", width="100%",
    ), size="1", width="100%", class_name="agent-card")


def tool_card(tool: RowVar[ToolRow], index: rx.Var[int]) -> rx.Component:
    path = "tools." + tool.name
    return rx.card(rx.vstack(
        rx.hstack(
            rx.text(tool.name, weight="bold", size="2"),
            rx.checkbox("Gate checks its calls", checked=Teams.gate_tools.contains(tool.name),
                        on_change=lambda checked: Teams.toggle_gate_tool(tool.name, checked), size="1",
                        id="gate-tool-" + tool.name),
            rx.spacer(),
            rx.box(options({a: f"approval: {a}" for a in APPROVALS}, tool.approval,
                           lambda v: Teams.set_tool(index, "approval", v), "tool-approval-" + tool.name,
                           "Approval of " + tool.name), width="12em"),
            align="center", width="100%", wrap="wrap",
        ),
        rx.cond(tool.approval == "when", rx.hstack(
            rx.input(value=tool.when_argument, on_change=lambda v: Teams.set_tool(index, "when_argument", v),
                     placeholder="argument, e.g. environment", aria_label="When argument", size="1",
                     id="tool-when-argument-" + tool.name),
            rx.text("equals", size="1"),
            rx.input(value=tool.when_equals, on_change=lambda v: Teams.set_tool(index, "when_equals", v),
                     placeholder="e.g. production", aria_label="When value", size="1",
                     id="tool-when-equals-" + tool.name),
            align="center", spacing="2",
        )),
        problem(path + ".approval"), problem(path + ".when"), problem(path),
        spacing="2", width="100%",
    ), size="1", width="100%")


def chain_row(chain: RowVar[ChainRow], index: rx.Var[int]) -> rx.Component:
    return field("Sign-off chain for " + chain.task_type + " (producer " + chain.producer + ")",
                 rx.input(value=chain.roles, on_change=lambda v: Teams.set_chain(index, v), size="2", width="100%",
                          id="chain-" + chain.task_type),
                 "task_types." + chain.task_type + ".sign_off", "Roles in order, comma separated")


def sla_row(row: RowVar[SlaRow], index: rx.Var[int]) -> rx.Component:
    return field(rx.match(row.role, *ROLE_LABELS.items(), row.role),
                 rx.input(value=row.hours, on_change=lambda v: Teams.set_sla(index, v), size="2", width="100%",
                          placeholder="server default", id="sla-" + row.role, inputmode="decimal"),
                 "sla_hours." + row.role)


def rules_form() -> rx.Component:
    return rx.vstack(
        rx.heading("Gates", size="3", as_="h2"),
        rx.grid(
            field("When the agents stop",
                  options(GATE_MODES, Teams.gate_mode, lambda v: Teams.set_field("gate_mode", v), "team-gate-mode",
                          "Gate mode"), "gates.mode"),
            text_field("Keywords", "keywords", "gates.keywords", "Comma separated; any of them in a message opens a "
                       "review", placeholder="DROP TABLE, rm -rf"),
            text_field("Regex", "regex", "gates.regex", placeholder="optional"),
            text_field("Minimum confidence", "min_confidence", "gates.min_confidence", placeholder="0 to 1, optional"),
            text_field("Turns without a review, at most", "max_turns", "gates.max_turns_without_review"),
            field("Tool calls approved by", options(ROLE_LABELS, Teams.tool_approver,
                                                    lambda v: Teams.set_field("tool_approver", v),
                                                    "team-tool-approver", "Tool approver"), "tool_approver"),
            columns=rx.breakpoints(initial="1", sm="2"), spacing="3", width="100%",
        ),
        rx.cond(Teams.tools.length() > 0, rx.vstack(
            rx.heading("Tools", size="3", as_="h2"), rx.foreach(Teams.tools, tool_card), spacing="2", width="100%")),
        rx.heading("Sign-off", size="3", as_="h2"),
        rx.foreach(Teams.chains, chain_row),
        rx.heading("Review deadline (hours) per role", size="3", as_="h2"),
        rx.grid(rx.foreach(Teams.sla, sla_row), columns=rx.breakpoints(initial="1", sm="4"), spacing="3",
                width="100%", id="team-sla"),
        rx.heading("Agents", size="3", as_="h2"),
        rx.foreach(Teams.agents, agent_card),
        spacing="3", width="100%",
    )


def yaml_view() -> rx.Component:
    return rx.vstack(
        rx.el.label(rx.text("The team file (docs/teams.md)", size="1", weight="medium"),
                    rx.text_area(value=Teams.yaml_text, on_change=Teams.set_yaml, rows="28", width="100%",
                                 id="team-yaml", spell_check=False, style={"font_family": "var(--code-font-family)"}),
                    style={"width": "100%"}),
        problem("name"),
        spacing="2", width="100%",
    )


def editor() -> rx.Component:
    return rx.card(rx.vstack(
        rx.hstack(
            rx.heading(Teams.selected, " · version ", Teams.version, size="4", as_="h2", id="team-title"),
            rx.spacer(),
            rx.segmented_control.root(
                rx.segmented_control.item("Review rules", value="form"),
                rx.segmented_control.item("YAML", value="yaml"),
                value=Teams.view, on_change=Teams.show, size="1", id="team-view",
            ),
            align="center", width="100%", wrap="wrap",
        ),
        rx.text("Saving makes a new version; conversations already running keep the version they started on.",
                size="1", color_scheme="gray"),
        rx.cond(Teams.saved_problems.length() > 0, rx.callout(
            rx.vstack(rx.text("The saved version fails today's checks. It still runs, as it did when saved; fix "
                              "these and save a new version:", weight="bold"),
                      rx.foreach(Teams.saved_problems, lambda p: rx.text(p)), spacing="1"),
            icon="triangle-alert", color_scheme="amber", id="team-saved-problems", width="100%")),
        rx.cond(Teams.view == "form", rules_form(), yaml_view()),
        rx.cond(Teams.problems.length() > 0, rx.callout(
            rx.vstack(rx.text("Not saved:", weight="bold"), rx.foreach(Teams.problems, lambda p: rx.text(p)),
                      spacing="1"),
            icon="triangle-alert", color_scheme="red", role="alert", id="team-problems", width="100%")),
        rx.cond(Teams.saved_message != "", rx.callout(Teams.saved_message, icon="check", color_scheme="green",
                                                      id="team-saved", width="100%")),
        rx.button(rx.icon("save", size=14), "Save as a new version", on_click=Teams.save, loading=Teams.saving,
                  size="2", id="save-team"),
        spacing="3", width="100%",
    ), size="2", width="100%")


def trial_row(row: RowVar[TrialRow]) -> rx.Component:
    return rx.box(
        rx.hstack(rx.badge(row.agent, variant="soft"), rx.cond(row.kind != "text", rx.badge(row.kind, size="1")),
                  rx.cond(row.stop != "", rx.badge("stops for a human: ", row.stop, color_scheme="amber",
                                                   class_name="trial-stop", style={"white_space": "normal"})),
                  spacing="2", align="center", wrap="wrap"),
        # Agent text: plain text, never markup.
        rx.text(row.text, size="2", style={"white_space": "pre-wrap"}, class_name="trial-text"),
        class_name="trial-message", padding="0.5em 0", border_bottom=f"1px solid {rx.color('gray', 4)}",
        width="100%",
    )


def trial_card() -> rx.Component:
    return rx.card(rx.vstack(
        rx.heading("Try it", size="3", as_="h2"),
        rx.text("Runs the draft above on the scripted model (offline, nothing spent, nothing saved) until its "
                "gate would stop for a human.", size="1", color_scheme="gray"),
        rx.hstack(
            rx.input(value=Teams.trial_task, on_change=Teams.set_trial_task, size="2", width="100%",
                     placeholder="a task, e.g. Add retry with exponential backoff to the payments client",
                     aria_label="Task to try", id="trial-task"),
            rx.button(rx.icon("play", size=14), "Try it", on_click=Teams.try_draft, loading=Teams.trying, size="2",
                      variant="soft", id="try-team"),
            width="100%", spacing="2",
        ),
        rx.cond(Teams.trial.length() > 0, rx.vstack(rx.foreach(Teams.trial, trial_row), spacing="0", width="100%",
                                                    id="trial-messages")),
        spacing="3", width="100%",
    ), size="2", width="100%")


def admin_teams_page() -> rx.Component:
    return page_layout(
        rx.heading("Teams", size="6", as_="h1"),
        guarded(
            AppState.is_admin, DENIED,
            rx.vstack(
                rx.table.root(
                    rx.table.header(rx.table.row(*[rx.table.column_header_cell(t) for t in
                                                   ("Team", "Version", "Source", "Saved")])),
                    rx.table.body(rx.foreach(Teams.rows, team_row)),
                    size="1", variant="surface", width="100%", id="teams-table",
                ),
                rx.cond(Teams.selected != "", editor()),
                rx.cond(Teams.selected != "", trial_card()),
                spacing="4", width="100%",
            ),
        ),
    )
