"""A file's diff as hunks with context and the folded runs of unchanged lines between them (issue 44).

The page draws the hunks and sends only them: a 3,000-line file changed in a few places is a few
hundred lines on the wire, not both texts whole. A folded run is named by its line ranges, so its
lines can be read when a reviewer expands it.

Lines are split on "\\n" only (as the browser's diff and the analysers number them): a "\\r" stays
part of its line, so a change of line endings shows as a changed line, never as nothing."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

CONTEXT = 3  # unchanged lines shown around a change (the diff viewer's own default)


@dataclass(frozen=True)
class Run:
    """Part of a hunk: equal lines (`old` == `new`) or a change (either side may be empty)."""

    equal: bool
    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass(frozen=True)
class Hunk:
    old_start: int  # 1-based line number of its first old line (of where it goes, when it has none)
    new_start: int
    runs: tuple[Run, ...]

    @property
    def old_lines(self) -> tuple[str, ...]:
        return tuple(line for run in self.runs for line in run.old)

    @property
    def new_lines(self) -> tuple[str, ...]:
        return tuple(line for run in self.runs for line in run.new)


@dataclass(frozen=True)
class Gap:
    """Unchanged lines left out between hunks (or before the first, after the last): the same text
    at old lines old_start.. and new lines new_start.., `size` lines."""

    old_start: int
    new_start: int
    size: int


@dataclass(frozen=True)
class FileDiff:
    parts: tuple[Hunk | Gap, ...]  # in file order; a gap is never next to another gap

    @property
    def hunks(self) -> tuple[Hunk, ...]:
        return tuple(p for p in self.parts if isinstance(p, Hunk))

    @property
    def gaps(self) -> tuple[Gap, ...]:
        return tuple(p for p in self.parts if isinstance(p, Gap))


def split_lines(text: str) -> list[str]:
    """"a\\nb\\n" and "a\\nb" are both two lines; "" is none."""
    if not text:
        return []
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def file_diff(old: str, new: str, context: int = CONTEXT) -> FileDiff:
    """The hunks of old -> new with `context` unchanged lines around each change (hunks whose
    contexts touch are one), and the gaps between them. Identical texts: one gap, the whole file."""
    a, b = split_lines(old), split_lines(new)
    if a == b:
        return FileDiff((Gap(1, 1, len(a)),) if a else ())
    context = max(0, int(context))
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    parts: list[Hunk | Gap] = []
    old_done = new_done = 0  # lines of each side covered by the parts so far
    for group in matcher.get_grouped_opcodes(context):
        first = group[0]
        if first[1] > old_done:
            parts.append(Gap(old_done + 1, new_done + 1, first[1] - old_done))
        runs = tuple(Run(tag == "equal", tuple(a[i1:i2]), tuple(b[j1:j2]))
                     for tag, i1, i2, j1, j2 in group if i2 > i1 or j2 > j1)
        parts.append(Hunk(first[1] + 1, first[3] + 1, runs))
        old_done, new_done = group[-1][2], group[-1][4]
    if old_done < len(a):
        parts.append(Gap(old_done + 1, new_done + 1, len(a) - old_done))
    return FileDiff(tuple(parts))


def lines_of(text: str, start: int, count: int) -> list[str]:
    """Lines start..start+count-1 (1-based) of `text`, fewer at its end."""
    if start < 1 or count < 1:
        return []
    return split_lines(text)[start - 1:start - 1 + count]
