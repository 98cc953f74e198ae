"""Per-turn cost of what the runner adds (persist messages, checkpoint, gate check) against a
bare AutoGen run of the same team, side by side in one process, on SQLite.

    .venv/bin/python bench/turn_overhead.py --turns 100

Prints per-turn p50 for the bare run and for the runner, and the runner's added cost at
turn 10 and turn 100 (the design asks for <= 2 ms p50 added, roughly flat as the
conversation grows). An instant model is used so that only our overhead is measured."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autogen_core.models import CreateResult, RequestUsage  # noqa: E402

from hitl_dashboard.agents import model_clients  # noqa: E402
from hitl_dashboard.agents.scripted.model import ScriptedChatCompletionClient  # noqa: E402


class InstantEcho(ScriptedChatCompletionClient):
    """Answers at once with a 400-character paragraph, never 'done', so turns go on."""

    async def create(self, messages, **kwargs):  # noqa: ANN001, ANN003
        text = f"{self.agent_role} notes: " + ("lorem ipsum dolor sit amet " * 15)[:380]
        return CreateResult(finish_reason="stop", content=text, usage=RequestUsage(10, 10), cached=False)

    async def create_stream(self, messages, **kwargs):  # noqa: ANN001, ANN003
        yield await self.create(messages)


async def bare_turn_times(turns: int) -> list[float]:
    from autogen_agentchat.messages import TextMessage

    from hitl_dashboard.agents.teams import build_team
    from hitl_dashboard.domain.templates import TEMPLATES

    template = TEMPLATES["code"]
    clients = {name: InstantEcho(name) for name in template.agents}
    team = build_team(template, "code", clients, clients["planner"], stream=False)
    times, task = [], TextMessage(source="user", content="benchmark task")
    for _ in range(turns):
        start = time.perf_counter()
        async for _item in team.run_stream(task=task):
            pass
        times.append(time.perf_counter() - start)
        task = None
    return times


async def runner_turn_times(turns: int) -> list[float]:
    from hitl_dashboard.services.runner import turns as turns_module
    from hitl_dashboard.services.runner.runner import run_conversation
    from tests.support import flow

    stamps: list[float] = []
    original = turns_module.apply_turn

    def timed_apply(session, conversation, turn, *rest):  # noqa: ANN001 - rest: the findings gate input
        outcome = original(session, conversation, turn, *rest)
        stamps.append(time.perf_counter())
        return outcome if len(stamps) < turns else turns_module.PAUSED

    import hitl_dashboard.services.runner.runner as runner_module

    runner_module.apply_turn = timed_apply
    flow.make_people()
    flow.start("benchmark task", gate_policy={"mode": "never", "tools": [], "max_turns_without_review": 10**6})
    start = time.perf_counter()
    await run_conversation(1, "bench")
    edges = [start] + stamps
    return [b - a for a, b in itertools.pairwise(edges)]


def p50(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="40 turns (make bench's default)")
    args = parser.parse_args()
    if args.quick:
        args.turns = min(args.turns, 40)
    model_clients.build_model_client = lambda spec, role: InstantEcho(role)
    import hitl_dashboard.agents.team_session as session_module

    session_module.build_model_client = model_clients.build_model_client
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.db"
        os.environ["MODEL_STREAM"] = "false"
        from hitl_dashboard.db.migrations import upgrade_to_head

        upgrade_to_head()
        bare = asyncio.run(bare_turn_times(args.turns))
        ours = asyncio.run(runner_turn_times(args.turns))
    early, late = slice(5, 15), slice(args.turns - 10, args.turns)
    print(f"turns: {args.turns}")
    print(f"bare AutoGen turn p50:    {p50(bare):.2f} ms")
    print(f"runner turn p50:          {p50(ours):.2f} ms")
    print(f"added at turns 5-15:      {p50(ours[early]) - p50(bare[early]):.2f} ms")
    print(f"added at last 10 turns:   {p50(ours[late]) - p50(bare[late]):.2f} ms")
    print(f"ratio runner/bare:        {sum(ours) / sum(bare):.2f}x")


if __name__ == "__main__":
    main()
