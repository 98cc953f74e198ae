"""The team form back into the team's document (issue 30). Each row starts from the entry it was
read from, so what the form does not change stays as it was, and a field that was absent stays
absent when the form leaves it empty. A value the form cannot even read (a number that is not one,
a config that is not JSON, two tools of one name) is reported at its form field before anything is
sent; everything else is the team schema's to judge (services/teams), one check for every door."""

from __future__ import annotations

import copy
import shlex
from typing import Any

import yaml

from hitl_dashboard.domain.bounded_input import load_json
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.ui.views.team_form import AgentRow, ChainRow, ModelRow, TeamForm, ToolRow, shown

Problems = dict[str, str]


def apply_form(document: dict[str, Any], form: TeamForm) -> tuple[dict[str, Any], Problems]:
    """(the document with the form's values, problems by form key). With problems, do not save."""
    out = copy.deepcopy(document)
    problems: Problems = {}
    _names("agents", [r.name for r in form.agents], "agent", problems)
    _names("models", [r.name for r in form.models], "model", problems)
    _names("tools", [r.name for r in form.tools], "tool", problems)
    _names("chains", [r.task_type for r in form.chains], "sign-off chain for the task type", problems, "task_type")
    _put(out, "description", form.description)
    _put(out, "python_version", form.python_version)
    _put(out, "tool_approver", form.tool_approver)
    old_agents = list(document.get("agents") or [])
    out["agents"] = [_agent(_origin_entry(old_agents, row.origin), row) for row in form.agents]
    old_models, old_tools = document.get("models") or {}, document.get("tools") or {}
    out["models"] = {row.name: _model(old_models.get(row.origin), row, f"models.{i}", problems)
                     for i, row in enumerate(form.models)}
    _put(out, "tools", {row.name: _tool(old_tools.get(row.origin), row, f"tools.{i}", problems)
                        for i, row in enumerate(form.tools)})
    speaker = out.setdefault("speaker_order", {})
    speaker["mode"] = form.speaker_mode
    _put(speaker, "planner", form.planner or None)
    old_types = document.get("task_types") or {}
    out["task_types"] = {row.task_type: _chain(old_types.get(row.origin), row) for row in form.chains}
    _gates(out, form, problems)
    sla: dict[str, float] = {}
    for row in form.sla:
        hours = number(row.hours, f"sla_hours.{row.role}", problems)
        if hours is not None:
            sla[row.role] = hours
    _put(out, "sla_hours", sla)
    return out, problems


def document_text(document: dict[str, Any]) -> str:
    """The document as the YAML view shows it: as `teams export` writes a file (no null fields)."""
    return yaml.safe_dump(_without_nulls(document), sort_keys=False, allow_unicode=True, width=100)


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_nulls(inner) for key, inner in value.items() if inner is not None}
    if isinstance(value, list):
        return [_without_nulls(inner) for inner in value]
    return value


def _names(section: str, names: list[str], kind: str, problems: Problems, part: str = "name") -> None:
    """Names are keys: two rows of one name would silently become one."""
    for index, name in enumerate(names):
        if not name.strip():
            problems[f"{section}.{index}.{part}"] = f"every {kind} needs a name"
        elif name in names[:index]:
            problems[f"{section}.{index}.{part}"] = f"another {kind} is named {name!r}"


def _origin_entry(entries: list[Any], origin: str) -> dict[str, Any] | None:
    index = int(origin) if origin.isdigit() else -1
    return entries[index] if 0 <= index < len(entries) else None


def _agent(old: dict[str, Any] | None, row: AgentRow) -> dict[str, Any]:
    agent = copy.deepcopy(old) if old else {}
    agent.update(name=row.name.strip(), description=row.description, system_prompt=row.prompt, model=row.model)
    _put(agent, "tools", list(row.tools))
    return agent


def _model(old: dict[str, Any] | None, row: ModelRow, key: str, problems: Problems) -> dict[str, Any]:
    model = copy.deepcopy(old) if old else {}
    model["provider"] = row.provider.strip()
    config = _json_object(row.other, f"{key}.other", problems)
    old_config = (old or {}).get("config") or {}
    for name in ("model", "base_url", "plays"):
        text = getattr(row, name).strip()
        if text:
            config[name] = typed(text, old_config.get(name))
    if row.no_key:
        config["api_key"] = ""
    _put(model, "config", config)
    _put(model, "api_key_env", row.api_key_env.strip() or None)
    _put(model, "description", row.description)
    return model


def _tool(old: dict[str, Any] | None, row: ToolRow, key: str, problems: Problems) -> dict[str, Any]:
    tool = copy.deepcopy(old) if old else {}
    if row.kind == "mcp":
        _put(tool, "function", None)
        tool["mcp"] = _mcp(tool.get("mcp") or {}, row, key, problems)
    else:
        _put(tool, "mcp", None)
        tool["function"] = row.function.strip()
    _put(tool, "description", row.description or None)
    tool["approval"] = row.approval
    if row.approval == "when":
        rule = copy.deepcopy(tool.get("when") or {})
        rule["argument"] = row.when_argument.strip()
        if row.when_operator == "one_of":
            before = rule.get("one_of") or []
            values = [v.strip() for v in row.when_value.split(",") if v.strip()]
            rule["one_of"] = [typed(v, before[i] if i < len(before) else None) for i, v in enumerate(values)]
            _put(rule, "equals", None)
        else:
            rule["equals"] = typed(row.when_value.strip(), rule.get("equals"))
            _put(rule, "one_of", None)
        tool["when"] = rule
    else:
        _put(tool, "when", None)
    return tool


def _mcp(server: dict[str, Any], row: ToolRow, key: str, problems: Problems) -> dict[str, Any]:
    server = copy.deepcopy(server)
    server["transport"] = row.transport
    try:
        _put(server, "args", shlex.split(row.args))
    except ValueError as exc:  # an unclosed quote
        problems[f"{key}.mcp"] = f"the arguments cannot be read as shell words: {exc}"
    for name, text in (("command", row.command), ("url", row.url), ("tool", row.server_tool)):
        _put(server, name, text.strip() or None)
    for name, text in (("env_from", row.env_from), ("headers_env", row.headers_env)):
        _put(server, name, _pairs(text, f"{key}.mcp", problems))
    return server


def _chain(old: dict[str, Any] | None, row: ChainRow) -> dict[str, Any]:
    chain = copy.deepcopy(old) if old else {}
    chain["producer"] = row.producer
    chain["sign_off"] = [r.strip() for r in row.roles.split(",") if r.strip()]
    return chain


def _gates(out: dict[str, Any], form: TeamForm, problems: Problems) -> None:
    gates = out.setdefault("gates", {})
    gates["mode"] = form.gate_mode
    agents = [a.strip() for a in form.gate_agents.split(",") if a.strip()]
    # Empty means "the producer of the task type" (None); an explicit [] the file had stays.
    _put(gates, "agents", agents or ([] if gates.get("agents") == [] else None))
    _put(gates, "keywords", [k.strip() for k in form.keywords.split(",") if k.strip()])
    _put(gates, "regex", form.regex.strip() or None)
    _put(gates, "min_confidence", number(form.min_confidence, "gates.min_confidence", problems))
    _put(gates, "min_finding_severity", form.min_severity or None)
    turns = number(form.max_turns, "gates.max_turns_without_review", problems, whole=True)
    if turns is not None:
        gates["max_turns_without_review"] = turns
    # As the form holds it: a name that is no tool of the team stays until it is unchecked (the
    # check refuses it, and the form shows it beside the tools, checked).
    _put(gates, "tools", list(form.gate_tools))


def _put(entry: dict[str, Any], key: str, value: Any) -> None:
    """Set a field; an empty value leaves an absent field absent (the file stays as it was written)."""
    if value in (None, "", [], {}) and key not in entry:
        return
    entry[key] = value


def _json_object(text: str, key: str, problems: Problems) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = load_json(text, "the other settings")
    except InvalidInput as exc:
        problems[key] = str(exc)
        return {}
    if not isinstance(value, dict):
        problems[key] = 'the other settings must be a JSON object, e.g. {"temperature": 0}'
        return {}
    return value


def _pairs(text: str, key: str, problems: Problems) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        name, sep, value = part.partition("=")
        if not part:
            continue
        if not sep or not name.strip() or not value.strip():
            problems[key] = f"write each as NAME=VARIABLE, comma separated ({part!r} is not)"
            continue
        found[name.strip()] = value.strip()
    return found


def number(text: str, where: str, problems: Problems, whole: bool = False) -> float | int | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        return int(text) if whole else float(text)
    except ValueError:
        problems[where] = "a whole number" if whole else "a number"
        return None


def typed(text: str, before: Any = None) -> Any:
    """A value typed as it reads (true/false, a number, else text); unchanged text keeps its type."""
    if before is not None and shown(before) == text:
        return before
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
