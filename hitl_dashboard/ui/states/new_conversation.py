"""New conversation page: the task, the team, the gate policy and the model of each agent."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, InvalidInput, PermissionDenied
from hitl_dashboard.services.conversations import start_options
from hitl_dashboard.services.conversations.conversations import StartCommand, start_conversation
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


class NewConversationState(AppState):
    task: str = ""
    title: str = ""
    task_type: str = "code"
    template: str = "code"
    on_overdue: str = "escalate"
    mode: str = "after_agent"
    gate_agents: list[str] = []
    keywords: str = ""
    regex: str = ""
    min_confidence: str = ""
    tools: list[str] = []
    agents: list[str] = []
    template_options: list[list[str]] = []  # [name, "name: agent + agent"]
    tool_options: list[str] = []
    providers: dict[str, str] = {}
    models: dict[str, str] = {}
    errors: dict[str, str] = {}
    submitting: bool = False

    async def _apply_template(self) -> None:
        """The teams of the workspace the tab shows (checked on the server: _acting_actor)."""
        try:
            actor = await self._acting_actor()
        except PermissionDenied:
            return
        choices = await asyncio.to_thread(start_options.form_choices, actor, self.template, self.task_type)
        self.template_options = [[name, f"{name}: {' + '.join(agents)}"] for name, agents in choices.templates.items()]
        self.tool_options = choices.tools
        policy = choices.policy
        provider, model = start_options.default_model()
        self.agents = choices.templates.get(self.template, [])
        self.mode, self.gate_agents = policy["mode"], list(policy["agents"])
        self.keywords, self.regex = ", ".join(policy["keywords"]), policy["regex"] or ""
        self.min_confidence = "" if policy["min_confidence"] is None else str(policy["min_confidence"])
        self.tools = list(policy["tools"])
        self.providers = {a: self.providers.get(a, provider) for a in self.agents}
        self.models = {a: self.models.get(a, model) for a in self.agents}

    @rx.event
    async def reset_form(self):
        self.task, self.title, self.task_type, self.template, self.on_overdue = "", "", "code", "code", "escalate"
        self.providers, self.models, self.errors, self.submitting = {}, {}, {}, False
        await self._apply_template()

    @rx.event
    def set_text(self, name: str, value: str):
        if name in ("task", "title", "keywords", "regex", "min_confidence"):
            setattr(self, name, value)
            self.errors = {k: v for k, v in self.errors.items() if k != name}

    @rx.event
    async def set_task_type(self, value: str):
        try:
            actor = await self._acting_actor()
        except PermissionDenied:
            return
        self.task_type = value
        self.template = await asyncio.to_thread(start_options.default_template, actor, value)
        await self._apply_template()

    @rx.event
    async def set_template(self, value: str):
        self.template = value
        await self._apply_template()

    @rx.event
    def set_choice(self, name: str, value: str):
        if name in ("mode", "on_overdue"):
            setattr(self, name, value)

    @rx.event
    def toggle_gate_agent(self, agent: str, checked: bool):
        chosen = [a for a in self.gate_agents if a != agent] + ([agent] if checked else [])
        self.gate_agents = [a for a in self.agents if a in chosen]

    @rx.event
    def set_provider(self, agent: str, value: str):
        self.providers = {**self.providers, agent: value}

    @rx.event
    def set_model(self, agent: str, value: str):
        self.models = {**self.models, agent: value[:100]}

    def _command(self) -> StartCommand:
        confidence = None
        if self.min_confidence.strip():
            try:
                confidence = float(self.min_confidence)
            except ValueError:
                raise InvalidInput("a number between 0 and 1, like 0.7", "min_confidence") from None
            if not 0 <= confidence <= 1:
                raise InvalidInput("a number between 0 and 1, like 0.7", "min_confidence")
        routing = start_options.model_routing(
            {a: (self.providers.get(a, "scripted"), self.models.get(a, "")) for a in self.agents})
        policy = {"mode": self.mode, "agents": list(self.gate_agents), "keywords": _split(self.keywords),
                  "regex": self.regex.strip() or None, "min_confidence": confidence, "tools": list(self.tools)}
        return StartCommand(task=self.task, task_type=self.task_type, title=self.title.strip() or None,
                            template=self.template, gate_policy=policy, model_routing=routing,
                            on_overdue=self.on_overdue)

    @rx.event
    async def submit(self, _form: dict):
        if self.submitting:  # a double click starts one conversation
            return
        self.submitting, self.errors = True, {}
        yield
        try:
            actor = await self._acting_actor()
            conversation = await asyncio.to_thread(start_conversation, actor, self._command())
        except InvalidInput as exc:
            self.errors = {exc.field or "form": str(exc)}
            self.submitting = False
            return
        except PermissionDenied:
            self.submitting = False
            yield rx.redirect(routes.LOGIN)
            return
        except DomainError as exc:
            self.errors, self.submitting = {"form": str(exc)}, False
            return
        # submitting stays True until the page loads again: a queued second click starts nothing.
        self.task, self.title = "", ""
        yield rx.redirect(routes.conversation(conversation.id))
