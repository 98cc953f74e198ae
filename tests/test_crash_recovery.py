"""A worker process dies (SIGKILL) in the middle of an agent turn. The next worker redoes only the
turn in flight: the transcript has no gap, no duplicate and no half-written message, and the dead
runner's lease is taken over only once it has expired. Real worker processes, both databases."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime

import pytest

from hitl_dashboard.db.models import Conversation
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.audit import audit
from tests.conftest import ROOT, run_cli
from tests.support.db_state import audit_events, use_cheap_passwords, wait_for
from tests.support.flow import make_people, messages, only_open_review, start

LEASE_SECONDS = 2.0
SLOW = {"SCRIPTED_DELAY_MS": "1500", "LEASE_SECONDS": str(LEASE_SECONDS), "WORKER_POLL_SECONDS": "0.1"}
TASK = "Write a function that parses CSV rows"


@pytest.fixture
def workers(db_url, monkeypatch, tmp_path):
    """Starts `python -m hitl_dashboard worker ...` processes; kills whatever is left at the end."""
    use_cheap_passwords(monkeypatch)
    make_people()
    started: list[subprocess.Popen] = []

    def spawn(*args: str, env: dict[str, str]) -> subprocess.Popen:
        log = open(tmp_path / f"worker-{len(started)}.log", "w")
        process = subprocess.Popen([sys.executable, "-m", "hitl_dashboard", "worker", *args], cwd=ROOT,
                                   env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        started.append(process)
        return process

    yield spawn
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def _row(conversation_id: int) -> Conversation:
    with UnitOfWork() as uow:
        return uow.session.get(Conversation, conversation_id)


def _sources(conversation_id: int) -> list[str]:
    return [m.source for m in messages(conversation_id)]


def _wait_for_planner(conversation_id: int) -> Conversation:
    """Returns once the planner's turn is committed: the coder's (1.5 s) model call is now in flight."""
    wait_for(lambda: "planner" in _sources(conversation_id), timeout=60, interval=0.02,
             what="the planner's message to be committed")
    return _row(conversation_id)


def _runner_pid(runner_id: str) -> int:
    return int(runner_id.rsplit(":", 2)[1])  # host:pid:random, see services/runner.new_runner_id


def _assert_clean_recovery(conversation_id: int) -> None:
    transcript = messages(conversation_id)
    assert [m.seq for m in transcript] == list(range(1, len(transcript) + 1))
    duplicates = [k for k, n in Counter((m.source, m.content) for m in transcript).items() if n > 1]
    assert duplicates == []
    assert [m.source for m in transcript] == ["frank", "planner", "coder"]
    assert transcript[-1].content.rstrip().endswith("Ready for review.")  # the whole message, not a part
    c = _row(conversation_id)
    assert c.checkpoint_version == 2  # planner + coder: the turns that committed, nothing counted twice
    assert (c.status, c.lease_owner, c.lease_expires_at) == ("awaiting_review", None, None)
    review = only_open_review(conversation_id)
    assert (review.kind, review.required_role) == ("signoff", "security_reviewer")
    assert len(audit_events("review.requested", conversation_id=conversation_id)) == 1
    report = audit.verify(None)
    assert report.ok, report


def test_worker_killed_mid_turn_the_next_worker_redoes_only_that_turn(workers):
    conversation_id = start(TASK)
    doomed = workers(env=SLOW)
    at_kill = _wait_for_planner(conversation_id)
    doomed.send_signal(signal.SIGKILL)
    assert doomed.wait(timeout=10) == -signal.SIGKILL

    # What the crash left: the planner's turn and its checkpoint; the coder's turn never happened.
    assert _sources(conversation_id) == ["frank", "planner"]
    assert at_kill.checkpoint_version == _row(conversation_id).checkpoint_version == 1
    assert _row(conversation_id).lease_owner == at_kill.lease_owner is not None

    result = run_cli("--json", "worker", "--until-idle",
                     env={"SCRIPTED_DELAY_MS": "0", "LEASE_SECONDS": str(LEASE_SECONDS)}, timeout=60)
    assert '"runs": 1' in result.stdout
    _assert_clean_recovery(conversation_id)


def test_a_dead_runners_lease_is_taken_over_only_after_it_expires(workers):
    # Two workers are polling; the conversation goes to one of them, and that one dies.
    first, second = workers(env=SLOW), workers(env=SLOW)
    conversation_id = start(TASK)
    at_kill = _wait_for_planner(conversation_id)
    dead_owner = at_kill.lease_owner
    by_pid = {first.pid: first, second.pid: second}
    victim = by_pid.pop(_runner_pid(dead_owner))
    [survivor] = by_pid.values()
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)
    expires = _row(conversation_id).lease_expires_at  # the dead runner's last renewal
    assert expires > datetime.now(UTC), "the lease ran out before the kill; the test proves nothing"

    samples: list[tuple[datetime, str | None, int]] = []  # (when, lease owner, messages)

    def taken_over() -> bool:
        c = _row(conversation_id)
        samples.append((datetime.now(UTC), c.lease_owner, c.next_seq - 1))
        return c.lease_owner not in (dead_owner, None) or c.status != "running"

    wait_for(taken_over, timeout=30, interval=0.02, what="the surviving worker to take the lease over")
    assert survivor.poll() is None, "the surviving worker died"
    before_expiry = [s for s in samples if s[0] < expires]
    assert before_expiry, "no sample was taken while the dead runner's lease was still valid"
    assert {(owner, n) for _, owner, n in before_expiry} == {(dead_owner, 2)}
    when, owner, _ = samples[-1]
    assert when >= expires, f"lease taken over {(expires - when).total_seconds():.2f}s before it expired"
    assert _runner_pid(owner) == survivor.pid

    wait_for(lambda: _row(conversation_id).status == "awaiting_review", timeout=30,
             what="the survivor to finish the coder's turn")
    wait_for(lambda: _row(conversation_id).lease_owner is None, timeout=10, what="the lease to be released")
    coder = messages(conversation_id)[-1]
    assert coder.source == "coder" and coder.created_at >= expires
    _assert_clean_recovery(conversation_id)
