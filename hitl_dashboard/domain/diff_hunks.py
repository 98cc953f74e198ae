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
    parts: list[Hunk | Gap] = []
    old_done = new_done = 0  # lines of each side covered by the parts so far
    for group in _grouped(_opcodes(a, b), context):
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


Opcode = tuple[str, int, int, int, int]


def _opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """difflib's opcodes of a -> b, the common first and last lines taken off first: a change or a few
    is then exact and quick whatever the file holds. On what is left, difflib's autojunk (lines that
    make up over 1% of a long file, such as blank lines and closing brackets, anchor no match) keeps a
    3,000-line file to milliseconds (without it a file of repeated lines took seconds); the result is
    still an exact diff, at most a less minimal one."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle = difflib.SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail]).get_opcodes()
    codes: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    codes += [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in middle
              if i2 > i1 or j2 > j1]
    if tail:
        codes.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return codes


def _grouped(codes: list[Opcode], context: int) -> list[list[Opcode]]:
    """The opcodes in hunks with up to `context` equal lines around each change, as difflib's
    get_grouped_opcodes does (two changes up to 2 x context lines apart are one hunk)."""
    if not codes:
        return []
    codes = list(codes)
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:  # a gap: end this hunk, start the next
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups
