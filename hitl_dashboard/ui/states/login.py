"""Sign-in form."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState


class LoginState(AppState):
    error: str = ""

    @rx.event
    async def redirect_if_signed_in(self):
        if self.session_token:
            try:
                await self._signed_in_actor()
                return rx.redirect(routes.QUEUE if self.review_roles else routes.CONVERSATIONS)
            except DomainError:
                self._forget()

    @rx.event
    async def sign_in(self, form: dict):
        from hitl_dashboard.services.auth.sign_ins import sign_in

        try:
            # The websocket's peer address (Reflex honours X-Forwarded-For only with trusted_proxy_hops).
            self.session_token = await asyncio.to_thread(
                sign_in, str(form.get("username", "")), str(form.get("password", "")),
                address=self.router.session.client_ip or "unknown")
            await self._signed_in_actor()
        except DomainError as exc:
            self.error = str(exc)
            return
        self.error = ""
        return rx.redirect(routes.QUEUE if self.review_roles else routes.CONVERSATIONS)
