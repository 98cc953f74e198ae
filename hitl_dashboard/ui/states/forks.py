"""Time travel on the conversation page: "Fork from here" on an agent's message (optionally with
instructions aimed at an agent, or an edited copy of that turn's message), and the fork tree (where
this conversation came from, its forks). "Replay from here" is ui/states/replays.py.

Public events are endpoints any browser can call: the conversation id comes from the page's URL,
the signed-in user is checked again, and the service refuses what the user may not do."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.conversations.forks import (
    MAX_EDITED_MESSAGE_CHARS,
    MAX_INSTRUCTIONS_CHARS,
    Branch,
    compare_with_parent,
    fork,
    fork_tree,
    parent_revisions,
    turn_message,
    turn_of_message,
)
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState, path_id

DEFAULT_TARGET = "(the agent producing the work)"


async def turn_on_page(state: AppState, conversation_id: int, seq: int) -> tuple[Actor, int]:
    """The signed-in user, checked again, and the turn that message `seq` of the conversation belongs
    to: what the fork and the replay dialogs both start from. DomainError when signed out or for a
    message of no stored turn."""
    actor = await state._signed_in_actor()
    return actor, await asyncio.to_thread(turn_of_message, actor, conversation_id, seq)


@dataclass
class BranchRow:
    id: int = 0
    href: str = ""
    label: str = ""
    status: str = ""


@dataclass
class RevisionOption:
    id: str = ""
    label: str = ""


def _branch_row(branch: Branch, *, parent: bool = False) -> BranchRow:
    label = (f"#{branch.id} {branch.title}, after turn {branch.turn}" if parent
             else f"#{branch.id} {branch.origin} after turn {branch.turn}: {branch.title}")
    return BranchRow(branch.id, routes.conversation(branch.id), label, branch.status.replace("_", " "))


class ForkState(AppState):
    dialog_open: bool = False
    fork_seq: int = 0
    fork_turn: int = 0
    instructions: str = ""
    target: str = DEFAULT_TARGET
    # The turn's agent message, to fork from an edited copy of it: the dialog opens with the text as the
    # agent wrote it; a changed text is sent as the edited message. can_edit: the turn has one to edit.
    edited_message: str = ""
    can_edit: bool = False
    _original_message: str = ""  # backend only: what the agent wrote, to tell an edit from no change
    error: rx.Field[str] = rx.field("")
    forking: rx.Field[bool] = rx.field(False)
    parent: rx.Field[list[BranchRow]] = rx.field(default_factory=list)  # none or one
    children: rx.Field[list[BranchRow]] = rx.field(default_factory=list)
    # Comparing a revision of this fork with one of its parent's.
    parent_revisions: rx.Field[list[RevisionOption]] = rx.field(default_factory=list)
    compare_parent_id: str = ""
    compare_own_id: str = ""
    compare_old: str = ""
    compare_new: str = ""
    compare_titles: list[str] = ["", ""]

    @rx.event
    async def load_tree(self):
        """on_load of the conversation page."""
        self.parent, self.children = [], []
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None:
            return
        try:
            actor = await self._signed_in_actor()
            tree = await asyncio.to_thread(fork_tree, actor, conversation_id)
        except (DomainError, PermissionDenied):  # the page shows the conversation's own error
            return
        self.parent = [_branch_row(tree.parent, parent=True)] if tree.parent else []
        self.children = [_branch_row(b) for b in tree.children]
        theirs = await asyncio.to_thread(parent_revisions, actor, conversation_id) if tree.parent else []
        self.parent_revisions = [RevisionOption(str(r.id), f"#{tree.parent.id} {r.key} r{r.number}") for r in theirs]
        self.compare_parent_id = self.parent_revisions[-1].id if theirs else ""
        self.compare_own_id, self.compare_old, self.compare_new, self.compare_titles = "", "", "", ["", ""]

    @rx.event
    async def choose_parent_revision(self, revision_id: str):
        self.compare_parent_id = str(revision_id)
        await self._compare()

    @rx.event
    async def choose_own_revision(self, revision_id: str):
        self.compare_own_id = str(revision_id)
        await self._compare()

    async def _compare(self) -> None:
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None or not self.compare_parent_id.isdigit() or not self.compare_own_id.isdigit():
            return
        try:
            actor = await self._signed_in_actor()
            theirs, ours = await asyncio.to_thread(compare_with_parent, actor, conversation_id,
                                                   int(self.compare_parent_id), int(self.compare_own_id))
        except DomainError as exc:
            self.error = str(exc)
            return
        self.compare_old, self.compare_new = theirs.content, ours.content
        self.compare_titles = [f"parent: {theirs.key} r{theirs.number}", f"this fork: {ours.key} r{ours.number}"]

    @rx.event
    async def open_fork(self, seq: int):
        self.fork_seq, self.dialog_open, self.error = int(seq), True, ""
        self.fork_turn, self.instructions, self.target = 0, "", DEFAULT_TARGET
        self.edited_message, self._original_message, self.can_edit = "", "", False
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None:
            return
        try:
            actor, self.fork_turn = await turn_on_page(self, conversation_id, self.fork_seq)
            text = await asyncio.to_thread(turn_message, actor, conversation_id, self.fork_turn)
        except DomainError as exc:  # signed out, a message of no stored turn
            self.error = str(exc)
            return
        self.can_edit = text is not None
        self.edited_message = self._original_message = text or ""

    @rx.event
    def set_dialog_open(self, value: bool):
        self.dialog_open = bool(value) and self.fork_seq > 0

    @rx.event
    def set_instructions(self, value: str):
        self.instructions, self.error = str(value)[:MAX_INSTRUCTIONS_CHARS], ""

    @rx.event
    def set_edited_message(self, value: str):
        self.edited_message, self.error = str(value)[:MAX_EDITED_MESSAGE_CHARS], ""

    @rx.event
    def set_target(self, value: str):
        self.target, self.error = str(value)[:64], ""

    @rx.event
    async def submit_fork(self):
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None or self.forking or self.fork_seq <= 0:
            return
        self.forking, self.error = True, ""
        yield
        target = None if self.target == DEFAULT_TARGET else self.target
        # Unchanged (but for surrounding blank space): a plain fork, not one from an "edited" copy.
        edited = (self.edited_message if self.can_edit and self.edited_message.strip() != self._original_message.strip()
                  else None)
        try:
            actor, turn = await turn_on_page(self, conversation_id, self.fork_seq)
            child = await asyncio.to_thread(fork, actor, conversation_id, turn, self.instructions or None,
                                            target if self.instructions.strip() else None, edited)
        except DomainError as exc:  # signed out, bad turn or agent, too long, an empty edit
            self.error = str(exc)
            return
        finally:
            self.forking = False
        self.dialog_open = False
        yield rx.redirect(routes.conversation(child.id))
