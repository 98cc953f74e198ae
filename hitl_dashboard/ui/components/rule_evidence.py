"""A rule's evidence (ui/states/rule_evidence.py): every disagreement and the latest agreements, each
call with its arguments as text, what the rule would have done, what the person did, who and when,
and the rule's version."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.rule_evidence import ObservedRow
from hitl_dashboard.ui.states.rule_evidence import RuleEvidenceState as E

COLUMNS = ("Call", "Arguments", "Rule would", "Person did", "Who", "When", "Rule version")


def _observed(row: RowVar[ObservedRow], kind: str) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.link(row.call, href=row.href, size="1")),
        rx.table.cell(rx.code(row.arguments, size="1", white_space="pre-wrap", word_break="break-all")),
        rx.table.cell(rx.text(row.would, size="1")),
        rx.table.cell(rx.text(row.did, size="1")),
        rx.table.cell(rx.text(row.by, size="1")),
        rx.table.cell(rx.text(row.at, size="1")),
        rx.table.cell(rx.text(row.version.to_string(), size="1")),
        class_name=kind, key=row.key,
    )


def _table(title: str, rows, kind: str, empty: str) -> rx.Component:
    return rx.vstack(
        rx.heading(title, size="3", as_="h3"),
        rx.cond(rows.length() > 0,
                rx.table.root(rx.table.header(rx.table.row(*[rx.table.column_header_cell(c) for c in COLUMNS])),
                              rx.table.body(rx.foreach(rows, lambda row: _observed(row, kind))),
                              size="1", variant="surface", width="100%"),
                rx.text(empty, size="2", color_scheme="gray")),
        spacing="1", width="100%",
    )


def evidence_panel() -> rx.Component:
    return rx.fragment(
        rx.cond(E.evidence_error != "", rx.text(E.evidence_error, size="2", color_scheme="red", role="alert")),
        rx.cond(E.evidence_of > 0, rx.card(rx.vstack(
            rx.hstack(rx.heading(E.evidence_title, size="4", as_="h2"), rx.spacer(),
                      rx.button("Close", size="1", variant="ghost", on_click=E.close_evidence,
                                id="rule-evidence-close"),
                      width="100%", align="center"),
            _table("Every disagreement", E.disagreement_rows, "rule-disagreement", "No disagreement."),
            _table("Latest agreements", E.agreement_rows, "rule-agreement", "No agreement yet."),
            spacing="3", width="100%",
        ), width="100%", id="rule-evidence",
            data_rule_id=E.evidence_of.to_string())),  # type: ignore[attr-defined]
    )
