"""One click turns a static-analysis finding into a line comment of this browser's draft."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.domain.decisions import MAX_TEXT
from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.decision import DecisionState


class FindingsState(AppState):
    @rx.event
    async def comment(self, key: str, line: int, rule: str, message: str):
        """Only this browser's own draft changes (like typing the comment), so nothing to check
        beyond the signed-in user; the text is the finding's, shown back as text."""
        try:
            await self._signed_in_actor()
        except PermissionDenied:
            return
        line = int(line)
        if line < 1:
            return
        decision = await self.get_state(DecisionState)
        text = f"Static analysis {str(rule)[:32]}: {str(message)}"[:MAX_TEXT]
        entry = {"key": str(key)[:255], "line": str(line), "text": text}
        if entry not in decision.comments:
            decision.comments = decision.comments + [entry]
            decision._store("c" + decision._cid(), {"comments": decision.comments})
        yield rx.toast.info(f"Added a comment on line {line}; it goes out with a revision.")
