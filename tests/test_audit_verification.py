"""The audit chain verified incrementally and on demand, on SQLite and PostgreSQL: loading the audit
page verifies nothing, "Verify now" goes on from the last verified event and still finds an event
altered after it; an event altered before it takes the full check (`audit verify`, ?full=true).
And the export, now one chunk per page of rows, is byte for byte what it was."""

from __future__ import annotations

import csv
import io
import json

import pytest
from sqlalchemy import text
from sqlmodel import select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.audit import audit, audit_queries, audit_rows
from hitl_dashboard.services.audit.audit_verification import verification_status, verify_now
from hitl_dashboard.ui.states.audit import ANY, FILTERS, _page
from hitl_dashboard.ui.states.audit_insights import chain_status
from tests.support import flow
from tests.support.db_state import audit_events, use_cheap_passwords


@pytest.fixture
def dave(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    flow.make_people()
    return flow.actor("dave")


def _append(count: int, action: str = "bench.note", **details) -> list[int]:
    with UnitOfWork() as uow:
        for i in range(count):
            append_audit(uow.session, actor="dave", action=action, actor_role="manager", details={"n": i, **details})
        uow.commit()
    # The chain is linked at the commit (after it on PostgreSQL: db/audit.py): the newest `count` seqs.
    with UnitOfWork() as uow:
        newest = uow.session.exec(select(AuditEvent.seq).order_by(AuditEvent.seq.desc()).limit(count)).all()
    return sorted(newest)


def _tamper(seq: int) -> None:
    with UnitOfWork() as uow:
        uow.session.execute(text("UPDATE audit_events SET details = :d WHERE seq = :s"),
                            {"d": '{"reason": "nothing to see here"}', "s": seq})
        uow.commit()


def _load_page(dave) -> None:
    """What the audit page reads on load: the first page of events with its filter menu, and the chain status."""
    _page(dave, {name: ANY if name in ("role", "action") else "" for name in FILTERS}, None)
    chain_status(dave)


def test_loading_the_page_verifies_nothing_verify_now_does(dave):
    newest = audit_events()[-1].seq
    _load_page(dave)
    status = verification_status(dave)
    assert (status.verified_at, status.verified_seq, status.newest_seq) == (None, 0, newest)
    assert chain_status(dave)[:2] == ("unverified", f"Audit chain not verified yet ({newest:,} events)")

    report = verify_now(dave)
    assert (report.ok, report.checked, report.last_seq) == (True, newest, newest)
    verified_at = verification_status(dave).verified_at
    assert verified_at is not None

    _append(3)
    for _ in range(3):
        _load_page(dave)
    status = verification_status(dave)
    assert (status.verified_seq, status.verified_at, status.unverified) == (newest, verified_at, 3)
    assert chain_status(dave)[1].endswith("; 3 newer not verified yet")

    report = verify_now(dave)  # only the three new events are read
    assert (report.ok, report.checked, report.last_seq) == (True, 3, newest + 3)
    assert verification_status(dave).unverified == 0


def test_an_event_altered_after_the_verified_point_is_found_by_the_next_verification(dave):
    verified = verify_now(dave).last_seq
    seqs = _append(5)
    _tamper(seqs[2])
    _load_page(dave)
    assert verification_status(dave).ok  # not found by loading the page: nothing was verified

    report = verify_now(dave)
    assert (report.ok, report.first_bad_seq, report.checked) == (False, seqs[2], 2)
    assert report.problem == f"event {seqs[2]} was altered after it was written"
    state, text_ = chain_status(dave)[:2]
    assert state == "broken" and text_.startswith(f"BROKEN at event {seqs[2]}: event {seqs[2]} was altered")
    # A broken chain stays broken at the next verification (which starts again from event 1).
    again = verify_now(dave)
    assert (again.ok, again.first_bad_seq, again.checked) == (False, seqs[2], seqs[2] - 1)
    assert verified < seqs[2]


def test_the_verified_event_itself_rewritten_or_removed_is_found(dave):
    last = verify_now(dave).last_seq
    _tamper(last)
    with UnitOfWork() as uow:
        uow.session.execute(text("UPDATE audit_events SET hash = :h WHERE seq = :s"), {"h": "f" * 64, "s": last})
        uow.commit()
    report = verify_now(dave)
    assert (report.ok, report.first_bad_seq) == (False, last)
    assert report.problem == f"event {last} was rewritten after it was verified"

    assert audit.verify(None).first_bad_seq == last  # the full check finds it too


def test_a_tail_cut_below_the_verified_point_is_found(dave):
    last = verify_now(dave).last_seq
    with UnitOfWork() as uow:
        uow.session.execute(text("DELETE FROM audit_events WHERE seq >= :s"), {"s": last - 1})
        uow.commit()
    report = verify_now(dave)
    assert (report.ok, report.first_bad_seq) == (False, last)
    assert report.problem == f"event {last} was verified before and is now missing"


def test_an_event_altered_before_the_verified_point_needs_the_full_check(dave):
    verify_now(dave)
    _tamper(2)
    incremental = verify_now(dave)  # trusts what it verified before: reads nothing old
    assert (incremental.ok, incremental.checked) == (True, 0)

    full = audit.verify(dave)  # `audit verify` at the CLI, /api/audit/verify?full=true
    assert (full.ok, full.first_bad_seq, full.checked) == (False, 2, 1)
    status = verification_status(dave)
    assert (status.ok, status.first_bad_seq, status.full) == (False, 2, True)


def test_the_filter_menu_lists_every_action_in_the_trail(dave):
    _append(2, action="zz.last")
    _append(1, action="aa.first")
    with UnitOfWork() as uow:
        every = sorted(set(uow.session.exec(select(AuditEvent.action))))
    assert audit_queries.known_actions(dave) == every
    assert {"aa.first", "zz.last", "user.created"} <= set(every)


def _old_export(fmt: str) -> str:
    """The export as it was written before (one ORM event at a time, DictWriter): the format the
    files people already keep were written in."""
    with UnitOfWork() as uow:
        events = list(uow.session.exec(select(AuditEvent).order_by(AuditEvent.seq)))
    records = [{**e.payload(), "prev_hash": e.prev_hash, "hash": e.hash} for e in events]
    if fmt == "jsonl":
        return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=audit.CSV_FIELDS)
    writer.writeheader()
    for record in records:
        record["details"] = json.dumps(record["details"], sort_keys=True, ensure_ascii=False)
        writer.writerow(record)
    return buffer.getvalue()


@pytest.mark.parametrize("page_size", [3, 2000])
def test_the_export_is_byte_for_byte_the_format_it_was(dave, monkeypatch, page_size):
    _append(4, note='quotes " commas, new\nlines and ünïcode ✓', nested={"b": [1, None], "a": "x"})
    with UnitOfWork() as uow:  # odd names in the plain columns, and empty details
        append_audit(uow.session, actor='o"brien, jr', action="odd\r\naction", actor_role="", details={})
        append_audit(uow.session, actor="plain", action="x", conversation_id=7, review_request_id=0,
                     content_hash="", details={"f": 1.5, "t": True, "e": "", "u": "\u2028 \x00"})
        uow.commit()
    monkeypatch.setattr(audit_rows, "PAGE", page_size)
    events = len(audit_events())
    for fmt in ("jsonl", "csv"):
        # The whole trail (the operator's, or the instance admin's); a workspace manager's export is
        # tests/test_api_audit.py's.
        chunks = list(audit.export_lines(None, fmt))
        assert "".join(chunks) == _old_export(fmt)
        # Whole pages of lines per chunk, not one event per chunk.
        assert len(chunks) == -(-events // page_size)


def test_the_published_head_is_said_to_match_only_once_the_chain_is_verified_up_to_it(dave):
    """Never "not verified yet" beside "matches the head": the head's hash alone proves nothing about
    the events before it until they are re-hashed (issue 32). Heads go to the test's anchor file."""
    _append(2)  # published to the anchor file at their commit
    chain, chain_text, anchor, anchor_text = chain_status(dave)
    assert (chain, anchor) == ("unverified", "unverified") and "not verified yet" in chain_text
    assert anchor_text.startswith("Compared with the head published at") and "Matches" not in anchor_text

    verify_now(dave)
    chain, chain_text, anchor, anchor_text = chain_status(dave)
    assert (chain, anchor) == ("ok", "ok") and "not verified yet" not in chain_text
    assert anchor_text.startswith("Matches the head published at")

    _append(1)  # a newer head, past the verified event
    chain, chain_text, anchor, anchor_text = chain_status(dave)
    assert chain_text.endswith("; 1 newer not verified yet") and anchor == "unverified"
    assert "Matches" not in anchor_text
