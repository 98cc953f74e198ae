"""/rules: the workspace's standing rules (docs/standing-rules.md). Here people make rules ("New
rule"; also from a tool call's review card, the API and the CLI), read them with their evidence and
promote (a workspace admin with an override reason), pause or revoke them; the candidates the history
supports (each one a pre-filled New rule) and the workspace's N, T, K."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.new_rule_form import new_rule_form
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.rule_candidates import candidates_section
from hitl_dashboard.ui.components.rule_evidence import evidence_panel
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.rule_evidence import RuleEvidenceState
from hitl_dashboard.ui.states.rules import RuleRow
from hitl_dashboard.ui.states.rules import RulesState as Rules

STATE_COLORS = {"shadow": "blue", "active": "green", "paused": "amber", "expired": "gray", "revoked": "gray"}


def promote_controls(row: RowVar[RuleRow]) -> rx.Component:
    """Make active; a workspace admin may do it before the evidence is in, with a recorded reason."""
    return rx.hstack(
        rx.cond(AppState.can_manage_workspace,
                rx.input(value=Rules.overrides.get(row.rule_id.to_string(), "").to(str),  # type: ignore[attr-defined]
                         on_change=lambda text: Rules.set_override(row.rule_id, text), size="1", width="14em",
                         placeholder="Override reason (admins)", class_name="rule-override-reason",
                         aria_label="Reason to make it active before its evidence is in")),
        rx.button("Make active", size="1", variant="soft", on_click=Rules.act("promote", row.rule_id)),
        spacing="1", align="center",
    )


def rule_row(row: RowVar[RuleRow]) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.text(row.rule_id.to_string(), weight="medium")),
        rx.table.cell(rx.text(row.effect, " ", rx.code(row.tool), " of ", row.team, size="1")),
        rx.table.cell(rx.code(row.when, size="1")),  # text, never markup
        rx.table.cell(rx.badge(row.state, color_scheme=rx.match(row.state, *STATE_COLORS.items(), "gray"),
                               variant="soft", class_name="rule-state"),
                      rx.text(row.state_reason, size="1", color_scheme="gray")),
        rx.table.cell(rx.text(row.owner, size="1")),
        rx.table.cell(rx.text(row.evidence, size="1")),
        rx.table.cell(rx.text(row.expires, size="1")),
        rx.table.cell(rx.hstack(
            rx.button("Evidence", size="1", variant="soft", color_scheme="gray", class_name="rule-evidence-open",
                      on_click=RuleEvidenceState.open_evidence(row.rule_id)),
            rx.cond((row.state == "shadow") | (row.state == "paused"), promote_controls(row)),
            rx.cond((row.state == "shadow") | (row.state == "active"),
                    rx.button("Pause", size="1", variant="soft", color_scheme="amber",
                              on_click=Rules.act("pause", row.rule_id))),
            rx.cond((row.state != "revoked") & (row.state != "expired"),
                    rx.button("Revoke", size="1", variant="soft", color_scheme="red", high_contrast=True,
                              on_click=Rules.act("revoke", row.rule_id))),
            spacing="2")),
        class_name="rule-row", data_rule_id=row.rule_id.to_string(), key=row.rule_id.to_string(),
    )


def rules_page() -> rx.Component:
    return page_layout(
        rx.heading("Standing rules", size="6", as_="h1"),
        rx.text("Rules that decide tool calls automatically: made here, from a review card, over the API or the CLI, "
                "tried in shadow, made active by a second person (docs/standing-rules.md).", size="2",
                color_scheme="gray"),
        rx.cond(
            AppState.signed_in,
            rx.vstack(
                new_rule_form(),
                rx.cond(Rules.error != "", rx.text(Rules.error, size="2", color_scheme="red", role="alert",
                                                   id="rules-error")),
                rx.cond(
                    Rules.rows.length() > 0,
                    rx.table.root(
                        rx.table.header(rx.table.row(*[rx.table.column_header_cell(t) for t in (
                            "Rule", "Decides", "When", "State", "Owner", "Evidence", "Expires", "")])),
                        rx.table.body(rx.foreach(Rules.rows, rule_row)),
                        size="1", variant="surface", width="100%", id="rules-table",
                    ),
                    rx.text("No standing rules in this workspace.", size="2", color_scheme="gray", id="no-rules"),
                ),
                evidence_panel(),
                candidates_section(),
                spacing="4", width="100%",
            ),
            rx.text("Loading…", color_scheme="gray", size="2"),
        ),
    )
