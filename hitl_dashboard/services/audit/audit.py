"""Audit queries: verify the chain, export it (JSONL or CSV) in constant memory.

verify and export_lines are use cases (they read in their own unit of work); chain_rows is the
step audit_heads reads the chain through."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.audit_chain import ChainReport, verify_chain
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.services.transactions import reading

PAGE = 1000
CSV_FIELDS = ["seq", "at", "actor", "actor_role", "action", "conversation_id", "review_request_id",
              "content_hash", "details", "prev_hash", "hash"]


def _events(uow: UnitOfWork) -> Iterator[AuditEvent]:
    """Keyset pagination by seq: constant memory however long the trail is."""
    after = 0
    while True:
        page = uow.session.exec(
            select(AuditEvent).where(AuditEvent.seq > after).order_by(AuditEvent.seq).limit(PAGE)
        ).all()
        # End the read transaction before handing rows to a consumer that may be slow (a streamed
        # HTTP export): on SQLite every transaction holds the write lock. The trail is append-only,
        # so paging by seq needs no snapshot. Callers are read-only.
        uow.session.expunge_all()
        uow.session.rollback()
        if not page:
            return
        yield from page
        after = page[-1].seq


def chain_rows(uow: UnitOfWork) -> Iterator[tuple[int, str, str, dict]]:
    """(seq, prev_hash, hash, payload) in seq order, as verify_chain reads them."""
    return ((e.seq, e.prev_hash, e.hash, e.payload()) for e in _events(uow))


def verify(actor: Actor | None) -> ChainReport:
    """`actor` None is the operator at the CLI (and the tests)."""
    if actor is not None:
        check_can_read_audit(actor)
    with reading() as uow:
        return verify_chain(chain_rows(uow))


def _record(event: AuditEvent) -> dict:
    return {**event.payload(), "prev_hash": event.prev_hash, "hash": event.hash}


def export_lines(actor: Actor | None, fmt: str) -> Iterator[str]:
    """The whole trail, oldest first; `actor` None is the operator at the CLI.
    Not a generator itself: the checks run when the export is asked for, before a streaming
    response has sent its status line, not at the first chunk. The reading unit of work opens
    when the first line is asked for and closes with the iteration."""
    if actor is not None:
        check_can_read_audit(actor)
    if fmt not in ("jsonl", "csv"):
        raise InvalidInput("format must be jsonl or csv", "format")
    return _export(fmt)


def _export(fmt: str) -> Iterator[str]:
    with reading() as uow:
        yield from _lines(uow, fmt)


def _lines(uow: UnitOfWork, fmt: str) -> Iterator[str]:
    if fmt == "jsonl":
        for event in _events(uow):
            yield json.dumps(_record(event), sort_keys=True, ensure_ascii=False) + "\n"
        return
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS)
    writer.writeheader()
    for event in _events(uow):
        record = _record(event)
        record["details"] = json.dumps(record["details"], sort_keys=True, ensure_ascii=False)
        writer.writerow(record)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    if buffer.getvalue():
        yield buffer.getvalue()
