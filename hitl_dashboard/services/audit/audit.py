"""Audit queries: verify the whole chain, export it (JSONL or CSV) in constant memory.

verify and export_lines are use cases (they read in their own unit of work). The export sends one
chunk per page of rows (audit_rows.PAGE), not one per event: a streamed response moves every chunk
of a plain iterator through the thread pool, and per-event chunks cost more than the encoding."""

from __future__ import annotations

import json
from collections.abc import Iterator

from hitl_dashboard.domain.audit_chain import ChainReport
from hitl_dashboard.domain.enums import Role
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.services.audit import audit_verification
from hitl_dashboard.services.audit.audit_rows import at_text, chain_rows, details_of, pages, sorted_json
from hitl_dashboard.services.transactions import reading

__all__ = ["CSV_FIELDS", "chain_rows", "export_lines", "verify"]
CSV_FIELDS = ["seq", "at", "actor", "actor_role", "action", "conversation_id", "review_request_id",
              "content_hash", "details", "prev_hash", "hash"]


def verify(actor: Actor | None) -> ChainReport:
    """The full check, from event 1 (`audit verify` at the CLI); it records how far it got, as the
    page's "Verify now" does. `actor` None is the operator at the CLI (and the tests)."""
    return audit_verification.verify_now(actor, full=True)


def export_lines(actor: Actor | None, fmt: str) -> Iterator[str]:
    """The whole trail, oldest first, as text chunks of whole lines; `actor` None is the operator
    at the CLI. Not a generator itself: the checks run when the export is asked for, before a
    streaming response has sent its status line, not at the first chunk. The reading unit of work
    opens when the first chunk is asked for and closes with the iteration."""
    if actor is not None:
        check_can_read_audit(actor)
    if fmt not in ("jsonl", "csv"):
        raise InvalidInput("format must be jsonl or csv", "format")
    # The instance admin exports the whole trail; a manager their workspaces' events (others as links).
    return _export(fmt, None if actor is None or actor.is_admin else actor.workspaces_with(Role.MANAGER.value))


def _export(fmt: str, workspaces: frozenset[int] | None) -> Iterator[str]:
    """workspaces: the events of these workspaces only (a manager's); None: the whole trail."""
    with reading() as uow:
        yield from (_jsonl_chunks if fmt == "jsonl" else _csv_chunks)(pages(uow, workspaces=workspaces))


def _jsonl_line(row) -> str:
    """json.dumps(record, sort_keys=True, ensure_ascii=False) of the event's record (its payload, prev_hash
    and hash), written out field by field in sorted key order: the same bytes, without sorting and
    dispatching on types eleven times per event."""
    seq, at, actor, actor_role, action, conversation_id, review_request_id, content_hash, details, prev, hash_ = row
    text = _encode_text  # actor, action and the hashes are NOT NULL columns
    return (f'{{"action": {text(action)}, "actor": {text(actor)}, "actor_role": {_text(actor_role)}, '
            f'"at": "{at_text(at)}", "content_hash": {_text(content_hash)}, '
            f'"conversation_id": {_number(conversation_id)}, '
            f'"details": {sorted_json(details_of(details))}, "hash": {text(hash_)}, "prev_hash": {text(prev)}, '
            f'"review_request_id": {_number(review_request_id)}, "seq": {seq}}}\n')


_encode_text = json.encoder.encode_basestring  # what json.dumps(ensure_ascii=False) writes a str with


def _text(value: str | None) -> str:
    return "null" if value is None else _encode_text(value)


def _number(value: int | None) -> str:
    return "null" if value is None else int.__repr__(value)


def _jsonl_chunks(row_pages) -> Iterator[str]:
    for page in row_pages:
        if page and len(page[0]) > _COLUMNS:  # a workspace manager's: another's event is a link
            yield "".join([_jsonl_line(row[:_COLUMNS]) if row[-1] else _link_line(row) for row in page])
        else:
            yield "".join([_jsonl_line(row) for row in page])


_COLUMNS = 11  # a row of audit_rows.pages; one more (readable or not) in a workspace manager's export


def _link_line(row) -> str:
    """Another workspace's event in a manager's export: its place in the chain, nothing of it."""
    return f'{{"hash": "{row[10]}", "prev_hash": "{row[9]}", "redacted": true, "seq": {row[0]}}}\n'


def _csv_chunks(row_pages) -> Iterator[str]:
    """What csv.DictWriter (the excel dialect) wrote: a header, then one \\r\\n-terminated line per event,
    a field quoted only when it holds a comma, a quote or a line break (quotes doubled), None empty."""
    header = ",".join(CSV_FIELDS) + "\r\n"
    for page in row_pages:  # a manager's CSV: their workspaces' events only
        yield header + "".join([_csv_line(row[:_COLUMNS]) for row in page if len(row) == _COLUMNS or row[-1]])
        header = ""
    if header:
        yield header


def _csv_line(row) -> str:
    seq, at, actor, actor_role, action, conversation_id, review_request_id, content_hash, details, prev, hash_ = row
    return (f"{seq},{at_text(at)},{_cell(actor)},{_cell(actor_role)},{_cell(action)},"
            f"{'' if conversation_id is None else conversation_id},"
            f"{'' if review_request_id is None else review_request_id},{_cell(content_hash)},"
            f"{_cell(sorted_json(details_of(details)))},{_cell(prev)},{_cell(hash_)}\r\n")


def _cell(value: str | None) -> str:
    if value is None:
        return ""
    if '"' in value or "," in value or "\n" in value or "\r" in value:
        return '"' + value.replace('"', '""') + '"'
    return value
