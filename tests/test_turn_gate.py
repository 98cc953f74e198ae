"""domain/turn_gate: the one "pause for review or go on" decision after an agent turn, and the turn's
code parsed once. The decision is pure: a table of cases, no database. The last test runs real turns
through the runner and counts how often each message's text is parsed for code blocks."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pytest

from hitl_dashboard.domain import revisions
from hitl_dashboard.domain.findings import FindingsView
from hitl_dashboard.domain.policies import GatePolicy
from hitl_dashboard.domain.revisions import CodeAuthors
from hitl_dashboard.domain.turn_gate import decide_turn, parse_turn_code


@dataclass
class Said:
    source: str
    content: str
    kind: str = "text"
    awaiting_approval: bool = False


CODE = "```python\n# file: app/x.py\nprint(1)\n```"
HIGH = FindingsView(counts={"high": 1}, files=("app/x.py",))
NOT_ANALYSED = FindingsView(counts={}, files=("app/x.py",), not_analysed=(("app/x.py", "syntax error"),))
NEVER = {"mode": "never", "tools": [], "max_turns_without_review": 5}
SECURITY_GATE = {**NEVER, "min_finding_severity": "medium"}

# name: (policy, messages, decide_turn's keywords, outcome, the rule named, sign-off?, to security?, risk flags)
CASES = {
    "plain text goes on": (
        NEVER, [Said("coder", "a note")], {}, "continue", None, False, False, ()),
    "a held tool call waits first, whatever else fires": (
        {"mode": "on_done"}, [Said("coder", "DONE")], {"held_tool_calls": 1}, "tool_approval", None, False, False, ()),
    "the gated agent's turn is a sign-off point": (
        {"mode": "after_agent", "agents": ["coder"]}, [Said("coder", "here")], {}, "review", "after_agent", True,
        False, ()),
    "another agent's turn is not": (
        {"mode": "after_agent", "agents": ["coder"], "max_turns_without_review": 5}, [Said("planner", "plan")], {},
        "continue", None, False, False, ()),
    "saying done under on_done": (
        {"mode": "on_done"}, [Said("writer", "Ready for review.")], {}, "review", "on_done", True, False, ()),
    "a keyword gates without a sign-off, with the risk flags": (
        {**NEVER, "keywords": ["migrate"]}, [Said("coder", "migrate: DROP TABLE users")], {}, "review", "keyword",
        False, False, ("DROP TABLE",)),
    "a risk word alone opens nothing": (
        NEVER, [Said("coder", "rm -rf build/")], {}, "continue", None, False, False, ()),
    "low confidence": (
        {**NEVER, "min_confidence": 0.8}, [Said("coder", "CONFIDENCE: 0.4")], {}, "review", "confidence", False,
        False, ()),
    "findings go to security when the turn stores code": (
        SECURITY_GATE, [Said("coder", CODE)], {"proposes_code": True, "findings": HIGH}, "review", "findings", False,
        True, ()),
    "findings count only with code stored": (
        SECURITY_GATE, [Said("coder", "text")], {"proposes_code": False, "findings": HIGH}, "continue", None, False,
        False, ()),
    "code that was not analysed fails closed": (
        SECURITY_GATE, [Said("coder", CODE)], {"proposes_code": True, "findings": NOT_ANALYSED}, "review",
        "findings", False, True, ()),
    "a sign-off point outranks findings": (
        {**SECURITY_GATE, "mode": "after_agent", "agents": ["coder"]}, [Said("coder", CODE)],
        {"proposes_code": True, "findings": HIGH}, "review", "after_agent", True, False, ()),
    "never: done ends the conversation": (
        NEVER, [Said("coder", "TERMINATE")], {}, "done", None, False, False, ()),
    "never: a tool result saying done ends it too": (
        NEVER, [Said("coder", "calling", kind="tool_call"), Said("deploy", "DONE", kind="tool_result")], {}, "done",
        None, False, False, ()),
    "the turn budget spent": (
        NEVER, [Said("coder", "a note")], {"turns_without_review": 5}, "turn_budget", None, False, False, ()),
    "the budget needs a text to review": (
        NEVER, [Said("coder", "calling", kind="tool_call")], {"turns_without_review": 9}, "continue", None, False,
        False, ()),
}


@pytest.mark.parametrize("name", list(CASES))
def test_decide_turn(name: str) -> None:
    policy, messages, given, outcome, rule, signoff, to_security, flags = CASES[name]
    keywords = {"proposes_code": False, "held_tool_calls": 0, "findings": None, "turns_without_review": 1, **given}

    decision = decide_turn(GatePolicy.from_dict(policy), messages, **keywords)

    assert decision.outcome == outcome
    assert decision.pauses == (outcome in ("tool_approval", "review", "turn_budget"))
    assert (decision.primary.rule if decision.hits else None) == rule
    assert (decision.is_signoff, decision.to_security, decision.risk_flags) == (signoff, to_security, flags)


AUTHORS = CodeAuthors(planner="planner", copy_producer="writer")


def test_parse_turn_code_keeps_the_turns_order_and_skips_what_proposes_nothing() -> None:
    code = parse_turn_code(AUTHORS, [
        Said("planner", CODE),  # the planner's sketch is no revision
        Said("coder", CODE),
        Said("coder", CODE, kind="tool_call"),
        Said("deploy", CODE, kind="tool_result", awaiting_approval=True),
        Said("writer", "  Buy our tea.  "),  # the copy producer's whole text
    ])

    assert [[b.key for b in blocks] for blocks in code.per_message] == [[], ["app/x.py"], [], [], ["copy.md"]]
    assert code.any
    assert [b.content for b in code.blocks()] == ["# file: app/x.py\nprint(1)\n", "Buy our tea.\n"]
    assert not parse_turn_code(AUTHORS, [Said("planner", CODE)]).any


def test_a_runner_turn_parses_each_message_once(sqlite_url, monkeypatch) -> None:
    """Before: a code turn was parsed by the findings gate, the fast path's check and apply_turn (and
    a copy producer's text by the fast path's store as well): up to four times."""
    from tests.support import flow

    parsed: Counter[str] = Counter()
    extract = revisions.extract_code_blocks

    def counting(text: str) -> list[revisions.ProposedCode]:
        parsed[text] += 1
        return extract(text)

    monkeypatch.setattr(revisions, "extract_code_blocks", counting)
    flow.make_people()
    cid = flow.start("Add a lock to the rate limiter", gate_policy={
        "mode": "after_agent", "agents": ["coder"], "tools": [], "min_finding_severity": "high"})
    flow.work()

    coder = [m.content for m in flow.messages(cid) if m.source == "coder" and m.kind == "text"]
    assert coder and "```" in coder[-1]  # a turn with code reached the gate
    assert flow.only_open_review(cid).subject_type == "code_revision"
    assert all(parsed[text] == 1 for text in coder), parsed
    assert max(parsed.values()) == 1
