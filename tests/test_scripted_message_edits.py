"""The scripted planner and copywriter continue from a reviewer's edit of their message ("approve
with my changes"), as the coder continues from edited files: the demo tells the same story for every
task type."""

from __future__ import annotations

from autogen_core.models import AssistantMessage, UserMessage

from hitl_dashboard.domain.edits import MESSAGE_KEY, Change, edits_message, normalized_message, unified_diff
from hitl_dashboard.domain.revise_message import revise_message
from tests.test_scripted_follows_review import answer

PLAN_TASK = "Add retry with exponential backoff to the payment client"
COPY_TASK = "Write an email announcing the retry helper to the payments team"


def edited_by_alice(before: str, after: str) -> str:
    """The note an approve-with-my-changes leaves the agents (services/reviews/decision_notes.py):
    the edit as a diff of the stored message, then the decision."""
    old, new = normalized_message(before), normalized_message(after)
    change = Change(MESSAGE_KEY, unified_diff(old + "\n", new + "\n", f"{MESSAGE_KEY} #2 by agent",
                                              f"{MESSAGE_KEY} (edited by alice)"))
    return edits_message("alice", "product_reviewer", [change]) + "\nAPPROVE by alice (product_reviewer)"


def first_line_replaced(text: str, line: str) -> str:
    return "\n".join([text.split("\n")[0], line, *text.split("\n")[2:]])


def test_the_planner_continues_from_the_reviewers_version_of_its_plan():
    task = UserMessage(content=PLAN_TASK, source="frank")
    plan = answer("planner", [task])
    mine = first_line_replaced(plan, "Plan for: retries, but only for idempotent payment calls")
    again = answer("planner", [task, AssistantMessage(content=plan, source="planner"),
                               UserMessage(content=edited_by_alice(plan, mine), source="alice")])
    assert "Plan for: retries, but only for idempotent payment calls" in again, again
    assert "Continuing from the reviewer's version of the plan" in again
    # A later revise keeps the edit and adds the new instruction to it.
    revise = revise_message(target="planner", instructions="add a step for metrics", line_comments=(),
                            reviewer="bob", role="security_reviewer")
    third = answer("planner", [task, AssistantMessage(content=plan, source="planner"),
                               UserMessage(content=edited_by_alice(plan, mine), source="alice"),
                               UserMessage(content=revise, source="bob")])
    assert "only for idempotent payment calls" in third and "add a step for metrics" in third, third


def test_the_copywriter_continues_from_the_reviewers_version_of_its_copy():
    task = UserMessage(content=COPY_TASK, source="frank")
    copy = answer("copywriter", [task])
    mine = "# Retries that never charge twice" + copy[copy.index("\n"):]
    again = answer("copywriter", [task, AssistantMessage(content=copy, source="copywriter"),
                                  UserMessage(content=edited_by_alice(copy, mine), source="alice")])
    assert again.startswith("# Retries that never charge twice\n"), again
    assert "continued from the reviewer's version" in again


def test_an_edit_made_to_another_version_is_left_out():
    task = UserMessage(content=COPY_TASK, source="frank")
    copy = answer("copywriter", [task])
    stale = edited_by_alice("# Some other headline\n\nOther text.", "# Mine\n\nOther text.")
    again = answer("copywriter", [task, AssistantMessage(content=copy, source="copywriter"),
                                  UserMessage(content=stale, source="alice")])
    assert again.startswith(copy.split("\n")[0]) and "reviewer's version" not in again, again
