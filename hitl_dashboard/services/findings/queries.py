"""Reading findings: one revision's (API, diff), many revisions' at once (the conversation page) and
a review's (the audit context of a decision); the queue's flag is review_flags.py's. No N+1: each is
one or two queries whatever the number of rows."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from hitl_dashboard.db.findings_models import CodeAnalysis, CodeFinding
from hitl_dashboard.db.lookups import load_conversation
from hitl_dashboard.db.models import CodeRevision, ReviewRequest
from hitl_dashboard.domain.enums import SubjectType
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.domain.findings import SEVERITIES, is_python
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.audit.audit_context import revisions_under_review
from hitl_dashboard.services.transactions import reading

NOT_PYTHON = "not Python code: not analysed"


@dataclass(frozen=True)
class RevisionFindings:
    revision_id: int
    file: str
    number: int
    content_hash: str
    status: str  # pending | running | analysed | not_analysed
    reason: str | None
    findings: list[CodeFinding] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}

    def analysis_dict(self) -> dict:
        """Without the findings themselves: the conversation payload, `show --json`."""
        return {"status": self.status, "reason": self.reason, "counts": self.counts}

    def as_dict(self) -> dict:
        return {"revision_id": self.revision_id, "file": self.file, "number": self.number,
                "content_hash": self.content_hash, "status": self.status, "reason": self.reason,
                "findings": [finding_dict(f) for f in self.findings]}


def finding_dict(f: CodeFinding) -> dict:
    return {"analyser": f.analyser, "rule": f.rule, "severity": f.severity, "line": f.line, "column": f.column,
            "message": f.message}


def revision_findings(actor: Actor | None, conversation_id: int, revision_id: int) -> RevisionFindings:
    """NotFound for an unknown conversation or a revision of another conversation."""
    with reading() as uow:
        load_conversation(uow.session, conversation_id, actor)
        revision = uow.session.get(CodeRevision, revision_id)
        if revision is None or revision.conversation_id != conversation_id:
            raise NotFound(f"conversation {conversation_id} has no revision {revision_id}")
        return findings_of(uow.session, [revision])[0]


def revisions_findings(revisions: list[CodeRevision]) -> list[RevisionFindings]:
    """findings_of in its own read transaction (the API's conversation payload)."""
    with reading() as uow:
        return findings_of(uow.session, revisions)


def findings_of(session: Session, revisions: list[CodeRevision]) -> list[RevisionFindings]:
    """Each revision's analysis status and findings, in the revisions' order: two queries."""
    digests = list({r.content_hash for r in revisions if is_python(r.key, r.language)})
    statuses, found = {}, defaultdict(list)
    if digests:
        statuses = {a.content_hash: a for a in session.exec(
            select(CodeAnalysis).where(col(CodeAnalysis.content_hash).in_(digests)))}
        for finding in session.exec(select(CodeFinding).where(col(CodeFinding.content_hash).in_(digests))
                                    .order_by(col(CodeFinding.line), CodeFinding.analyser, col(CodeFinding.id))):
            found[finding.content_hash].append(finding)
    answers = []
    for r in revisions:
        analysis = statuses.get(r.content_hash)
        if not is_python(r.key, r.language):
            status, reason = "not_analysed", NOT_PYTHON
        elif analysis is None:
            status, reason = "pending", None
        else:
            status, reason = analysis.status, analysis.reason
        answers.append(RevisionFindings(r.id, r.key, r.number, r.content_hash, status, reason,
                                        found.get(r.content_hash, []) if status == "analysed" else []))
    return answers


def findings_seen(session: Session, request: ReviewRequest) -> list[dict]:
    """For the audit details of a decision: per file under review, the analysis status and every
    finding the page showed the reviewer at that moment (findings are fixed once analysed; a file
    still pending says so: the reviewer decided before its findings arrived)."""
    if request.subject_type != SubjectType.CODE_REVISION:
        return []
    revisions, _ = revisions_under_review(session, request)
    return [
        {"file": f.file, "revision": f.number, "status": f.status, "reason": f.reason,
         "findings": [{k: v for k, v in finding_dict(x).items() if k != "column"} for x in f.findings]}
        for f in findings_of(session, revisions)
    ]


def findings_details(session: Session, request: ReviewRequest) -> dict:
    """The audit details a decision on code adds: {"findings_shown": [...]}; nothing otherwise."""
    seen = findings_seen(session, request)
    return {"findings_shown": seen} if seen else {}
