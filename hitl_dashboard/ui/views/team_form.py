"""The admin page's team form (issues 10 and 30): a whole team as form rows (agents, their model
clients and tools, speaker order, gates, sign-off chains, SLAs), read from the team's document.
Pure data: the page's state holds the rows, ui/views/team_document.py turns them back into the
document, and the service checks and saves it. Every field of the format has its place here, so a
document read into the form and written back is the same document."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import Any

REVIEW_ROLES = ("security_reviewer", "product_reviewer", "final_approver", "admin")
TASK_TYPES = ("code", "copy", "ops")
APPROVALS = ("always", "never", "when")
OPERATORS = ("equals", "one_of")
TOOL_KINDS = ("function", "mcp")
TRANSPORTS = ("stdio", "streamable_http", "sse")
NONE = "-"  # a select's "no value" as the browser sends it (Radix selects take no empty value)
# Model config keys the form shows as fields; the rest of a model's config is one JSON field.
SHOWN_CONFIG = ("model", "base_url", "plays")


@dataclass
class AgentRow:
    origin: str = ""  # its index in the document it was read from ("": added in the form)
    name: str = ""
    description: str = ""
    model: str = ""
    prompt: str = ""
    tools: list[str] = field(default_factory=list)


@dataclass
class ModelRow:
    origin: str = ""  # its name in the document it was read from
    name: str = ""
    provider: str = "scripted"
    model: str = ""  # config.model
    base_url: str = ""  # config.base_url
    plays: str = ""  # config.plays: the scripted role an agent of another name follows
    api_key_env: str = ""
    no_key: bool = False  # config.api_key "": a server that takes no key
    other: str = ""  # the rest of config, as a JSON object
    description: str = ""


@dataclass
class ToolRow:
    origin: str = ""
    name: str = ""
    kind: str = "function"  # function | mcp
    function: str = ""  # package.module:function
    description: str = ""
    approval: str = "always"
    when_argument: str = ""
    when_operator: str = "equals"
    when_value: str = ""  # one_of: comma separated
    transport: str = "stdio"
    command: str = ""
    args: str = ""  # shell words
    url: str = ""
    server_tool: str = ""  # the server's name for it, when it differs
    env_from: str = ""  # NAME_THERE=NAME_HERE, comma separated
    headers_env: str = ""  # Header=VARIABLE, comma separated


@dataclass
class ChainRow:
    task_type: str = ""
    producer: str = ""
    roles: str = ""  # "security_reviewer, final_approver": in order
    origin: str = ""


@dataclass
class SlaRow:
    role: str = ""
    hours: str = ""  # empty: the server's setting


ROWS: dict[str, type] = {"agents": AgentRow, "models": ModelRow, "tools": ToolRow, "chains": ChainRow}


@dataclass
class TeamForm:
    description: str = ""
    python_version: str = "3.11"
    speaker_mode: str = "planner_then_producer"
    planner: str = ""
    gate_mode: str = "after_agent"
    gate_agents: str = ""  # empty: the producer of the task type
    keywords: str = ""
    regex: str = ""
    min_confidence: str = ""
    max_turns: str = ""
    min_severity: str = ""
    gate_tools: list[str] = field(default_factory=list)
    tool_approver: str = "security_reviewer"
    agents: list[AgentRow] = field(default_factory=list)
    models: list[ModelRow] = field(default_factory=list)
    tools: list[ToolRow] = field(default_factory=list)
    chains: list[ChainRow] = field(default_factory=list)
    sla: list[SlaRow] = field(default_factory=list)


def form_of(document: dict[str, Any]) -> TeamForm:
    """The form of a team document (a saved version's, or whatever the YAML view holds: missing
    parts read as empty, and the service names them when saving)."""
    gates = document.get("gates") or {}
    speaker = document.get("speaker_order") or {}
    sla = document.get("sla_hours") or {}
    return TeamForm(
        description=document.get("description") or "",
        python_version=str(document.get("python_version") or "3.11"),
        speaker_mode=speaker.get("mode") or "planner_then_producer",
        planner=speaker.get("planner") or "",
        gate_mode=gates.get("mode", "after_agent"),
        gate_agents=", ".join(gates.get("agents") or []),
        keywords=", ".join(gates.get("keywords") or []),
        regex=gates.get("regex") or "",
        min_confidence=shown(gates.get("min_confidence")),
        max_turns=str(gates.get("max_turns_without_review", 12)),
        min_severity=gates.get("min_finding_severity") or "",
        gate_tools=list(gates.get("tools") or []),
        tool_approver=document.get("tool_approver", "security_reviewer"),
        agents=[AgentRow(str(i), a.get("name", ""), a.get("description", ""), a.get("model", ""),
                         a.get("system_prompt", ""), list(a.get("tools") or []))
                for i, a in enumerate(document.get("agents") or [])],
        models=[_model_row(name, model or {}) for name, model in (document.get("models") or {}).items()],
        tools=[_tool_row(name, tool or {}) for name, tool in (document.get("tools") or {}).items()],
        chains=[ChainRow(task_type, spec.get("producer", ""), ", ".join(spec.get("sign_off") or []), task_type)
                for task_type, spec in (document.get("task_types") or {}).items()],
        sla=[SlaRow(role, shown(sla.get(role))) for role in REVIEW_ROLES],
    )


def _model_row(name: str, model: dict[str, Any]) -> ModelRow:
    config = dict(model.get("config") or {})
    no_key = config.get("api_key") == ""
    if no_key:
        del config["api_key"]
    shown_values = {key: shown(config.pop(key)) if key in config else "" for key in SHOWN_CONFIG}
    return ModelRow(name, name, model.get("provider", ""), shown_values["model"], shown_values["base_url"],
                    shown_values["plays"], model.get("api_key_env") or "", no_key,
                    json.dumps(config) if config else "", model.get("description") or "")


def _tool_row(name: str, tool: dict[str, Any]) -> ToolRow:
    when = tool.get("when") or {}
    one_of = when.get("one_of")
    mcp = tool.get("mcp") or {}
    return ToolRow(
        origin=name, name=name, kind="mcp" if tool.get("mcp") else "function", function=tool.get("function") or "",
        description=tool.get("description") or "", approval=tool.get("approval", "always"),
        when_argument=when.get("argument") or "", when_operator="one_of" if one_of is not None else "equals",
        when_value=", ".join(map(shown, one_of)) if one_of is not None else shown(when.get("equals")),
        transport=mcp.get("transport") or "stdio", command=mcp.get("command") or "",
        args=shlex.join(map(str, mcp.get("args") or [])), url=mcp.get("url") or "", server_tool=mcp.get("tool") or "",
        env_from=pairs_text(mcp.get("env_from")), headers_env=pairs_text(mcp.get("headers_env")),
    )


def shown(value: Any) -> str:
    """A value as the form shows it: whole numbers without '.0', flags as true/false."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def pairs_text(mapping: dict[str, str] | None) -> str:
    return ", ".join(f"{key}={value}" for key, value in (mapping or {}).items())
