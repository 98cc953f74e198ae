"""Memory with 10,000 paused conversations: a paused conversation must cost a row, not a process's
memory (the durable-pause rule: nothing waits in memory for a human). On SQLite and PostgreSQL.

Measured, each in a process of its own, against a database holding 10k conversations paused for
review (bulk copies of one conversation the scripted team ran to its first review) and, as the
baseline in the same run, the same database with only that one conversation:

- the agent runner (`python -m hitl_dashboard runner`, as in the hosted setup) after idling through
  its polling loop (finding runnable work, checking for overdue reviews) for a few seconds;
- the API under granian after serving reviewers: every open page of the security queue, the
  conversations list, and the detail and transcript of 200 paused conversations.

Prints each process's peak RSS (VmHWM) and the ratio paused/baseline. Target: at most 1.10 (memory
does not grow with the number of paused conversations).

    .venv/bin/python bench/paused_memory.py [--quick] [--backend sqlite|postgresql]"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._audit_seed import tree_peak_rss_mb  # noqa: E402
from bench._support import BACKENDS, ROOT, serving, temporary_database  # noqa: E402

PAUSED = 10_000
TARGET_RATIO = 1.10
RUNNER_IDLE_S = {"full": 20.0, "quick": 8.0}
DETAILS = {"full": 200, "quick": 60}


def run_one_to_review() -> int:
    """The template: a real conversation run by the scripted team until it waits for a review."""
    from hitl_dashboard.services.runner.runner import run_turns_until_idle
    from tests.support import flow

    flow.make_people()
    cid = flow.start("Add retry with backoff to the HTTP client")
    asyncio.run(run_turns_until_idle())
    if not flow.open_reviews(cid):
        raise RuntimeError(f"the template conversation did not pause for review: {flow.conversation(cid).status}")
    return cid


def clone(template_id: int, copies: int) -> None:
    """Copy every row of the template conversation (any table with a conversation_id column) `copies`
    times, remapping primary keys and the foreign keys between copied tables. Generic on purpose: a
    table added later is copied too."""
    from sqlalchemy import select
    from sqlmodel import SQLModel

    import hitl_dashboard.db.tables  # noqa: F401 - every table with a conversation_id is in the metadata
    from hitl_dashboard.db.engine import get_engine

    tables = [t for t in SQLModel.metadata.sorted_tables if "conversation_id" in t.c and t.name != "audit_events"]
    conversations = SQLModel.metadata.tables["conversations"]
    with get_engine().begin() as conn:
        template = {conversations.name: [dict(r._mapping) for r in conn.execute(
            select(conversations).where(conversations.c.id == template_id))]}
        for table in tables:
            template[table.name] = [dict(r._mapping) for r in conn.execute(
                select(table).where(table.c.conversation_id == template_id))]
        next_id = {name: (conn.execute(select(SQLModel.metadata.tables[name].c.id).order_by(
            SQLModel.metadata.tables[name].c.id.desc()).limit(1)).scalar() or 0) + 1 for name in template}
        order = [conversations, *tables]
        for start in range(0, copies, 1000):
            batch: dict[str, list[dict]] = {t.name: [] for t in order}
            for _ in range(start, min(start + 1000, copies)):
                mapping: dict[str, dict[int, int]] = {}
                for table in order:
                    mapping[table.name] = {}
                    for row in template[table.name]:
                        new = dict(row)
                        mapping[table.name][row["id"]] = new["id"] = next_id[table.name]
                        next_id[table.name] += 1
                        for column in table.c:
                            for fk in column.foreign_keys:
                                target = fk.column.table.name
                                if target in mapping and new[column.name] in mapping[target]:
                                    new[column.name] = mapping[target][new[column.name]]
                        batch[table.name].append(new)
            for table in order:
                if batch[table.name]:
                    conn.execute(table.insert(), batch[table.name])
    if get_engine().dialect.name == "postgresql":
        with get_engine().connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE")
            for table in order:  # explicit ids were inserted: move the sequences past them
                conn.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), (SELECT max(id) FROM {table.name}))")


def runner_peak_mb(url: str, idle_s: float) -> float:
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT), "DEMO_MODE": "false"}
    runner = subprocess.Popen([sys.executable, "-m", "hitl_dashboard", "runner"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(idle_s)
        if runner.poll() is not None:
            raise RuntimeError(f"the runner exited: {runner.stderr.read().decode()[-2000:]}")
        return tree_peak_rss_mb(runner.pid)
    finally:
        runner.terminate()
        try:
            runner.wait(timeout=10)
        except subprocess.TimeoutExpired:
            runner.kill()
            runner.wait()


def api_peak_mb(url: str, details: int) -> float:
    import httpx

    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.services.auth.tokens import issue_token
    from hitl_dashboard.services.auth.users import find_actor

    with UnitOfWork() as uow:
        _, token = issue_token(uow, user_id=find_actor("frank").user_id, name=f"bench-{time.monotonic_ns()}")
        uow.commit()
    with serving("hitl_dashboard.api.app:api", url) as (base, server), httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        queue, offset = [], 0
        while True:  # every open page of the queue, as a reviewer paging through it
            page = client.get("/api/reviews", params={"role": "security_reviewer", "status": "open",
                                                       "limit": 50, "offset": offset})
            page.raise_for_status()
            queue += page.json()
            if len(page.json()) < 50:
                break
            offset += 50
        client.get("/api/conversations", params={"limit": 50}).raise_for_status()
        ids = [item["conversation_id"] for item in queue]
        for cid in random.Random(7).sample(ids, min(details, len(ids))):
            client.get(f"/api/conversations/{cid}").raise_for_status()
            client.get(f"/api/conversations/{cid}/transcript").raise_for_status()
        return tree_peak_rss_mb(server.pid)


def measure(backend: str, paused: int, mode: str) -> tuple[float, float, int]:
    with temporary_database(backend) as url:
        template = run_one_to_review()
        clone(template, paused - 1)
        from sqlmodel import func, select

        from hitl_dashboard.db.models import ReviewRequest
        from hitl_dashboard.services.transactions import reading

        with reading() as uow:
            open_count = uow.session.exec(select(func.count()).select_from(ReviewRequest).where(
                ReviewRequest.status.in_(("pending", "claimed")))).one()
        return runner_peak_mb(url, RUNNER_IDLE_S[mode]), api_peak_mb(url, DETAILS[mode]), open_count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="shorter idle and fewer detail reads")
    parser.add_argument("--backend", choices=BACKENDS)
    args = parser.parse_args()
    mode = "quick" if args.quick else "full"
    backends = [args.backend] if args.backend else list(BACKENDS)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {PAUSED} paused conversations")
    print(f"{'backend':<11}{'process':<10}{'baseline MB':>12}{'paused MB':>11}{'ratio':>7}  target")
    for backend in backends:
        base_runner, base_api, base_open = measure(backend, 1, mode)
        runner, api, open_count = measure(backend, PAUSED, mode)
        assert base_open >= 1 and open_count >= PAUSED, (base_open, open_count)
        for name, baseline, paused in (("runner", base_runner, runner), ("api", base_api, api)):
            ratio = paused / baseline
            verdict = "met" if ratio <= TARGET_RATIO else "MISSED"
            print(f"{backend:<11}{name:<10}{baseline:>12.1f}{paused:>11.1f}{ratio:>7.2f}"
                  f"  <= {TARGET_RATIO} ({verdict})")


if __name__ == "__main__":
    main()
