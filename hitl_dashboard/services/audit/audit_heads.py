"""Compare the audit chain in the database with the heads published outside it (audit_anchor.py).

verify_anchored walks the whole chain (the CLI's `audit verify --anchor`); the audit page's
status_against_newest_head does not: it reads the remembered verification (audit_verification.py)
and looks the newest published head up by seq."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.audit_anchor import (
    AnchorReport,
    PublishedHead,
    check_against_published,
    newest_head,
    parse_head_line,
)
from hitl_dashboard.domain.audit_chain import ChainReport, verify_chain
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.services.audit import audit_verification
from hitl_dashboard.services.audit.audit_rows import chain_rows
from hitl_dashboard.services.transactions import reading
from hitl_dashboard.settings import get_settings

# The page compares with the newest head; it is near the end of the file (out of order only among
# heads committed at the same moment), so the page reads this much of the end, not the whole file.
TAIL_BYTES = 64 * 1024


def read_heads(path: Path) -> Iterator[PublishedHead]:
    """Every head in the file; a line that is not one is an error naming the line."""
    try:
        handle = path.open("r", encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput(f"the anchor file {path} does not exist", "anchor") from None
    except OSError as exc:
        raise InvalidInput(f"the anchor file {path} cannot be read: {exc.strerror}", "anchor") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield parse_head_line(line, f"line {number} of {path}")


def newest_published(path: Path) -> PublishedHead | None:
    """The newest head in the last TAIL_BYTES of the file; None when nothing was published yet."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - TAIL_BYTES))
            tail = handle.read()
    except FileNotFoundError:
        return None
    lines = tail.decode("utf-8", errors="replace").splitlines()
    if size > TAIL_BYTES:
        lines = lines[1:]  # the first line is probably cut
    return newest_head(parse_head_line(line, f"a line near the end of {path}") for line in lines if line.strip())


def verify_anchored(actor: Actor | None, heads: list[PublishedHead]) -> tuple[ChainReport, AnchorReport | None]:
    """The chain check, then every head compared with the chain; the comparison is None when the
    chain itself is broken (that is already the answer). `actor` None is the operator at the CLI."""
    if actor is not None:
        check_can_read_audit(actor)
    with reading() as uow:
        return _verify_anchored(uow, heads)


def _verify_anchored(uow: UnitOfWork, heads: list[PublishedHead]) -> tuple[ChainReport, AnchorReport | None]:
    wanted = {head.seq for head in heads}
    hashes_at: dict[int, str] = {}

    def rows():
        for seq, prev_hash, stored_hash, payload in chain_rows(uow):
            if seq in wanted:
                hashes_at[seq] = stored_hash
            yield seq, prev_hash, stored_hash, payload

    chain = verify_chain(rows())
    if not chain.ok:
        return chain, None
    # An intact chain starts at 1 and has no gap: it ends at seq == checked.
    return chain, check_against_published(chain.checked, hashes_at, heads)


@dataclass(frozen=True)
class AnchoredStatus:
    chain: audit_verification.VerificationStatus
    anchor: AnchorReport | None  # None: the last verification found the chain broken (that is the answer)
    anchor_file: Path | None  # None: the file sink is off, nothing to compare with


def status_against_newest_head(actor: Actor) -> AnchoredStatus:
    """For the audit page, on every load: the remembered verification, and the newest head in the
    configured file looked up in the trail by seq. Two index lookups; nothing is re-hashed."""
    check_can_read_audit(actor)
    path = get_settings().anchor_file()
    head = newest_published(path) if path else None
    with reading() as uow:
        chain = audit_verification.read_status(uow)
        if path is None or not chain.ok:
            return AnchoredStatus(chain, None, path)
        stored = uow.session.exec(select(AuditEvent.hash).where(AuditEvent.seq == head.seq)).first() if head else None
    hashes_at = {head.seq: stored} if head and stored is not None else {}
    return AnchoredStatus(chain, check_against_published(chain.newest_seq, hashes_at, [head] if head else []), path)
