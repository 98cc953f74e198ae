"""Approve, revise (instructions aimed at an agent), abort or skip; tool calls with editable
arguments. Every card has its own form, keyed by its review id, and submits what it shows:
the review id, version and content hash. Shown only to users who may decide; the server
checks again on submit. Below the cards, the reviews that closed lately say how they ended."""

from __future__ import annotations

import reflex as rx
from reflex.vars import StringVar

from hitl_dashboard.ui.components.badges import due_badge, kind_badge
from hitl_dashboard.ui.components.confirm import confirmed
from hitl_dashboard.ui.components.connection import page_is_stale
from hitl_dashboard.ui.components.edit_review import edit_button, editor_section
from hitl_dashboard.ui.components.questions import question_thread
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.rule_from_review import approve_with_rule_button, rule_form
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.decision import DecisionState as D
from hitl_dashboard.ui.states.feeds import ConversationFeed as Feed
from hitl_dashboard.ui.views.conversation_view import OutcomeRow, ReviewRow


def may_decide(review: RowVar[ReviewRow]) -> rx.Var[bool]:
    return AppState.roles.contains(review.role) | AppState.is_admin


def is_initiator() -> rx.Var[bool]:
    return AppState.user_id == Feed.initiator_id


def rid(review: RowVar[ReviewRow]) -> StringVar:
    return review.review_id.to_string()


def form_value(review: RowVar[ReviewRow], name: str) -> rx.Var[str]:
    # D.forms, D.errors, D.error_fields: dict state vars, ObjectVars when read on the class; mypy sees dicts.
    return D.forms[rid(review)].to(dict).get(name, "").to(str)  # type: ignore[index, attr-defined]


def set_field(review: RowVar[ReviewRow], name: str):
    return lambda value: D.set_field(review.review_id, name, value)


def element_id(name: str, review: RowVar[ReviewRow]) -> rx.Var[str]:
    return f"{name}-" + rid(review)


def card_error(review: RowVar[ReviewRow]) -> rx.Var[str]:
    # D.forms, D.errors, D.error_fields: dict state vars, ObjectVars when read on the class; mypy sees dicts.
    return D.errors.get(rid(review), "").to(str)  # type: ignore[call-overload]


def field_error(review: RowVar[ReviewRow], field: str) -> rx.Component:
    # D.forms, D.errors, D.error_fields: dict state vars, ObjectVars when read on the class; mypy sees dicts.
    return rx.cond((card_error(review) != "") & (D.error_fields.get(rid(review), "").to(str) == field),  # type: ignore[call-overload]
                   rx.text(card_error(review), color_scheme="red", size="1", class_name="field-error"))


def action_button(review: RowVar[ReviewRow], label, action: str, color: str, **props) -> rx.Component:
    busy = (D.submitting != "") | page_is_stale  # never decide on content that may be out of date
    return rx.button(
        label, color_scheme=color, loading=D.submitting == rid(review), disabled=busy,
        on_click=D.submit(review.review_id, review.version, review.content_hash, action),
        id=element_id(f"decide-{action}", review), class_name=f"decide-{action}", **props,
    )


def abort_button(review: RowVar[ReviewRow]) -> rx.Component:
    """Abort ends the whole conversation: the card's button asks first, the dialog's button submits."""
    busy = (D.submitting != "") | page_is_stale
    return confirmed(
        rx.button("Abort", color_scheme="red", variant="soft", loading=D.submitting == rid(review), disabled=busy,
                  id=element_id("decide-abort", review), class_name="decide-abort"),
        title="Abort this conversation?", confirm_label="Abort conversation",
        description="The agents stop for good and every open review closes. This cannot be undone.",
        on_confirm=D.submit(review.review_id, review.version, review.content_hash, "abort"),
        confirm_id=element_id("confirm-abort", review))


def tool_arguments(review: RowVar[ReviewRow]) -> rx.Component:
    edited = form_value(review, "args")
    is_edited = (edited != "") & (edited != review.tool_args)
    return rx.cond(
        review.kind == "tool_call",
        rx.vstack(
            rx.hstack(rx.icon("wrench", size=14), rx.code(review.tool_name), rx.text("wants to run with:", size="2"),
                      align="center"),
            rx.text_area(value=rx.cond(edited != "", edited, review.tool_args),
                         on_change=set_field(review, "args"), rows="6", width="100%", font_family="monospace",
                         id=element_id("tool-args", review), aria_label="Arguments of the tool call (JSON)"),
            # Always laid out, shown once the arguments differ: its appearing must not move the
            # buttons under a reviewer's pointer (a click meant for Approve would land elsewhere).
            rx.text("Edited: the arguments above run instead of the ones the agent proposed.", size="1",
                    color_scheme="amber", class_name="args-edited",
                    visibility=rx.cond(is_edited, "visible", "hidden"),
                    aria_hidden=rx.cond(is_edited, "false", "true")),
            field_error(review, "edited_args"),
            spacing="1", width="100%",
        ),
    )


def target_select(review: RowVar[ReviewRow]) -> rx.Component:
    target = form_value(review, "target")
    return rx.select.root(
        rx.select.trigger(id=element_id("decision-target", review), aria_label="Send the revision to"),
        rx.select.content(
            rx.select.item("the producing agent", value="default"),
            rx.foreach(Feed.agents, lambda agent: rx.select.item("@" + agent, value=agent)),
        ),
        value=rx.cond(target != "", target, "default"), on_change=set_field(review, "target"), size="1",
    )


def field_label(text: str, review: RowVar[ReviewRow], control: str, **props) -> rx.Component:
    """A visible label tied to its control (a placeholder is no name: it goes away as one types)."""
    return rx.el.label(rx.text(text, size="2", as_="span", **props), html_for=element_id(control, review))


def decision_form(review: RowVar[ReviewRow]) -> rx.Component:
    return rx.vstack(
        tool_arguments(review),
        # A tool card's box serves Deny (the agent reads why its call did not run); another card's, Revise.
        rx.cond(review.kind == "tool_call",
                field_label("Reason for denying (the agent reads it)", review, "decision-instructions",
                            weight="medium"),
                field_label("Instructions for the agent (for Revise)", review, "decision-instructions",
                            weight="medium")),
        rx.text_area(value=form_value(review, "instructions"), on_change=set_field(review, "instructions"),
                     rows="3", width="100%",
                     placeholder=rx.cond(review.kind == "tool_call", "Why should this call not run?",
                                         "What should the agent change?"),
                     id=element_id("decision-instructions", review)),
        field_error(review, "instructions"),
        rx.hstack(
            field_label("Send revision to", review, "decision-target", white_space="nowrap"),
            target_select(review),
            # No room for a visible label beside the target: the name is the aria-label.
            rx.input(value=form_value(review, "reason"), on_change=set_field(review, "reason"),
                     placeholder="Reason (required to abort)", aria_label="Reason (required to abort)",
                     width="100%", id=element_id("decision-reason", review)),
            align="center", width="100%", wrap=rx.breakpoints(initial="wrap", sm="nowrap"),
        ),
        field_error(review, "reason"),
        rx.cond(~AppState.roles.contains(review.role),
                rx.input(value=form_value(review, "override_reason"), on_change=set_field(review, "override_reason"),
                         width="100%", placeholder="Admin override: why you decide instead of the role",
                         aria_label="Admin override: why you decide instead of the role",
                         id=element_id("override-reason", review))),
        field_error(review, "override_reason"),
        rx.cond((D.comments.length() > 0) & (review.kind != "tool_call"),
                rx.text(D.comments.length().to_string(), " line comment(s) go out with a revision.", size="1",
                        color_scheme="gray")),
        rx.hstack(
            rx.cond(~is_initiator(), action_button(review, "Approve", "approve", "green")),
            rx.cond(~is_initiator(), edit_button(review, (D.submitting != "") | page_is_stale)),
            action_button(review, rx.cond(review.kind == "tool_call", "Deny", "Revise"), "revise", "amber"),
            abort_button(review),
            rx.cond(~is_initiator(), action_button(review, "Skip", "skip", "gray", variant="soft")),
            spacing="2", wrap="wrap",
        ),
        rx.cond(~is_initiator(), rx.fragment(approve_with_rule_button(review), rule_form(review))),
        rx.cond(is_initiator(), rx.text("You started this conversation, so you cannot approve it.", size="1",
                                        color_scheme="gray")),
        # D.error_fields: a dict state var, an ObjectVar when read on the class; mypy sees a dict.
        rx.cond((card_error(review) != "") & (D.error_fields.get(rid(review), "").to(str) == ""),  # type: ignore[call-overload]
                rx.callout(card_error(review), icon="triangle-alert", color_scheme="red", width="100%",
                           class_name="decision-error")),
        spacing="2", width="100%",
    )


def review_card(review: RowVar[ReviewRow]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(rx.cond(review.kind == "tool_call", "Tool call approval",
                                   review.role_label + " review"), size="3", as_="h2"),
                kind_badge(review.kind),
                rx.spacer(),
                due_badge(review.due, review.urgency, review.due_ms),
                align="center", width="100%", wrap="wrap",
            ),
            rx.text(review.reason, size="2", color_scheme="gray", class_name="review-reason"),
            rx.text("Under review: ", rx.code(review.subject), size="2"),
            rx.cond(review.assignee != "", rx.text("Claimed by ", review.assignee, size="1")),
            question_thread(review, may_decide(review)),  # questions to the agent, without deciding
            rx.cond(may_decide(review) & ~is_initiator(), editor_section(review)),
            rx.cond(may_decide(review), decision_form(review),
                    rx.text("Waiting for a ", review.role_label.lower(), " reviewer. You cannot decide this one.",
                            size="2", color_scheme="gray", class_name="cannot-decide")),
            spacing="2", width="100%",
        ),
        width="100%", class_name="review-card", data_review_id=review.review_id,
    )


def outcome_row(outcome: RowVar[OutcomeRow]) -> rx.Component:
    return rx.vstack(
        rx.hstack(rx.text(outcome.title, weight="medium", size="2"), rx.code(outcome.subject, size="1"),
                  align="center", wrap="wrap"),
        rx.text(outcome.outcome, size="2", class_name="outcome-what"),
        rx.cond(outcome.override_reason != "",
                rx.text("Admin override. Reason: ", outcome.override_reason, size="1", color_scheme="amber",
                        class_name="outcome-override")),
        rx.cond(outcome.tool != "", rx.text(outcome.tool, size="1", class_name="outcome-tool",
                                            white_space="pre-wrap", word_break="break-word")),
        spacing="1", width="100%", class_name="review-outcome", data_review_id=outcome.review_id,
    )


def decision_panel() -> rx.Component:
    return rx.vstack(
        rx.cond(D.notice != "", rx.callout(D.notice, icon="info", color_scheme="amber", width="100%",
                                           id="decision-notice")),
        rx.foreach(Feed.reviews, review_card),
        rx.cond(Feed.outcomes.length() > 0,
                rx.card(rx.vstack(rx.text("Recently closed", weight="bold", size="2"),
                                  rx.foreach(Feed.outcomes, outcome_row), spacing="2", width="100%"),
                        width="100%", id="review-outcomes", variant="surface")),
        spacing="3", width="100%", id="decision-panel",
    )
