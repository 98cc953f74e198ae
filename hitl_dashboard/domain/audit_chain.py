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
    checked: int
    first_bad_seq: int | None = None
    problem: str | None = None


def verify_chain(events: Iterable[tuple[int, str, str, dict[str, Any]]]) -> ChainReport:
    """events: (seq, prev_hash, hash, payload) in seq order, starting at 1."""
    expected_prev, expected_seq, checked = GENESIS, 1, 0
    for seq, prev_hash, stored_hash, payload in events:
        if seq != expected_seq:
            return ChainReport(False, checked, expected_seq, f"event {expected_seq} is missing")
        if prev_hash != expected_prev:
            return ChainReport(False, checked, seq, f"event {seq} does not follow event {seq - 1}")
        if event_hash(prev_hash, payload) != stored_hash:
            return ChainReport(False, checked, seq, f"event {seq} was altered after it was written")
        expected_prev, expected_seq, checked = stored_hash, seq + 1, checked + 1
    return ChainReport(True, checked)
