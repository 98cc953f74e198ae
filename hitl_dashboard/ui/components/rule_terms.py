"""The fields both rule forms share (ui/states/rule_terms.py): per declared argument a tick and its
values, one per line (one value: equals, several: one of), then the expiry and the daily cap, each
with its error beside it. Values are shown as text in inputs, never as markup."""

from __future__ import annotations

from typing import Any

import reflex as rx

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.rule_terms import ConditionRow


def field_error(form: Any, field: Any) -> rx.Component:
    """form: a RuleTermsForm state class; its error, shown only beside the field it names."""
    return rx.cond((form.error != "") & (form.error_field == field),
                   rx.text(form.error, color_scheme="red", size="1", class_name="rule-field-error", role="alert"))


def _condition(form: Any, prefix: str, row: RowVar[ConditionRow], index: rx.Var[int]) -> rx.Component:
    field = "condition." + index.to_string()
    return rx.vstack(
        rx.hstack(
            rx.checkbox(checked=row.kept, on_change=lambda kept: form.keep_condition(index, kept),
                        id=f"{prefix}-keep-" + index.to_string(), aria_label="Use this condition"),
            rx.el.label(rx.code(row.argument), " ", rx.text(row.json_type, as_="span", size="1", color_scheme="gray"),
                        html_for=f"{prefix}-values-" + index.to_string()),
            align="center", spacing="2",
        ),
        rx.text_area(value=row.text, on_change=lambda text: form.set_condition_values(index, text),
                     rows="2", width="100%", font_family="monospace", disabled=~row.kept,
                     id=f"{prefix}-values-" + index.to_string(), class_name="rule-condition-values",
                     placeholder="one value per line (several: any of them)"),
        field_error(form, field),
        spacing="1", width="100%", class_name="rule-condition", data_argument=row.argument,
    )


def rule_terms_fields(form: Any, prefix: str) -> rx.Component:
    """prefix: the element ids' (one form of each kind per page)."""
    return rx.vstack(
        rx.text("Conditions: every ticked one must hold. Untick to widen; add a value on a new line to accept "
                "several.", size="1", color_scheme="gray"),
        rx.foreach(form.conditions, lambda row, index: _condition(form, prefix, row, index)),
        field_error(form, "conditions"),
        rx.hstack(
            rx.el.label(rx.text("Expires after (days)", size="2", as_="span"), html_for=f"{prefix}-expires"),
            rx.input(value=form.expires_days, on_change=form.set_expires_days, width="6em", id=f"{prefix}-expires",
                     input_mode="numeric"),
            rx.el.label(rx.text("Daily cap (optional)", size="2", as_="span"), html_for=f"{prefix}-cap"),
            rx.input(value=form.daily_cap, on_change=form.set_daily_cap, width="6em", id=f"{prefix}-cap",
                     input_mode="numeric", placeholder="none"),
            align="center", spacing="2", wrap="wrap",
        ),
        field_error(form, "expires_in_days"),
        field_error(form, "daily_cap"),
        spacing="2", width="100%",
    )
