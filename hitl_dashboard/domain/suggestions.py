"""Suggested lines: a line comment that carries the exact lines to put in place of lines first..last,
as a GitHub "suggested change" does.

Three pure parts, so the format cannot drift from its readers: how a suggestion is written into the
REVISE message (a fenced block the agent copies as it is), how it is read back (the offline scripted
coder applies it), and whether the next revision took it (`suggestion_outcome`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

MAX_SUGGESTION_LINES = 500
_BLOCK = re.compile(
    r"^- (?P<key>\S+) lines? (?P<first>\d+)(?:-(?P<last>\d+))? suggested change:(?P<text>[^\n]*)\n"
    r"(?P<fence>`{3,})suggestion\n(?P<body>(?:[^\n]*\n)*?)(?P=fence)[ \t]*$",
    re.M,
)


class SuggestionState(StrEnum):
    APPLIED = "applied"
    APPLIED_WITH_CHANGES = "applied with changes"
    NOT_APPLIED = "not applied"
    FILE_GONE = "file gone"
    WAITING = "waiting for the next revision"


@dataclass(frozen=True)
class SuggestedChange:
    key: str
    first: int  # 1-based, inclusive
    last: int
    lines: tuple[str, ...]  # () deletes the lines
    text: str = ""  # the reviewer's words beside it

    @property
    def span(self) -> str:
        return f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"


@dataclass(frozen=True)
class SuggestionOutcome:
    state: SuggestionState
    detail: str
    line: int | None = None  # where the new revision has the suggested lines (1-based)


# -- the message -------------------------------------------------------------------------------------
def render_suggestion(change: SuggestedChange) -> str:
    """One bullet of the REVISE message's line comments, with the exact lines in a fence longer than
    any run of backticks inside them (so a suggestion holding a fence cannot end the block early)."""
    runs = [len(run) for line in change.lines for run in re.findall(r"`+", line)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    body = "".join(line + "\n" for line in change.lines)
    words = f" {change.text.strip()}" if change.text.strip() else ""
    return (f"- {change.key} {change.span} suggested change:{words}\n"
            f"{fence}suggestion\n{body}{fence}")


def parse_suggestions(message: str) -> list[SuggestedChange]:
    """The suggestions in a REVISE message, as render_suggestion wrote them."""
    found = []
    for match in _BLOCK.finditer(message):
        first = int(match.group("first"))
        last = int(match.group("last") or first)
        body = match.group("body")
        lines = tuple(body[:-1].split("\n")) if body else ()
        found.append(SuggestedChange(match.group("key"), first, last, lines, match.group("text").strip()))
    return found


def without_suggestions(message: str) -> str:
    """The message with its suggestion blocks taken out: what is left is read as plain instructions."""
    return _BLOCK.sub("", message)


def apply_suggestions(code: str, changes: Sequence[SuggestedChange]) -> tuple[str, list[SuggestedChange]]:
    """Put each suggestion's lines in place, bottom-up so earlier line numbers stay valid. Returns the new
    text and the suggestions that could not be applied (their lines are not in the text, or overlap another)."""
    lines = code.split("\n")
    skipped: list[SuggestedChange] = []
    floor = len(lines) + 1
    for change in sorted(changes, key=lambda c: -c.first):
        if not 1 <= change.first <= change.last < floor:
            skipped.append(change)
            continue
        lines[change.first - 1:change.last] = list(change.lines)
        floor = change.first
    return "\n".join(lines), skipped


# -- did the next revision take it? -----------------------------------------------------------------
def suggestion_outcome(before: str, after: str | None, first: int, last: int,
                       suggested: Sequence[str]) -> SuggestionOutcome:
    """Compare the suggestion (lines first..last of `before` replaced by `suggested`) with `after`, the
    file's next revision (None: the next revision has no such file). The place is found by aligning the
    two revisions, so lines that moved are followed; the suggested lines found verbatim elsewhere (more
    often than before) count as applied there."""
    if after is None:
        return SuggestionOutcome(SuggestionState.FILE_GONE, "the next revision does not include this file")
    old, new, wanted = before.splitlines(), after.splitlines(), list(suggested)
    if not 1 <= first <= last <= len(old):
        return SuggestionOutcome(SuggestionState.NOT_APPLIED,
                                 f"lines {first}-{last} are not in the revision it was made on")
    original = old[first - 1:last]
    start, end = _corresponding(old, new, first - 1, last)
    place = new[start:end]
    if not wanted:  # a deletion
        if _find(place, original) is None:
            return SuggestionOutcome(SuggestionState.APPLIED, "the lines were deleted", start + 1)
        return SuggestionOutcome(SuggestionState.NOT_APPLIED, "the lines are still there")
    at = _find(place, wanted)
    if at is not None:
        return SuggestionOutcome(SuggestionState.APPLIED, "as written", start + at + 1)
    moved = _find(new, wanted)
    if moved is not None and _count(new, wanted) > _count(old, wanted):
        return SuggestionOutcome(SuggestionState.APPLIED, f"as written, moved to line {moved + 1}", moved + 1)
    if _find(place, original) is not None or not place:
        return SuggestionOutcome(SuggestionState.NOT_APPLIED, "the lines are unchanged" if place
                                 else "the lines were removed instead")
    if _squeezed(place) == _squeezed(wanted) or _similar(place, wanted):
        return SuggestionOutcome(SuggestionState.APPLIED_WITH_CHANGES,
                                 "the lines were changed, not exactly as suggested", start + 1)
    return SuggestionOutcome(SuggestionState.NOT_APPLIED, "the lines were changed another way", start + 1)


def _corresponding(old: list[str], new: list[str], lo: int, hi: int) -> tuple[int, int]:
    """The slice of `new` that stands where old[lo:hi] stood: the matched lines inside the range, and
    whatever was replaced, deleted or inserted inside it or right at its edges."""
    starts: list[int] = []
    ends: list[int] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            a, b = max(i1, lo), min(i2, hi)
            if a < b:
                starts.append(j1 + a - i1)
                ends.append(j1 + b - i1)
        elif (i1 < hi and i2 > lo) or (i1 == i2 and lo <= i1 <= hi):
            starts.append(j1)
            ends.append(j2)
    return (min(starts), max(ends)) if starts else (0, 0)


def _find(lines: Sequence[str], block: Sequence[str]) -> int | None:
    size = len(block)
    return next((i for i in range(len(lines) - size + 1) if list(lines[i:i + size]) == list(block)), None)


def _count(lines: Sequence[str], block: Sequence[str]) -> int:
    size = len(block)
    return sum(1 for i in range(len(lines) - size + 1) if list(lines[i:i + size]) == list(block))


def _squeezed(lines: Sequence[str]) -> str:
    return " ".join(" ".join(lines).split())


def _similar(place: Sequence[str], wanted: Sequence[str]) -> bool:
    """Most of the suggested text is there: the reviewer's lines, edited a little."""
    return difflib.SequenceMatcher(None, "\n".join(place), "\n".join(wanted), autojunk=False).ratio() >= 0.6
