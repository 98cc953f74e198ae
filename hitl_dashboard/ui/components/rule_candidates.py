"""The Rules page's candidates (ui/states/rule_candidates.py): each with its tool, team, argument shape,
count, window and up to three examples (links, and the call's arguments as text), and "Make this
rule"; the workspace's N, T, K, which a workspace admin edits here, each error beside its field."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.new_rule import NewRuleState
from hitl_dashboard.ui.states.rule_candidates import CandidateRow, ExampleRow
from hitl_dashboard.ui.states.rule_candidates import RuleCandidatesState as C

SETTING_LABELS = (("min_approvals", "N: unchanged approvals", C.min_approvals),
                  ("window_days", "T: days of history", C.window_days),
                  ("min_agreements", "K: shadow agreements", C.min_agreements))


def _setting(name: str, label: str, value) -> rx.Component:
    control = rx.cond(
        AppState.can_manage_workspace,
        rx.input(value=value, on_change=lambda text: C.set_setting(name, text), id=f"rule-setting-{name}",
                 size="1", width="5em", input_mode="numeric"),
        rx.text(value, size="2", weight="medium", id=f"rule-setting-{name}"),
    )
    return rx.vstack(
        rx.hstack(rx.el.label(rx.text(label, size="2", as_="span"), html_for=f"rule-setting-{name}"), control,
                  align="center", spacing="2"),
        rx.cond(C.settings_error_field == name,
                rx.text(C.settings_error, size="1", color_scheme="red", role="alert", class_name="setting-error")),
        spacing="1",
    )


def settings_row() -> rx.Component:
    return rx.vstack(
        rx.hstack(*[_setting(*entry) for entry in SETTING_LABELS],
                  rx.cond(AppState.can_manage_workspace,
                          rx.button("Save", size="1", variant="soft", on_click=C.save_settings,
                                    loading=C.settings_saving, id="rule-settings-save")),
                  spacing="4", wrap="wrap", align="start"),
        rx.cond((C.settings_error != "") & (C.settings_error_field == ""),
                rx.text(C.settings_error, size="1", color_scheme="red", role="alert", id="rule-settings-error")),
        spacing="1", id="rule-settings",
    )


def _example(example: RowVar[ExampleRow]) -> rx.Component:
    return rx.hstack(
        rx.cond(example.href != "", rx.link(example.call, href=example.href, size="1"),
                rx.text(example.call, size="1")),
        rx.code(example.arguments, size="1", class_name="candidate-example", white_space="pre-wrap",
                word_break="break-all"),
        spacing="2", align="start",
    )


def _candidate(row: RowVar[CandidateRow]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.text("Approve ", rx.code(row.tool), " of ", row.team, " when ", rx.code(row.when), size="2"),
                rx.spacer(),
                rx.button("Make this rule", size="1", class_name="make-candidate-rule",
                          on_click=NewRuleState.open_from_candidate(row.team, row.tool, row.argument, row.value)),
                width="100%", align="center", wrap="wrap",
            ),
            rx.text(row.approved.to_string(), " approved unchanged, none denied, revised or edited, ", C.window,
                    size="1", color_scheme="gray", class_name="candidate-count"),
            rx.foreach(row.examples, _example),
            spacing="1", width="100%",
        ),
        width="100%", class_name="rule-candidate", data_tool=row.tool, data_argument=row.argument,
    )


def candidates_section() -> rx.Component:
    return rx.vstack(
        rx.heading("Candidates from the history", size="4", as_="h2"),
        rx.text("Calls people approved unchanged at least N times over the last T days, with no denial, revision "
                "or edit; a rule made from one starts in shadow and needs K agreements to be made active.",
                size="2", color_scheme="gray"),
        settings_row(),
        rx.cond(C.may_make, rx.cond(
            C.candidate_rows.length() > 0,
            rx.vstack(rx.foreach(C.candidate_rows, _candidate), spacing="2", width="100%", id="rule-candidates"),
            rx.text("No candidates: the history supports no rule yet.", size="2", color_scheme="gray",
                    id="no-candidates"))),
        spacing="2", width="100%", id="candidates-section",
    )
