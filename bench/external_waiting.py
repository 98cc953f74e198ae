"""External approval requests waiting at once (issue 44's sizing sheet): how many callers one web tier
holds while they long-poll for a person's decision, what each costs, and how fast a decision reaches it.

The server is the hosted web tier as shipped (`reflex run --env prod --backend-only`: gunicorn + uvicorn,
WEB_WORKERS workers, Redis, RUNNER_IN_WEB=false, rate limits raised) on a fresh PostgreSQL database, as in
bench/decisions_api.py. One caller per request: `--callers` users, each with an approvals-scope token,
asks for a `deploy_to_prod` call of the ops team (POST /api/external/approvals), then every caller
long-polls its request at once (GET ...?wait=60, asked again whenever it answers "pending"). While they
all wait, for --seconds, the bench reads:
- memory: the web tier's RSS (every process of it) with every caller waiting, against the same tier
  idle just before the polls began: per waiting request = the difference / callers;
- CPU: web tier + PostgreSQL CPU seconds over the steady window / window / callers = the share of a
  core each waiting request costs (each wait reads its request every 2 s at most, services/external/
  follow.py);
- then a reviewer decides --decide of them over the API (approve), one after another: the time from the
  decision's 2xx to its caller's poll answering `approved` (p50, p95, max): a waiting caller hears at
  the next read of its wait, within 2 s.
Every poll that fails (transport error, 5xx) is counted: the run fails if any does.

    .venv/bin/python bench/external_waiting.py [--callers 500] [--workers 1 2] [--seconds 20] [--decide 30]
        [--quick]"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import ROOT, temporary_database  # noqa: E402
from bench._web_servers import server_env  # noqa: E402
from bench.decisions_api import _group_pids, _postgres_cpu, cpu_seconds, hosted_web_tier  # noqa: E402
from bench.tab_cost import rss_bytes  # noqa: E402

REDIS_URL = "redis://127.0.0.1:6379/5"
WAIT_S = 60


@dataclass
class Caller:
    token: str
    approval_id: int = 0
    outcome: str = "pending"
    answered_at: float = 0.0
    polls: int = 0
    failures: list[str] = field(default_factory=list)


def seed(callers: int) -> tuple[list[Caller], str]:
    """Callers (product reviewers of the default workspace) with approvals-scope tokens, and one tool
    approver with a full token; returns the callers and the approver's token."""
    from hitl_dashboard.services.auth.tokens import create_token
    from hitl_dashboard.services.auth.users import create_user

    # The ops team's tool approver is its security reviewer.
    approver = create_user(username="approver", password="pw-approver-bench", roles=["security_reviewer"])
    _, approver_token = create_token(user_id=approver.id, name="bench")
    out = []
    for i in range(callers):
        user = create_user(username=f"caller{i}", password="pw-caller-bench", roles=["product_reviewer"])
        out.append(Caller(create_token(user_id=user.id, name="bench", scope="approvals")[1]))
    return out, approver_token


async def ask_all(http, callers: list[Caller]) -> None:  # noqa: ANN001
    async def ask(index: int, caller: Caller) -> None:
        body = {"request_id": f"bench-{index}-{uuid.uuid4().hex[:8]}", "team": "ops", "title": f"Deploy {index}",
                "tool_call": {"name": "deploy_to_prod", "arguments": {"service": f"svc-{index}", "version": "1.0"}}}
        answer = await http.post("/api/external/approvals", json=body,
                                 headers={"Authorization": f"Bearer {caller.token}"})
        answer.raise_for_status()
        caller.approval_id = answer.json()["id"]

    for start in range(0, len(callers), 50):  # not the thing measured: asked in batches
        await asyncio.gather(*(ask(start + i, c) for i, c in enumerate(callers[start:start + 50])))


async def wait(http, caller: Caller, stop: asyncio.Event) -> None:  # noqa: ANN001
    """Long-polls until decided (or the bench ends), as the Python client does."""
    headers = {"Authorization": f"Bearer {caller.token}"}
    while not stop.is_set():
        try:
            answer = await http.get(f"/api/external/approvals/{caller.approval_id}", params={"wait": WAIT_S},
                                    headers=headers, timeout=WAIT_S + 30)
        except Exception as exc:  # noqa: BLE001 - counted, the run fails on any
            if not stop.is_set():
                caller.failures.append(type(exc).__name__)
            return
        caller.polls += 1
        if answer.status_code != 200:
            caller.failures.append(str(answer.status_code))
            return
        status = answer.json()["status"]
        if status != "pending":
            caller.outcome, caller.answered_at = status, time.monotonic()
            return


def run(callers_n: int, workers: int, seconds: float, decide: int) -> dict:
    import httpx

    with temporary_database("postgresql") as url, tempfile.TemporaryDirectory(prefix="hitl-wait-") as tmp:
        callers, approver_token = seed(callers_n)
        env = {**server_env("uvicorn", ROOT, workers), "PYTHONPATH": str(ROOT)}
        with hosted_web_tier(ROOT, url, REDIS_URL, workers, Path(tmp), env) as (base, group):
            return asyncio.run(_measure(base, group, url, callers, approver_token, seconds, decide, httpx))


async def _measure(base: str, group: int, url: str, callers: list[Caller], approver_token: str, seconds: float,
                   decide: int, httpx) -> dict:  # noqa: ANN001
    limits = httpx.Limits(max_connections=len(callers) + 20, max_keepalive_connections=len(callers) + 20)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as http:
        await ask_all(http, callers)
        await asyncio.sleep(2)
        idle_rss = rss_bytes(group)
        stop = asyncio.Event()
        waits = [asyncio.create_task(wait(http, c, stop)) for c in callers]
        await asyncio.sleep(5)  # every poll in, its first quick reads done: the steady state
        pids = _group_pids(group)
        before = {**cpu_seconds(pids), **_postgres_cpu(url)}
        began = time.monotonic()
        await asyncio.sleep(seconds)
        after = {**cpu_seconds(pids), **_postgres_cpu(url)}
        window = time.monotonic() - began
        waiting_rss = rss_bytes(group)
        cpu_s = sum(after[pid] - before.get(pid, 0.0) for pid in after)
        still_waiting = sum(1 for c in callers if c.outcome == "pending" and not c.failures)

        heard = []
        headers = {"Authorization": f"Bearer {approver_token}"}
        for caller in callers[:decide]:
            review = (await http.get(f"/api/external/approvals/{caller.approval_id}",
                                     headers={"Authorization": f"Bearer {caller.token}"})).json()["review_id"]
            decided = await http.post(f"/api/reviews/{review}/decision", headers=headers, json={"action": "approve"})
            decided.raise_for_status()
            at = time.monotonic()
            for _ in range(100):
                if caller.outcome != "pending":
                    break
                await asyncio.sleep(0.05)
            heard.append((caller.answered_at - at) * 1000 if caller.outcome == "approved" else float("inf"))
        stop.set()
        for task in waits:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*waits, return_exceptions=True)
    failures = [f for c in callers for f in c.failures]
    return {"callers": len(callers), "waiting": still_waiting, "idle_rss": idle_rss, "waiting_rss": waiting_rss,
            "cpu_share": cpu_s / window / len(callers), "cpu_total": cpu_s / window, "heard_ms": heard,
            "failures": failures, "polls": sum(c.polls for c in callers)}


def report(workers: int, r: dict) -> None:
    heard = sorted(r["heard_ms"])
    per_kb = (r["waiting_rss"] - r["idle_rss"]) / 1024 / r["callers"]
    print(f"\n{workers} web worker(s), {r['callers']} callers waiting at once ({r['waiting']} still waiting "
          f"at the end of the window, {r['polls']} polls answered)")
    print(f"  web tier RSS: {r['idle_rss'] / 2**20:.1f} MB idle, {r['waiting_rss'] / 2**20:.1f} MB with every caller "
          f"waiting: {per_kb:.1f} KB per waiting request")
    ms = r["cpu_share"] * 1000
    print(f"  CPU (web tier + PostgreSQL) while they wait: {r['cpu_total'] * 100:.1f} % of one core in all, "
          f"{ms:.3f} ms of CPU per waiting request per second: one core would hold about "
          f"{1000 / ms if ms else float('inf'):,.0f} waiting requests")
    if heard:
        finite = [h for h in heard if h != float("inf")]
        print(f"  a decision heard by its waiting caller: p50 {statistics.median(heard):.0f} ms, "
              f"p95 {heard[int(0.95 * (len(heard) - 1))]:.0f} ms, max {max(finite) if finite else float('nan'):.0f} ms "
              f"({len(heard) - len(finite)} of {len(heard)} not heard within 5 s)")
    print(f"  failed polls: {len(r['failures'])} {sorted(set(r['failures']))[:5]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--callers", type=int, default=500)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--decide", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="100 callers, 8 s, 10 decisions, one worker")
    args = parser.parse_args()
    if args.quick:
        args.callers, args.seconds, args.decide, args.workers = 100, 8.0, 10, [1]
    print(f"external approval requests waiting at once; load average at the start {os.getloadavg()[0]:.1f}")
    failed = False
    for workers in args.workers:
        result = run(args.callers, workers, args.seconds, args.decide)
        report(workers, result)
        failed = failed or bool(result["failures"]) or any(h == float("inf") for h in result["heard_ms"])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
