"""This browser's view choices on a conversation page: which file and revisions to diff."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.services.conversations.revisions import revision_contents
from hitl_dashboard.ui.states.app_state import AppState, path_id


class ConversationPageState(AppState):
    # Empty key: follow the newest revision of the first file, live.
    diff_key: str = ""
    old_id: int = 0
    new_id: int = 0
    custom_old: rx.Field[str] = rx.field("")
    custom_new: rx.Field[str] = rx.field("")
    split_view: bool = True

    @rx.event
    def reset_view(self):
        self.diff_key, self.old_id, self.new_id, self.custom_old, self.custom_new = "", 0, 0, "", ""

    @rx.event
    async def choose(self, key: str, old_id: str, new_id: str):
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None:
            return
        actor = await self._signed_in_actor()
        self.diff_key, self.old_id, self.new_id = key, int(old_id or 0), int(new_id or 0)
        self.custom_old, self.custom_new = await asyncio.to_thread(
            revision_contents, actor, conversation_id, key, self.old_id or None, self.new_id or None)

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
