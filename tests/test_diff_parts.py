"""What the page receives of a file's diff (ui/views/diff_parts.py, issue 44): a large file as its
hunks and the sizes of its folds, far smaller than both texts; a small one whole. Rebuilding each
side as the browser does (ui/components/diff_text.py) gives the file line for line."""

from __future__ import annotations

import dataclasses
import json

from hitl_dashboard.ui.views.diff_parts import SMALL_FILE_LINES, DiffPart, cached_diff_parts, diff_parts
from tests.support.long_conversation import FILE_LINES, SPREAD_EVERY, spread_revisions

PLACEHOLDER = "\u22ef"


def _side(parts: list[DiffPart], side: str, unfolded: dict[int, str] | None = None) -> list[str]:
    """As side_text in the browser: a folded line is a placeholder unless this tab read it."""
    text = ""
    for p in parts:
        if p.kind == "fold":
            text += "".join((unfolded or {}).get(n, PLACEHOLDER) + "\n" for n in range(p.at, p.at + p.size))
        else:
            text += p.old if p.kind == "same" else getattr(p, side)
    return text.split("\n")[:-1]


def test_a_large_file_is_sent_as_hunks_and_folds_line_for_line():
    old, new = spread_revisions()
    parts = diff_parts(old, new)
    assert sum(p.kind == "edit" for p in parts) == FILE_LINES // SPREAD_EVERY
    assert sum(p.kind == "fold" for p in parts) == FILE_LINES // SPREAD_EVERY + 1
    left, right = _side(parts, "old"), _side(parts, "new")
    assert len(left) == len(right) == FILE_LINES
    new_lines = new.split("\n")
    for n in (14, 15, 16, 2985, 2988):  # changed lines and their context: the file's own, at their numbers
        assert right[n - 1] == new_lines[n - 1]
        assert left[n - 1] == old.split("\n")[n - 1]
    assert right[0] == PLACEHOLDER and right[29] == PLACEHOLDER
    # A fold read by this tab: its lines on both sides, at their places.
    assert _side(parts, "new", {n: new_lines[n - 1] for n in range(19, 42)})[18:41] == new_lines[18:41]
    sent = len(json.dumps([dataclasses.asdict(p) for p in parts]))
    assert sent < (len(old) + len(new)) / 4, sent


def test_a_small_file_is_sent_whole_and_a_new_file_as_added_lines():
    old = "".join(f"x{n} = {n}\n" for n in range(SMALL_FILE_LINES))
    new = old.replace("x200 = 200", "x200 = 0")
    parts = diff_parts(old, new)
    assert [p.kind for p in parts] == ["same", "edit", "same"]
    assert "".join(p.old for p in parts) == old and _side(parts, "new") == new.split("\n")[:-1]
    assert [dataclasses.astuple(p) for p in diff_parts(old, old)] == [("same", 0, 0, old, "")]
    assert [dataclasses.astuple(p) for p in diff_parts("", "a\n\nb")] == [("edit", 0, 0, "", "a\n\nb\n")]
    assert diff_parts("", "") == []


def test_parts_are_cached_by_the_texts():
    old, new = spread_revisions()
    first = cached_diff_parts(old, new)
    again = cached_diff_parts(old, new)
    assert again == first and again is not first and again[0] is first[0]  # the same pair: not computed again
    assert cached_diff_parts(old.replace("\n", "\r\n"), new) != first
    assert cached_diff_parts("", "x\n") == [DiffPart("edit", new="x\n")]
