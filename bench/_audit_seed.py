"""Helpers of the audit benchmarks (audit_page.py, audit_export.py): a valid hash chain bulk-inserted
(executemany on SQLite, COPY on PostgreSQL; not through the use cases), the old code paths kept
callable as baselines, and the API plus the old export served over real HTTP by granian (bench/_support)
in a process of its own, so its peak RSS can be read. Databases and percentiles: bench/_support."""

# No `from __future__ import annotations`: FastAPI resolves the annotations of server_app's route, which
# are imported inside the function.
import contextlib
import json
import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._support import serving as _serving  # noqa: E402 - after the path is set

ACTIONS = ("conversation.started", "review.requested", "review.claimed", "decision.recorded", "tool_call.requested",
           "tool_call.approved", "tool_call.executed", "conversation.approved", "conversation.aborted",
           "review.escalated", "review.expired", "user.created", "token.issued", "webhook.delivered")
ROLES = ("security_reviewer", "product_reviewer", "final_approver", "manager", None)


def manager() -> tuple[object, str]:
    """A manager (the Actor) and an API token for them."""
    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.services.auth.tokens import issue_token
    from hitl_dashboard.services.auth.users import find_actor, insert_user

    name = f"bench-{uuid.uuid4().hex[:6]}"
    with UnitOfWork() as uow:
        user = insert_user(uow, username=name, password="pw-" + name, roles=["manager"])
        _, token = issue_token(uow, user_id=user.id, name="bench")
        uow.commit()
    return find_actor(name), token


def seed(count: int, batch: int = 20_000) -> int:
    """Append `count` events to the chain, continuing from its newest event: valid hashes, realistic
    shapes (14 actions, roles, conversations, small details). Returns the newest seq."""
    from sqlmodel import select

    from hitl_dashboard.db.engine import get_engine
    from hitl_dashboard.db.models import AuditEvent
    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.domain.audit_chain import GENESIS, event_hash

    with UnitOfWork() as uow:
        last = uow.session.exec(select(AuditEvent).order_by(AuditEvent.seq.desc()).limit(1)).first()
    seq, prev = (last.seq, last.hash) if last else (0, GENESIS)
    start = datetime.now(UTC) - timedelta(days=90)
    step = timedelta(days=90) / max(count, 1)
    engine = get_engine()
    postgres = engine.dialect.name == "postgresql"
    raw = engine.raw_connection()
    try:
        done = 0
        while done < count:
            rows = []
            for i in range(done, min(done + batch, count)):
                seq += 1
                at = start + step * i
                payload = {"seq": seq, "at": at.isoformat(), "actor": f"user{seq % 40}",
                           "actor_role": ROLES[seq % len(ROLES)], "action": ACTIONS[seq % len(ACTIONS)],
                           "conversation_id": seq // 20 + 1, "review_request_id": seq // 7 if seq % 3 else None,
                           "content_hash": f"{seq:064x}" if seq % 2 else None,
                           "details": {"n": seq, "reason": "looks fine to me", "tags": ["a", "b"]}}
                digest = event_hash(prev, payload)
                stored_at = at.isoformat() if postgres else at.strftime("%Y-%m-%d %H:%M:%S.%f")
                rows.append((seq, stored_at, payload["actor"], payload["actor_role"], payload["action"],
                             payload["conversation_id"], payload["review_request_id"], payload["content_hash"],
                             json.dumps(payload["details"]), prev, digest))
                prev = digest
            _insert(raw, rows, postgres)
            done += len(rows)
        if postgres:  # as autovacuum would leave it: statistics and the visibility map (index-only scans)
            import psycopg

            with psycopg.connect(engine.url.set(drivername="postgresql").render_as_string(hide_password=False),
                                 autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE audit_events")
        else:
            raw.cursor().execute("ANALYZE")
            raw.commit()
    finally:
        raw.close()
    return seq


COLUMNS = ("seq, at, actor, actor_role, action, conversation_id, review_request_id, content_hash, details, "
           "prev_hash, hash")


def _insert(raw, rows: list[tuple], postgres: bool) -> None:
    cursor = raw.cursor()
    if postgres:
        with cursor.copy(f"COPY audit_events ({COLUMNS}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    else:
        cursor.execute("BEGIN")
        cursor.executemany(f"INSERT INTO audit_events ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
    raw.commit()


# --- the old code paths, kept callable as the baselines ------------------------------------------------

def old_events(uow, page: int = 1000):
    """The export's and the verification's old reader: ORM objects, keyset pages of 1000."""
    from sqlmodel import select

    from hitl_dashboard.db.models import AuditEvent

    after = 0
    while True:
        rows = uow.session.exec(select(AuditEvent).where(AuditEvent.seq > after)
                                .order_by(AuditEvent.seq).limit(page)).all()
        uow.session.expunge_all()
        uow.session.rollback()
        if not rows:
            return
        yield from rows
        after = rows[-1].seq


def old_full_verification():
    """What the audit page ran on every load before: the whole chain, from event 1."""
    from hitl_dashboard.domain.audit_chain import verify_chain
    from hitl_dashboard.services.transactions import reading

    with reading() as uow:
        return verify_chain((e.seq, e.prev_hash, e.hash, e.payload()) for e in old_events(uow))


def old_export_lines(fmt: str, limit: int | None = None):
    """The old export: one chunk per event (each moved through the thread pool by Starlette)."""
    import csv
    import io

    from hitl_dashboard.services.audit.audit import CSV_FIELDS
    from hitl_dashboard.services.transactions import reading

    with reading() as uow:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS)
        if fmt == "csv":
            writer.writeheader()
        for n, event in enumerate(old_events(uow), start=1):
            record = {**event.payload(), "prev_hash": event.prev_hash, "hash": event.hash}
            if fmt == "jsonl":
                yield json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
            else:
                record["details"] = json.dumps(record["details"], sort_keys=True, ensure_ascii=False)
                writer.writerow(record)
                yield buffer.getvalue()
                buffer.seek(0)
                buffer.truncate()
            if limit and n >= limit:
                return


def server_app():
    """The API as the app mounts it, plus the old export at /bench/old-export (granian --factory)."""
    from typing import Annotated, Literal

    from fastapi import APIRouter, Query
    from fastapi.responses import StreamingResponse

    from hitl_dashboard.api.app import create_api
    from hitl_dashboard.api.deps import CurrentActor
    from hitl_dashboard.domain.permissions import check_can_read_audit

    api = create_api()
    router = APIRouter()

    @router.get("/bench/old-export")
    def old_export(actor: CurrentActor, format: Annotated[Literal["csv", "jsonl"], Query()] = "jsonl",
                   limit: int | None = None) -> StreamingResponse:
        check_can_read_audit(actor)
        return StreamingResponse(old_export_lines(format, limit), media_type="text/plain")

    api.include_router(router)
    return api


# --- the API over real HTTP ---------------------------------------------------------------------------

def serving() -> contextlib.AbstractContextManager[tuple[str, subprocess.Popen]]:
    """granian serving server_app() with this process's DATABASE_URL: (base URL, granian process)."""
    return _serving("bench._audit_seed:server_app", os.environ["DATABASE_URL"], factory=True)


def tree_peak_rss_mb(pid: int) -> float:
    """Peak resident memory (VmHWM) of the process and its children, in MB: granian serves from a
    worker process."""
    total = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if int(proc.name) != pid and ppid != pid:
                continue
            for line in (proc / "status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return total / 1024
