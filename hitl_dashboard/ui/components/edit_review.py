"""Edit and approve, on a review card: the content under review opens in the code editor (one per
file, or the message); "Approve with my changes" sends what was changed (ui/states/edit_review.py)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.code_editor import EDITED_TEXTS, code_editor
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.edit_review import EditFile
from hitl_dashboard.ui.states.edit_review import EditReviewState as E
from hitl_dashboard.ui.views.conversation_view import ReviewRow


def edit_button(review: RowVar[ReviewRow], disabled: rx.Var[bool]) -> rx.Component:
    """Code and message reviews (a tool call's arguments are edited in its own box)."""
    return rx.cond(
        (review.kind != "tool_call") & (E.review_id != review.review_id),
        rx.button(rx.icon("pencil", size=14), "Edit and approve", on_click=E.open_editor(review.review_id),
                  color_scheme="green", variant="outline", disabled=disabled,
                  id="edit-approve-" + review.review_id.to_string(), class_name="edit-approve"),
    )


def _file_editor(file: RowVar[EditFile]) -> rx.Component:
    return rx.vstack(
        rx.code(file.key, size="1"),
        code_editor(file.key, file.text, file.language),
        spacing="1", width="100%",
    )


def editor_section(review: RowVar[ReviewRow]) -> rx.Component:
    return rx.cond(
        E.review_id == review.review_id,
        rx.vstack(
            rx.text("Your version. Change it here and approve it: it is stored as a revision you wrote, the next "
                    "reviewer sees what you changed, and the agents go on from it. Ctrl-F searches.", size="1",
                    color_scheme="gray"),
            rx.foreach(E.files, _file_editor),
            rx.cond(E.error != "", rx.callout(E.error, icon="triangle-alert", color_scheme="red", width="100%",
                                              id="edit-error")),
            rx.hstack(
                rx.button("Approve with my changes", color_scheme="green", loading=E.sending, id="approve-edited",
                          on_click=rx.call_script(EDITED_TEXTS, callback=E.approve_edited)),
                rx.button("Cancel", on_click=E.close_editor, variant="ghost", id="cancel-edit"),
                spacing="2", wrap="wrap",
            ),
            spacing="2", width="100%", id="review-editor",
        ),
    )
