"""Admin teams page (issues 10 and 30): pick a team and edit all of it in a form (agents, their model
clients and tools, speaker order, gates, sign-off chains, SLAs) or its whole file as YAML; save it as
a new version through the same service as the CLI and the API. Every event checks that the caller
is an admin (the service checks again and validates the file); problems show at their form field,
or in the YAML view at their line and column."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import reflex as rx

from hitl_dashboard.domain.bounded_input import YamlInvalid, load_yaml
from hitl_dashboard.domain.errors import DomainError, InvalidInput
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.teams import team_queries
from hitl_dashboard.teams.loading import TeamFileInvalid
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.team_listing import TeamRow, provider_choices, team_rows
from hitl_dashboard.ui.views import team_form as form_rows
from hitl_dashboard.ui.views.team_document import apply_form, document_text
from hitl_dashboard.ui.views.team_edits import (
    MAX_FIELD,
    MAX_TEXT,
    added,
    edited,
    moved,
    removed,
    toggled,
    tool_renamed,
    with_agent_tool,
    with_hours,
)
from hitl_dashboard.ui.views.team_form import NONE, ROWS, TeamForm, form_of
from hitl_dashboard.ui.views.team_problems import YamlMark, form_problems, yaml_marks

SCALARS = ("description", "python_version", "speaker_mode", "planner", "gate_mode", "gate_agents", "keywords",
           "regex", "min_confidence", "max_turns", "min_severity", "tool_approver")


class AdminTeamsState(AppState):
    rows: rx.Field[list[TeamRow]] = rx.field(default_factory=list)
    selected: str = ""
    version: int = 0
    view: str = "form"  # form | yaml
    yaml_text: str = ""
    errors: dict[str, str] = {}  # form key (ui/views/team_problems.py) -> problem; "": the team as a whole
    problems: rx.Field[list[str]] = rx.field(default_factory=list)  # every problem, as the service named them
    marks: rx.Field[list[YamlMark]] = rx.field(default_factory=list)  # the problems at their place in the YAML text
    saved_message: str = ""
    # The selected team's newest version fails today's checks (it still runs).
    saved_problems: rx.Field[list[str]] = rx.field(default_factory=list)
    saving: bool = False
    providers: rx.Field[list[list[str]]] = rx.field(default_factory=list)
    # The form (ui/views/team_form.py), flattened into the state.
    description: str = ""
    python_version: str = "3.11"
    speaker_mode: str = "planner_then_producer"
    planner: str = ""
    gate_mode: str = "after_agent"
    gate_agents: str = ""
    keywords: str = ""
    regex: str = ""
    min_confidence: str = ""
    max_turns: str = ""
    min_severity: str = ""
    gate_tools: rx.Field[list[str]] = rx.field(default_factory=list)
    tool_approver: str = "security_reviewer"
    agents: rx.Field[list[form_rows.AgentRow]] = rx.field(default_factory=list)
    models: rx.Field[list[form_rows.ModelRow]] = rx.field(default_factory=list)
    tools: rx.Field[list[form_rows.ToolRow]] = rx.field(default_factory=list)
    chains: rx.Field[list[form_rows.ChainRow]] = rx.field(default_factory=list)
    sla: rx.Field[list[form_rows.SlaRow]] = rx.field(default_factory=list)
    _document: dict[str, Any] = {}  # what the form edits: the saved version, or the YAML view's text
    _syntax_error: bool = False  # the problems shown are the YAML error of the text

    @rx.var
    def agent_names(self) -> list[str]:
        return [a.name for a in self.agents]

    @rx.var
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    @rx.var
    def stale_gate_tools(self) -> list[str]:
        """Names gates.tools lists that are no tool of the team (shown checked, to uncheck)."""
        names = {t.name for t in self.tools}
        return [t for t in self.gate_tools if t not in names]

    @rx.var
    def model_names(self) -> list[str]:
        return [m.name for m in self.models]

    @rx.var
    def yaml_line_numbers(self) -> str:
        return "\n".join(str(n) for n in range(1, self.yaml_text.count("\n") + 2))

    @rx.var
    def yaml_rows(self) -> int:
        return self.yaml_text.count("\n") + 2

    @rx.event
    async def load(self):
        actor = await self._signed_in_workspace_admin()
        if actor is None:
            return
        self.rows = await asyncio.to_thread(team_rows, actor)
        wanted = self.router.url.query_parameters.get("team", "") or self.selected
        names = [r.name for r in self.rows]
        await self._select(actor, wanted if wanted in names else (names[0] if names else ""))

    @rx.event
    async def select(self, name: str):
        actor = await self._signed_in_workspace_admin()
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
        self._show_problems([])
        self._fill(form_of(document))

    def _fill(self, form: TeamForm) -> None:
        for item in dataclasses.fields(form):
            setattr(self, item.name, getattr(form, item.name))
        self.providers = provider_choices(form.models)

    def _form(self) -> TeamForm:
        return TeamForm(**{item.name: getattr(self, item.name) for item in dataclasses.fields(TeamForm)})

    # -- editing: every handler needs an admin, and changes only fields and rows the form has ----------
    @rx.event
    def set_field(self, name: str, value: str):
        if self.can_manage_workspace and name in SCALARS and isinstance(value, str):
            setattr(self, name, "" if value == NONE else value[:MAX_FIELD])
            self.saved_message = ""

    @rx.event
    def set_row(self, section: str, index: int, part: str, value: str | bool):
        rows = edited(getattr(self, section), section, index, part, value) if section in ROWS else None
        if not self.can_manage_workspace or rows is None:
            return
        before = getattr(self, section)
        setattr(self, section, rows)
        self.saved_message = ""
        if section == "models":
            self.providers = provider_choices(rows)
        if section == "tools" and part == "name":  # the agents and the gate hold it by its name
            self.agents, self.gate_tools = tool_renamed(self._form(), before[int(index)].name, rows[int(index)].name)

    @rx.event
    def add_row(self, section: str):
        rows = added(self._form(), section) if section in ROWS else None
        if self.can_manage_workspace and rows is not None:
            setattr(self, section, rows)

    @rx.event
    def remove_row(self, section: str, index: int):
        rows = removed(getattr(self, section), index) if section in ROWS else None
        if not self.can_manage_workspace or rows is None:
            return
        gone = getattr(self, section)[int(index)]
        setattr(self, section, rows)
        if section == "tools":  # nobody holds a tool that is gone
            self.agents, self.gate_tools = tool_renamed(self._form(), gone.name, "")

    @rx.event
    def move_row(self, section: str, index: int, step: int):
        rows = moved(getattr(self, section), index, step) if section in ROWS else None
        if self.can_manage_workspace and rows is not None:
            setattr(self, section, rows)

    @rx.event
    def toggle_agent_tool(self, index: int, tool: str, checked: bool):
        """Checks a tool of the team; unchecks any name (one the team no longer has, too)."""
        known = checked is not True or tool in [t.name for t in self.tools]
        rows = with_agent_tool(self.agents, index, tool, checked) if known else None
        if self.can_manage_workspace and rows is not None:
            self.agents = rows

    @rx.event
    def set_sla(self, index: int, value: str):
        rows = with_hours(self.sla, index, value)
        if self.can_manage_workspace and rows is not None:
            self.sla = rows

    @rx.event
    def toggle_gate_tool(self, tool: str, checked: bool):
        known = checked is not True or tool in [t.name for t in self.tools]
        if self.can_manage_workspace and known and isinstance(tool, str):
            self.gate_tools = toggled(self.gate_tools, tool, checked)

    @rx.event
    def set_yaml(self, value: str):
        if self.can_manage_workspace and isinstance(value, str):
            self.yaml_text = value[:MAX_TEXT * 3]
            self.saved_message = ""

    @rx.event
    def check_yaml(self):
        """On leaving the text: a YAML error shows at once, at its line (the schema's on saving)."""
        if not self.can_manage_workspace:
            return
        try:
            load_yaml(self.yaml_text)
        except InvalidInput as exc:
            self._show_yaml_error(exc)
        else:  # readable now: a YAML error is gone; the schema's problems stay, at where they now are
            self._show_problems([] if self._syntax_error else self.problems)

    @rx.event
    def show(self, view: str | list[str]):
        """Switching carries the edits: the form's into the YAML, the YAML's into the form."""
        view = view if isinstance(view, str) else (view[0] if view else "")
        if not self.can_manage_workspace or view not in ("form", "yaml") or view == self.view:
            return
        if view == "yaml":
            document, problems = apply_form(self._document, self._form())
            if problems:
                self.errors, self.problems = problems, [f"{k}: {v}" for k, v in problems.items()]
                return
            self.yaml_text = document_text(document)
        elif not self._read_yaml():
            return
        self._show_problems([])
        self.view = view

    def _read_yaml(self) -> bool:
        """The YAML view's text into the form; False (its problem shown) if the form cannot hold it."""
        try:
            document = load_yaml(self.yaml_text)  # the bounds a save applies (size, nesting, aliases)
        except InvalidInput as exc:
            self._show_yaml_error(exc)
            return False
        if not isinstance(document, dict) or document.get("name") != self.selected:
            self._show_problems([f"name: the file must stay team '{self.selected}'"])
            return False
        try:
            self._fill(form_of(document))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            self._show_problems([f"the form cannot show this file ({exc}); fix it here or save it as it is"])
            return False
        self._document = document
        return True

    # -- problems ------------------------------------------------------------------------------------------
    def _show_problems(self, problems: list[str], line: int | None = None, column: int | None = None) -> None:
        self.problems, self._syntax_error = problems, line is not None
        self.errors = form_problems(problems, self._form())
        self.marks = yaml_marks(self.yaml_text, problems, line, column) if self.view == "yaml" else []

    def _show_yaml_error(self, exc: InvalidInput) -> None:
        place = (exc.line, exc.column) if isinstance(exc, YamlInvalid) else (None, None)
        self._show_problems([str(exc)], *place)

    def _draft(self) -> str | None:
        """The draft as a team file, from the view in use; None (with the problems shown) if unreadable."""
        self.saved_message = ""
        self._show_problems([])
        if self.view == "form":
            document, problems = apply_form(self._document, self._form())
            if problems:
                self.errors, self.problems = problems, [f"{k}: {v}" for k, v in problems.items()]
                return None
            return document_text(document)
        try:
            team_queries.check_declared_name(self.yaml_text, self.selected)
        except InvalidInput as exc:
            self._show_problems([f"name: {exc}"])
            return None
        return self.yaml_text

    def _refused(self, exc: DomainError) -> None:
        """A draft the service refused: each problem at its field, and in the YAML at its line."""
        if isinstance(exc, TeamFileInvalid):
            self._show_problems(list(exc.problems), exc.line, exc.column)
        else:
            self._show_problems([str(exc)[:500]])

    @rx.event
    async def save(self):
        actor = await self._signed_in_workspace_admin()
        if actor is None or self.saving or not self.selected:
            return
        text = self._draft()
        if text is None:
            return
        self.saving = True
        yield
        try:
            version, created = await asyncio.to_thread(team_queries.save_team, actor, text, origin="browser")
        except DomainError as exc:
            self._refused(exc)
        else:
            self.saved_message = (f"Saved as version {version.number}: conversations started from now on use it."
                                  if created else f"No change: version {version.number} is already this team.")
            self.rows = await asyncio.to_thread(team_rows, actor)
            await self._select(actor, self.selected)
        finally:
            self.saving = False
