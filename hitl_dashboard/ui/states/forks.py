"""Time travel on the conversation page: "Fork from here" on an agent's message (optionally with
instructions aimed at an agent), and the fork tree (where this conversation came from, its forks).

Public events are endpoints any browser can call: the conversation id comes from the page's URL,
the signed-in user is checked again, and the service refuses what the user may not do."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.services.conversations.forks import (
    MAX_INSTRUCTIONS_CHARS,
    Branch,
    fork,
    fork_tree,
    turn_of_message,
)
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState, path_id

DEFAULT_TARGET = "(the agent producing the work)"


@dataclass
class BranchRow:
    id: int = 0
    href: str = ""
    label: str = ""
    status: str = ""


def _branch_row(branch: Branch, *, parent: bool = False) -> BranchRow:
    label = (f"#{branch.id} {branch.title}, after turn {branch.turn}" if parent
             else f"#{branch.id} {branch.origin} after turn {branch.turn}: {branch.title}")
    return BranchRow(branch.id, routes.conversation(branch.id), label, branch.status.replace("_", " "))


class ForkState(AppState):
    dialog_open: bool = False
    fork_seq: int = 0
    instructions: str = ""
    target: str = DEFAULT_TARGET
    error: str = ""
    forking: bool = False
    parent: list[BranchRow] = []  # none or one
    children: list[BranchRow] = []

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

    @rx.event
    def open_fork(self, seq: int):
        self.fork_seq, self.dialog_open, self.error = int(seq), True, ""
        self.instructions, self.target = "", DEFAULT_TARGET

    @rx.event
    def set_dialog_open(self, value: bool):
        self.dialog_open = bool(value) and self.fork_seq > 0

    @rx.event
    def set_instructions(self, value: str):
        self.instructions, self.error = str(value)[:MAX_INSTRUCTIONS_CHARS], ""

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
        try:
            actor = await self._signed_in_actor()
            turn = await asyncio.to_thread(turn_of_message, actor, conversation_id, self.fork_seq)
            child = await asyncio.to_thread(fork, actor, conversation_id, turn, self.instructions or None,
                                            target if self.instructions.strip() else None)
        except DomainError as exc:  # signed out, bad turn or agent, too long
            self.error = str(exc)
            return
        finally:
            self.forking = False
        self.dialog_open = False
        yield rx.redirect(routes.conversation(child.id))
