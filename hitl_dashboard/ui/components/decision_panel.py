"""Approve, revise (instructions aimed at an agent), abort or skip; tool calls with editable
arguments. Shown only to users who may decide; the server checks again on submit."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.badges import due_badge, kind_badge
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.decision import DecisionState as D
from hitl_dashboard.ui.states.feeds import ConversationFeed as Feed
from hitl_dashboard.ui.views.conversation_view import ReviewRow


def may_decide(review: ReviewRow) -> rx.Var[bool]:
    return AppState.roles.contains(review.role) | AppState.is_admin


def is_initiator() -> rx.Var[bool]:
    return AppState.user_id == Feed.initiator_id


def field_error(field: str) -> rx.Component:
    return rx.cond((D.error != "") & (D.error_field == field),
                   rx.text(D.error, color_scheme="red", size="1", class_name="field-error"))


def action_button(review: ReviewRow, label: str, action: str, color: str, **props) -> rx.Component:
    return rx.button(
        label, color_scheme=color, loading=D.submitting, disabled=D.submitting,
        on_click=D.submit(review.review_id, review.version, review.kind, action),
        id=f"decide-{action}", **props,
    )


def tool_arguments(review: ReviewRow) -> rx.Component:
    return rx.cond(
        review.kind == "tool_call",
        rx.vstack(
            rx.hstack(rx.icon("wrench", size=14), rx.code(review.tool_name), rx.text("wants to run with:", size="2"),
                      align="center"),
            rx.text_area(value=rx.cond(D.args_text != "", D.args_text, review.tool_args),
                         on_change=D.set_args_text, rows="6", width="100%", font_family="monospace",
                         id="tool-args"),
            field_error("edited_args"),
            spacing="1", width="100%",
        ),
    )


def decision_form(review: ReviewRow) -> rx.Component:
    return rx.vstack(
        tool_arguments(review),
        rx.text_area(value=D.instructions, on_change=D.set_instructions, rows="3", width="100%",
                     placeholder="Instructions for the agent (for Revise)", id="decision-instructions"),
        field_error("instructions"),
        rx.hstack(
            rx.text("Send revision to", size="2"),
            rx.select.root(
                rx.select.trigger(id="decision-target"),
                rx.select.content(
                    rx.select.item("the producing agent", value="default"),
                    rx.foreach(Feed.agents, lambda agent: rx.select.item("@" + agent, value=agent)),
                ),
                value=rx.cond(D.target != "", D.target, "default"), on_change=D.set_target, size="1",
            ),
            rx.input(value=D.reason, on_change=D.set_reason, placeholder="Reason (required to abort)",
                     width="100%", id="decision-reason"),
            align="center", width="100%",
        ),
        field_error("reason"),
        rx.cond(~AppState.roles.contains(review.role),
                rx.input(value=D.override_reason, on_change=D.set_override_reason, width="100%",
                         placeholder="Admin override: why you decide instead of the role", id="override-reason")),
        field_error("override_reason"),
        rx.cond(D.comments.length() > 0,
                rx.text(D.comments.length().to_string(), " line comment(s) go out with a revision.", size="1",
                        color_scheme="gray")),
        rx.hstack(
            rx.cond(~is_initiator(), action_button(review, "Approve", "approve", "green")),
            action_button(review, rx.cond(review.kind == "tool_call", "Deny", "Revise"), "revise", "amber"),
            action_button(review, "Abort", "abort", "red", variant="soft"),
            rx.cond(~is_initiator(), action_button(review, "Skip", "skip", "gray", variant="soft")),
            spacing="2",
        ),
        rx.cond(is_initiator(), rx.text("You started this conversation, so you cannot approve it.", size="1",
                                        color_scheme="gray")),
        rx.cond((D.error != "") & (D.error_field == ""),
                rx.callout(D.error, icon="triangle-alert", color_scheme="red", width="100%", id="decision-error")),
        spacing="2", width="100%",
    )


def review_card(review: ReviewRow) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(review.role_label, " review", size="3"),
                kind_badge(review.kind),
                rx.spacer(),
                due_badge(review.due, review.urgency),
                align="center", width="100%",
            ),
            rx.text(review.reason, size="2", color_scheme="gray"),
            rx.text("Under review: ", rx.code(review.subject), size="2"),
            rx.cond(review.assignee != "", rx.text("Claimed by ", review.assignee, size="1")),
            rx.cond(may_decide(review), decision_form(review),
                    rx.text("Waiting for a ", review.role_label.lower(), " reviewer. You cannot decide this one.",
                            size="2", color_scheme="gray", class_name="cannot-decide")),
            spacing="2", width="100%",
        ),
        width="100%", class_name="review-card", data_review_id=review.review_id,
    )


def decision_panel() -> rx.Component:
    return rx.vstack(rx.foreach(Feed.reviews, review_card), spacing="3", width="100%", id="decision-panel")
