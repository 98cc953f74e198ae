"""Queue page actions for this browser: search text, claim and release."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.services.reviews import claims
from hitl_dashboard.services.live import live
from hitl_dashboard.ui.states.app_state import AppState


def _claim_or_release(actor, review_id: int, claim: bool) -> int:
    with UnitOfWork() as uow:
        operation = claims.claim if claim else claims.release
        request = operation(uow, actor, review_id)
        uow.commit()
        return request.conversation_id


class QueueState(AppState):
    search: str = ""
    message: str = ""

    @rx.event
    def set_search(self, value: str):
        self.search = value[:100]

    @rx.event
    async def claim(self, review_id: int):
        return await self._claim_or_release(review_id, True)

    @rx.event
    async def release(self, review_id: int):
        return await self._claim_or_release(review_id, False)

    async def _claim_or_release(self, review_id: int, claim: bool):
        try:
            actor = await self._signed_in_actor()
            conversation_id = await asyncio.to_thread(_claim_or_release, actor, int(review_id), claim)
        except PermissionDenied as exc:
            return rx.toast.error(str(exc))
        except DomainError as exc:
            return rx.toast.warning(str(exc))
        live.publish_turn(conversation_id)  # every open queue shows the new assignee
        return rx.toast.success(f"{'Claimed' if claim else 'Released'} review {review_id}")
