"""Code revisions: every file of the code under review on one page, each a foldable diff with a
"viewed" mark (ui/components/diff_file.py); any two revisions of a file can be compared; click a
line number to comment on it."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.diff_file import file_section
from hitl_dashboard.ui.components.findings import findings_panel
from hitl_dashboard.ui.components.questions import ask_line_button
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.suggestions import suggestion_draft, suggestion_fields, suggestion_outcomes
from hitl_dashboard.ui.states.conversation_page import ConversationPageState as Page
from hitl_dashboard.ui.states.decision import DecisionState
from hitl_dashboard.ui.states.diff_files import DiffFilesState as Files
from hitl_dashboard.ui.states.feeds import ConversationFeed as Feed
from hitl_dashboard.ui.views.conversation_view import RevisionRow

CUSTOM = Page.diff_key != ""


def revision_item(revision: RowVar[RevisionRow]) -> rx.Component:
    return rx.cond(revision.key == Page.diff_key, rx.select.item(revision.label, value=revision.id.to_string()))


def revision_select(placeholder: str, on_change, id_: str) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(placeholder=placeholder, id=id_, aria_label=placeholder),
        rx.select.content(rx.foreach(Feed.revisions, revision_item)),
        on_change=on_change, size="1",
    )


def toolbar() -> rx.Component:
    """Compare two revisions of one file (its section then shows that pair); the split toggle."""
    return rx.hstack(
        rx.text("Compare", size="1", color_scheme="gray"),
        rx.select.root(
            rx.select.trigger(id="diff-file", aria_label="File to compare", placeholder="file"),
            rx.select.content(rx.foreach(Feed.revision_keys, lambda key: rx.select.item(key, value=key))),
            value=Page.diff_key, on_change=Page.choose_key, size="1",
        ),
        rx.cond(CUSTOM, rx.fragment(
            revision_select("older revision", Page.choose_old, "diff-old"),
            rx.icon("arrow-right", size=14),
            revision_select("newer revision", Page.choose_new, "diff-new"),
            rx.button("Newest", on_click=Page.reset_view, size="1", variant="ghost"),
        )),
        rx.spacer(),
        # Long lines: each half scrolls sideways (a scrollbar per half), or they wrap; remembered.
        rx.button(rx.cond(Files.wrap, "Scroll long lines", "Wrap long lines"), on_click=Files.toggle_wrap, size="1",
                  variant="soft", id="diff-wrap-toggle", aria_pressed=rx.cond(Files.wrap, "true", "false")),
        # Below 768 px the diff is one column whatever this says (ui/components/diff_file.py).
        rx.button(rx.cond(Page.split_view, "Unified", "Side by side"), on_click=Page.toggle_split, size="1",
                  variant="soft", display=rx.breakpoints(initial="none", sm="inline-flex"), id="diff-split-toggle"),
        align="center", spacing="2", width="100%", wrap="wrap",
    )


def comment_form() -> rx.Component:
    return rx.cond(
        DecisionState.comment_line > 0,
        rx.hstack(
            rx.badge(DecisionState.comment_key, " line ", DecisionState.comment_line.to_string()),
            rx.input(value=DecisionState.comment_text, on_change=DecisionState.set_comment_text,
                     placeholder="What should the agent change here?", id="line-comment-text",
                     flex="1 1 16em", min_width="0",
                     aria_label="Comment on " + DecisionState.comment_key + " line "
                     + DecisionState.comment_line.to_string()),
            rx.button("Add comment", on_click=DecisionState.add_comment, size="2", id="add-line-comment"),
            ask_line_button(),  # or send the text to the agent as a question about this line
            rx.button("Cancel", on_click=DecisionState.cancel_comment, size="2", variant="ghost"),
            rx.cond(DecisionState.comment_note != "", rx.text(DecisionState.comment_note, size="1",
                                                               color_scheme="amber")),
            # Wraps: on a phone the field takes a line of its own, the buttons the next.
            align="center", width="100%", wrap="wrap", id="line-comment-form",
        ),
    )


def comment_editor() -> rx.Component:
    """The comment form, and under it the suggested lines (ui/components/suggestions.py)."""
    return rx.cond(DecisionState.comment_line > 0, rx.vstack(comment_form(), suggestion_fields(),
                                                             spacing="1", width="100%", id="line-comment-editor"))


def comment_list() -> rx.Component:
    return rx.vstack(
        rx.foreach(
            DecisionState.comments,
            lambda c, i: rx.vstack(rx.hstack(
                rx.icon("message-square", size=14),
                rx.code(c["key"], ":", c["line"]),
                rx.text(c["text"], size="2"),
                rx.spacer(),
                rx.icon_button(rx.icon("x", size=12), on_click=DecisionState.remove_comment(i), size="1",
                               variant="ghost"),
                align="center", width="100%", class_name="line-comment",
            ), suggestion_draft(c), spacing="1", width="100%"),
        ),
        spacing="1", width="100%", id="line-comments",
    )


def diff_panel() -> rx.Component:
    return rx.cond(
        Feed.revisions.length() > 0,
        rx.card(
            rx.vstack(
                rx.heading("Code revisions", size="3", as_="h2"),
                toolbar(),
                rx.vstack(rx.foreach(Feed.revisions, file_section), spacing="2", width="100%", id="diff",
                          custom_attrs={"data-wrap": rx.cond(Files.wrap, "true", "false")}),
                rx.text("Click a line number to comment on that line; comments go out with a revision.",
                        size="1", color_scheme="gray"),
                findings_panel(),
                comment_editor(),
                comment_list(),
                suggestion_outcomes(),
                spacing="2", width="100%",
            ),
            width="100%",
        ),
    )
