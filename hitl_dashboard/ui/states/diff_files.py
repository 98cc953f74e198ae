"""Per-file view choices on the diff: which files this reviewer has marked viewed, which are folded.

"Viewed" marks live in this browser's LocalStorage, keyed by user, revision id and path, so a
mark survives a reload and lapses by itself when the file gets a new revision (a new id). Browser
storage rather than a table: a mark is a reading aid of one reviewer, not a review record, and
it needs no migration, no query on page load and no write per click."""

from __future__ import annotations

import json

import reflex as rx

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.ui.states.app_state import AppState

MAX_MARKS = 500  # the oldest marks go first: the list must not grow without end in the browser
MAX_PATH = 255


def viewed_key(user_id: int, revision_id: int, path: str) -> str:
    return f"{int(user_id)}:{int(revision_id)}:{str(path)[:MAX_PATH]}"


class DiffFilesState(AppState):
    viewed_store: str = rx.LocalStorage("[]", name="hitl_viewed", sync=True)
    # "1": long diff lines wrap instead of scrolling sideways; this browser's choice, kept across reloads.
    wrap_store: str = rx.LocalStorage("", name="hitl_diff_wrap", sync=True)
    # Files whose fold the reviewer flipped on this page (a viewed file starts folded).
    flipped: rx.Field[list[str]] = rx.field(default_factory=list)

    @rx.var
    def viewed(self) -> list[str]:
        try:
            marks = json.loads(self.viewed_store or "[]")
        except ValueError:
            return []
        return [m for m in marks if isinstance(m, str)] if isinstance(marks, list) else []

    @rx.event
    async def toggle_viewed(self, revision_id: int, path: str):
        """Changes only this browser's own marks, for the user signed in here (the key is built from
        the server's user id, never from an argument)."""
        try:
            await self._signed_in_actor()
        except PermissionDenied:
            return
        try:
            key = viewed_key(self.user_id, revision_id, path)
        except (TypeError, ValueError):  # a forged event: nothing to mark
            return
        marks = [m for m in self.viewed if m != key]
        if len(marks) == len(self.viewed):
            marks.append(key)
        self.viewed_store = json.dumps(marks[-MAX_MARKS:])
        # Marking a file viewed folds it, unmarking unfolds it: forget a flip made before.
        self.flipped = [p for p in self.flipped if p != str(path)[:MAX_PATH]]

    @rx.var
    def wrap(self) -> bool:
        return self.wrap_store == "1"

    @rx.event
    def toggle_wrap(self):
        """A reading choice of this browser only: nothing to protect."""
        self.wrap_store = "" if self.wrap_store == "1" else "1"

    @rx.event
    def toggle_fold(self, path: str):
        """This page's fold of one file: view state of this browser only, nothing to protect."""
        path = str(path)[:MAX_PATH]
        if path in self.flipped:
            self.flipped = [p for p in self.flipped if p != path]
        else:
            self.flipped = (self.flipped + [path])[-200:]

    @rx.event
    def reset_folds(self):
        self.flipped = []
