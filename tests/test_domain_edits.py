"""The edit report the agents get (domain/edits.py): what the dashboard writes, the scripted model
reads back and applies exactly; a diff made for another version does not apply."""

from __future__ import annotations

from hitl_dashboard.domain.edits import (
    Change,
    apply_diff,
    edits_message,
    edits_section,
    normalized_file,
    split_edits,
    unified_diff,
)

BEFORE = ("# file: app/x.py\nimport os\n\n\n@property\ndef f():\n    return 1\n"
          + "".join(f"x{n} = {n}\n" for n in range(30)))


def _after() -> str:
    return BEFORE.replace("    return 1\n", "    return 2  # ```diff\n").replace("x20 = 20\n", "-- x20\n") + "tail\n"


def test_a_reported_edit_round_trips_and_applies_exactly():
    change = Change("app/x.py", unified_diff(BEFORE, _after(), "app/x.py r1", "app/x.py (edited by alice)"))
    note = "APPROVE by alice (security_reviewer)\n" + edits_message("alice", "security_reviewer", [change])
    section = edits_section(note)
    assert section is not None and section.startswith("EDITED by alice")
    resume = section + "\n\nREVISE @coder\nInstructions: add a timeout\n(from carol, final_approver)"
    rest, changes = split_edits(resume)
    assert rest.startswith("REVISE @coder") and "@property" not in rest
    assert [c.key for c in changes] == ["app/x.py"]
    assert apply_diff(BEFORE, changes[0].diff) == _after()


def test_a_diff_for_another_version_does_not_apply_and_text_without_edits_is_left_alone():
    diff = unified_diff(BEFORE, _after(), "a", "app/x.py")
    assert apply_diff(BEFORE.replace("x1 = 1", "x1 = 9"), diff) is None  # a context line differs
    assert apply_diff(BEFORE.replace("x20 = 20", "x20 = 21"), diff) is None  # a removed line differs
    assert split_edits("REVISE @coder\nInstructions: x") == ("REVISE @coder\nInstructions: x", [])
    assert edits_section("APPROVE by bob: fine") is None


def test_files_are_compared_as_revisions_store_them():
    assert normalized_file("a\r\nb") == normalized_file("a\nb\n\n\n") == "a\nb\n"
