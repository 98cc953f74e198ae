"""The gate input "findings at or above a severity" for one agent turn.

Analysis is asynchronous, the gate is not: when (and only when) the conversation's gate policy has
min_finding_severity and the turn proposes Python code, the runner awaits the analysis of that
code before it stores the turn, so the turn's gate sees the findings in the same transaction that
opens the review. The code is what the turn's revisions will hold (domain/turn_gate.TurnCode, parsed
once by the runner: the team's planner, whatever its name, proposes none), so the gate judges the
files the review shows. The wait
is bounded by the analysers' own timeout. A text that cannot be analysed (a parse error, a failure,
a timeout, too large) is "not analysed" and fires the gate with its reason: the check the gate
promises did not happen, so a human looks (fail closed). Texts analysed before (same content hash)
cost one query. Without the predicate nothing waits: the runner loop analyses after the commit."""

from __future__ import annotations

from collections import Counter

from sqlmodel import col, select

from hitl_dashboard.db.findings_models import CodeAnalysis, CodeFinding
from hitl_dashboard.db.models import Conversation
from hitl_dashboard.domain.findings import FindingsView, is_python
from hitl_dashboard.domain.policies import GatePolicy
from hitl_dashboard.domain.turn_gate import TurnCode
from hitl_dashboard.services.findings.analysers import NOT_ANALYSED
from hitl_dashboard.services.findings.queue import analyse_one
from hitl_dashboard.services.transactions import reading
from hitl_dashboard.teams.model import TeamDefinition

DONE = ("analysed", NOT_ANALYSED)


async def findings_for_turn(conversation_id: int, code: TurnCode, team: TeamDefinition) -> FindingsView | None:
    """code: the turn's; team: the conversation's pinned team."""
    blocks = {block.content_hash: block for block in code.blocks() if is_python(block.key, block.language)}
    if not blocks:
        return None
    with reading() as uow:
        policy = uow.session.exec(select(Conversation.gate_policy).where(Conversation.id == conversation_id)).first()
        if GatePolicy.from_dict(policy).min_finding_severity is None:
            return None
        known = _statuses(uow.session, list(blocks))
    for digest, block in blocks.items():
        if known.get(digest, ("pending",))[0] not in DONE:
            await analyse_one(digest, block.key, block.content, team.python_version)
    with reading() as uow:
        analyses = _statuses(uow.session, list(blocks))
        severities = uow.session.exec(select(CodeFinding.severity)
                                      .where(col(CodeFinding.content_hash).in_(list(blocks))))
        counts = Counter(severities)
    not_analysed = {}
    for digest, block in blocks.items():
        status, reason = analyses.get(digest, ("pending", None))
        if status != "analysed":
            not_analysed[block.key] = reason or f"the analysis of {block.key} did not finish"
    return FindingsView(counts=dict(counts), files=tuple(sorted({b.key for b in blocks.values()})),
                        not_analysed=tuple(sorted(not_analysed.items())))


def _statuses(session, digests: list[str]) -> dict[str, tuple[str, str | None]]:
    rows = session.exec(select(CodeAnalysis.content_hash, CodeAnalysis.status, CodeAnalysis.reason)
                        .where(col(CodeAnalysis.content_hash).in_(digests)))
    return {digest: (status, reason) for digest, status, reason in rows.all()}
