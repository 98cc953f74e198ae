"""Queue page actions for this browser: search text, claim and release."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.services.reviews import claims
from hitl_dashboard.ui.states.app_state import AppState


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
            actor = await self._acting_actor()
            # The service tells every open queue of the new assignee once it has committed.
            await asyncio.to_thread(claims.claim if claim else claims.release, actor, int(review_id))
        except PermissionDenied as exc:
            return rx.toast.error(str(exc))
        except DomainError as exc:
            return rx.toast.warning(str(exc))
        return rx.toast.success(f"{'Claimed' if claim else 'Released'} review {review_id}")
