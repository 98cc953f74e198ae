"""Verify the audit chain incrementally and on demand, and remember how far it got.

The audit page no longer walks the whole chain on every load (40-54 s at a million events): it shows
the remembered answer (AuditVerification: events 1..seq intact, event seq has hash `hash`). "Verify
now" (the page, the API's /audit/verify) checks only the events after that point, and first that the
remembered event still has its hash, so a rewrite after the point, or of the point itself, or a
cut tail is found at the next verification. Events before the point are trusted: only a full
verification (`audit verify` at the CLI, /audit/verify?full=true) re-reads them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, AuditVerification, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.audit_chain import GENESIS, ChainReport, verify_chain
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.services.audit.audit_rows import chain_rows
from hitl_dashboard.services.transactions import reading, transaction

ROW_ID = 1


@dataclass(frozen=True)
class VerificationStatus:
    """What the page shows: the last verification's answer and how much of the trail it covered."""

    verified_seq: int  # events 1..verified_seq were found intact (0: none yet)
    verified_at: datetime | None  # None: the chain was never verified
    ok: bool
    first_bad_seq: int | None
    problem: str | None
    full: bool  # the last verification started at event 1
    newest_seq: int  # the newest event in the trail now

    @property
    def unverified(self) -> int:
        """Events written after the verified point (not checked yet)."""
        return max(self.newest_seq - self.verified_seq, 0)


def verification_status(actor: Actor) -> VerificationStatus:
    """Cheap: one row and the newest seq (an index lookup); computes nothing."""
    check_can_read_audit(actor)
    with reading() as uow:
        return read_status(uow)


def read_status(uow: UnitOfWork) -> VerificationStatus:
    mark = uow.session.get(AuditVerification, ROW_ID)
    newest = uow.session.exec(select(func.max(AuditEvent.seq))).one() or 0
    if mark is None:
        return VerificationStatus(0, None, True, None, None, False, newest)
    return VerificationStatus(mark.seq, mark.verified_at, mark.ok, mark.first_bad_seq, mark.problem, mark.full,
                              newest)


def verify_now(actor: Actor | None, *, full: bool = False) -> ChainReport:
    """Verify the events after the remembered point (all of them when `full` or never verified),
    remember the answer, and return it. `checked` counts the events this run read; `last_seq` is
    the newest event known intact. `actor` None is the operator at the CLI."""
    if actor is not None:
        check_can_read_audit(actor)
    with reading() as uow:
        mark = None if full else uow.session.get(AuditVerification, ROW_ID)
        start = (mark.seq, mark.hash) if mark is not None and mark.ok else (0, GENESIS)
        report = _verify_from(uow, *start)
    _remember(report, full=start[0] == 0)
    return report


def _verify_from(uow: UnitOfWork, after_seq: int, after_hash: str) -> ChainReport:
    if after_seq:
        stored = uow.session.exec(select(AuditEvent.hash).where(AuditEvent.seq == after_seq)).first()
        if stored is None:
            return ChainReport(False, 0, after_seq, f"event {after_seq} was verified before and is now missing",
                               after_seq - 1)
        if stored != after_hash:
            return ChainReport(False, 0, after_seq, f"event {after_seq} was rewritten after it was verified",
                               after_seq - 1)
    return verify_chain(chain_rows(uow, after=after_seq), after_seq=after_seq, after_hash=after_hash)


def _remember(report: ChainReport, *, full: bool) -> None:
    """A broken chain is remembered as is (the next verification starts again from event 1, so the
    break stays visible until someone looks); an intact one only ever moves the point forward, so
    two verifications racing cannot move it back."""
    for attempt in range(2):
        try:
            with transaction() as uow:
                mark = uow.session.get(AuditVerification, ROW_ID)
                if mark is None:
                    mark = AuditVerification(id=ROW_ID, hash=GENESIS)
                    uow.session.add(mark)
                if report.ok and mark.ok and mark.seq > report.last_seq:
                    return  # a verification that finished first got further
                mark.seq, mark.hash, mark.verified_at = report.last_seq, report.last_hash, utcnow()
                mark.ok, mark.first_bad_seq, mark.problem, mark.full = (report.ok, report.first_bad_seq,
                                                                        report.problem, full)
            return
        except IntegrityError:  # another verification inserted the row first: update it instead
            if attempt:
                raise
