"""Audit anchors on SQLite and PostgreSQL: every committed head of the audit chain is published
outside the database, and `audit verify --anchor` (the real CLI) detects a tail that was cut off,
or a tail that was cut and then grown back with other events."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import User, WebhookDelivery
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.reviews import claims
from hitl_dashboard.services.webhooks import webhooks
from hitl_dashboard.services.webhooks.webhook_delivery import deliver_due
from hitl_dashboard.services.webhooks.webhook_payloads import verify_signature
from hitl_dashboard.settings import reset_settings_cache
from tests.conftest import run_cli
from tests.support import flow
from tests.support.db_state import audit_events, use_cheap_passwords
from tests.support.webhook_receiver import receiving

TASK = "Add retry with exponential backoff to the payments client"


@pytest.fixture
def heads_file(db_url, monkeypatch) -> Path:
    use_cheap_passwords(monkeypatch)
    return Path(os.environ["AUDIT_ANCHOR_FILE"])


def published(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def signed_off_conversation() -> int:
    """People, and a code conversation approved by security and the final approver."""
    flow.make_people()
    cid = flow.start(TASK)
    flow.work()
    flow.decide_as("alice", flow.only_open_review(cid).id, "approve", reason="safe")
    flow.decide_as("carol", flow.only_open_review(cid).id, "approve")
    assert flow.conversation(cid).status == "approved"
    return cid


def delete_newest(n: int) -> None:
    with UnitOfWork() as uow:
        uow.session.execute(text("DELETE FROM audit_events WHERE seq > (SELECT MAX(seq) FROM audit_events) - :n"),
                            {"n": n})
        uow.commit()


def verify_anchor(path: Path, *extra: str):
    return run_cli(*extra, "audit", "verify", "--anchor", str(path), check=False)


def test_each_commit_publishes_its_head_and_an_untouched_trail_passes(heads_file):
    signed_off_conversation()
    events = audit_events()
    heads = published(heads_file)
    # One line per committing transaction, each naming an event that exists with that hash.
    assert 1 < len(heads) <= len(events)
    by_seq = {e.seq: e.hash for e in events}
    assert all(by_seq[h["seq"]] == h["hash"] for h in heads)
    assert max(h["seq"] for h in heads) == events[-1].seq

    result = verify_anchor(heads_file)
    assert result.returncode == 0, result.stderr
    newest = max(heads, key=lambda h: h["seq"])
    assert result.stdout.strip() == (
        f"audit chain OK ({len(events)} events) and it holds all {len(heads)} heads published in {heads_file} "
        f"(newest: seq {newest['seq']} at {newest['at']})")
    # Without a PATH: the configured file.
    assert json.loads(run_cli("--json", "audit", "verify", "--anchor").stdout)["anchor"]["heads"] == len(heads)


def test_cutting_off_the_newest_events_is_detected_against_the_published_head(heads_file):
    signed_off_conversation()
    last = audit_events()[-1]
    delete_newest(3)
    # The chain alone cannot see it: what is left is a valid, shorter chain.
    assert run_cli("audit", "verify").returncode == 0

    result = verify_anchor(heads_file)
    assert result.returncode == 6
    ends = last.seq - 3
    assert result.stdout.strip() == (
        f"audit chain BROKEN against the heads published in {heads_file}: the audit log ends at seq {ends} but "
        f"seq {last.seq} (hash {last.hash[:12]}…) was published at {published(heads_file)[-1]['at']}: "
        f"events were removed from the tail")
    report = json.loads(verify_anchor(heads_file, "--json").stdout)
    assert (report["ok"], report["checked"], report["first_bad_seq"]) == (False, ends, ends + 1)
    assert report["anchor"]["newest"] == {"seq": last.seq, "hash": last.hash,
                                          "at": published(heads_file)[-1]["at"]}


def test_a_cut_tail_grown_back_with_other_events_is_detected(heads_file):
    signed_off_conversation()
    before, old_heads = audit_events(), published(heads_file)
    delete_newest(2)
    # The app carries on: new events take the removed seqs, with other hashes.
    flow.start(TASK)
    flow.start(TASK)
    assert audit_events()[-1].seq == before[-1].seq
    assert run_cli("audit", "verify").returncode == 0

    result = verify_anchor(heads_file)
    assert result.returncode == 6
    # The first head published before the cut whose event was replaced.
    replaced = min((h for h in old_heads if h["seq"] > before[-3].seq), key=lambda h: h["seq"])
    assert result.stdout.strip().endswith(
        f"event {replaced['seq']} is not the one published at {replaced['at']} (hash {replaced['hash'][:12]}…): "
        f"the trail was rewritten after it was published")
    assert json.loads(verify_anchor(heads_file, "--json").stdout)["first_bad_seq"] == replaced["seq"]


def test_an_edited_event_in_the_middle_is_still_reported_as_such(heads_file):
    signed_off_conversation()
    target = audit_events("review.requested")[0].seq
    with UnitOfWork() as uow:
        uow.session.execute(text("UPDATE audit_events SET actor = 'mallory' WHERE seq = :s"), {"s": target})
        uow.commit()
    result = verify_anchor(heads_file)
    assert result.returncode == 6
    assert result.stdout.strip() == (f"audit chain BROKEN at event {target}: "
                                     f"event {target} was altered after it was written")


def test_a_transaction_that_does_not_commit_publishes_nothing(heads_file):
    flow.make_people()
    cid = flow.start(TASK)
    flow.work()
    review = flow.only_open_review(cid).id
    lines = heads_file.read_text()

    with UnitOfWork() as uow:  # left without commit: closing rolls back
        claims.claim_request(uow, flow.actor("alice"), review)
    with UnitOfWork() as uow:  # rolled back explicitly
        claims.claim_request(uow, flow.actor("alice"), review)
        uow.rollback()
    with UnitOfWork() as uow, pytest.raises(Exception, match="(?i)unique|duplicate"):
        # The commit itself fails (a second user with a taken name): its audit event never existed.
        append_audit(uow.session, actor="erin", action="test.doomed")
        uow.session.add(User(username="alice", password_hash="x", roles=[]))
        uow.commit()
    assert heads_file.read_text() == lines
    assert run_cli("audit", "verify", "--anchor", str(heads_file)).returncode == 0

    # The same session commits later: only that head is published.
    with UnitOfWork() as uow:
        claims.claim_request(uow, flow.actor("alice"), review)
        uow.rollback()
        claims.claim_request(uow, flow.actor("alice"), review)
        uow.commit()
    new = published(heads_file)[len(lines.splitlines()):]
    assert [h["seq"] for h in new] == [audit_events()[-1].seq]


def test_the_log_sink_writes_one_line_per_committed_head(heads_file, monkeypatch, caplog):
    monkeypatch.setenv("AUDIT_ANCHOR_SINKS", "log")
    reset_settings_cache()
    flow.make_people()
    caplog.clear()  # only the start's commit: the people's may be caught too where an earlier test left INFO on
    with caplog.at_level(logging.INFO, logger="hitl_dashboard.audit.anchor"):
        flow.start(TASK)
    last = audit_events()[-1]
    [record] = [r for r in caplog.records if r.name == "hitl_dashboard.audit.anchor"]
    assert json.loads(record.getMessage().removeprefix("audit head ")) | {"at": None} == {
        "seq": last.seq, "hash": last.hash, "at": None}
    assert not heads_file.exists()  # the file sink is off


def test_the_webhook_sink_sends_signed_heads_to_subscribers(heads_file, monkeypatch):
    monkeypatch.setenv("AUDIT_ANCHOR_SINKS", "file,webhook")
    reset_settings_cache()
    with receiving() as receiver:
        flow.make_people()
        hook = webhooks.add_webhook(None, url=receiver.url, events=["audit.head"])
        flow.start(TASK)
        report = asyncio.run(deliver_due())
    with UnitOfWork() as uow:
        queued = list(uow.session.exec(select(WebhookDelivery).order_by(WebhookDelivery.id)))
    # The hook's own registration and the start each committed a head, after the hook existed.
    assert [d.event for d in queued] == ["audit.head", "audit.head"]
    assert sorted(report.delivered) == [d.id for d in queued]
    bodies = [r.json for r in sorted(receiver.received, key=lambda r: r.json["data"]["seq"])]
    assert all(verify_signature(hook.secret, r.body, r.headers["x-hitl-signature"]) for r in receiver.received)
    file_heads = {h["seq"]: h["hash"] for h in published(heads_file)}
    assert [(b["event"], b["data"]["seq"], b["data"]["hash"]) for b in bodies] == [
        ("audit.head", seq, file_heads[seq]) for seq in sorted(file_heads)[-2:]]


def test_a_damaged_or_missing_anchor_file_is_a_clear_input_error(heads_file, tmp_path):
    flow.make_people()
    missing = tmp_path / "nowhere.jsonl"
    result = verify_anchor(missing, "--json")
    assert result.returncode == 2
    assert json.loads(result.stderr)["message"] == f"the anchor file {missing} does not exist"
    with heads_file.open("a") as handle:
        handle.write('{"seq": 3, "hash": "not-a-hash", "at": "2030-01-01T00:00:00+00:00"}\n')
    result = verify_anchor(heads_file)
    assert result.returncode == 2
    lines = len(heads_file.read_text().splitlines())
    assert result.stderr.strip() == (f"error: anchor: line {lines} of {heads_file} is not a published head "
                                     f"(hash must be 64 hex digits)")


def test_the_audit_page_compares_the_chain_with_the_newest_published_head(heads_file, monkeypatch):
    from hitl_dashboard.ui.states.audit_insights import chain_status, verify_and_status

    flow.make_people()
    manager = flow.actor("dave")
    flow.start(TASK)
    last = audit_events()[-1]
    assert chain_status(manager)[:2] == ("unverified", f"Audit chain not verified yet ({last.seq:,} events)")
    chain, chain_text, anchor, anchor_text = verify_and_status(manager)
    assert chain_text.startswith(f"Audit chain verified up to event {last.seq:,} (full check, ")
    newest = published(heads_file)[-1]
    assert (chain, anchor) == ("ok", "ok")
    assert anchor_text == (f"Matches the head published at {newest['at'][:19].replace('T', ' ')} UTC "
                           f"(seq {last.seq})")

    delete_newest(1)
    chain, chain_text, anchor, anchor_text = chain_status(manager)  # the remembered verification
    assert chain == "ok" and chain_text.startswith(f"Audit chain verified up to event {last.seq:,} (")
    assert anchor == "broken"
    assert anchor_text.startswith(f"Does not match the published head: the audit log ends at seq {last.seq - 1} "
                                  f"but seq {last.seq} (hash {last.hash[:12]}…) was published at")

    monkeypatch.setenv("AUDIT_ANCHOR_SINKS", "log")  # no file: nothing to compare with on the page
    reset_settings_cache()
    assert chain_status(manager)[2:] == ("off", "")


def test_the_page_reads_only_the_end_of_a_long_anchor_file(tmp_path):
    from hitl_dashboard.domain.audit_anchor import PublishedHead
    from hitl_dashboard.services.audit.audit_anchor import append_head_line
    from hitl_dashboard.services.audit.audit_heads import TAIL_BYTES, newest_published, read_heads

    heads_file = tmp_path / "heads.jsonl"
    assert newest_published(heads_file) is None  # nothing published yet
    for seq in range(1, 3000):  # about 3x TAIL_BYTES; the tail starts mid-line
        append_head_line(heads_file, PublishedHead(seq, f"{seq:064x}", "2030-03-10T00:00:00+00:00"))
    append_head_line(heads_file, PublishedHead(2999, "f" * 64, "2030-03-10T00:00:01+00:00"))
    append_head_line(heads_file, PublishedHead(2998, "e" * 64, "2030-03-10T00:00:02+00:00"))  # out of order
    assert heads_file.stat().st_size > 2 * TAIL_BYTES
    assert newest_published(heads_file).seq == 2999
    assert len(list(read_heads(heads_file))) == 3001


def test_processes_appending_at_once_never_interleave_lines(tmp_path):
    import subprocess
    import sys

    heads_file = tmp_path / "heads.jsonl"
    script = ("import sys; from pathlib import Path; from hitl_dashboard.domain.audit_anchor import PublishedHead; "
              "from hitl_dashboard.services.audit.audit_anchor import append_head_line\n"
              "for seq in range(int(sys.argv[2]), int(sys.argv[2]) + 2000):\n"
              "    append_head_line(Path(sys.argv[1]), PublishedHead(seq, sys.argv[3] * 64, 'x' * 200))")
    writers = [subprocess.Popen([sys.executable, "-c", script, str(heads_file), str(start), digit])
               for start, digit in ((1, "a"), (10_001, "b"), (20_001, "c"))]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    heads = published(heads_file)
    assert len(heads) == 6000
    assert sorted(h["seq"] for h in heads) == [*range(1, 2001), *range(10_001, 12_001), *range(20_001, 22_001)]


def test_an_unknown_sink_is_refused_naming_the_choices(monkeypatch):
    from hitl_dashboard.domain.errors import ConfigurationError
    from hitl_dashboard.settings import Settings, get_settings, reset_settings_cache

    monkeypatch.setenv("AUDIT_ANCHOR_SINKS", "file, s3")
    reset_settings_cache()
    unknown_sink = r"AUDIT_ANCHOR_SINKS: names an unknown sink \(s3\); use some of file, log, webhook"
    with pytest.raises(ConfigurationError, match=unknown_sink):
        get_settings()
    monkeypatch.delenv("AUDIT_ANCHOR_SINKS")
    reset_settings_cache()
    assert Settings(audit_anchor_sinks=" Log ,webhook").anchor_sinks() == {"log", "webhook"}
    assert Settings(audit_anchor_sinks="", audit_anchor_file="/x/heads.jsonl").anchor_file() is None
