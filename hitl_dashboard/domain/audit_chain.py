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


def verify_chain(events: Iterable[tuple[int, str, str, dict[str, Any]]], *,
                 after_seq: int = 0, after_hash: str = GENESIS) -> ChainReport:
    """events: (seq, prev_hash, hash, payload) in seq order, starting at after_seq + 1. By default
    the whole chain (from event 1); with after_seq and after_hash, the events after a point
    verified before (the events up to it are trusted, not re-read)."""
    expected_prev, expected_seq, checked = after_hash, after_seq + 1, 0

    def broken(seq: int, problem: str) -> ChainReport:
        return ChainReport(False, checked, seq, problem, expected_seq - 1, expected_prev)

    for seq, prev_hash, stored_hash, payload in events:
        if seq != expected_seq:
            return broken(expected_seq, f"event {expected_seq} is missing")
        if prev_hash != expected_prev:
            return broken(seq, f"event {seq} does not follow event {seq - 1}")
        if event_hash(prev_hash, payload) != stored_hash:
            return broken(seq, f"event {seq} was altered after it was written")
        expected_prev, expected_seq, checked = stored_hash, seq + 1, checked + 1
    return ChainReport(True, checked, last_seq=expected_seq - 1, last_hash=expected_prev)
