"""Suggested lines (domain/suggestions.py): how they are written into the REVISE message and read
back, and whether the next revision applied each one."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.decisions import DecisionInput, LineComment, render_line_comments, validate_decision
from hitl_dashboard.domain.enums import Action, ReviewKind
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.revise_message import revise_message
from hitl_dashboard.domain.suggestions import (
    SuggestedChange,
    SuggestionState,
    apply_suggestions,
    parse_suggestions,
    suggestion_outcome,
    without_suggestions,
)

BEFORE = "\n".join([
    "# file: app/retry.py",     # 1
    "import time",              # 2
    "",                         # 3
    "MAX_ATTEMPTS = 5",         # 4
    "BASE_DELAY_S = 0.2",       # 5
    "",                         # 6
    "def call(func):",          # 7
    "    return func()",        # 8
]) + "\n"


def with_lines(text: str, replace: dict[int, list[str]]) -> str:
    lines = text.splitlines()
    for number in sorted(replace, reverse=True):
        lines[number - 1:number] = replace[number]
    return "\n".join(lines) + "\n"


def test_the_suggested_lines_at_their_place_are_applied():
    after = with_lines(BEFORE, {4: ["MAX_ATTEMPTS = 3"]})
    outcome = suggestion_outcome(BEFORE, after, 4, 4, ["MAX_ATTEMPTS = 3"])
    assert (outcome.state, outcome.detail, outcome.line) == (SuggestionState.APPLIED, "as written", 4)


def test_lines_that_moved_are_followed():
    # Ten lines were added above (logging), and the suggestion replaced two lines with three.
    after = with_lines(BEFORE, {2: ["import logging", "import time", "", "logger = 1", "", "", "", "", "", "", ""],
                                4: ["MAX_ATTEMPTS = 3", "# fewer attempts", "JITTER = True"], 5: []})
    outcome = suggestion_outcome(BEFORE, after, 4, 5, ["MAX_ATTEMPTS = 3", "# fewer attempts", "JITTER = True"])
    assert outcome.state == SuggestionState.APPLIED
    assert after.splitlines()[outcome.line - 1] == "MAX_ATTEMPTS = 3" and outcome.line == 14


def test_the_suggested_lines_moved_elsewhere_count_as_applied_there():
    after = "\n".join(["# file: app/retry.py", "MAX_ATTEMPTS = 3", "import time", "", "BASE_DELAY_S = 0.2", "",
                       "def call(func):", "    return func()"]) + "\n"
    outcome = suggestion_outcome(BEFORE, after, 4, 4, ["MAX_ATTEMPTS = 3"])
    assert outcome.state == SuggestionState.APPLIED and outcome.line == 2


def test_unchanged_lines_are_not_applied():
    after = with_lines(BEFORE, {8: ["    return func(timeout=10)"]})  # another edit, elsewhere
    outcome = suggestion_outcome(BEFORE, after, 4, 4, ["MAX_ATTEMPTS = 3"])
    assert (outcome.state, outcome.detail) == (SuggestionState.NOT_APPLIED, "the lines are unchanged")


def test_a_close_but_different_edit_is_applied_with_changes():
    after = with_lines(BEFORE, {4: ["MAX_ATTEMPTS = 4  # fewer attempts"]})
    outcome = suggestion_outcome(BEFORE, after, 4, 4, ["MAX_ATTEMPTS = 3  # fewer attempts"])
    assert outcome.state == SuggestionState.APPLIED_WITH_CHANGES and outcome.line == 4


def test_whitespace_only_differences_are_changes_not_a_match():
    after = with_lines(BEFORE, {8: ["  return func()"]})
    outcome = suggestion_outcome(BEFORE, after, 8, 8, ["    return func()  "])
    assert outcome.state == SuggestionState.APPLIED_WITH_CHANGES


def test_a_different_edit_at_the_place_is_not_applied():
    after = with_lines(BEFORE, {4: ["RETRY_POLICY = load_policy_from_environment()"]})
    outcome = suggestion_outcome(BEFORE, after, 4, 4, ["MAX_ATTEMPTS = 3"])
    assert (outcome.state, outcome.detail) == (SuggestionState.NOT_APPLIED, "the lines were changed another way")


def test_a_deletion_is_applied_when_the_lines_are_gone_and_not_while_they_stay():
    deleted = with_lines(BEFORE, {5: []})
    assert suggestion_outcome(BEFORE, deleted, 5, 5, []).state == SuggestionState.APPLIED
    assert suggestion_outcome(BEFORE, BEFORE, 5, 5, []).state == SuggestionState.NOT_APPLIED


def test_a_file_missing_from_the_next_revision_says_so():
    outcome = suggestion_outcome(BEFORE, None, 4, 4, ["MAX_ATTEMPTS = 3"])
    assert outcome.state == SuggestionState.FILE_GONE
    assert "does not include this file" in outcome.detail


def test_lines_outside_the_reviewed_revision_are_never_applied():
    outcome = suggestion_outcome(BEFORE, BEFORE, 30, 31, ["x = 1"])
    assert outcome.state == SuggestionState.NOT_APPLIED and "not in the revision" in outcome.detail


def test_the_revise_message_carries_the_exact_lines_and_they_read_back_unchanged():
    lines = ("    # ``` a fence inside the suggestion", "", "    return func()  ")
    comments = (LineComment("app/retry.py", 2, "explain"),
                LineComment("app/retry.py", 7, "keep it short", lines, 8),
                LineComment("app/other.py", 3, "", ()))
    message = revise_message(target="coder", instructions="add logging", line_comments=comments,
                             reviewer="alice", role="security_reviewer")
    assert "- app/retry.py lines 7-8 suggested change: keep it short\n````suggestion\n" in message
    assert "replaces the named lines with exactly the lines in its block" in message
    assert parse_suggestions(message) == [SuggestedChange("app/retry.py", 7, 8, lines, "keep it short"),
                                          SuggestedChange("app/other.py", 3, 3, (), "")]
    rest = without_suggestions(message)
    assert "- app/retry.py line 2: explain" in rest and "return func()" not in rest


def test_apply_suggestions_bottom_up_and_reports_what_it_could_not_apply():
    changes = [SuggestedChange("k", 4, 5, ("MAX_ATTEMPTS = 3",)), SuggestedChange("k", 8, 8, ("    return 1", "x")),
               SuggestedChange("k", 40, 40, ("far away",)), SuggestedChange("k", 5, 5, ("overlaps",))]
    code, skipped = apply_suggestions(BEFORE.rstrip("\n"), changes)
    # Lines 4-5 overlap line 5's suggestion, applied before it (bottom-up): that one is left out.
    assert code.split("\n")[3:9] == ["MAX_ATTEMPTS = 5", "overlaps", "", "def call(func):", "    return 1", "x"]
    assert [c.first for c in skipped] == [40, 4]


@pytest.mark.parametrize(("comment", "message"), [
    (LineComment("k", 4, "", None), "needs a line >= 1 and some text"),
    (LineComment("k", 4, "x", None, 6), "end_line goes with a suggestion"),
    (LineComment("k", 4, "", ("a",), 3), "end_line >= line"),
    (LineComment("k", 4, "", ("a\nb",)), "no line breaks inside it"),
    (LineComment("k", 4, "", ("a",) * 501), "at most 500 lines"),
])
def test_bad_suggestions_are_refused_with_a_clear_message(comment, message):
    with pytest.raises(InvalidInput, match=message):
        validate_decision(DecisionInput(Action.REVISE, line_comments=(comment,)), kind=ReviewKind.SIGNOFF,
                          agents=("coder",))


def test_a_suggestion_alone_is_a_revision_and_its_fingerprint_holds_its_lines():
    plain = DecisionInput(Action.REVISE, line_comments=(LineComment("k", 4, "", ("a",)),))
    validate_decision(plain, kind=ReviewKind.SIGNOFF, agents=("coder",))
    other = DecisionInput(Action.REVISE, line_comments=(LineComment("k", 4, "", ("b",)),))
    assert plain.fingerprint(1) != other.fingerprint(1)
    assert render_line_comments(plain.line_comments).startswith("- k line 4 suggested change:\n```suggestion\na\n```")


def test_stored_comments_of_older_decisions_read_as_plain_comments():
    old = LineComment.from_stored({"key": "k", "line": 3, "text": "hi"})
    assert old == LineComment("k", 3, "hi") and old.suggested_change() is None
    new = LineComment.from_stored({"key": "k", "line": 3, "text": "", "suggestion": ["a"], "end_line": 4,
                                   "revision_id": 9})
    assert new.suggested_change() == SuggestedChange("k", 3, 4, ("a",)) and new.revision_id == 9
