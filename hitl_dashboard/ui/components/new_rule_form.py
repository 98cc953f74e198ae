"""The Rules page's "New rule" form (ui/states/new_rule.py): team, tool, conditions, effect (deny with
the reason the agent reads), expiry and cap; each error beside its field."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.rule_terms import field_error, rule_terms_fields
from hitl_dashboard.ui.states.new_rule import NewRuleState as N


def _labelled(text: str, control: rx.Component, for_id: str) -> rx.Component:
    return rx.hstack(rx.el.label(rx.text(text, size="2", as_="span", weight="medium"), html_for=for_id), control,
                     align="center", spacing="2")


def _select(name: str, options, value, on_change) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(id=f"new-rule-{name}", aria_label=name.capitalize(), min_width="10em"),
        rx.select.content(rx.foreach(options, lambda option: rx.select.item(option, value=option))),
        value=value, on_change=on_change, size="2",
    )


def new_rule_form() -> rx.Component:
    return rx.cond(
        N.showing,
        rx.card(
            rx.vstack(
                rx.heading("New rule", size="4", as_="h2"),
                rx.text("It starts in shadow: it decides nothing, and records what it would have done beside what "
                        "people decide, until a second person makes it active.", size="2", color_scheme="gray"),
                rx.hstack(
                    _labelled("Team", _select("team", N.teams, N.team, N.pick_team), "new-rule-team"),
                    _labelled("Tool", _select("tool", N.tools, N.tool, N.pick_tool), "new-rule-tool"),
                    spacing="4", wrap="wrap",
                ),
                field_error(N, "team"),
                field_error(N, "tool"),
                rule_terms_fields(N, "new-rule"),
                rx.radio_group.root(
                    rx.hstack(rx.radio_group.item(value="approve", id="new-rule-approve"),
                              rx.el.label("Approve them", html_for="new-rule-approve"),
                              rx.radio_group.item(value="deny", id="new-rule-deny"),
                              rx.el.label("Deny them", html_for="new-rule-deny"), align="center", spacing="2"),
                    value=N.effect, on_change=N.set_effect, aria_label="What the rule does",
                ),
                field_error(N, "effect"),
                rx.cond(N.effect == "deny", rx.vstack(
                    rx.el.label(rx.text("Reason (the agent reads it)", size="2", as_="span"),
                                html_for="new-rule-reason"),
                    rx.input(value=N.reason, on_change=N.set_reason, width="100%", id="new-rule-reason"),
                    field_error(N, "reason"),
                    spacing="1", width="100%")),
                rx.cond((N.error != "") & (N.error_field == ""),
                        rx.callout(N.error, icon="triangle-alert", color_scheme="red", width="100%",
                                   id="new-rule-error")),
                rx.hstack(
                    rx.button("Make the rule", on_click=N.save, loading=N.sending, id="new-rule-save"),
                    rx.button("Cancel", variant="ghost", on_click=N.close_form, id="new-rule-cancel"),
                    spacing="2",
                ),
                spacing="3", width="100%",
            ),
            width="100%", id="new-rule-form",
        ),
        rx.button(rx.icon("plus", size=14), "New rule", on_click=N.open_form, variant="soft", id="new-rule-open"),
    )
