"""The admin page's team form (issue 10): the review rules and prompts of a team as form rows,
and back into the team's document. Pure data: the page's state holds the rows, the service checks
and saves the result; a value the form cannot even read (a confidence that is not a number) is
reported at its field before anything is sent."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

REVIEW_ROLES = ("security_reviewer", "product_reviewer", "final_approver", "admin")
APPROVALS = ("always", "never", "when")


@dataclass
class AgentRow:
    name: str = ""
    model: str = ""
    prompt: str = ""


@dataclass
class ToolRow:
    name: str = ""
    approval: str = "always"
    when_argument: str = ""
    when_equals: str = ""


@dataclass
class ChainRow:
    task_type: str = ""
    producer: str = ""
    roles: str = ""  # "security_reviewer, final_approver": in order


@dataclass
class SlaRow:
    role: str = ""
    hours: str = ""  # empty: the server's setting


@dataclass
class TeamForm:
    gate_mode: str = "after_agent"
    keywords: str = ""
    regex: str = ""
    min_confidence: str = ""
    max_turns: str = ""
    gate_tools: list[str] = field(default_factory=list)
    tool_approver: str = "security_reviewer"
    agents: list[AgentRow] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    tools: list[ToolRow] = field(default_factory=list)
    chains: list[ChainRow] = field(default_factory=list)
    sla: list[SlaRow] = field(default_factory=list)


def form_of(document: dict[str, Any]) -> TeamForm:
    gates = document.get("gates") or {}
    tools = []
    for name, tool in (document.get("tools") or {}).items():
        when = tool.get("when") or {}
        equals = when.get("equals")
        tools.append(ToolRow(name, tool.get("approval", "always"), when.get("argument") or "",
                             "" if equals is None else str(equals)))
    sla = document.get("sla_hours") or {}
    return TeamForm(
        gate_mode=gates.get("mode", "after_agent"),
        keywords=", ".join(gates.get("keywords") or []),
        regex=gates.get("regex") or "",
        min_confidence="" if gates.get("min_confidence") is None else str(gates["min_confidence"]),
        max_turns=str(gates.get("max_turns_without_review", 12)),
        gate_tools=list(gates.get("tools") or []),
        tool_approver=document.get("tool_approver", "security_reviewer"),
        agents=[AgentRow(a["name"], a["model"], a["system_prompt"]) for a in document.get("agents") or []],
        models=list(document.get("models") or {}),
        tools=tools,
        chains=[ChainRow(task_type, spec["producer"], ", ".join(spec["sign_off"]))
                for task_type, spec in (document.get("task_types") or {}).items()],
        sla=[SlaRow(role, _number_text(sla.get(role))) for role in REVIEW_ROLES],
    )


def apply_form(document: dict[str, Any], form: TeamForm) -> tuple[dict[str, Any], dict[str, str]]:
    """(the document with the form's values, problems by field path). With problems, do not save."""
    out = copy.deepcopy(document)
    problems: dict[str, str] = {}
    gates = out.setdefault("gates", {})
    gates["mode"] = form.gate_mode
    gates["keywords"] = [k.strip() for k in form.keywords.split(",") if k.strip()]
    gates["regex"] = form.regex.strip() or None
    gates["min_confidence"] = _number(form.min_confidence, "gates.min_confidence", problems)
    turns = _number(form.max_turns, "gates.max_turns_without_review", problems, whole=True)
    if turns is not None:
        gates["max_turns_without_review"] = turns
    # The form shows the team's own tools; a name the policy lists beyond them (a tool the start
    # form may add) stays as it is.
    declared, before = out.get("tools") or {}, list(gates.get("tools") or [])
    gates["tools"] = ([t for t in before if t not in declared or t in form.gate_tools]
                      + [t for t in form.gate_tools if t in declared and t not in before])
    out["tool_approver"] = form.tool_approver
    for index, row in enumerate(form.agents):
        agent = out["agents"][index]
        agent["model"], agent["system_prompt"] = row.model, row.prompt
    for tool_row in form.tools:
        tool = out["tools"][tool_row.name]
        tool["approval"] = tool_row.approval
        if tool_row.approval == "when":
            tool["when"] = {"argument": tool_row.when_argument.strip(),
                            "equals": _scalar(tool_row.when_equals.strip())}
        else:
            tool["when"] = None
    for chain in form.chains:
        out["task_types"][chain.task_type]["sign_off"] = [r.strip() for r in chain.roles.split(",") if r.strip()]
    sla: dict[str, float] = {}
    for sla_row in form.sla:
        hours = _number(sla_row.hours, f"sla_hours.{sla_row.role}", problems)
        if hours is not None:
            sla[sla_row.role] = hours
    out["sla_hours"] = sla
    return out, problems


def _number(text: str, where: str, problems: dict[str, str], whole: bool = False) -> float | int | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        return int(text) if whole else float(text)
    except ValueError:
        problems[where] = "a whole number" if whole else "a number"
        return None


def _number_text(value: Any) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else str(value)


def _scalar(text: str) -> Any:
    """A `when` value typed as it reads: true/false, a number, or the text itself."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text
