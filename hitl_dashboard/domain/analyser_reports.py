"""Reading bandit's and ruff's JSON reports. Pure: running the analysers is services/findings' job.

A report answers two things: the findings, and whether the analyser could read the code at all.
A parse error inside an exit-0 run (bandit's `errors` list, ruff's `invalid-syntax` diagnostics)
means the file was not analysed: it must never read as "0 findings" (docs/findings.md, fail closed)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from hitl_dashboard.domain.findings import RUFF_MEDIUM_PREFIXES, Finding, limited

MAX_PARSE_ERRORS = 3  # shown in the reason; one is usually enough to say why


class ReportUnreadable(ValueError):
    """An analyser's output is not the JSON report it promises."""


@dataclass(frozen=True)
class AnalyserReport:
    findings: list[Finding] = field(default_factory=list)
    parse_errors: list[str] = field(default_factory=list)  # "line 3: Cannot use `type` alias ..."


def parse_bandit(output: str) -> AnalyserReport:
    report = _load(output, dict)
    errors = [str(item.get("reason") or "unreadable") for item in report.get("errors") or []
              if isinstance(item, dict)]
    findings = limited(
        Finding("bandit", str(item.get("test_id", "")), str(item.get("issue_severity", "")).lower() or "low",
                _int(item.get("line_number")), _int(item.get("col_offset")) + 1, str(item.get("issue_text", "")))
        for item in report.get("results", []) if isinstance(item, dict)
    )
    return AnalyserReport(findings, errors[:MAX_PARSE_ERRORS])


def parse_ruff(output: str) -> AnalyserReport:
    findings, errors = [], []
    for item in _load(output, list):
        if not isinstance(item, dict):
            continue
        location = item.get("location") or {}
        code = item.get("code")
        if code in (None, "invalid-syntax", "E999"):  # a syntax error: ruff 0.17 says invalid-syntax, older null
            errors.append(f"line {_int(location.get('row'))}: {str(item.get('message', ''))[:300]}")
            continue
        rule = str(code)
        severity = "medium" if rule.startswith(RUFF_MEDIUM_PREFIXES) else "low"
        findings.append(Finding("ruff", rule, severity, _int(location.get("row")), _int(location.get("column")),
                                str(item.get("message", ""))))
    return AnalyserReport(limited(findings), errors[:MAX_PARSE_ERRORS])


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
