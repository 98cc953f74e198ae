"""Time travel on the conversation page: "Fork from here" and "Replay from here" on an agent's
message, the dialogs they open, and the fork tree (parent and children, with the turn each started
after). Every input of the dialogs has a visible label tied to it (not only a placeholder)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.diff_viewer import diff_viewer, narrow_viewport
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.feeds import ConversationFeed
from hitl_dashboard.ui.states.forks import DEFAULT_TARGET, BranchRow
from hitl_dashboard.ui.states.forks import ForkState as F
from hitl_dashboard.ui.states.replays import ReplayState as R
from hitl_dashboard.ui.views.conversation_view import MessageRow


def time_travel_buttons(message: RowVar[MessageRow]) -> rx.Component:
    """On an agent's message: fork after its turn, or run its turn again."""
    return rx.cond(
        message.is_agent,
        rx.hstack(
            rx.tooltip(
                rx.icon_button(rx.icon("git-branch", size=14), size="1", variant="ghost", color_scheme="gray",
                               on_click=F.open_fork(message.seq), class_name="fork-from-here",
                               aria_label="Fork from here"),
                content="Fork from here: a new conversation from the state after this turn",
            ),
            rx.tooltip(
                rx.icon_button(rx.icon("rotate-ccw", size=14), size="1", variant="ghost", color_scheme="gray",
                               on_click=R.open_replay(message.seq), class_name="replay-from-here",
                               aria_label="Replay from here"),
                content="Replay from here: run this turn again with the same input, as a new conversation",
            ),
            spacing="1",
        ),
    )


def _label(text: str, for_id: str) -> rx.Component:
    return rx.el.label(text, html_for=for_id, id=f"{for_id}-label",
                       style={"fontSize": "var(--font-size-2)", "fontWeight": "500"})


def _edited_message() -> rx.Component:
    return rx.cond(
        F.can_edit,
        rx.vstack(
            _label("This turn's message (edit it to fork from your version)", "fork-edited-message"),
            rx.text_area(value=F.edited_message, on_change=F.set_edited_message, id="fork-edited-message",
                         width="100%", rows="8", aria_describedby="fork-edited-message-hint",
                         style={"fontFamily": "var(--code-font-family)", "fontSize": "12px"}),
            rx.text("Left as it is, the fork starts from the message as the agent wrote it.", size="1",
                    color_scheme="gray", id="fork-edited-message-hint"),
            spacing="1", width="100%",
        ),
        rx.text("This turn has no single agent message to edit (a tool call, say).", size="1", color_scheme="gray",
                id="fork-edited-message-none"),
    )


def fork_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Fork from here"),
            rx.dialog.description(
                rx.cond(F.fork_turn > 0, rx.text.span("After turn ", F.fork_turn, ": ")),
                "a new conversation starts from exactly the team state after this turn, with the transcript up "
                "to it. Reviews and approvals do not carry over, and you cannot sign off a fork you started.",
                size="2",
            ),
            rx.vstack(
                rx.vstack(
                    _label("New instructions for the agents (optional)", "fork-instructions"),
                    rx.text_area(value=F.instructions, on_change=F.set_instructions, id="fork-instructions",
                                 placeholder="e.g. add a timeout to every call", width="100%", rows="4"),
                    spacing="1", width="100%",
                ),
                rx.hstack(
                    _label("Agent the instructions are for", "fork-target"),
                    rx.select.root(
                        rx.select.trigger(id="fork-target", aria_labelledby="fork-target-label"),
                        rx.select.content(
                            rx.select.item(DEFAULT_TARGET, value=DEFAULT_TARGET),
                            rx.foreach(ConversationFeed.agents, lambda agent: rx.select.item(agent, value=agent)),
                        ),
                        value=F.target, on_change=F.set_target, size="2",
                    ),
                    align="center", spacing="2", wrap="wrap",
                ),
                _edited_message(),
                *_dialog_footer(F.error, "fork-error", rx.button("Fork", on_click=F.submit_fork, loading=F.forking,
                                                                 id="fork-submit")),
                spacing="3", width="100%", margin_top="0.8em",
            ),
            max_width="640px",
        ),
        open=F.dialog_open,
        on_open_change=F.set_dialog_open,
    )


def _dialog_footer(error: rx.Var[str], error_id: str, action: rx.Component) -> tuple[rx.Component, rx.Component]:
    """What the fork and the replay dialogs end with: the refusal, if any, then Cancel and the action."""
    return (
        rx.cond(error != "", rx.text(error, color_scheme="red", size="2", id=error_id, role="alert")),
        rx.hstack(rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray")), action,
                  justify="end", width="100%", spacing="2"),
    )


def replay_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Replay from here"),
            rx.dialog.description(
                rx.cond(R.replay_turn > 0, rx.text.span("Turn ", R.replay_turn, " runs again: ")),
                "a new conversation starts from the team state before this turn, with the transcript up to it, and "
                "the agents get the same input this turn had (new model calls), so you can compare their answers. "
                "Reviews and approvals do not carry over.",
                size="2",
            ),
            rx.vstack(
                *_dialog_footer(R.replay_error, "replay-error",
                                rx.button("Replay", on_click=R.submit_replay, loading=R.replaying, id="replay-submit")),
                spacing="3", width="100%", margin_top="0.8em",
            ),
            max_width="520px",
        ),
        open=R.replay_open,
        on_open_change=R.set_replay_open,
    )


def _branch_link(row: RowVar[BranchRow]) -> rx.Component:
    return rx.hstack(
        rx.link(row.label, href=row.href, size="2", class_name="fork-link"),
        rx.badge(row.status, size="1", variant="soft"),
        align="center", spacing="2",
    )


def _select(placeholder: str, items, value, on_change, id_: str) -> rx.Component:
    return rx.select.root(rx.select.trigger(placeholder=placeholder, id=id_, aria_label=placeholder),
                          rx.select.content(items), value=value, on_change=on_change, size="1")


def compare_with_parent() -> rx.Component:
    """A revision of this fork against one of its parent's (the diff panel compares within one conversation)."""
    return rx.cond(
        (F.parent_revisions.length() > 0) & (ConversationFeed.revisions.length() > 0),
        rx.vstack(
            rx.hstack(
                rx.text("Compare with the parent:", size="2", weight="medium"),
                _select("parent's revision",
                        rx.foreach(F.parent_revisions, lambda r: rx.select.item(r.label, value=r.id)),
                        F.compare_parent_id, F.choose_parent_revision, "fork-compare-parent"),
                rx.icon("arrow-right", size=14),
                _select("this fork's revision",
                        rx.foreach(ConversationFeed.revisions,
                                   lambda r: rx.select.item(r.label, value=r.id.to_string())),
                        F.compare_own_id, F.choose_own_revision, "fork-compare-own"),
                align="center", spacing="2", wrap="wrap",
            ),
            rx.cond(F.compare_titles[1] != "", rx.box(
                # One column on a phone (two halves there leave neither readable): its one title
                # names both sides.
                diff_viewer(old_value=F.compare_old, new_value=F.compare_new,
                            left_title=rx.cond(narrow_viewport, F.compare_titles[0] + " → " + F.compare_titles[1],
                                               F.compare_titles[0]),
                            right_title=F.compare_titles[1], split_view=~narrow_viewport),
                width="100%", overflow_x="auto", font_size="12px", id="fork-compare-diff",
            )),
            spacing="2", width="100%",
        ),
    )


def fork_tree() -> rx.Component:
    """Shown only for a conversation with a parent or forks."""
    return rx.cond(
        (F.parent.length() > 0) | (F.children.length() > 0),
        rx.card(
            rx.vstack(
                rx.cond(F.parent.length() > 0, rx.hstack(rx.text("Forked from", size="2", weight="medium"),
                                                         rx.foreach(F.parent, _branch_link), align="center")),
                rx.cond(F.children.length() > 0, rx.vstack(
                    rx.text("Forks of this conversation", size="2", weight="medium"),
                    rx.foreach(F.children, _branch_link), spacing="1")),
                compare_with_parent(),
                spacing="2", width="100%",
            ),
            width="100%", id="fork-tree",
        ),
    )
