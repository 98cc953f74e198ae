"""Published heads of the audit chain, and the check against them.

The hash chain proves that no event was altered or removed in the middle, but deleting the newest
events leaves a shorter chain that is still valid. Each committed head (seq, hash) is therefore
published outside the database; a head that the database no longer contains means the trail was
cut off or rewritten after it was published."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from hitl_dashboard.domain.errors import InvalidInput

_HASH = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class PublishedHead:
    seq: int
    hash: str
    at: str  # when it was published, ISO 8601 UTC


@dataclass(frozen=True)
class AnchorReport:
    ok: bool
    heads: int  # published heads compared
    newest: PublishedHead | None = None
    first_bad_seq: int | None = None
    problem: str | None = None


def head_line(head: PublishedHead) -> str:
    """One JSON line, as the file sink appends it and `parse_head_line` reads it back."""
    return json.dumps({"seq": head.seq, "hash": head.hash, "at": head.at}, separators=(",", ":")) + "\n"


def parse_head_line(text: str, where: str) -> PublishedHead:
    """`where` names the line for the error message (e.g. "line 12 of heads.jsonl")."""
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"{where} is not a published head (not JSON: {exc})", "anchor") from None
    if not isinstance(record, dict):
        raise InvalidInput(f"{where} is not a published head (expected an object)", "anchor")
    seq, hash_, at = record.get("seq"), record.get("hash"), record.get("at")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise InvalidInput(f"{where} is not a published head (seq must be a positive integer)", "anchor")
    if not isinstance(hash_, str) or not _HASH.fullmatch(hash_):
        raise InvalidInput(f"{where} is not a published head (hash must be 64 hex digits)", "anchor")
    if not isinstance(at, str):
        raise InvalidInput(f"{where} is not a published head (at must be a time)", "anchor")
    return PublishedHead(seq, hash_, at)


def newest_head(heads: Iterable[PublishedHead]) -> PublishedHead | None:
    """By seq, not by position: processes publishing at once may append out of order."""
    return max(heads, key=lambda h: h.seq, default=None)


def check_against_published(last_seq: int, hashes_at: Mapping[int, str],
                            heads: Iterable[PublishedHead]) -> AnchorReport:
    """last_seq: where the (intact) chain in the database ends, 0 when empty; hashes_at: the stored
    hash of every event whose seq was published. Every published head must still be in the chain."""
    count, newest, rewritten, cut = 0, None, None, None
    for head in heads:
        count += 1
        if newest is None or head.seq > newest.seq:
            newest = head
        if head.seq > last_seq:
            if cut is None or head.seq > cut.seq:
                cut = head
        elif hashes_at.get(head.seq) != head.hash and (rewritten is None or head.seq < rewritten.seq):
            rewritten = head
    if rewritten is not None:
        return AnchorReport(False, count, newest, rewritten.seq, (
            f"event {rewritten.seq} is not the one published at {rewritten.at} (hash {rewritten.hash[:12]}…): "
            f"the trail was rewritten after it was published"))
    if cut is not None:
        return AnchorReport(False, count, newest, last_seq + 1, (
            f"the audit log ends at seq {last_seq} but seq {cut.seq} (hash {cut.hash[:12]}…) was published "
            f"at {cut.at}: events were removed from the tail"))
    return AnchorReport(True, count, newest)
