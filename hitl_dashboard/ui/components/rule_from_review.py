"""On a pending tool-call card: "Approve, and approve calls like this automatically" opens a small rule
form pre-filled from the call (ui/states/rule_from_review.py). Shown to those who may decide the call
or who manage the workspace; the services decide who really may."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.connection import page_is_stale
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.rule_terms import field_error, rule_terms_fields
from hitl_dashboard.ui.states.decision import DecisionState as D
from hitl_dashboard.ui.states.rule_from_review import RuleFromReviewState as RF
from hitl_dashboard.ui.views.conversation_view import ReviewRow


def approve_with_rule_button(review: RowVar[ReviewRow]) -> rx.Component:
    return rx.cond(
        (review.kind == "tool_call") & (RF.review_id != review.review_id),
        rx.button(rx.icon("list-checks", size=14), "Approve, and approve calls like this automatically",
                  on_click=RF.open_rule_form(review.review_id, review.version, review.content_hash),
                  color_scheme="green", variant="outline", disabled=(D.submitting != "") | page_is_stale,
                  # A long label: on a phone it wraps inside the button instead of widening the page.
                  white_space="normal", height="auto", min_height="var(--space-6)", text_align="left",
                  id="approve-with-rule-" + review.review_id.to_string(), class_name="approve-with-rule"),
    )


def rule_form(review: RowVar[ReviewRow]) -> rx.Component:
    return rx.cond(
        RF.review_id == review.review_id,
        rx.card(
            rx.vstack(
                rx.text("Approve this call and make a standing rule for ", rx.code(RF.tool),
                        " calls like it. The rule starts in shadow: it decides nothing until a second person "
                        "makes it active on the Rules page.", size="2"),
                rule_terms_fields(RF, "card-rule"),
                rx.cond((RF.error != "") & (RF.error_field == ""),
                        rx.callout(RF.error, icon="triangle-alert", color_scheme="red", width="100%",
                                   id="card-rule-error")),
                field_error(RF, "edited_args"),
                field_error(RF, "override_reason"),
                rx.hstack(
                    rx.button("Approve and make the rule", color_scheme="green", loading=RF.sending,
                              disabled=page_is_stale, on_click=RF.save_rule, id="card-rule-save"),
                    rx.button("Cancel", variant="ghost", on_click=RF.close_rule_form, id="card-rule-cancel"),
                    spacing="2",
                ),
                spacing="2", width="100%",
            ),
            variant="surface", width="100%", id="card-rule-form",
        ),
    )
