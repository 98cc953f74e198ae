"""Findings of a code revision and questions to the agent, ready to show (services/findings)."""

from __future__ import annotations

from dataclasses import dataclass

SEVERITY_COLORS = {"high": "red", "medium": "orange", "low": "gray"}
# The same colours as CSS values, for the icons drawn in the diff's gutter.
SEVERITY_CSS = {"high": "var(--red-11)", "medium": "var(--orange-11)", "low": "var(--gray-11)"}


@dataclass
class FindingRow:
    line: int = 0
    severity: str = ""
    color: str = "gray"
    css_color: str = ""
    analyser: str = ""
    rule: str = ""
    message: str = ""  # agent-influenced text: rendered as text only
    label: str = ""  # "high · bandit B602: message", the hover text on the line's icon


@dataclass
class QuestionRow:
    """One question to the agent and its answer, under its review card (texts shown as text)."""

    id: int = 0
    about: str = ""  # "app/x.py line 7" or ""
    agent: str = ""
    question: str = ""
    answer: str = ""
    status: str = ""  # open | answering | answered | failed
    error: str = ""  # why the agent's model gave no answer (failed): shown beside a retry
    model: str = ""  # the model that answered


def question_rows(questions) -> list[QuestionRow]:
    """A failure stored before 0014 kept its text in `answer`: shown as the failure it was."""
    return [QuestionRow(q.id, f"{q.key} line {q.line}" if q.key and q.line else "", q.agent, q.question,
                        "" if q.status == "failed" else q.answer or "", q.status,
                        (q.error or q.answer or "the agent's model gave no answer") if q.status == "failed" else "",
                        q.model or "")
            for q in questions or []]


def finding_rows(found) -> list[FindingRow]:
    return [
        FindingRow(f.line, f.severity, SEVERITY_COLORS.get(f.severity, "gray"), SEVERITY_CSS.get(f.severity, ""),
                   f.analyser, f.rule, f.message, f"{f.severity} · {f.analyser} {f.rule}: {f.message}")
        for f in found.findings
    ]


def analysis_summary(found) -> str:
    if found.status == "analysed":
        n = len(found.findings)
        return f"{n} finding{'' if n == 1 else 's'}" if n else "no findings"
    if found.status == "not_analysed":
        return f"not analysed: {found.reason or 'unknown reason'}"
    return "analysis pending"

