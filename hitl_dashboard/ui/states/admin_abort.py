"""An admin stops a conversation from its page, whatever state it is in.

Public events are endpoints any browser can call: the service checks the signed-in user is an
admin; the conversation id comes from the page's URL, the reason from the form."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.services.conversations.conversations import MAX_REASON_CHARS, abort_conversation
from hitl_dashboard.ui.states.app_state import AppState, path_id


class AdminAbortState(AppState):
    abort_reason: str = ""
    abort_error: str = ""
    aborting: bool = False

    @rx.event
    def set_abort_reason(self, value: str):
        self.abort_reason, self.abort_error = value[:MAX_REASON_CHARS], ""

    @rx.event
    async def abort(self):
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None or self.aborting:
            return
        self.aborting, self.abort_error = True, ""
        yield
        try:
            actor = await self._signed_in_actor()
            # The service tells every viewer (status banner) once the abort is committed.
            await asyncio.to_thread(abort_conversation, actor, conversation_id, self.abort_reason)
        except DomainError as exc:  # not an admin, no reason, already finished, unknown conversation
            self.abort_error = str(exc)
        else:
            self.abort_reason = ""
        finally:
            self.aborting = False
