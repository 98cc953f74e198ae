"""Standing rules on a content sign-off gate (issue 42): a team file may allow an active rule to take
one step of a task type's sign-off chain (teams/model.TaskTypeDef.rules_may_sign_off). Pure: what a
rule's conditions may name, and whether they hold for the content a sign-off covers. No I/O.

The conditions are the same `when` language as a tool rule's, checked by the same code
(domain/approval_rules.rule_problems) against a fixed set of arguments describing the content:

- `file`: a file the sign-off covers (its path, as the review shows it). A condition on `file` holds
  only when EVERY file the sign-off covers satisfies it; a sign-off that covers no file (a message)
  is never matched by it.
- `task_type`: the conversation's task type (the gate already names one: this only narrows).

Such a rule approves only: a rule never asks for a revision of content, which needs instructions a
person writes. Fail closed: content the rule cannot judge (no file, content whose files cannot be
found under the request's hash) is not matched; the request waits for a person."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

FILE: Final = "file"
TASK_TYPE: Final = "task_type"
GATE_SUBJECT: Final = "a sign-off"  # what the checker's messages name instead of a tool


def sign_off_arguments(task_types: Iterable[str]) -> dict[str, Any]:
    """The JSON Schema the conditions of a sign-off gate's rule are checked against."""
    return {"type": "object", "properties": {
        FILE: {"type": "string", "description": "every file the sign-off covers"},
        TASK_TYPE: {"type": "string", "enum": sorted(task_types)},
    }}


def gate_label(task_type: str, role: str) -> str:
    """How a reader names a gate: `copy/product_reviewer`."""
    return f"{task_type}/{role}"


def sign_off_rule_matches(conditions: Sequence[Any], files: Sequence[str], task_type: str) -> bool:
    """conditions: teams.model.ApprovalRule. Every condition holds (a rule with none matches nothing)."""
    if not conditions:
        return False
    for condition in conditions:
        if condition.argument == FILE:
            if not files or not all(condition.matches({FILE: name}) for name in files):
                return False
        elif condition.argument == TASK_TYPE:
            if not condition.matches({TASK_TYPE: task_type}):
                return False
        else:
            return False  # an argument this language does not have: never matched
    return True
