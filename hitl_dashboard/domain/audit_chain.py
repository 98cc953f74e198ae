"""Tamper evidence: each audit event carries the hash of the previous one."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hitl_dashboard.domain.hashing import canonical_json, sha256_text

GENESIS = "0" * 64


def event_hash(prev_hash: str, payload: dict[str, Any]) -> str:
    return sha256_text(prev_hash + canonical_json(payload))


@dataclass(frozen=True)
class ChainReport:
    ok: bool
    checked: int  # events checked by this run
    first_bad_seq: int | None = None
    problem: str | None = None
    # The newest event found intact (0 and GENESIS: none): where the next verification goes on.
    last_seq: int = 0
    last_hash: str = GENESIS


def verify_chain(events: Iterable[tuple[int, str, str, dict[str, Any] | None]], *,
                 after_seq: int = 0, after_hash: str = GENESIS) -> ChainReport:
    """events: (seq, prev_hash, hash, payload) in seq order, starting at after_seq + 1. By default
    the whole chain (from event 1); with after_seq and after_hash, the events after a point
    verified before (the events up to it are trusted, not re-read). A payload None is another
    workspace's event in a manager's export (issue 41): only its place in the chain is checked."""
    expected_prev, expected_seq, checked = after_hash, after_seq + 1, 0

    def broken(seq: int, problem: str) -> ChainReport:
        return ChainReport(False, checked, seq, problem, expected_seq - 1, expected_prev)

    for seq, prev_hash, stored_hash, payload in events:
        if seq != expected_seq:
            return broken(expected_seq, f"event {expected_seq} is missing")
        if prev_hash != expected_prev:
            return broken(seq, f"event {seq} does not follow event {seq - 1}")
        if payload is not None and event_hash(prev_hash, payload) != stored_hash:
            return broken(seq, f"event {seq} was altered after it was written")
        expected_prev, expected_seq, checked = stored_hash, seq + 1, checked + 1
    return ChainReport(True, checked, last_seq=expected_seq - 1, last_hash=expected_prev)


PAYLOAD_KEYS = ("seq", "at", "actor", "actor_role", "action", "conversation_id", "review_request_id", "content_hash",
                "details")


def verify_export(lines: Iterable[str]) -> ChainReport:
    """Verify an audit export (JSON lines, `GET /api/audit/export?format=jsonl`), a workspace
    manager's included: its events are checked in full, and the other workspaces' events, which it
    holds as links (seq, prev_hash, hash, "redacted": true), only as links. Compare the last hash
    with the published anchor to know that nothing was cut from the end."""
    import json

    def events() -> Iterable[tuple[int, str, str, dict[str, Any] | None]]:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                payload = None if record.get("redacted") else {key: record[key] for key in PAYLOAD_KEYS}
                yield record["seq"], record["prev_hash"], record["hash"], payload

    return verify_chain(events())
