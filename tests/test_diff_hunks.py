"""A file's diff as hunks and folded gaps (domain/diff_hunks.py, issue 44)."""

from __future__ import annotations

import random

from hitl_dashboard.domain.diff_hunks import FileDiff, Gap, Hunk, file_diff, lines_of, split_lines


def _text(lines) -> str:
    return "".join(f"{line}\n" for line in lines)


def _rebuild(diff: FileDiff, old: str, new: str) -> tuple[list[str], list[str]]:
    """Both sides from the parts, a gap's lines read from the texts by its ranges."""
    a, b, left, right = split_lines(old), split_lines(new), [], []
    for part in diff.parts:
        if isinstance(part, Gap):
            assert part.size > 0
            assert a[part.old_start - 1:part.old_start - 1 + part.size] == b[part.new_start - 1:
                                                                             part.new_start - 1 + part.size]
            left += a[part.old_start - 1:part.old_start - 1 + part.size]
            right += b[part.new_start - 1:part.new_start - 1 + part.size]
        else:
            assert part.old_start == len(left) + 1 and part.new_start == len(right) + 1
            left += part.old_lines
            right += part.new_lines
    return left, right


FILE = [f"line {n}" for n in range(1, 101)]


def test_a_change_in_the_middle_is_one_hunk_with_context_between_two_gaps():
    new = list(FILE)
    new[49] = "line fifty"
    diff = file_diff(_text(FILE), _text(new))
    assert diff.parts[0] == Gap(1, 1, 46)
    hunk = diff.parts[1]
    assert isinstance(hunk, Hunk) and (hunk.old_start, hunk.new_start) == (47, 47)
    assert hunk.old_lines == tuple(FILE[46:53]) and hunk.new_lines == (*FILE[46:49], "line fifty", *FILE[50:53])
    assert [r.equal for r in hunk.runs] == [True, False, True]
    assert diff.parts[2] == Gap(54, 54, 47)
    assert _rebuild(diff, _text(FILE), _text(new)) == (FILE, new)


def test_a_new_file_is_one_hunk_of_added_lines():
    diff = file_diff("", _text(FILE))
    assert diff.gaps == ()
    [hunk] = diff.hunks
    assert hunk.old_lines == () and hunk.new_lines == tuple(FILE) and hunk.new_start == 1


def test_deleted_content_shows_as_removed_lines_and_the_numbers_after_it_move():
    new = FILE[:20] + FILE[40:]
    diff = file_diff(_text(FILE), _text(new))
    [hunk] = diff.hunks
    assert hunk.old_start == 18 and hunk.new_start == 18
    assert [r.old for r in hunk.runs if not r.equal] == [tuple(FILE[20:40])]
    assert [r.new for r in hunk.runs if not r.equal] == [()]
    assert diff.parts[-1] == Gap(44, 24, 57)  # the same lines, 20 numbers apart
    assert _rebuild(diff, _text(FILE), _text(new)) == (FILE, new)
    emptied = file_diff(_text(FILE), "")
    assert emptied.gaps == () and emptied.hunks[0].new_lines == () and emptied.hunks[0].old_lines == tuple(FILE)


def test_changes_at_the_start_and_at_the_end_have_no_gap_beyond_them():
    new = ["first"] + FILE[1:-1] + ["last"]
    diff = file_diff(_text(FILE), _text(new))
    assert isinstance(diff.parts[0], Hunk) and isinstance(diff.parts[-1], Hunk)
    assert diff.parts[0].old_lines == tuple(FILE[:4]) and diff.parts[-1].new_lines == (*FILE[-4:-1], "last")
    assert diff.gaps == (Gap(5, 5, 92),)
    assert _rebuild(diff, _text(FILE), _text(new)) == (FILE, new)


def test_hunks_whose_contexts_touch_are_one_and_those_further_apart_are_not():
    new = list(FILE)
    new[10], new[16] = "ten", "sixteen"  # 5 equal lines between: within 2 x 3
    new[30], new[37] = "thirty", "thirty-seven"  # 6 between: touching contexts, still one
    new[60], new[68] = "sixty", "sixty-eight"  # 7 between: a gap of one line
    diff = file_diff(_text(FILE), _text(new))
    assert [(h.old_start, len(h.old_lines)) for h in diff.hunks] == [(8, 13), (28, 14), (58, 7), (66, 7)]
    assert diff.parts[6] == Gap(65, 65, 1)
    assert _rebuild(diff, _text(FILE), _text(new)) == (FILE, new)


def test_line_endings_are_part_of_the_line():
    crlf = "a\r\nb\r\nc\r\n"
    assert file_diff(crlf, crlf) == FileDiff((Gap(1, 1, 3),))
    [hunk] = file_diff(crlf, "a\nb\nc\n").hunks
    assert hunk.old_lines == ("a\r", "b\r", "c\r") and hunk.new_lines == ("a", "b", "c")
    [hunk] = file_diff("a\r\nb\r\n", "a\r\nB\r\n").hunks
    assert [r.equal for r in hunk.runs] == [True, False] and hunk.new_lines == ("a\r", "B\r")


def test_empty_and_identical_texts():
    assert file_diff("", "") == FileDiff(())
    assert file_diff(_text(FILE), _text(FILE)) == FileDiff((Gap(1, 1, 100),))
    assert file_diff("a", "a\n") == FileDiff((Gap(1, 1, 1),))  # a final newline is no line
    assert split_lines("a\n\n") == ["a", ""] and split_lines("\n") == [""]
    [hunk] = file_diff("", "\n").hunks
    assert hunk.new_lines == ("",)


def test_a_large_context_keeps_a_file_whole():
    new = list(FILE)
    new[50] = "x"
    [hunk] = file_diff(_text(FILE), _text(new), context=len(FILE)).parts
    assert isinstance(hunk, Hunk) and hunk.old_lines == tuple(FILE) and hunk.new_lines == tuple(new)


def test_random_edits_rebuild_both_sides_exactly():
    rng = random.Random(44)
    for _ in range(200):
        old = [rng.choice("abcdefgh") for _ in range(rng.randrange(0, 60))]
        new = list(old)
        for _ in range(rng.randrange(0, 6)):
            at = rng.randrange(0, len(new) + 1)
            kind = rng.randrange(3)
            if kind == 0:
                new.insert(at, rng.choice("xyz"))
            elif new and at < len(new):
                if kind == 1:
                    del new[at]
                else:
                    new[at] = rng.choice("xyz")
        diff = file_diff(_text(old), _text(new), context=rng.randrange(0, 4))
        assert _rebuild(diff, _text(old), _text(new)) == (old, new)
        assert all(not (isinstance(p, Gap) and isinstance(q, Gap)) for p, q in zip(diff.parts, diff.parts[1:],
                                                                                    strict=False))


def test_lines_of_reads_a_range_and_stops_at_the_end():
    text = _text(FILE)
    assert lines_of(text, 1, 2) == ["line 1", "line 2"]
    assert lines_of(text, 99, 10) == ["line 99", "line 100"]
    assert lines_of(text, 0, 3) == [] and lines_of(text, 5, 0) == [] and lines_of(text, 200, 3) == []


def test_a_long_file_of_repeated_lines_is_diffed_quickly():
    import time

    old = ["    pass", "", "}"] * 2000
    new = old[:3000] + ["changed"] + old[3000:]
    started = time.perf_counter()
    diff = file_diff(_text(old), _text(new))
    assert time.perf_counter() - started < 1.0
    assert _rebuild(diff, _text(old), _text(new)) == (old, new)
    assert [r.new for h in diff.hunks for r in h.runs if not r.equal] == [("changed",)]
