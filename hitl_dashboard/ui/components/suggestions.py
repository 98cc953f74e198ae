"""Suggested lines on the diff: the comment form's "Suggest a change" part (the exact lines that
replace the commented line, or a range of lines from it), and the list of suggestions sent with
revisions, each marked with what the next revision did with it (ui/views/suggestion_rows.py)."""

from __future__ import annotations

import reflex as rx
from reflex.vars.base import Var

from hitl_dashboard.ui.components.diff_text import side_text
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.conversation_page import ConversationPageState as Page
from hitl_dashboard.ui.states.decision import DecisionState as D
from hitl_dashboard.ui.states.feeds import ConversationFeed as Feed
from hitl_dashboard.ui.views.suggestion_rows import SuggestionRow

_MONO = {"font_family": "var(--code-font-family, monospace)", "white_space": "pre", "overflow_x": "auto"}


def _line_text() -> Var:
    """The commented line as the diff shows it on its new side (the compared pair's newer text, or
    the file's newest revision), from the texts the browser rebuilt for the diff (a line the reviewer
    could click is never a folded one: its own text is there)."""
    newest = (f"(({Feed.revisions} ?? []).filter((r) => r.key === {D.comment_key} && r.latest)"
              ".at(-1) ?? {parts: [], id: 0})")
    newest_parts: Var = Var(_js_expr=f"{newest}.parts", _var_data=Var.create([Feed.revisions, D.comment_key])
                       ._get_all_var_data())
    newest_id: Var = Var(_js_expr=f"{newest}.id", _var_data=newest_parts._get_all_var_data())
    compared = f"({Page.diff_key} !== '' && {Page.diff_key} === {D.comment_key})"
    custom = side_text(Page.custom_parts, Page.custom_new_id, "new")
    code = (f"((({compared} ? {custom} : {side_text(newest_parts, newest_id, 'new')}) ?? '')"
            f".split('\\n')[{D.comment_line} - 1] ?? '')")
    return Var(_js_expr=code, _var_type=str, _var_data=Var.create(
        [Feed.revisions, D.comment_key, D.comment_line, Page.diff_key, custom, newest_parts])._get_all_var_data())


def suggestion_fields() -> rx.Component:
    """Under the comment input: a switch, then the replacement lines and the last line they replace."""
    return rx.vstack(
        rx.el.label(
            # Opens with the line as it reads now (as on GitHub): a reviewer edits it, not retypes it.
            rx.checkbox(checked=D.comment_suggest, on_change=lambda _checked: D.toggle_suggest(_line_text()),
                        id="line-comment-suggest", aria_label="Suggest a change"),
            rx.text("Suggest a change: the exact lines that replace this one", size="1"),
            style={"display": "flex", "alignItems": "center", "gap": "0.4em", "cursor": "pointer"},
        ),
        rx.cond(D.comment_suggest, rx.vstack(
            rx.text_area(value=D.comment_suggestion, on_change=D.set_comment_suggestion, rows="4", width="100%",
                         placeholder="Replacement lines, exactly as they should read (empty: delete the lines)",
                         id="line-comment-suggestion", aria_label="Suggested lines", style=_MONO),
            rx.hstack(
                rx.text("Replaces lines ", D.comment_line.to_string(), " to", size="1"),
                rx.input(value=D.comment_end, on_change=D.set_comment_end, placeholder=D.comment_line.to_string(),
                         width="6em", id="line-comment-end", aria_label="Last line the suggestion replaces",
                         input_mode="numeric"),
                align="center", spacing="2", wrap="wrap",
            ),
            spacing="1", width="100%",
        )),
        spacing="1", width="100%",
    )


def suggestion_draft(comment) -> rx.Component:
    """The lines of a suggestion in the reviewer's draft, under its comment."""
    return rx.cond(comment.contains("suggestion"), rx.el.pre(
        rx.cond(comment["suggestion"] != "", comment["suggestion"], "(delete the lines)"),
        class_name="line-comment-suggestion", style={**_MONO, "margin": "0", "font_size": "0.85em"},
    ))


def _outcome(row: RowVar[SuggestionRow]) -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.badge(row.state, color_scheme=row.color, class_name="suggestion-state"),
            rx.code(row.key, " ", row.span),
            rx.text(row.revisions, " · from ", row.reviewer, size="1", color_scheme="gray"),
            rx.text(row.detail, size="1", class_name="suggestion-detail"),
            align="center", spacing="2", wrap="wrap", width="100%",
        ),
        rx.cond(row.text != "", rx.text(row.text, size="1")),
        rx.el.pre(row.lines, style={**_MONO, "margin": "0", "font_size": "0.85em", "max_width": "100%"}),
        spacing="1", width="100%", class_name="suggestion", data_state=row.state,
    )


def suggestion_outcomes() -> rx.Component:
    return rx.cond(Feed.suggestions.length() > 0, rx.vstack(
        rx.text("Suggested changes", size="2", weight="medium"),
        rx.foreach(Feed.suggestions, _outcome),
        spacing="2", width="100%", id="suggestions",
    ))
