"""After every agent turn: pause for a human, or go on. The one decision both ways of storing a
turn take (services/runner/plain_turn.py for plain text, services/runner/turns.py for the rest),
and the code the turn proposes, parsed once per turn and handed to every step that needs it (the
findings gate, the fast path's check, the revisions apply_turn stores). Pure: no I/O."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from hitl_dashboard.domain.findings import FindingsView
from hitl_dashboard.domain.policies import GateHit, GatePolicy, TurnView, risk_flags
from hitl_dashboard.domain.revisions import CodeAuthors, ProposedCode, proposed_code

Outcome = Literal["continue", "tool_approval", "review", "done", "turn_budget"]
PAUSING: tuple[Outcome, ...] = ("tool_approval", "review", "turn_budget")


class TurnMessage(Protocol):
    """What the gate reads of a message an agent produced (agents/ hands over plain dataclasses)."""

    source: str
    kind: str  # text | tool_call | tool_result
    content: str
    awaiting_approval: bool


@dataclass(frozen=True)
class TurnCode:
    """The code each message of a turn proposes, in the turn's order: () for a message that is no
    text, or only a tool result's "waiting for approval" placeholder."""

    per_message: tuple[tuple[ProposedCode, ...], ...]

    @property
    def any(self) -> bool:
        return any(self.per_message)

    def blocks(self) -> Iterator[ProposedCode]:
        for found in self.per_message:
            yield from found


def parse_turn_code(authors: CodeAuthors, messages: Sequence[TurnMessage]) -> TurnCode:
    return TurnCode(tuple(
        tuple(proposed_code(authors, m.source, m.content)) if m.kind == "text" and not m.awaiting_approval else ()
        for m in messages))


@dataclass(frozen=True)
class TurnDecision:
    outcome: Outcome
    hits: tuple[GateHit, ...] = ()
    risk_flags: tuple[str, ...] = ()

    @property
    def pauses(self) -> bool:
        return self.outcome in PAUSING

    @property
    def is_signoff(self) -> bool:
        return any(h.is_signoff_point for h in self.hits)

    @property
    def to_security(self) -> bool:
        """A findings hit that is no sign-off point goes to security review first."""
        return not self.is_signoff and any(h.rule == "findings" for h in self.hits)

    @property
    def primary(self) -> GateHit:
        """The rule the review request names: a sign-off point, else findings, else the first."""
        return next((h for h in self.hits if h.is_signoff_point),
                    next((h for h in self.hits if h.rule == "findings"), self.hits[0]))


def decide_turn(policy: GatePolicy, messages: Sequence[TurnMessage], *, proposes_code: bool,
                held_tool_calls: int, findings: FindingsView | None, turns_without_review: int) -> TurnDecision:
    """messages: the turn's, placeholders left out. held_tool_calls: the calls the team's approval
    mode holds for a human. turns_without_review: counting this turn. In this order: a held tool
    call waits for its approval; a gate rule that fires (findings only count when the turn stores
    code) opens a review; "never" ends the conversation when an agent says it is done; a spent turn
    budget opens a review; else the agents go on."""
    if held_tool_calls:
        return TurnDecision("tool_approval")
    texts = [TurnView(m.source, m.content) for m in messages if m.kind == "text"]
    hits = [hit for view in texts for hit in policy.evaluate(view)]
    hits += policy.evaluate_findings(findings if proposes_code else None)
    if hits:
        flags = sorted({flag for view in texts for flag in risk_flags(view.text)})
        return TurnDecision("review", tuple(hits), tuple(flags))
    if policy.mode == "never" and any(TurnView(m.source, m.content).says_done for m in messages):
        return TurnDecision("done")
    if texts and turns_without_review >= policy.max_turns_without_review:
        return TurnDecision("turn_budget")
    return TurnDecision("continue")
