"""The external request card on a conversation page (issue 31): who asked, the link back, the context.

`load` is the page's on_load: an endpoint any browser may call, so it re-checks the signed-in user
and reads the conversation id from the page's URL; only the server fills the fields."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.services.external.details import ExternalDetails, external_details
from hitl_dashboard.ui.states.app_state import AppState, path_id


class ExternalRequestState(AppState):
    is_external: bool = False
    caller: str = ""
    token_name: str = ""
    request_id: str = ""
    kind: str = ""
    link: str = ""
    context: rx.Field[str] = rx.field("")  # a Var where the page reads it (safe_markdown takes a Var)
    result_status: str = ""

    def _fill(self, found: ExternalDetails | None) -> None:  # server only
        self.is_external = found is not None
        self.caller = found.caller if found else ""
        self.token_name = found.token_name if found else ""
        self.request_id = found.request_id if found else ""
        self.kind = found.kind.replace("_", " ") if found else ""
        self.link = (found.link or "") if found else ""
        self.context = (found.context or "") if found else ""
        self.result_status = (found.result_status or "") if found else ""

    @rx.event
    async def load(self):
        self._fill(None)
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None:
            return
        try:
            actor = await self._signed_in_actor()
            self._fill(await asyncio.to_thread(external_details, actor, conversation_id))
        except (DomainError, PermissionDenied):  # the page shows the conversation's own error
            return
