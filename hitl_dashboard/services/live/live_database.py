"""The live bus through the database, for the setup with no Redis (embedded: SQLite, one web worker).

A process that has no browsers (the CLI: a claim, a release, a decision, a deactivation) writes each
event as a row of live_changes after its own commit; the web worker reads the rows after the last it
saw every POLL_S and handles them as it handles Redis events (services/live/live_redis.py): the open
queue and conversation pages show the change within about POLL_S + the refresh.

Cost: idle, one indexed read of an empty range per POLL_S in the web worker (measured in
tests/test_live_database.py); per change, one small insert in the process that made it. Streamed
text is not carried: a runner process without Redis shows each message when its turn is stored.
The web worker itself never writes here: its own changes reach its browsers in-process."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy import delete, func, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import col

from hitl_dashboard.db.engine import get_engine, read_only_engine
from hitl_dashboard.db.live_models import LiveChange
from hitl_dashboard.db.models import utcnow
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.db.uow import CoreUnitOfWork
from hitl_dashboard.services.live import live
from hitl_dashboard.services.live.live_events import LiveHandlers, changed_event, dispatch, sessions_ended_event

log = logging.getLogger(__name__)
POLL_S = 0.25  # well inside the 1 s a change may take to show (issue 32)
KEEP = 1_000  # rows kept: a web worker reads them within POLL_S; a stopped one starts from the newest
READ_BATCH = 500


class DatabasePublisherSink:
    """Registered in the CLI when there is no Redis (cli/entry.py)."""

    def __init__(self, engine: Engine | None = None):
        self.engine = engine

    async def chunk(self, conversation_id: int, source: str, message_id: str, text: str) -> None:
        return None  # streamed text is not carried (see the module's docstring)

    def changed(self, conversation_id: int, roles: tuple[str, ...] | None = None) -> None:
        self._write(changed_event(conversation_id, roles))

    def sessions_ended(self, user_id: int) -> None:
        self._write(sessions_ended_event(user_id))

    def _write(self, event: dict) -> None:
        """After the change's commit: a failure here loses the live update only (the pages show the
        change at their next read), so it is logged and never raised."""
        table = table_of(LiveChange)
        try:
            with CoreUnitOfWork(self.engine) as uow:
                new_id = uow.connection.execute(
                    insert(table).values(at=utcnow(), event=event).returning(table.c.id)).scalar_one()
                uow.connection.execute(delete(table).where(table.c.id <= new_id - KEEP))
                uow.commit()
        except SQLAlchemyError:
            log.warning("could not publish the live update %s", event)


def install_publisher() -> None:
    """Once per process: the CLI's entry point may run several times in one process (tests, a
    script calling main()), and a second publisher would write every change twice."""
    if not live.has_sink(DatabasePublisherSink):
        live.register_sink(DatabasePublisherSink())


def _reader(engine: Engine | None) -> Engine:
    """Reads take no write lock (SQLite: a deferred BEGIN; PostgreSQL: autocommit)."""
    return read_only_engine(engine or get_engine())


def newest_id(engine: Engine | None = None) -> int:
    with _reader(engine).connect() as connection:
        return connection.execute(select(func.coalesce(func.max(col(LiveChange.id)), 0))).scalar_one()


def events_after(last_id: int, engine: Engine | None = None) -> list[tuple[int, dict]]:
    with _reader(engine).connect() as connection:
        rows = connection.execute(select(col(LiveChange.id), col(LiveChange.event))
                                  .where(col(LiveChange.id) > last_id)
                                  .order_by(col(LiveChange.id)).limit(READ_BATCH)).all()
    return [(row[0], row[1]) for row in rows]


async def follow(handlers: LiveHandlers, *, after: int | None = None, engine: Engine | None = None,
                 interval: float = POLL_S) -> None:
    """Runs in the web worker for as long as it lives (ui/live.py), handling the events after row
    `after`. By default after the newest at its start: older events are old news, the pages opened
    since read the database themselves."""
    last = after
    while True:
        try:
            if last is None:
                last = await asyncio.to_thread(newest_id, engine)
            await asyncio.sleep(interval)
            for row_id, event in await asyncio.to_thread(events_after, last, engine):
                last = row_id
                await dispatch(event, handlers)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - keep following through a locked or restarted database and bad events
            log.exception("live changes from the database: retrying")
            await asyncio.sleep(1.0)
