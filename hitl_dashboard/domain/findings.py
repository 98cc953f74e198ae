"""Static-analysis findings on agents' Python code: severities, the fixed ruff rule set, and reading
the analysers' JSON reports. Pure: running the analysers is services/findings' job.

The analysers only parse the code (bandit walks the AST, ruff lints the text); neither imports or
runs it."""

from __future__ import annotations

import json
from dataclasses import dataclass

from hitl_dashboard.domain.text_cuts import cut_visibly

SEVERITIES = ("low", "medium", "high")
_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}

# ruff's rules, fixed and documented (docs/findings.md): likely bugs, not taste.
#   E9   syntax errors and unreadable files
#   F    pyflakes: unused imports and variables, undefined names, redefinitions, f-string slips
#   B    flake8-bugbear: mutable default arguments, `except:` swallowing, loop-variable closures...
#   PLE  pylint errors (e.g. `return` outside a function, bad `__all__`)
RUFF_RULES = ("E9", "F", "B", "PLE")
# Rules whose finding means the code is likely wrong, not only untidy: medium, every other ruff
# finding low. Security is bandit's (it rates its own findings low/medium/high).
RUFF_MEDIUM_PREFIXES = ("E9", "F821", "F822", "F823", "F63", "F7", "PLE")

MAX_FINDINGS_PER_FILE = 200
MAX_MESSAGE_CHARS = 500


class ReportUnreadable(ValueError):
    """An analyser's output is not the JSON report it promises."""


@dataclass(frozen=True)
class Finding:
    analyser: str  # bandit | ruff
    rule: str  # B602, F401
    severity: str  # low | medium | high
    line: int
    column: int
    message: str


def is_python(key: str, language: str) -> bool:
    return (language or "").lower() in ("python", "py", "python3") or key.lower().endswith(".py")


def at_least(severity: str, threshold: str) -> bool:
    return _RANK.get(severity, -1) >= _RANK[threshold]


def check_severity(value: str) -> str:
    if value not in _RANK:
        raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}")
    return value


def parse_bandit(output: str) -> list[Finding]:
    report = _load(output, dict)
    return _limited(
        Finding("bandit", str(item.get("test_id", "")), str(item.get("issue_severity", "")).lower() or "low",
                _int(item.get("line_number")), _int(item.get("col_offset")) + 1, str(item.get("issue_text", "")))
        for item in report.get("results", []) if isinstance(item, dict)
    )


def parse_ruff(output: str) -> list[Finding]:
    report = _load(output, list)
    findings = []
    for item in report:
        if not isinstance(item, dict):
            continue
        rule = str(item.get("code") or "E999")  # a syntax error has no code
        location = item.get("location") or {}
        severity = "medium" if rule.startswith(RUFF_MEDIUM_PREFIXES) else "low"
        findings.append(Finding("ruff", rule, severity, _int(location.get("row")), _int(location.get("column")),
                                str(item.get("message", ""))))
    return _limited(findings)


def _load(output: str, kind: type):
    try:
        report = json.loads(output)
    except ValueError as exc:
        raise ReportUnreadable(f"not JSON: {exc}") from exc
    if not isinstance(report, kind):
        raise ReportUnreadable(f"expected a JSON {kind.__name__}")
    return report


def _int(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _limited(findings) -> list[Finding]:
    kept = []
    for finding in findings:
        severity = finding.severity if finding.severity in _RANK else "low"
        kept.append(Finding(finding.analyser, finding.rule[:32], severity, finding.line, finding.column,
                            cut_visibly(finding.message, MAX_MESSAGE_CHARS)))
        if len(kept) >= MAX_FINDINGS_PER_FILE:
            break
    return kept


@dataclass(frozen=True)
class FindingsView:
    """What the gate sees of the findings on one turn's Python revisions (computed by services)."""

    counts: dict[str, int]  # severity -> findings on the turn's files
    files: tuple[str, ...] = ()
    not_analysed: tuple[str, ...] = ()  # files the analysers could not read in time

    def at_or_above(self, threshold: str) -> int:
        return sum(n for severity, n in self.counts.items() if at_least(severity, threshold))
