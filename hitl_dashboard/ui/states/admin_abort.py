"""An admin stops a conversation from its page, whatever state it is in.

Public events are endpoints any browser can call: the service checks the signed-in user is an
admin; the conversation id comes from the page's URL, the reason from the form."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.live import live
from hitl_dashboard.services.conversations.conversations import MAX_REASON_CHARS, abort_conversation
from hitl_dashboard.ui.states.app_state import AppState, path_id


def _abort(actor: Actor, conversation_id: int, reason: str) -> None:
    with UnitOfWork() as uow:
        abort_conversation(uow, actor, conversation_id, reason)
        uow.commit()


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
            await asyncio.to_thread(_abort, actor, conversation_id, self.abort_reason)
        except DomainError as exc:  # not an admin, no reason, already finished, unknown conversation
            self.abort_error = str(exc)
        else:
            self.abort_reason = ""
            live.publish_turn(conversation_id)  # the status banner of every viewer changes
        finally:
            self.aborting = False
