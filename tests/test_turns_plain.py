"""The plain-turn fast path (services/runner/plain_turn.py) writes exactly the rows apply_turn writes
for the same turn, hands every turn the gate would stop to apply_turn, and still refuses a lost lease."""

from __future__ import annotations

import pytest
from sqlalchemy import Text, cast, func, select

from hitl_dashboard.agents.team_run import ProducedMessage, TurnResult
from hitl_dashboard.db.models import Conversation, Message, TurnCheckpoint
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.checkpoints import DELTA, FULL
from hitl_dashboard.domain.turn_gate import parse_turn_code
from hitl_dashboard.services.runner import leases, plain_turn, runner
from hitl_dashboard.services.runner.run_failures import LeaseLost
from hitl_dashboard.services.runner.turns import CONTINUE, PAUSED
from hitl_dashboard.services.teams.versions import pinned
from tests.support import flow

PLAN = "TASK TYPE: code\n1. Add a lock around the counter.\nCONFIDENCE: 0.9"
STEP = "coder notes: the counter is read twice; one read is enough."


def _turns() -> list[TurnResult]:
    first = ProducedMessage("planner", "text", PLAN, 11, 7)
    second = ProducedMessage("coder", "text", STEP, 5, 3)
    state = {"agent_states": {"m": {"message_thread": [{"source": "planner", "content": PLAN}]}}}
    delta = {"lists": [[["agent_states", "m", "message_thread"], 1, [{"source": "coder", "content": STEP}]]],
             "values": [[["agent_states", "m", "current_turn"], 2]]}
    return [TurnResult([first], FULL, state, None, {"source": "frank", "content": "go"}),
            TurnResult([second], DELTA, delta, None, None)]


def _store(cid: int, owner: str, turn: TurnResult) -> str:
    """As the runner stores a turn: its code parsed once, with the conversation's team."""
    team = pinned(flow.conversation(cid))
    return runner._store_turn(cid, owner, turn, parse_turn_code(team.code_authors, turn.messages))


def _started(policy: dict) -> int:
    cid = flow.start("Add a lock to the rate limiter", gate_policy=policy)
    with UnitOfWork() as uow:
        assert leases.try_take(uow.session, cid, "r1", 60)
        uow.commit()
    return cid


def _rows(cid: int) -> tuple:
    c = Conversation.__table__.c
    skip = {"id", "created_at", "updated_at", "lease_expires_at"}
    with UnitOfWork(read_only=True) as uow:
        conn = uow.session.connection()
        conversation = conn.execute(select(*[col for col in c if col.name not in skip],
                                           cast(c.next_input, Text).label("raw_next_input"))
                                    .where(c.id == cid)).one()._asdict()
        messages = [(m.seq, m.source, m.kind, m.content, m.prompt_tokens, m.completion_tokens)
                    for m in uow.session.exec(select(Message).where(Message.conversation_id == cid)
                                              .order_by(Message.seq)).scalars()]
        checkpoints = [(t.turn, t.kind, t.data, t.input, t.last_seq)
                       for t in uow.session.exec(select(TurnCheckpoint).where(TurnCheckpoint.conversation_id == cid)
                                                 .order_by(TurnCheckpoint.turn)).scalars()]
        # Times differ between the two runs; how SQLite stores them must not (the fast path writes them
        # through the driver's own cursor there). PostgreSQL's text form drops trailing zeros: not compared.
        stamps = [conn.execute(select(func.length(cast(column, Text))).where(where)).scalars().all()
                  for column, where in ((c.updated_at, c.id == cid), (c.lease_expires_at, c.id == cid),
                                        (Message.created_at, Message.conversation_id == cid),
                                        (TurnCheckpoint.created_at, TurnCheckpoint.conversation_id == cid))
                  ] if conn.dialect.name == "sqlite" else []
    conversation.pop("title")
    return conversation, messages, checkpoints, stamps


def test_the_fast_path_writes_what_apply_turn_writes(db_url, monkeypatch):
    flow.make_people()
    policy = {"mode": "never", "tools": [], "max_turns_without_review": 10}
    fast, slow = _started(policy), _started(policy)
    for turn in _turns():
        assert _store(fast, "r1", turn) == CONTINUE
    with monkeypatch.context() as patched:
        patched.setattr(plain_turn, "may_be_plain", lambda *_: False)
        for turn in _turns():
            assert _store(slow, "r1", turn) == CONTINUE
    fast_rows, slow_rows = _rows(fast), _rows(slow)
    assert fast_rows == slow_rows
    conversation, messages, checkpoints, _ = fast_rows
    assert (conversation["checkpoint_version"], conversation["next_seq"], conversation["turns_since_review"],
            conversation["prompt_tokens"], conversation["completion_tokens"]) == (2, 4, 2, 16, 10)
    assert [m[3] for m in messages] == ["Add a lock to the rate limiter", PLAN, STEP]
    assert checkpoints[1][2]["lists"][0][2] == [{"source": "coder", "content": {"$message": 3}}]


def test_a_turn_the_gate_stops_is_left_to_apply_turn(sqlite_url):
    flow.make_people()
    cid = _started({"mode": "never", "tools": [], "max_turns_without_review": 2})
    first, second = _turns()
    assert _store(cid, "r1", first) == CONTINUE
    assert _store(cid, "r1", second) == PAUSED  # the turn budget: a review opens
    review = flow.only_open_review(cid)
    assert review.rule == "turn_budget"
    assert flow.conversation(cid).checkpoint_version == 2


def test_a_lost_lease_stores_nothing(sqlite_url):
    flow.make_people()
    cid = _started({"mode": "never", "tools": [], "max_turns_without_review": 10})
    with pytest.raises(LeaseLost):
        _store(cid, "someone-else", _turns()[0])
    assert flow.conversation(cid).checkpoint_version == 0
    assert [m.seq for m in flow.messages(cid)] == [1]
