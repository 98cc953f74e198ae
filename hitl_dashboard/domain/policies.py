"""Gate policies: when must a human look before the agents go on?"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

import regex as timed_regex  # the `regex` package: like re, but a search can be given a timeout

from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.findings import SEVERITIES, FindingsView
from hitl_dashboard.domain.stored_values import TOOL_NAME_CHARS, is_tool_name

GateMode = Literal["after_agent", "on_done", "never"]
_DONE = re.compile(r"\b(TERMINATE|DONE)\b|Ready for review\.", re.IGNORECASE)
REGEX_TIMEOUT_S = 0.2
MAX_REGEX_CHARS = 500
_TASK_TYPE_LINE = re.compile(r"TASK TYPE:\s*(code|copy|ops)\b", re.IGNORECASE)
_CONFIDENCE = re.compile(r"CONFIDENCE:\s*([01](?:\.\d+)?)", re.IGNORECASE)


@dataclass(frozen=True)
class TurnView:
    """What the gate sees of one agent turn."""

    agent: str
    text: str
    tool_calls: tuple[str, ...] = ()

    @property
    def says_done(self) -> bool:
        return bool(_DONE.search(self.text))

    @property
    def confidence(self) -> float | None:
        found = _CONFIDENCE.findall(self.text)
        return float(found[-1]) if found else None


@dataclass(frozen=True)
class GateHit:
    rule: str  # after_agent | on_done | keyword | regex | confidence | tool | findings
    detail: str

    @property
    def is_signoff_point(self) -> bool:
        return self.rule in ("after_agent", "on_done")

    def describe(self) -> str:
        return f"{self.rule}: {self.detail}"


@dataclass(frozen=True)
class GatePolicy:
    """mode decides the sign-off points; predicates (keywords, regex, confidence) add
    gates anywhere; tools lists the tool names that need approval before they run.
    mode "never" opens no sign-off: the conversation completes when the team is done,
    unless a predicate or a tool approval stops it."""

    mode: GateMode = "after_agent"
    agents: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    regex: str | None = None
    min_confidence: float | None = None
    tools: tuple[str, ...] = ("deploy_to_prod",)
    max_turns_without_review: int = 12
    # "findings at or above a severity": a turn whose Python code has such findings goes to
    # security review (services/findings/gate.py computes the input). None: findings never gate.
    min_finding_severity: str | None = None

    def evaluate(self, turn: TurnView) -> list[GateHit]:
        hits: list[GateHit] = []
        if self.mode == "after_agent" and turn.agent in self.agents:
            hits.append(GateHit("after_agent", f"after a turn of {turn.agent}"))
        if self.mode in ("after_agent", "on_done") and turn.says_done and not hits:
            hits.append(GateHit("on_done", f"{turn.agent} says the work is done"))
        upper = turn.text.upper()
        for word in self.keywords:
            if word.upper() in upper:
                hits.append(GateHit("keyword", f"'{word}' in {turn.agent}'s message"))
        if self.regex:
            try:
                if timed_regex.search(self.regex, turn.text, timeout=REGEX_TIMEOUT_S):
                    hits.append(GateHit("regex", f"/{self.regex}/ matched {turn.agent}'s message"))
            except TimeoutError:
                # A pathological pattern must not hang the runner; fail closed: a human looks.
                hits.append(GateHit("regex", f"/{self.regex}/ took too long on {turn.agent}'s message"))
        minimum = self.min_confidence
        confidence = turn.confidence if minimum is not None else None  # a regex: only when asked
        if minimum is not None and confidence is not None and confidence < minimum:
            hits.append(GateHit("confidence", f"{turn.agent} reports confidence {confidence:.2f} < {minimum:.2f}"))
        return hits

    def evaluate_findings(self, findings: FindingsView | None) -> list[GateHit]:
        if self.min_finding_severity is None or findings is None:
            return []
        hits = []
        if findings.not_analysed:  # fail closed: a check that could not run is not a check passed
            hits.append(GateHit("findings", "not analysed: " + "; ".join(why for _, why in findings.not_analysed)))
        count = findings.at_or_above(self.min_finding_severity)
        if count:
            where = ", ".join(findings.files[:3]) + (" ..." if len(findings.files) > 3 else "")
            hits.append(GateHit("findings", f"{count} static-analysis finding{'s' if count > 1 else ''} at or "
                                            f"above {self.min_finding_severity} in {where}"))
        return hits

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> GatePolicy:
        data = dict(data or {})
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise InvalidInput(f"unknown gate policy fields: {', '.join(sorted(unknown))}", "gate_policy")
        if data.get("mode", "after_agent") not in ("after_agent", "on_done", "never"):
            raise InvalidInput("gate policy mode must be after_agent, on_done or never", "gate_policy")
        if data.get("regex"):
            if not isinstance(data["regex"], str) or len(data["regex"]) > MAX_REGEX_CHARS:
                raise InvalidInput(f"gate policy regex must be text of at most {MAX_REGEX_CHARS} characters",
                                   "gate_policy")
            try:
                timed_regex.compile(data["regex"])
            except timed_regex.error as exc:
                raise InvalidInput(f"gate policy regex is invalid: {exc}", "gate_policy") from exc
        for name in ("agents", "keywords", "tools"):
            if name in data:
                value = data[name]
                if isinstance(value, str) or not all(isinstance(v, str) for v in value or ()):
                    raise InvalidInput(f"gate policy {name} must be a list of names", "gate_policy")
                data[name] = tuple(value)
        if not all(is_tool_name(t) for t in data.get("tools", ())):
            raise InvalidInput(f"gate policy tools must be tool names (identifiers of at most {TOOL_NAME_CHARS}"
                               " characters)", "gate_policy")
        if data.get("min_finding_severity") not in (None, *SEVERITIES):
            raise InvalidInput(f"gate policy min_finding_severity must be one of {', '.join(SEVERITIES)}",
                               "gate_policy")
        for name, kind in (("min_confidence", (int, float)), ("max_turns_without_review", int)):
            if data.get(name) is not None and (isinstance(data[name], bool) or not isinstance(data[name], kind)):
                raise InvalidInput(f"gate policy {name} must be a number", "gate_policy")
        return cls(**data)


# Predicates every template starts with: destructive or production-touching words.
RISK_KEYWORDS = ("DROP TABLE", "DELETE FROM", "rm -rf", "production")


def risk_flags(text: str) -> list[str]:
    upper = text.upper()
    return [word for word in RISK_KEYWORDS if word.upper() in upper]


def planned_task_type(text: str) -> str | None:
    """The planner may name the task type in its first message: 'TASK TYPE: copy'."""
    found = _TASK_TYPE_LINE.search(text)
    return found.group(1).lower() if found else None


# How a team with one task type tells its planner that type (agents/teams.py writes it into the
# planner's system prompt; the scripted planner reads it back).
GIVEN_TASK_TYPE = "The task type of this conversation is"
_GIVEN_LINE = re.compile(re.escape(GIVEN_TASK_TYPE) + r" (\w+)\.")


def given_task_type_line(task_type: str) -> str:
    return f"{GIVEN_TASK_TYPE} {task_type}."


def given_task_type(text: str) -> str | None:
    found = _GIVEN_LINE.search(text)
    return found.group(1).lower() if found else None
