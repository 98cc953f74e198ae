"""Admin teams page (issues 10 and 30): the teams with their newest versions; one team as a form
(agents and their model clients and tools, speaker order, gates, sign-off chains, SLAs) or its
whole file as YAML; saving makes a new version (conversations already running keep theirs).
Problems show at their field, in the YAML at their line, and all of them above the Save button."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.access import guarded
from hitl_dashboard.ui.components.allowed_mcp import allowed_servers
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.team_fields import problem, section_heading
from hitl_dashboard.ui.components.team_rows import agent_card, chain_row, model_card, tool_card
from hitl_dashboard.ui.components.team_rules import gate_fields, sla_fields, team_fields
from hitl_dashboard.ui.components.team_yaml import yaml_view
from hitl_dashboard.ui.states.admin_teams import AdminTeamsState as Teams
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.team_listing import TeamRow
from hitl_dashboard.ui.states.team_trial import TeamTrialState as Trial
from hitl_dashboard.ui.states.team_trial import TrialRow

DENIED = "You need to be an admin of this workspace (role workspace_admin) to manage its teams."


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


def team_form() -> rx.Component:
    return rx.vstack(
        team_fields(),
        section_heading("Agents", "Add an agent", Teams.add_row("agents"), "add-agent"),
        problem("agents"),
        rx.foreach(Teams.agents, agent_card),
        section_heading("Model clients", "Add a model client", Teams.add_row("models"), "add-model"),
        problem("models"),
        rx.foreach(Teams.models, model_card),
        section_heading("Tools", "Add a tool", Teams.add_row("tools"), "add-tool"),
        rx.text("A call whose approval mode says wait always goes to the tool approver.", size="1",
                color_scheme="gray"),
        problem("tools"),
        rx.foreach(Teams.tools, tool_card),
        gate_fields(),
        section_heading("Sign-off per task type", "Add a task type", Teams.add_row("chains"), "add-chain"),
        problem("task_types"),
        rx.foreach(Teams.chains, chain_row),
        sla_fields(),
        problem("sla_hours"),
        spacing="3", width="100%",
    )


def editor() -> rx.Component:
    return rx.card(rx.vstack(
        rx.hstack(
            rx.heading(Teams.selected, " · version ", Teams.version, size="4", as_="h2", id="team-title"),
            rx.spacer(),
            rx.segmented_control.root(
                rx.segmented_control.item("Form", value="form"),
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
        rx.cond(Teams.view == "form", team_form(), yaml_view()),
        allowed_servers(),
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
            rx.input(value=Trial.task, on_change=Trial.set_task, size="2", width="100%",
                     placeholder="a task, e.g. Add retry with exponential backoff to the payments client",
                     aria_label="Task to try", id="trial-task"),
            rx.button(rx.icon("play", size=14), "Try it", on_click=Trial.try_draft, loading=Trial.trying, size="2",
                      variant="soft", id="try-team"),
            width="100%", spacing="2",
        ),
        rx.cond(Trial.said.length() > 0, rx.vstack(rx.foreach(Trial.said, trial_row), spacing="0", width="100%",
                                                    id="trial-messages")),
        spacing="3", width="100%",
    ), size="2", width="100%")


def admin_teams_page() -> rx.Component:
    return page_layout(
        rx.heading("Teams", size="6", as_="h1"),
        guarded(
            AppState.can_manage_workspace, DENIED,
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
