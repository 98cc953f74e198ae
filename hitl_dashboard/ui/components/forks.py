"""Time travel on the conversation page: the "Fork from here" button on an agent's message, the
dialog it opens, and the fork tree (parent and children, with the turn each started after)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.diff_viewer import diff_viewer
from hitl_dashboard.ui.states.feeds import ConversationFeed
from hitl_dashboard.ui.states.forks import DEFAULT_TARGET, BranchRow
from hitl_dashboard.ui.states.forks import ForkState as F
from hitl_dashboard.ui.views.conversation_view import MessageRow


def fork_button(message: MessageRow) -> rx.Component:
    return rx.cond(
        message.is_agent,
        rx.tooltip(
            rx.icon_button(rx.icon("git-branch", size=14), size="1", variant="ghost", color_scheme="gray",
                           on_click=F.open_fork(message.seq), class_name="fork-from-here",
                           aria_label="Fork from here"),
            content="Fork from here: a new conversation from the state after this turn",
        ),
    )


def fork_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Fork from here"),
            rx.dialog.description(
                "A new conversation starts from exactly the team state after this turn, with the transcript up "
                "to it. Reviews and approvals do not carry over, and you cannot sign off a fork you started.",
                size="2",
            ),
            rx.vstack(
                rx.text_area(value=F.instructions, on_change=F.set_instructions, id="fork-instructions",
                             placeholder="New instructions for the agents (optional)", width="100%", rows="4"),
                rx.hstack(
                    rx.text("For", size="2"),
                    rx.select.root(
                        rx.select.trigger(id="fork-target", aria_label="Agent the instructions are for"),
                        rx.select.content(
                            rx.select.item(DEFAULT_TARGET, value=DEFAULT_TARGET),
                            rx.foreach(ConversationFeed.agents, lambda agent: rx.select.item(agent, value=agent)),
                        ),
                        value=F.target, on_change=F.set_target, size="2",
                    ),
                    align="center", spacing="2",
                ),
                rx.cond(F.error != "", rx.text(F.error, color_scheme="red", size="2", id="fork-error")),
                rx.hstack(
                    rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray")),
                    rx.button("Fork", on_click=F.submit_fork, loading=F.forking, id="fork-submit"),
                    justify="end", width="100%", spacing="2",
                ),
                spacing="3", width="100%", margin_top="0.8em",
            ),
            max_width="520px",
        ),
        open=F.dialog_open,
        on_open_change=F.set_dialog_open,
    )


def _branch_link(row: BranchRow) -> rx.Component:
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
                diff_viewer(old_value=F.compare_old, new_value=F.compare_new, left_title=F.compare_titles[0],
                            right_title=F.compare_titles[1], split_view=True),
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
