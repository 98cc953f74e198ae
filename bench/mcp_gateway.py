"""The MCP gateway (issue 43): what it adds to a call that needs no approval, and what calls waiting for
a person cost it.

One upstream MCP server (FastMCP over streamable HTTP, its own process: bench/_mcp_upstream.py) and the
API app with its gateway under granian (one worker, its own process, on a fresh SQLite database), as in
bench/_support.serving. The client is the official MCP client, one session each way, in this process.
- Latency: `echo` (approval `never`) called --calls times in turn directly on the upstream and through
  the gateway (/mcp/<team>), alternating in blocks of 50 so load changes hit both alike; p50 and p95 of
  each, the gateway's added ms and the ratio. Target: <= 5 ms added at p95 and <= 1.2x.
- Waiting: --waiting concurrent `deploy` calls (approval `always`, each with its own arguments, so each
  is a review) held open; once every review exists, the gateway's threads (all its processes) and RSS
  against before the calls, per waiting call. Target: the thread count does not grow with the calls.

    .venv/bin/python bench/mcp_gateway.py [--calls 1000] [--waiting 100] [--quick]"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import ROOT, free_port, p95, serving, temporary_database, wait_until_answers  # noqa: E402
from bench.live_transcript import _processes, descendants  # noqa: E402

TEAM = "bench-gateway"
ADDED_P95_MS, RATIO = 5.0, 1.2


def team_file(upstream_url: str) -> str:
    import yaml

    return yaml.safe_dump({
        "name": TEAM, "description": "The bench's gateway.",
        "agents": [{"name": "operator", "description": "Calls", "system_prompt": "Call.", "model": "offline"}],
        "models": {"offline": {"provider": "scripted"}}, "speaker_order": {"mode": "round_robin"},
        "task_types": {"ops": {"producer": "operator", "sign_off": ["final_approver"]}},
        "gateway": {"servers": {"bench": {"transport": "streamable_http", "url": upstream_url, "approvals": {
            "echo": {"approval": "never"}, "deploy": {"approval": "always"}}}}},
    })


def seed(upstream_url: str) -> str:
    """The team (saved by an admin) and an approvals-scope token of a caller."""
    from hitl_dashboard.services.auth.tokens import create_token
    from hitl_dashboard.services.auth.users import create_user, find_actor
    from hitl_dashboard.services.teams.team_queries import save_team

    create_user(username="bench-admin", password="pw-bench-admin", roles=["admin"])
    save_team(find_actor("bench-admin"), team_file(upstream_url), origin="import")
    caller = create_user(username="bench-agent", password="pw-bench-agent", roles=["manager"])
    return create_token(user_id=caller.id, name="bench", scope="approvals")[1]


@contextlib.contextmanager
def upstream() -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen([sys.executable, str(ROOT / "bench" / "_mcp_upstream.py"), str(port)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_until_answers(server, url, 60, lambda: server.stderr.read().decode()[-2000:])
        yield url
    finally:
        server.terminate()
        server.wait(10)


@contextlib.asynccontextmanager
async def session(url: str, token: str | None = None):
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # No pool limit: each waiting call holds its response stream (httpx's default pool is 100).
    async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=300),
                                 limits=httpx.Limits(max_connections=None)) as http, \
            streamable_http_client(url, http_client=http) as (read, write, _), ClientSession(read, write) as client:
        await client.initialize()
        yield client


async def latency(direct_url: str, gateway_url: str, token: str, calls: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"direct": [], "gateway": []}
    async with session(direct_url) as direct, session(gateway_url, token) as gateway:
        for client in (direct, gateway):  # warm up: connections, the gateway's upstream session, caches
            for _ in range(30):
                await client.call_tool("echo", {"text": "warm"})
        for block in range(calls // 50):
            for name, client in (("direct", direct), ("gateway", gateway))[::1 if block % 2 else -1]:
                for _ in range(50):
                    started = time.perf_counter()
                    result = await client.call_tool("echo", {"text": "ping"})
                    times[name].append((time.perf_counter() - started) * 1000)
                    assert not result.isError, result
    return times


def gateway_usage(server_pid: int) -> tuple[int, int]:
    """(threads, RSS bytes) of every process of the gateway's server."""
    threads = rss = 0
    for pid in descendants(server_pid, _processes()):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("Threads:"):
                    threads += int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss += int(line.split()[1]) * 1024
    return threads, rss


async def waiting(gateway_url: str, token: str, count: int, server_pid: int) -> dict[str, float]:
    from sqlmodel import select

    from hitl_dashboard.db.external_models import ExternalRequest
    from hitl_dashboard.db.uow import UnitOfWork

    def reviews() -> int:
        with UnitOfWork() as uow:
            return len(uow.session.exec(select(ExternalRequest.id)).all())

    async with session(gateway_url, token) as client:
        await client.list_tools()
        threads_before, rss_before = gateway_usage(server_pid)
        run = uuid.uuid4().hex[:6]
        calls = [asyncio.create_task(client.call_tool("deploy", {"service": f"svc-{run}-{i}", "version": "1.0"}))
                 for i in range(count)]
        started = time.monotonic()
        while await asyncio.to_thread(reviews) < count:
            assert time.monotonic() - started < 120, "the waiting calls did not all become reviews"
            await asyncio.sleep(0.2)
        samples = []
        for _ in range(5):  # while they all wait: a few reads, several polling rounds apart
            await asyncio.sleep(1.0)
            samples.append(gateway_usage(server_pid))
        for call in calls:
            call.cancel()
        threads = max(threads for threads, _ in samples)
        rss = statistics.median(rss for _, rss in samples)
    return {"threads_before": threads_before, "threads_waiting": threads,
            "kb_per_call": (rss - rss_before) / 1024 / count, "rss_before_mb": rss_before / 2**20}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--waiting", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="300 calls, 100 waiting")
    args = parser.parse_args()
    calls = 300 if args.quick else args.calls
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores)")
    with temporary_database("sqlite") as database_url, upstream() as upstream_url:
        token = seed(upstream_url)
        with serving("hitl_dashboard.api.app:api", database_url) as (base, server):
            gateway_url = f"{base}/mcp/{TEAM}"
            times = asyncio.run(latency(upstream_url, gateway_url, token, calls))
            held = asyncio.run(waiting(gateway_url, token, args.waiting, server.pid))
    direct, through = times["direct"], times["gateway"]
    added50 = statistics.median(through) - statistics.median(direct)
    added95 = p95(through) - p95(direct)
    ratio = p95(through) / p95(direct)
    print(f"ungated call, {len(direct)} each way: direct p50 {statistics.median(direct):.2f} ms "
          f"p95 {p95(direct):.2f} ms; through the gateway p50 {statistics.median(through):.2f} ms "
          f"p95 {p95(through):.2f} ms")
    print(f"added: p50 {added50:.2f} ms, p95 {added95:.2f} ms (target <= {ADDED_P95_MS} ms); "
          f"ratio at p95 {ratio:.2f}x (target <= {RATIO}x)")
    print(f"{args.waiting} waiting calls: gateway threads {held['threads_before']} before, "
          f"{held['threads_waiting']} while they wait; memory {held['kb_per_call']:.1f} KB per waiting call "
          f"(RSS before {held['rss_before_mb']:.0f} MB)")
    ok = added95 <= ADDED_P95_MS and ratio <= RATIO and held["threads_waiting"] <= held["threads_before"] + 8
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
