"""The unchanged lines a diff folded (issue 44), read when this reviewer expands them: the feed
carries only the hunks of a large file (ui/views/diff_parts.py), so a fold's lines come from the
database on demand, for this tab only, through the same check as every read (the conversation of
this page, visible to the signed-in user in their workspace)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.services.conversations.revisions import MAX_LINES_READ, revision_lines
from hitl_dashboard.ui.states.app_state import AppState, path_id

MAX_LINES_HELD = 50_000  # per tab, over all the folds it expanded; the oldest go first
MAX_LINE = 10_000_000  # no file under review is longer: a number past it is forged


@dataclass
class UnfoldedLines:
    revision_id: int = 0
    start: int = 0  # line number of lines[0] in that revision
    lines: list[str] = field(default_factory=list)


class DiffFoldsState(AppState):
    unfolded: rx.Field[list[UnfoldedLines]] = rx.field(default_factory=list)

    @rx.event
    async def expand(self, revision_id: int, start: int, count: int):
        """Lines start..start+count-1 of a revision of this page's conversation. Any browser may send
        any arguments: they are numbers or nothing happens, and the service checks the rights."""
        try:
            revision_id, start, count = int(revision_id), int(start), min(int(count), MAX_LINES_READ)
        except (TypeError, ValueError, OverflowError):
            return
        conversation_id = path_id(self.router.url.path)
        if not (0 < revision_id < 2**63 and 0 < start <= MAX_LINE) or count < 1 or conversation_id is None:
            return
        if any(u.revision_id == revision_id and u.start <= start and start + count <= u.start + len(u.lines)
               for u in self.unfolded):
            return  # already here
        try:
            actor = await self._signed_in_actor()
            lines = await asyncio.to_thread(revision_lines, actor, conversation_id, revision_id, start, count)
        except PermissionDenied:
            return
        except DomainError as exc:
            yield rx.toast.error(str(exc))
            return
        if not lines:  # past the file's end: nothing to show
            return
        held = [*self.unfolded, UnfoldedLines(revision_id, start, lines)]
        while len(held) > 1 and sum(len(u.lines) for u in held) > MAX_LINES_HELD:
            held.pop(0)
        self.unfolded = held

    @rx.event
    def forget(self):
        """A page opened: the folds of the one before are not needed (this tab's own view only)."""
        self.unfolded = []
