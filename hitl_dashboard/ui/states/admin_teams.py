"""Admin teams page (issue 10): pick a team, edit its review rules and prompts in a form or its
whole file as YAML, save it as a new version. Every event checks that the caller is an admin; the
service checks again and validates the file; problems are shown at their field."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import reflex as rx
import yaml

from hitl_dashboard.domain.bounded_input import load_yaml
from hitl_dashboard.domain.errors import DomainError, InvalidInput
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.teams import team_checks, team_queries, trial
from hitl_dashboard.teams.loading import TeamFileInvalid
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import stamp
from hitl_dashboard.ui.views.team_form import (
    APPROVALS,
    AgentRow,
    ChainRow,
    SlaRow,
    TeamForm,
    ToolRow,
    apply_form,
    form_of,
)

SCALARS = ("gate_mode", "keywords", "regex", "min_confidence", "max_turns", "tool_approver")
MAX_TEXT = 100_000


@dataclasses.dataclass
class TrialRow:
    agent: str = ""
    kind: str = ""
    text: str = ""
    stop: str = ""


@dataclasses.dataclass
class TeamRow:
    name: str = ""
    version: int = 0
    source: str = ""
    saved_by: str = ""
    saved_at: str = ""
    # What today's checks find wrong with its newest version (saved before them: it still runs).
    problems: list[str] = dataclasses.field(default_factory=list)


def team_rows(actor: Actor) -> list[TeamRow]:
    broken = team_checks.saved_team_problems(actor)
    return [TeamRow(t.name, t.version, t.source, t.saved_by or "", stamp(t.saved_at), broken.get(t.name, []))
            for t in team_queries.list_teams(actor)]


def problems_by_field(exc: TeamFileInvalid) -> dict[str, str]:
    """'gates.keywords: ...' lines as {field path: message}; a problem of the whole team under ''."""
    found: dict[str, str] = {}
    for line in exc.problems:
        where, sep, message = line.partition(": ")
        key = where if sep and " " not in where else ""
        found.setdefault(key, message if sep and key else line)
    return found


class AdminTeamsState(AppState):
    rows: list[TeamRow] = []
    selected: str = ""
    version: int = 0
    view: str = "form"  # form | yaml
    yaml_text: str = ""
    errors: dict[str, str] = {}  # field path -> problem ("" : the team as a whole)
    problems: rx.Field[list[str]] = rx.field(default_factory=list)  # every problem, as the service named them
    saved_message: str = ""
    # The selected team's newest version fails today's checks (it still runs).
    saved_problems: rx.Field[list[str]] = rx.field(default_factory=list)
    saving: bool = False
    # The form (ui/views/team_form.py), flattened into the state.
    gate_mode: str = "after_agent"
    keywords: str = ""
    regex: str = ""
    min_confidence: str = ""
    max_turns: str = ""
    gate_tools: rx.Field[list[str]] = rx.field(default_factory=list)
    tool_approver: str = "security_reviewer"
    agents: list[AgentRow] = []
    models: list[str] = []
    tools: rx.Field[list[ToolRow]] = rx.field(default_factory=list)
    chains: list[ChainRow] = []
    sla: list[SlaRow] = []
    # "Try it": the draft on the scripted model (services/teams/trial.py); nothing is stored.
    trial_task: str = ""
    trial: rx.Field[list[TrialRow]] = rx.field(default_factory=list)
    trying: bool = False
    _document: dict[str, Any] = {}  # the selected team's newest version, as saved

    @rx.event
    async def load(self):
        actor = await self._signed_in_admin()
        if actor is None:
            return
        self.rows = await asyncio.to_thread(team_rows, actor)
        wanted = self.router.url.query_parameters.get("team", "") or self.selected
        names = [r.name for r in self.rows]
        await self._select(actor, wanted if wanted in names else (names[0] if names else ""))

    @rx.event
    async def select(self, name: str):
        actor = await self._signed_in_admin()
        if actor is not None and name in [r.name for r in self.rows]:
            self.saved_message = ""
            await self._select(actor, name)

    async def _select(self, actor: Actor, name: str) -> None:
        if not name:
            return
        self.version, document = await asyncio.to_thread(team_queries.versioned_team_document, actor, name)
        self._document = document
        self.selected = name
        self.saved_problems = next((r.problems for r in self.rows if r.name == name), [])
        self.yaml_text = await asyncio.to_thread(team_queries.export_team, actor, name)
        self.errors, self.problems = {}, []
        self._fill(form_of(document))

    def _fill(self, form: TeamForm) -> None:
        for item in dataclasses.fields(form):
            setattr(self, item.name, getattr(form, item.name))

    def _form(self) -> TeamForm:
        return TeamForm(**{item.name: getattr(self, item.name) for item in dataclasses.fields(TeamForm)})

    # -- editing (every handler: an admin, and only known fields and rows) ------------------------
    @rx.event
    def set_field(self, name: str, value: str):
        if self.is_admin and name in SCALARS:
            setattr(self, name, str(value)[:MAX_TEXT])
            self.saved_message = ""

    @rx.event
    def toggle_gate_tool(self, tool: str, checked: bool):
        if self.is_admin and tool in [t.name for t in self.tools]:
            self.gate_tools = [t for t in self.gate_tools if t != tool] + ([tool] if checked else [])

    @rx.event
    def set_agent(self, index: int, part: str, value: str):
        if self.is_admin and part in ("prompt", "model") and 0 <= int(index) < len(self.agents):
            rows = list(self.agents)
            rows[int(index)] = dataclasses.replace(rows[int(index)], **{part: str(value)[:MAX_TEXT]})
            self.agents = rows

    @rx.event
    def set_tool(self, index: int, part: str, value: str):
        if self.is_admin and part in ("approval", "when_argument", "when_equals") and 0 <= int(index) < len(self.tools):
            if part == "approval" and value not in APPROVALS:
                return
            rows = list(self.tools)
            rows[int(index)] = dataclasses.replace(rows[int(index)], **{part: str(value)[:200]})
            self.tools = rows

    @rx.event
    def set_chain(self, index: int, value: str):
        if self.is_admin and 0 <= int(index) < len(self.chains):
            rows = list(self.chains)
            rows[int(index)] = dataclasses.replace(rows[int(index)], roles=str(value)[:500])
            self.chains = rows

    @rx.event
    def set_sla(self, index: int, value: str):
        if self.is_admin and 0 <= int(index) < len(self.sla):
            rows = list(self.sla)
            rows[int(index)] = dataclasses.replace(rows[int(index)], hours=str(value)[:20])
            self.sla = rows

    @rx.event
    def set_yaml(self, value: str):
        if self.is_admin:
            self.yaml_text = str(value)[:MAX_TEXT * 3]
            self.saved_message = ""

    @rx.event
    def show(self, view: str | list[str]):
        """Switching carries the edits: the form's into the YAML, the YAML's into the form."""
        view = view if isinstance(view, str) else (view[0] if view else "")
        if not self.is_admin or view not in ("form", "yaml") or view == self.view:
            return
        if view == "yaml":
            document, problems = apply_form(self._document, self._form())
            if problems:
                self.errors, self.problems = problems, [f"{k}: {v}" for k, v in problems.items()]
                return
            self.yaml_text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
        else:
            try:
                document = load_yaml(self.yaml_text)  # the bounds a save applies (size, nesting, aliases)
            except InvalidInput as exc:
                self.errors, self.problems = {"": str(exc)}, [str(exc)]
                return
            if not isinstance(document, dict) or document.get("name") != self.selected:
                self.errors = {"name": f"the file must stay team '{self.selected}'"}
                self.problems = list(self.errors.values())
                return
            try:
                self._fill(form_of(document))
            except (KeyError, TypeError, AttributeError) as exc:
                self.errors, self.problems = {"": f"the form cannot show this file: {exc}"}, []
                return
            self._document = document
        self.errors, self.problems = {}, []
        self.view = view

    # -- trying and saving -------------------------------------------------------------------------
    def _draft(self) -> str | None:
        """The draft as a team file, from the view in use; None (with the problems shown) if unreadable."""
        self.errors, self.problems, self.saved_message = {}, [], ""
        if self.view == "form":
            document, problems = apply_form(self._document, self._form())
            if problems:
                self.errors, self.problems = problems, [f"{k}: {v}" for k, v in problems.items()]
                return None
            return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
        try:
            team_queries.check_declared_name(self.yaml_text, self.selected)
        except InvalidInput as exc:
            self.errors, self.problems = {"name": str(exc)}, [str(exc)]
            return None
        return self.yaml_text

    @rx.event
    def set_trial_task(self, value: str):
        if self.is_admin:
            self.trial_task = str(value)[:5_000]

    @rx.event
    async def try_draft(self):
        actor = await self._signed_in_admin()
        if actor is None or self.trying or not self.selected:
            return
        text = self._draft()
        if text is None:
            return
        self.trying, self.trial = True, []
        yield
        try:
            said = await trial.try_team(actor, text, self.trial_task)
        except TeamFileInvalid as exc:
            self.errors, self.problems = problems_by_field(exc), list(exc.problems)
        except (DomainError, ValueError, RuntimeError) as exc:  # a tool that cannot be set up, a model error
            self.errors, self.problems = {"": str(exc)[:500]}, [str(exc)[:500]]
        else:
            self.trial = [TrialRow(m.agent, m.kind, m.text, m.stop) for m in said]
        finally:
            self.trying = False

    @rx.event
    async def save(self):
        actor = await self._signed_in_admin()
        if actor is None or self.saving or not self.selected:
            return
        text = self._draft()
        if text is None:
            return
        self.saving = True
        yield
        try:
            version, created = await asyncio.to_thread(team_queries.save_team, actor, text, origin="browser")
        except TeamFileInvalid as exc:
            self.errors, self.problems = problems_by_field(exc), list(exc.problems)
        except DomainError as exc:
            self.errors, self.problems = {"": str(exc)}, [str(exc)]
        else:
            self.saved_message = (f"Saved as version {version.number}: conversations started from now on use it."
                                  if created else f"No change: version {version.number} is already this team.")
            self.rows = await asyncio.to_thread(team_rows, actor)
            await self._select(actor, self.selected)
        finally:
            self.saving = False
