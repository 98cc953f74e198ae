"""Suggested changes as the diff panel lists them: where, the exact lines, and whether the next
revision took them (services/conversations/suggestions.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hitl_dashboard.domain.suggestions import SuggestionState

STATE_COLORS = {
    SuggestionState.APPLIED: "green", SuggestionState.APPLIED_WITH_CHANGES: "amber",
    SuggestionState.NOT_APPLIED: "red", SuggestionState.FILE_GONE: "red", SuggestionState.WAITING: "gray",
}


@dataclass
class SuggestionRow:
    key: str = ""
    span: str = ""  # "line 4", "lines 4-6"
    lines: str = ""  # the exact lines, as text (shown as text, never as markup)
    text: str = ""
    reviewer: str = ""
    revisions: str = ""  # "r1 → r2", or "r1" while waiting
    state: str = ""
    detail: str = ""
    color: str = "gray"


def suggestion_rows(statuses: Sequence) -> list[SuggestionRow]:
    """statuses: SuggestionStatus, oldest decision first; shown newest first."""
    rows = []
    for s in reversed(statuses):
        span = f"line {s.line}" if s.line == s.end_line else f"lines {s.line}-{s.end_line}"
        after = f" → r{s.next_revision}" if s.next_revision else ""
        detail = s.outcome.detail + (f" (line {s.outcome.line})" if s.outcome.line and "line" not in s.outcome.detail
                                     else "")
        rows.append(SuggestionRow(s.key, span, "\n".join(s.lines) if s.lines else "(delete these lines)", s.text,
                                  s.reviewer, f"r{s.revision}{after}", s.outcome.state.value, detail,
                                  STATE_COLORS[s.outcome.state]))
    return rows
