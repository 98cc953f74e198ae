""""Try it" on the admin teams page (issue 10): the editor's draft, before it is saved, runs on the
scripted model (services/teams/trial.py) until its gate would stop for a human. Nothing is stored.
Its own small state; the draft and where its problems show belong to the editor's."""

from __future__ import annotations

import dataclasses

import reflex as rx

from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.services.teams import trial
from hitl_dashboard.ui.states.admin_teams import AdminTeamsState
from hitl_dashboard.ui.states.app_state import AppState

MAX_TASK = 5_000


@dataclasses.dataclass
class TrialRow:
    agent: str = ""
    kind: str = ""
    text: str = ""
    stop: str = ""


class TeamTrialState(AppState):
    task: str = ""
    said: rx.Field[list[TrialRow]] = rx.field(default_factory=list)
    trying: bool = False

    @rx.event
    def set_task(self, value: str):
        if self.can_manage_workspace and isinstance(value, str):
            self.task = value[:MAX_TASK]

    @rx.event
    async def try_draft(self):
        actor = await self._signed_in_workspace_admin()
        if actor is None or self.trying:
            return
        editor = await self.get_state(AdminTeamsState)
        text = editor._draft() if editor.selected else None
        if text is None:
            return
        self.trying, self.said = True, []
        yield
        try:
            said = await trial.try_team(actor, text, self.task)
        except (DomainError, ValueError, RuntimeError) as exc:  # a tool that cannot be set up, a model error
            editor = await self.get_state(AdminTeamsState)
            editor._refused(exc if isinstance(exc, DomainError) else DomainError(str(exc)))
        else:
            self.said = [TrialRow(m.agent, m.kind, m.text, m.stop) for m in said]
        finally:
            self.trying = False
