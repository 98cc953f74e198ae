"""Static-analysis findings on agents' Python code: severities, the fixed ruff rule set, the Python
versions a team may declare, and what the gate and the queue see. Pure: running the analysers is
services/findings' job, reading their reports domain/analyser_reports.py's.

The analysers only parse the code (bandit walks the AST, ruff lints the text); neither imports or
runs it."""

from __future__ import annotations

from dataclasses import dataclass

from hitl_dashboard.domain.text_cuts import cut_visibly

SEVERITIES = ("low", "medium", "high")
# The Python a team's code is written for (the team file's python_version): ruff parses with it
# (--target-version); bandit parses with the server's own interpreter, whatever the team says.
PYTHON_VERSIONS = tuple(f"3.{minor}" for minor in range(8, 15))
DEFAULT_PYTHON_VERSION = "3.11"
_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}

# ruff's rules, fixed and documented (docs/findings.md): likely bugs, not taste.
#   E9   unreadable files (a syntax error is no finding: the file is "not analysed")
#   F    pyflakes: unused imports and variables, undefined names, redefinitions, f-string slips
#   B    flake8-bugbear: mutable default arguments, `except:` swallowing, loop-variable closures...
#   PLE  pylint errors (e.g. `return` outside a function, bad `__all__`)
RUFF_RULES = ("E9", "F", "B", "PLE")
# Rules whose finding means the code is likely wrong, not only untidy: medium, every other ruff
# finding low. Security is bandit's (it rates its own findings low/medium/high).
RUFF_MEDIUM_PREFIXES = ("E9", "F821", "F822", "F823", "F63", "F7", "PLE")

MAX_FINDINGS_PER_FILE = 200
MAX_MESSAGE_CHARS = 500


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


def limited(findings) -> list[Finding]:
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
    # (file, why) for each file the analysers could not read: a parse error, a failure, a timeout,
    # too large. The gate treats it as a finding (fail closed), never as "no findings".
    not_analysed: tuple[tuple[str, str], ...] = ()

    def at_or_above(self, threshold: str) -> int:
        return sum(n for severity, n in self.counts.items() if at_least(severity, threshold))


def ruff_target(python_version: str) -> str:
    """'3.12' -> 'py312', ruff's --target-version."""
    return "py" + python_version.replace(".", "")


@dataclass(frozen=True)
class ReviewFindings:
    """What the analysers say about the files of one code review: the queue's flag, and the same in
    the API and the CLI's JSON. A file not analysed says so with its reason; never "0 findings"."""

    counts: dict[str, int]  # severity -> findings on the analysed files
    not_analysed: tuple[tuple[str, str], ...] = ()  # (file, why)
    pending: tuple[str, ...] = ()  # files whose analysis has not finished

    @property
    def status(self) -> str:
        return "not_analysed" if self.not_analysed else "pending" if self.pending else "analysed"

    @property
    def flag(self) -> str:
        """'not analysed: why', '1 high · 2 medium findings', 'analysis pending'; '' when nothing to flag."""
        parts = []
        if self.not_analysed:
            parts.append("not analysed: " + "; ".join(why for _, why in self.not_analysed))
        serious = [f"{self.counts[s]} {s}" for s in ("high", "medium") if self.counts.get(s)]
        if serious:
            total = sum(self.counts.get(s, 0) for s in ("high", "medium"))
            parts.append(" · ".join(serious) + (" finding" if total == 1 else " findings"))
        if self.pending and not self.not_analysed:
            parts.append("analysis pending")
        return " · ".join(parts)

    def as_dict(self) -> dict:
        return {"status": self.status, "flag": self.flag,
                "counts": {s: self.counts.get(s, 0) for s in SEVERITIES},
                "not_analysed": [{"file": f, "reason": why} for f, why in self.not_analysed],
                "pending": list(self.pending)}
