"""Asking the producing agent a question from a review card or from a line of the diff."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.decisions import MAX_TEXT
from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.services.questions.questions import ask_question, retry_question
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.decision import DecisionState


class QuestionsState(AppState):
    drafts: dict[str, str] = {}  # review id -> the question being typed on its card
    error: str = ""

    @rx.event
    def set_draft(self, review_id: int, value: str):
        self.drafts = {**self.drafts, str(int(review_id)): str(value)[:MAX_TEXT]}

    @rx.event
    async def ask(self, review_id: int):
        rid = str(int(review_id))
        if await self._ask(int(review_id), self.drafts.get(rid, ""), None, None):
            self.drafts = {k: v for k, v in self.drafts.items() if k != rid}
            return rx.toast.info("Question sent; the answer appears under the review.")

    @rx.event
    async def ask_about_line(self, review_id: int):
        """The line picked in the diff (its comment box holds the question)."""
        decision = await self.get_state(DecisionState)
        if decision.comment_line < 1:
            return
        if await self._ask(int(review_id), decision.comment_text, decision.comment_key, decision.comment_line):
            decision.comment_line, decision.comment_text = 0, ""
            return rx.toast.info("Question sent; the answer appears under the review.")

    @rx.event
    async def retry(self, review_id: int, question_id: int):
        """Ask a failed question again; the service checks that this user may ask on the review."""
        self.error = ""
        try:
            actor = await self._signed_in_actor()
            await asyncio.to_thread(retry_question, actor, int(review_id), int(question_id))
        except DomainError as exc:
            self.error = str(exc)
            return
        return rx.toast.info("Asked again; the answer appears under the review.")

    async def _ask(self, review_id: int, text: str, key: str | None, line: int | None) -> bool:
        self.error = ""
        try:
            actor = await self._signed_in_actor()  # the service checks the role and the claim
            await asyncio.to_thread(ask_question, actor, review_id, text, key=key, line=line)
        except DomainError as exc:
            self.error = str(exc)
            return False
        return True
