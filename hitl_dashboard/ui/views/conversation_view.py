"""Everything the conversation page shows, as display-ready data (read by
services/conversations/conversation_page.py; formatted here)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hitl_dashboard.domain.enums import ReviewKind
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.conversations.conversation_page import OpenReview, conversation_page
from hitl_dashboard.ui.views.diff_parts import DiffPart, cached_diff_parts
from hitl_dashboard.ui.views.findings_view import (
    FindingRow,
    QuestionRow,
    analysis_summary,
    finding_rows,
    question_rows,
)
from hitl_dashboard.ui.views.formatting import countdown, epoch_ms, role_label, stamp
from hitl_dashboard.ui.views.suggestion_rows import SuggestionRow, suggestion_rows

if TYPE_CHECKING:
    from hitl_dashboard.db.models import CodeRevision

AGENT_COLORS = {"planner": "violet", "coder": "blue", "copywriter": "pink", "operator": "orange"}


@dataclass
class MessageRow:
    seq: int = 0
    source: str = ""
    initials: str = ""
    color: str = "gray"
    kind: str = ""
    content: str = ""
    at: str = ""
    tokens: str = ""
    is_agent: bool = False
    model: str = ""


@dataclass
class StepRow:
    role: str = ""
    label: str = ""
    approved: bool = False
    state: str = "pending"  # in words: approved, pending; once aborted: aborted (the one it stopped at), not needed


@dataclass
class ReviewRow:
    review_id: int = 0
    version: int = 0
    kind: str = ""
    role: str = ""
    role_label: str = ""
    status: str = ""
    rule: str = ""
    reason: str = ""
    subject: str = ""
    due: str = ""
    due_ms: int = 0
    urgency: str = "ok"
    assignee: str = ""
    tool_name: str = ""
    tool_args: str = ""
    # What the reviewer is shown: the decision carries these back, and the server refuses a
    # decision whose content hash is not the review's.
    content_hash: str = ""
    conversation_id: int = 0
    questions: list[QuestionRow] = field(default_factory=list)  # asked of the agent, with answers


@dataclass
class OutcomeRow:
    """A review that closed recently: a card that goes away says why, and what really happened."""

    review_id: int = 0
    title: str = ""
    subject: str = ""
    outcome: str = ""
    override_reason: str = ""
    tool: str = ""


@dataclass
class RevisionRow:
    id: int = 0
    key: str = ""
    number: int = 0
    label: str = ""
    language: str = ""
    latest: bool = False  # the newest revision of its file
    # The newest revision's diff against the file's previous revision, as hunks and folds
    # (ui/views/diff_parts.py); empty for the older revisions (the page draws only the newest).
    parts: list[DiffPart] = field(default_factory=list)
    analysis: str = ""  # "2 findings", "analysis pending", "not analysed: why"
    findings: list[FindingRow] = field(default_factory=list)


@dataclass
class ConversationView:
    id: int = 0
    title: str = ""
    task: str = ""
    task_type: str = ""
    status: str = ""
    banner: str = ""
    # "due in 23 h" of the review the banner waits for, and that moment (ms since the epoch): the
    # browser keeps it counting (assets/ticking.js); empty / 0 when the banner has no deadline.
    banner_due: str = ""
    banner_due_ms: int = 0
    initiator_id: int = 0
    tokens: str = ""
    team: str = ""  # "code v2": the team version it runs on
    agents: list[str] = field(default_factory=list)
    messages: list[MessageRow] = field(default_factory=list)  # the newest window (transcript_window.py)
    older_messages: int = 0  # before that window: the page reads them as the reader scrolls up
    steps: list[StepRow] = field(default_factory=list)
    reviews: list[ReviewRow] = field(default_factory=list)
    revisions: list[RevisionRow] = field(default_factory=list)
    outcomes: list[OutcomeRow] = field(default_factory=list)
    suggestions: list[SuggestionRow] = field(default_factory=list)
    found: bool = False
    # When the newest message was stored (ms since the epoch): a streamed message that began
    # before it is that message, already in `messages` (the typing card hides it).
    last_message_ms: float = 0.0


def message_row(m) -> MessageRow:
    agent = m.source in AGENT_COLORS
    return MessageRow(
        seq=m.seq, source=m.source, initials=m.source[:2].upper(),
        color=AGENT_COLORS.get(m.source, "gray" if m.kind != "decision" else "green"), kind=m.kind,
        content=m.content, at=stamp(m.created_at),
        tokens=f"{m.prompt_tokens + m.completion_tokens:,} tokens" if m.completion_tokens else "", is_agent=agent,
        model=m.model or "",
    )


def conversation_view(actor: Actor | None, conversation_id: int) -> ConversationView:
    page = conversation_page(actor, conversation_id, newest_only=True)
    c = page.conversation
    reviews = [_review_row(r, (page.questions or {}).get(r.request.id)) for r in page.open_reviews]
    waits_for = reviews[0] if c.status == "awaiting_review" and reviews else None
    return ConversationView(
        id=c.id, title=c.title, task=c.task, task_type=c.task_type, status=c.status,
        banner=_banner(c.status, c.status_reason, reviews),
        banner_due=waits_for.due if waits_for else "", banner_due_ms=waits_for.due_ms if waits_for else 0,
        initiator_id=c.initiator_id,
        tokens=f"{c.prompt_tokens + c.completion_tokens:,}", agents=page.agents,
        team=c.template + (f" v{page.team_version}" if page.team_version else ""),
        messages=[message_row(m) for m in page.messages], older_messages=page.older_messages,
        steps=sign_off_steps(page.progress, c.status),
        reviews=reviews, revisions=_revision_rows(page),
        outcomes=[_outcome_row(o) for o in page.outcomes], suggestions=suggestion_rows(page.suggestions), found=True,
        last_message_ms=max((epoch_ms(m.created_at) for m in page.messages), default=0.0),
    )


def sign_off_steps(progress, status: str) -> list[StepRow]:
    """An aborted conversation waits for no one: the step it stopped at reads "aborted", the later
    ones "not needed" (never "pending")."""
    rows, stopped_at_one = [], False
    for s in progress:
        state = "approved" if s.approved else "pending"
        if status == "aborted" and not s.approved:
            state, stopped_at_one = ("not needed" if stopped_at_one else "aborted"), True
        rows.append(StepRow(s.role, role_label(s.role), s.approved, state))
    return rows


def _review_row(review: OpenReview, questions=None) -> ReviewRow:
    r = review.request
    due, urgency = countdown(r.due_at)
    row = ReviewRow(
        review_id=r.id, version=r.version, kind=r.kind, role=r.required_role, role_label=role_label(r.required_role),
        status=r.status, rule=r.rule, reason=r.reason, subject=r.subject_label, due=due,
        due_ms=epoch_ms(r.due_at), urgency=urgency,
        assignee=review.assignee, content_hash=r.content_hash, conversation_id=r.conversation_id,
        questions=question_rows(questions),
    )
    if review.tool_call is not None:
        call = review.tool_call
        row.tool_name, row.tool_args = call.tool_name, json.dumps(call.arguments, indent=2, sort_keys=True)
    return row


def _outcome_row(o) -> OutcomeRow:
    title = "Tool call approval" if o.kind == ReviewKind.TOOL_CALL else f"{role_label(o.role)} review"
    return OutcomeRow(o.review_id, title, o.subject, o.outcome, o.override_reason, o.tool)


def _revision_rows(page) -> list[RevisionRow]:
    revisions = page.revisions  # by key, then number
    rows = [_revision_row(r, found) for r, found in zip(revisions, page.findings, strict=True)]
    for i, row in enumerate(rows):
        row.latest = i + 1 == len(rows) or rows[i + 1].key != row.key
        if row.latest:
            before = revisions[i - 1] if i > 0 and revisions[i - 1].key == row.key else None
            row.parts = cached_diff_parts(before.content if before else "", revisions[i].content)
    return rows


def _revision_row(r: CodeRevision, found) -> RevisionRow:
    return RevisionRow(r.id, r.key, r.number, f"{r.key} r{r.number}", r.language,
                       analysis=analysis_summary(found), findings=finding_rows(found))


def _banner(status: str, reason: str | None, reviews: list[ReviewRow]) -> str:
    """The status in words; a wait's deadline is not part of it (banner_due: it ticks on its own)."""
    if status == "awaiting_review" and reviews:
        first = reviews[0]
        what = "tool call approval" if first.kind == "tool_call" else f"{first.role_label.lower()} review"
        return f"Waiting for {what}"
    if status == "running":
        return "Agents are working"
    if status == "approved":
        return "Approved" + (f": {reason}" if reason else "")
    if status == "aborted":
        return "Aborted" + (f": {reason}" if reason else "")
    if status == "failed":
        return "Failed: " + (reason or "unknown error") + " (an admin can retry it)"
    return status

