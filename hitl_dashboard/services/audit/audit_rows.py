"""Read the audit trail in seq order, a page of plain rows at a time (steps: the caller's unit of work).

Plain column rows, not ORM objects: at a million events the identity map, the attribute
instrumentation and the per-value type processors cost more than the query. `at` and `details`
come as the driver gives them (SQLite: text; PostgreSQL: datetime and dict) and are read here
the way their column types would (UTCDateTime, JSON). Keyset pages by seq keep memory constant."""

from __future__ import annotations

import json
import json.encoder
import json.scanner
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from hitl_dashboard.db.uow import UnitOfWork

PAGE = 2000
# The columns of AuditEvent in this order; plain SQL on the DBAPI cursor: SQLAlchemy's Row objects
# and result processing cost about as much as encoding the row. details comes as text and is parsed
# here (details_of): psycopg's own json loading made fetching 3.5x slower. Both bounds are integers.
_PAGE_SQL = ("SELECT seq, at, actor, actor_role, action, conversation_id, review_request_id, content_hash, "
             "CAST(details AS TEXT), prev_hash, hash{readable} FROM audit_events WHERE seq > {after:d} ORDER BY seq "
             "LIMIT {size:d}")


def pages(uow: UnitOfWork, *, after: int = 0, size: int | None = None,
          workspaces: frozenset[int] | None = None) -> Iterator[Sequence[Any]]:
    """Rows (seq, at, actor, actor_role, action, conversation_id, review_request_id, content_hash,
    details, prev_hash, hash) with seq > after, oldest first, `size` (PAGE) at a time. workspaces: a
    reader of these only (issue 41: a manager's export): each row ends with one more column, 1 when
    the event is theirs to read, 0 for another's (its content is left out: only its link is shown).
    None: every event, as they are."""
    size = size or PAGE
    readable = "" if workspaces is None else (
        ", CASE WHEN workspace_id IN ({}) THEN 1 ELSE 0 END".format(", ".join(str(int(w)) for w in sorted(workspaces)))
        if workspaces else ", 0")
    while True:
        # A checked-out connection always has its driver connection (None only once invalidated).
        cursor = uow.session.connection().connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(_PAGE_SQL.format(after=int(after), size=int(size), readable=readable))
            page = cursor.fetchall()
        finally:
            cursor.close()
        # End the read transaction before handing rows to a consumer that may be slow (a streamed
        # HTTP export): on SQLite every transaction holds the write lock. The trail is append-only,
        # so paging by seq needs no snapshot. Callers are read-only.
        uow.session.rollback()
        if not page:
            return
        yield page
        after = page[-1][0]


def at_text(value: Any) -> str:
    """AuditEvent.at.isoformat(): UTC, as UTCDateTime reads it (SQLite stores UTC text without an offset)."""
    if isinstance(value, str):
        if len(value) == 26 and value[10] == " " and value[19] == ".":  # SQLAlchemy's SQLite DATETIME format
            seconds, micro = value[:19], value[20:]
            return f"{seconds[:10]}T{seconds[11:]}{'' if micro == '000000' else '.' + micro}+00:00"
        return datetime.fromisoformat(value).replace(tzinfo=UTC).isoformat()
    return (value.replace(tzinfo=UTC) if value.utcoffset() is None else value.astimezone(UTC)).isoformat()


# json.loads and JSONEncoder.encode build their C scanner and encoder on every call, which costs more
# than the work at this size; these are built once (same C code, so the same values and bytes).
# The C accelerators are private (None without the C module): typeshed does not declare them.
_c_make_scanner = getattr(json.scanner, "c_make_scanner", None)
_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_scan = _c_make_scanner(json.JSONDecoder()) if _c_make_scanner else None
_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False)
_encode = (_c_make_encoder(None, _JSON.default, json.encoder.encode_basestring, None, _JSON.key_separator,
                           _JSON.item_separator, True, False, True)
           if _c_make_encoder else None)


def details_of(value: Any) -> Any:
    """AuditEvent.details: the JSON column's value."""
    if not isinstance(value, (str, bytes)):
        return value
    if _scan is not None and isinstance(value, str):
        try:
            parsed, end = _scan(value, 0)
            if end == len(value):
                return parsed
        except (StopIteration, ValueError):
            pass  # leading whitespace, or not JSON: json.loads says so properly
    return json.loads(value)


def sorted_json(value: Any) -> str:
    """json.dumps(value, sort_keys=True, ensure_ascii=False)."""
    return "".join(_encode(value, 0)) if _encode is not None else _JSON.encode(value)


def payload(row: Any) -> dict[str, Any]:
    """What the hash covers: AuditEvent.payload() of the row."""
    seq, at, actor, actor_role, action, conversation_id, review_request_id, content_hash, details = row[:9]
    return {"seq": seq, "at": at_text(at), "actor": actor, "actor_role": actor_role, "action": action,
            "conversation_id": conversation_id, "review_request_id": review_request_id,
            "content_hash": content_hash, "details": details_of(details)}


def chain_rows(uow: UnitOfWork, *, after: int = 0) -> Iterator[tuple[int, str, str, dict]]:
    """(seq, prev_hash, hash, payload) for the events after `after`, as verify_chain reads them."""
    for page in pages(uow, after=after):
        for row in page:
            yield row[0], row[9], row[10], payload(row)
