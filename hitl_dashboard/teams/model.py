"""The team file format. Pure data: pydantic models only, no AutoGen and no I/O.

A team declares its agents, the models they use (AutoGen component configurations, secrets by
environment variable name only), its tools with their approval modes, the speaker order, the
default gate policy, and per task type it serves: the producer and the ordered sign-off chain."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import Field, StringConstraints, field_validator, model_serializer, model_validator

from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.findings import DEFAULT_PYTHON_VERSION, PYTHON_VERSIONS, SEVERITIES
from hitl_dashboard.domain.names import listed
from hitl_dashboard.domain.policies import GatePolicy
from hitl_dashboard.domain.revisions import CodeAuthors
from hitl_dashboard.teams.gateway_model import GatewayDef
from hitl_dashboard.teams.providers import implicit_key_problem
from hitl_dashboard.teams.references import bad_references
from hitl_dashboard.teams.tool_model import (  # noqa: F401 - the team format's names, importable from here
    OPERATORS,
    ApprovalMode,
    ApprovalRule,
    EnvVarName,
    McpServerDef,
    ToolDef,
    _Strict,
)

FORMAT_VERSION: Final = 1
# AutoGen agent names must be Python identifiers; they are also what @mentions name.
AgentName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
ToolName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
TaskTypeName = Literal["code", "copy", "ops"]
ReviewRole = Literal["security_reviewer", "product_reviewer", "final_approver", "admin"]
SpeakerMode = Literal["planner_then_producer", "round_robin", "model_selected"]

# Config keys that carry a secret value. A team file names the variable instead (api_key_env).
SECRET_KEYS = frozenset({"api_key", "azure_ad_token", "password", "secret", "token", "access_token", "auth_token"})
SCRIPTED, SERVER = "scripted", "server"
RESERVED_NAMES = frozenset({"schema"})

class ModelDef(_Strict):
    """provider: `scripted` (our offline model), `server` (the model this server is configured
    with: MODEL_PROVIDER, OPENAI_MODEL..., which the start form may route per agent), or an
    AutoGen component provider such as `autogen_ext.models.openai.OpenAIChatCompletionClient`
    whose `config` is passed to ChatCompletionClient.load_component."""

    provider: str = Field(min_length=1, max_length=200)
    config: dict[str, Any] = Field(default_factory=dict)
    api_key_env: EnvVarName | None = Field(
        default=None, description="the environment variable that holds the key; the key itself is never in the file. "
                                  "An OpenAI, Azure OpenAI or Anthropic model needs it, or api_key: \"\" under config "
                                  "for a server that takes no key (never an implicit OPENAI_API_KEY)")
    description: str = ""

    @field_validator("config")
    @classmethod
    def _no_secret_values(cls, config: dict[str, Any]) -> dict[str, Any]:
        for key in _secret_keys(config):
            raise ValueError(f"'{key}' holds a secret: a team file never contains a key value; "
                             "name its environment variable with api_key_env (e.g. api_key_env: OPENAI_API_KEY)")
        return config

    @model_validator(mode="after")
    def _builtin_providers_take_no_key(self) -> ModelDef:
        if self.provider in (SCRIPTED, SERVER) and self.api_key_env:
            raise ValueError(f"the {self.provider} provider takes no api_key_env")
        return self

    @model_validator(mode="after")
    def _says_where_its_key_comes_from(self) -> ModelDef:
        problem = implicit_key_problem(self.provider, self.config, self.api_key_env)
        if problem:
            raise ValueError(problem)
        return self


def _secret_keys(value: Any, prefix: str = "") -> list[str]:
    found: list[str] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            path = f"{prefix}{key}"
            if str(key).lower() in SECRET_KEYS and inner not in (None, ""):
                found.append(path)
            found += _secret_keys(inner, path + ".")
    return found


class AgentDef(_Strict):
    name: AgentName
    description: str = Field(min_length=1, max_length=500)
    system_prompt: str = Field(min_length=1)
    model: str = Field(min_length=1, description="a name under models")
    tools: list[ToolName] = Field(default_factory=list)


class SpeakerOrder(_Strict):
    """planner_then_producer: the planner speaks first, then the producer of the task type, and a
    reviewer's @agent sends the next turn to that agent. round_robin: the agents in file order.
    model_selected: the planner's model picks the next speaker (an @agent still wins)."""

    mode: SpeakerMode = "planner_then_producer"
    planner: AgentName | None = None


class TaskTypeDef(_Strict):
    producer: AgentName = Field(description="the agent whose work is reviewed")
    sign_off: list[ReviewRole] = Field(min_length=1, description="roles that approve, in order")
    # Issue 42: content sign-offs stay with people unless listed here, per gate (docs/standing-rules.md).
    rules_may_sign_off: list[ReviewRole] = Field(
        default_factory=list, description="sign-off roles whose step an active standing rule may take "
                                          "(none by default: every sign-off waits for a person)")

    @field_validator("rules_may_sign_off")
    @classmethod
    def _roles_of_the_chain(cls, roles: list[str], info: Any) -> list[str]:
        chain = info.data.get("sign_off") or []
        for role in roles:
            if role not in chain:
                raise ValueError(f"'{role}' is not one of this task type's sign_off roles ({listed(chain)}): "
                                 "a rule may only take a step of the chain")
        return roles

    @model_serializer(mode="wrap")
    def _without_an_empty_allowance(self, handler: Any) -> Any:
        """Left out when empty (the default), so shown and exported teams read as they did before it existed."""
        data = handler(self)
        if isinstance(data, dict) and not self.rules_may_sign_off:
            data.pop("rules_may_sign_off", None)
        return data

    def rule_may_sign_off(self, role: str) -> bool:
        return role in self.rules_may_sign_off


class GatesDef(_Strict):
    """The default gate policy of conversations of this team (domain/policies.py GatePolicy).
    agents: omitted = the producer of the conversation's task type."""

    mode: Literal["after_agent", "on_done", "never"] = "after_agent"
    agents: list[AgentName] | None = None
    keywords: list[str] = Field(default_factory=list)
    regex: str | None = None
    min_confidence: float | None = Field(default=None, ge=0, le=1)
    tools: list[ToolName] = Field(default_factory=list, description="tools whose calls need approval")
    max_turns_without_review: int = Field(default=12, ge=1)
    # Literal of domain's tuple, built at run time (one list of severities): not a type to mypy.
    min_finding_severity: Literal[SEVERITIES] | None = None  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _a_valid_policy(self) -> GatesDef:
        try:
            GatePolicy.from_dict(self.model_dump(exclude={"agents"}))
        except InvalidInput as exc:
            raise ValueError(str(exc)) from exc
        return self


class TeamDefinition(_Strict):
    format: Literal[1] = FORMAT_VERSION
    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_-]{0,39}$")]
    description: str = ""
    agents: list[AgentDef] = Field(min_length=1)
    models: dict[str, ModelDef] = Field(min_length=1)
    tools: dict[ToolName, ToolDef] = Field(default_factory=dict)
    speaker_order: SpeakerOrder = SpeakerOrder()
    task_types: dict[TaskTypeName, TaskTypeDef] = Field(
        min_length=1, description="one: every conversation has it; several: the planner's 'TASK TYPE:' line picks")
    gates: GatesDef = GatesDef()
    gateway: GatewayDef | None = Field(default=None, description="upstream MCP servers behind the MCP gateway")
    tool_approver: ReviewRole = "security_reviewer"
    sla_hours: dict[ReviewRole, Annotated[float, Field(gt=0)]] = Field(
        default_factory=dict, description="review deadline per role; roles not listed use the server setting")
    # Optional, so versions saved before it existed load unchanged (format 1 still): the default.
    # Literal of domain's tuple, built at run time (one list of versions): not a type to mypy.
    python_version: Literal[PYTHON_VERSIONS] = Field(  # type: ignore[valid-type]
        default=DEFAULT_PYTHON_VERSION,
        description="the Python the team's code is written for: the analysers parse its code as this version "
                    "(docs/findings.md); code they cannot parse is 'not analysed'")

    @field_validator("python_version", mode="before")
    @classmethod
    def _a_version_written_as_a_number(cls, value: Any) -> Any:
        """YAML reads `python_version: 3.12` as a number, and 3.10 as 3.1."""
        if isinstance(value, float):
            if str(value) not in PYTHON_VERSIONS:
                raise ValueError(f"write it in quotes (\"3.10\", not 3.10: YAML reads {value} as a number); one of "
                                 + ", ".join(PYTHON_VERSIONS))
            return str(value)
        return value

    @field_validator("name")
    @classmethod
    def _not_reserved(cls, name: str) -> str:
        if name in RESERVED_NAMES:
            raise ValueError(f"'{name}' is reserved (it names a page of the API)")
        return name

    @model_validator(mode="after")
    def _references_resolve(self) -> TeamDefinition:
        names = [a.name for a in self.agents]
        if len(set(names)) != len(names):
            raise ValueError("agents: two agents have the same name")
        needed = [problem for problem in bad_references(self) if problem.needed]
        if needed:
            raise ValueError(str(needed[0]))
        if self.speaker_order.mode == "planner_then_producer" and self.speaker_order.planner is None:
            raise ValueError("speaker_order.planner: planner_then_producer needs a planner")
        return self

    # What the rest of the app asks of a team.
    @property
    def agent_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.agents)

    @property
    def fixed_task_type(self) -> str | None:
        """None: the team serves several task types and follows the planner's TASK TYPE line."""
        return next(iter(self.task_types)) if len(self.task_types) == 1 else None

    @property
    def producers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(spec.producer for spec in self.task_types.values()))

    def serves(self, task_type: str) -> bool:
        return task_type in self.task_types

    def producer(self, task_type: str) -> str:
        # Keys are the TaskType literals; any other string simply finds nothing.
        spec = self.task_types.get(task_type)  # type: ignore[call-overload]
        return spec.producer if spec else self.agent_names[-1]

    @property
    def code_authors(self) -> CodeAuthors:
        """Whose texts propose which code (domain/revisions.proposed_code)."""
        return CodeAuthors(self.speaker_order.planner, self.producer("copy") if self.serves("copy") else None)

    def sign_off(self, task_type: str) -> tuple[str, ...]:
        # Keys are the TaskType literals; any other string simply finds nothing.
        spec = self.task_types.get(task_type)  # type: ignore[call-overload]
        return tuple(spec.sign_off) if spec else ("final_approver",)

    def agent(self, name: str) -> AgentDef:
        return next(a for a in self.agents if a.name == name)

    def default_policy(self, task_type: str) -> GatePolicy:
        data = self.gates.model_dump()
        if self.gates.agents is None:
            data["agents"] = (self.producer(task_type),) if self.fixed_task_type else self.producers
        return GatePolicy.from_dict(data)

    def needs_approval(self, tool: str, arguments: dict[str, Any]) -> bool:
        found = self.tools.get(tool)
        return True if found is None else found.needs_approval(arguments)

    def holds_back(self, agent: str, tool: str, arguments: dict[str, Any]) -> bool:
        """The agent's approval wrapper of this tool did not run the call: it waits for a human,
        whatever a gate policy lists. A tool the agent does not hold (a model's invention) ran
        nothing either, but AutoGen answered it with an error: nothing waits for it."""
        held = agent in self.agent_names and tool in self.agent(agent).tools
        return held and self.needs_approval(tool, arguments)
