"""This browser's view choices on a conversation page: which file and revisions to diff."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.services.conversations.revisions import compared_pair
from hitl_dashboard.ui.states.app_state import AppState, path_id
from hitl_dashboard.ui.views.diff_parts import DiffPart, diff_parts

MAX_KEY = 255


class ConversationPageState(AppState):
    # Empty key: follow the newest revision of the first file, live.
    diff_key: str = ""
    old_id: rx.Field[int] = rx.field(0)
    new_id: rx.Field[int] = rx.field(0)
    # The chosen pair's diff as hunks and folds (ui/views/diff_parts.py), and the revision on its new
    # side (a fold's lines are read from it).
    custom_parts: rx.Field[list[DiffPart]] = rx.field(default_factory=list)
    custom_new_id: rx.Field[int] = rx.field(0)
    split_view: bool = True

    @rx.event
    def reset_view(self):
        self.diff_key, self.old_id, self.new_id, self.custom_parts, self.custom_new_id = "", 0, 0, [], 0

    @rx.event
    async def choose(self, key: str, old_id: str, new_id: str):
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None:
            return
        try:
            key, old, new = str(key)[:MAX_KEY], int(old_id or 0), int(new_id or 0)
            actor = await self._signed_in_actor()
            pair = await asyncio.to_thread(compared_pair, actor, conversation_id, key, old or None, new or None)
        except (DomainError, TypeError, ValueError):
            return
        self.diff_key, self.old_id, self.new_id = key, old, new
        self.custom_parts, self.custom_new_id = diff_parts(pair.old, pair.new), pair.new_id

    @rx.event
    async def choose_key(self, key: str):
        return await self.choose(key, "0", "0")

    @rx.event
    async def choose_old(self, old_id: str):
        return await self.choose(self.diff_key, old_id, str(self.new_id))

    @rx.event
    async def choose_new(self, new_id: str):
        return await self.choose(self.diff_key, str(self.old_id), new_id)

    @rx.event
    def toggle_split(self):
        self.split_view = not self.split_view
