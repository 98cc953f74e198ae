"""Questions to the agent: the thread under a review card, the ask box, and the diff line's button.
Questions and answers are shown as text (agent-written answers never become markup)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.feeds import ConversationFeed as Feed
from hitl_dashboard.ui.states.questions import QuestionsState as Q
from hitl_dashboard.ui.views.conversation_view import ReviewRow
from hitl_dashboard.ui.views.findings_view import QuestionRow


def question_item(q: RowVar[QuestionRow], review_id: rx.Var[int], may_ask: rx.Var[bool]) -> rx.Component:
    return rx.vstack(
        rx.hstack(rx.icon("circle-help", size=14), rx.text("Question to @", q.agent, size="1", weight="medium"),
                  rx.cond(q.about != "", rx.code(q.about, size="1")), align="center", spacing="1"),
        rx.text(q.question, size="2", class_name="question-text", white_space="pre-wrap"),
        rx.cond(
            q.status == "failed",
            _failure(q, review_id, may_ask),
            rx.cond(q.answer != "",
                    rx.box(rx.text(q.answer, size="2", class_name="answer-text", white_space="pre-wrap"),
                           rx.cond(q.model != "", rx.text("answered by ", q.model, size="1", color_scheme="gray",
                                                          class_name="answer-model")),
                           padding_left="1em", border_left="2px solid var(--accent-7)", width="100%"),
                    rx.text("Waiting for the agent's answer...", size="1", color_scheme="gray")),
        ),
        spacing="1", width="100%", class_name="question-item", data_status=q.status,
    )


def _failure(q: RowVar[QuestionRow], review_id: rx.Var[int], may_ask: rx.Var[bool]) -> rx.Component:
    """The model gave no answer: why (as text), and a retry for whoever may ask."""
    return rx.hstack(
        rx.icon("circle-alert", size=14, color="var(--red-11)"),
        rx.text("No answer: ", q.error, size="2", color_scheme="red", class_name="answer-failure",
                white_space="pre-wrap"),
        rx.cond(may_ask, rx.button("Retry", on_click=Q.retry(review_id, q.id), size="1", variant="soft",
                                   class_name="retry-question")),
        align="center", spacing="2", width="100%", role="alert",
    )


def question_thread(review: RowVar[ReviewRow], may_ask: rx.Var[bool]) -> rx.Component:
    rid = review.review_id.to_string()
    return rx.cond(
        review.kind != "tool_call",
        rx.vstack(
            rx.foreach(review.questions, lambda q: question_item(q, review.review_id, may_ask)),
            rx.cond(may_ask, rx.hstack(
                rx.input(value=Q.drafts.get(rid, ""), on_change=lambda v: Q.set_draft(review.review_id, v),
                         placeholder="Ask the agent a question", flex="1 1 16em", min_width="0", size="1",
                         aria_label="Question to the agent (the review stays open)",
                         class_name="ask-question-text", id="ask-question-" + rid),
                rx.button("Ask", on_click=Q.ask(review.review_id), size="1", variant="soft",
                          class_name="ask-question"),
                width="100%", align="center", wrap="wrap")),
            rx.cond(Q.error != "", rx.text(Q.error, size="1", color_scheme="red", class_name="question-error")),
            spacing="2", width="100%", class_name="question-thread",
        ),
    )


def ask_line_button() -> rx.Component:
    """Beside "Add comment" on a picked diff line: the text goes to the agent as a question instead,
    on the first open review of the conversation."""
    return rx.cond(
        Feed.reviews.length() > 0,
        # mypy resolves an item of an rx.Field list through the wrong Field.__get__ overload (a
        # BooleanVar); it is the first open review's row.
        rx.button("Ask the agent", on_click=Q.ask_about_line(Feed.reviews[0].review_id), size="2",  # type: ignore[attr-defined]
                  variant="soft", id="ask-line-question"),
    )
