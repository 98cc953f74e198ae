"""Decision submitted -> the next agent's model call starting, with the runner in the same
process (the embedded default, RUNNER_IN_WEB), on SQLite. The design asks for p95 <= 100 ms,
load of the checkpoint included.

    .venv/bin/python bench/decision_latency.py --decisions 30

Each round: a code conversation pauses for security review; a REVISE is recorded (in a
worker thread, as the web app does); we time until the coder's model is called.

Baseline, same run: bare AutoGen doing the same step without us: a fresh team of the same agents
loads the saved state of a planner-then-coder run and is given the reviewer's instruction; timed
until the coder's model is called. Ratio = ours / bare (what the review engine adds: the decision's
transaction, the wake-up, the lease, loading the checkpoint)."""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hitl_dashboard.agents import model_clients  # noqa: E402
from hitl_dashboard.agents.scripted.model import ScriptedChatCompletionClient  # noqa: E402

CALLS: list[tuple[str, float]] = []


class TimedScripted(ScriptedChatCompletionClient):
    async def create(self, messages, **kwargs):  # noqa: ANN001, ANN003
        CALLS.append((self.agent_role, time.perf_counter()))
        return await super().create(messages, **kwargs)

    async def create_stream(self, messages, **kwargs):  # noqa: ANN001, ANN003
        CALLS.append((self.agent_role, time.perf_counter()))
        async for item in super().create_stream(messages, **kwargs):
            yield item


async def main(decisions: int) -> list[float]:
    from hitl_dashboard.services.runner.loop import run_runner_forever
    from tests.support import flow

    flow.make_people()
    stop = asyncio.Event()
    worker = asyncio.create_task(run_runner_forever("bench", stop))
    latencies = []
    for i in range(decisions):
        cid = await asyncio.to_thread(flow.start, f"Add retry with backoff to client {i}")
        while not await asyncio.to_thread(flow.open_reviews, cid):
            await asyncio.sleep(0.01)
        [review] = await asyncio.to_thread(flow.open_reviews, cid)
        before = len(CALLS)
        submitted = time.perf_counter()
        # decide publishes the change after its commit, which wakes the runner as in the web app.
        await asyncio.to_thread(flow.decide_as, "alice", review.id, "revise", instructions="add a timeout")
        while not any(role == "coder" for role, _ in CALLS[before:]):
            await asyncio.sleep(0.001)
        started = next(t for role, t in CALLS[before:] if role == "coder")
        latencies.append(started - submitted)
        while not await asyncio.to_thread(flow.open_reviews, cid):  # let the turn finish cleanly
            await asyncio.sleep(0.01)
    stop.set()
    worker.cancel()
    return latencies


async def bare_resume(rounds: int) -> list[float]:
    from autogen_agentchat.messages import TextMessage

    from hitl_dashboard.agents.teams import build_team
    from hitl_dashboard.teams.catalogue import get_team

    def team():  # noqa: ANN202
        template = get_team("code")
        clients = {name: TimedScripted(name) for name in template.agent_names}
        return build_team(template, "code", clients, clients["planner"], stream=True)

    first = team()
    task: TextMessage | None = TextMessage(source="user", content="Add retry with backoff to the client")
    for _ in range(2):  # the planner's turn, then the coder's proposal
        async for _item in first.run_stream(task=task):
            pass
        task = None
    state = await first.save_state()
    latencies = []
    for _ in range(rounds):
        before = len(CALLS)
        submitted = time.perf_counter()
        resumed = team()
        await resumed.load_state(state)
        async for _item in resumed.run_stream(task=TextMessage(source="alice", content="@coder add a timeout")):
            pass
        started = next(t for role, t in CALLS[before:] if role == "coder")
        latencies.append(started - submitted)
    return latencies


def p95_of(values: list[float]) -> float:
    values = sorted(values)
    return values[max(0, int(len(values) * 0.95) - 1)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--decisions", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="10 decisions (make bench's default)")
    args = parser.parse_args()
    if args.quick:
        args.decisions = min(args.decisions, 10)
    with tempfile.TemporaryDirectory() as tmp:
        # The scripted model at full speed (its default pace is a demo's).
        os.environ.update(DATABASE_URL=f"sqlite:///{tmp}/bench.db", SCRIPTED_DELAY_MS="0", SCRIPTED_CHUNK_DELAY_MS="0")
        from hitl_dashboard import listeners
        from hitl_dashboard.db.migrations import upgrade_to_head

        listeners.install()  # this process writes through services, as the CLI would
        upgrade_to_head()
        original = model_clients.build_model_client
        model_clients.build_model_client = lambda spec, role: TimedScripted(role)
        import hitl_dashboard.agents.team_run as team_run_module

        team_run_module.build_model_client = model_clients.build_model_client
        bare = asyncio.run(bare_resume(args.decisions))
        values = asyncio.run(main(args.decisions))
    ours_p95, bare_p95 = p95_of(values) * 1000, p95_of(bare) * 1000
    print(f"decisions: {len(values)}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'measure':<44}{'p50 ms':>8}{'p95 ms':>8}  target")
    print(f"{'decision -> next model call (ours)':<44}{statistics.median(values) * 1000:>8.1f}{ours_p95:>8.1f}"
          f"  p95 <= 100 ({'met' if ours_p95 <= 100 else 'MISSED'})")
    print(f"{'bare AutoGen: load state -> model call':<44}{statistics.median(bare) * 1000:>8.1f}{bare_p95:>8.1f}")
    print(f"ratio ours / bare (p95): {ours_p95 / bare_p95:.1f}x")
