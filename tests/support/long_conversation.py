"""Grows a conversation to the size of issue 33's long case, straight in the database (fast): many
agent messages of about 1.5 KB of markdown each, and a 3,000-line file in two revisions that differ
in a few places (one line of them 300 characters long). Used by tests/e2e/test_long_conversation.py
and bench/long_conversation.py."""

from __future__ import annotations

import hashlib

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from hitl_dashboard.db.models import CodeRevision, Conversation, Message
from hitl_dashboard.db.uow import UnitOfWork

BIG_FILE = "app/ledger_tables.py"
FILE_LINES = 3_000
LONG_LINE_MARK = "END-OF-THE-300-CHARACTER-LINE"
LONG_LINE_END = "  # " + LONG_LINE_MARK
SOURCES = ("planner", "coder")


def message_text(seq: int) -> str:
    """About 1.5 KB of markdown that names its own seq (a reader can tell every message apart)."""
    body = (f"Step {seq} of the ledger migration. The coder checked the retry budget, the idempotency key "
            "and the order of the writes again, and found nothing new to change in this part. ")
    return f"**Message {seq}.** " + body * 8 + f"\n\n- item one of {seq}\n- item two of {seq}\n"


def long_line() -> str:
    head = "LEDGER_COLUMNS = (" + ", ".join(f"'column_{n:03d}'" for n in range(40))
    return (head + ")")[:300 - len(LONG_LINE_END)].ljust(300 - len(LONG_LINE_END)) + LONG_LINE_END


def file_revisions() -> tuple[str, str]:
    """r1 and r2: r2 changes a line every 500 and adds the 300-character line near the end."""
    r1 = [f"ROW_{n:04d} = {{'id': {n}, 'name': 'ledger row {n}', 'weight': {n % 7}}}" for n in range(1, FILE_LINES + 1)]
    r2 = [line.replace("'weight'", "'weight_kg'") if n % 500 == 250 else line for n, line in enumerate(r1)]
    r2[-10] = long_line()
    return "\n".join(r1) + "\n", "\n".join(r2) + "\n"


SPREAD_EVERY = 30


def spread_revisions() -> tuple[str, str]:
    """r1 and r2 of issue 44: r2 changes one line in every SPREAD_EVERY (lines 15, 45, ... 2,985), so
    the diff is 100 hunks spread through the file, with the unchanged lines between them folded."""
    r1, _ = file_revisions()
    lines = r1.split("\n")
    for n in range(SPREAD_EVERY // 2, FILE_LINES + 1, SPREAD_EVERY):
        lines[n - 1] = lines[n - 1].replace("'weight'", "'weight_kg'")
    return r1, "\n".join(lines)


def grow(engine: Engine, conversation_id: int, messages: int, *, with_file: bool = True,
         spread: bool = False) -> list[int]:
    """Adds `messages` (at least 1) agent messages after the stored ones (and moves next_seq past
    them) and, with_file, the two revisions of BIG_FILE (spread: spread_revisions()). Returns every
    seq the conversation then holds, in order."""
    with UnitOfWork(engine) as uow:
        session = uow.session
        last = session.exec(select(func.max(Message.seq)).where(Message.conversation_id == conversation_id)).one()
        first_new = int(last or 0) + 1
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None
        rows = [Message(conversation_id=conversation_id, workspace_id=conversation.workspace_id, seq=seq,
                        source=SOURCES[seq % 2], kind="text", content=message_text(seq), completion_tokens=300,
                        prompt_tokens=1200, model="scripted")
                for seq in range(first_new, first_new + messages)]
        session.add_all(rows)
        conversation.next_seq = first_new + messages
        session.flush()
        revisions = (spread_revisions() if spread else file_revisions()) if with_file else ()
        for number, content in enumerate(revisions, start=1):
            session.add(CodeRevision(conversation_id=conversation_id, message_id=rows[-1].id, key=BIG_FILE,
                                     number=number, language="python", content=content,
                                     content_hash=hashlib.sha256(content.encode()).hexdigest()))
        uow.commit()
        return list(session.exec(select(Message.seq).where(Message.conversation_id == conversation_id)
                                 .order_by(col(Message.seq))))
