"""Per-turn cost of what the runner adds (persist the turn's messages, its checkpoint, the lease,
the gate check) against a bare AutoGen run of the same team, side by side in one process, on SQLite.

    .venv/bin/python bench/turn_overhead.py [--turns 100] [--rounds 7] [--quick]

An instant model answers every call (a 400-character paragraph, never "done"), so only our overhead is
measured. Bare AutoGen runs and runner runs alternate, round by round, so both see the same machine
load. A turn's time for the runner is from the end of storing one turn to the end of storing the next
(the AutoGen turn included); for the bare team, one run_stream call. "Added at turn N" is the p50 over
ten turns around N of every round (turns 6-15 for turn 10, the last ten for the last turn), runner
minus bare. Targets (the design's): <= 2 ms added at turn
10 and at turn 100, and turn 100 / turn 10 <= 1.2 (flat as the conversation grows: each turn stores
only what it changed, domain/checkpoints.py). --quick: 3 rounds instead of 7."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autogen_core.models import CreateResult, RequestUsage  # noqa: E402

from hitl_dashboard.agents import model_clients  # noqa: E402
from hitl_dashboard.agents.scripted.model import ScriptedChatCompletionClient  # noqa: E402

TARGET_ADDED_MS = 2.0
TARGET_GROWTH = 1.2


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
    from hitl_dashboard.teams.catalogue import get_team

    template = get_team("code")
    clients = {name: InstantEcho(name) for name in template.agent_names}
    team = build_team(template, "code", clients, clients["planner"], stream=False)
    times, task = [], TextMessage(source="user", content="benchmark task")
    for _ in range(turns):
        start = _now()
        async for _item in team.run_stream(task=task):
            pass
        end = _now()
        times.append((end[0] - start[0], end[1] - start[1]))
        task = None
    return times


def _now() -> tuple[float, float]:
    """Wall clock and this process's CPU time: on a shared machine the CPU time is the steadier."""
    return time.perf_counter(), time.process_time()


class _TimedTurns:
    """Wraps the runner's _store_turn (the turn's whole transaction, commit included): stamps the end of
    every stored turn; pauses the run after `turns`."""

    def __init__(self):
        from hitl_dashboard.services.runner import runner as runner_module
        from hitl_dashboard.services.runner import turns as turns_module

        self.original, self.paused = runner_module._store_turn, turns_module.PAUSED
        self.stamps: list[float] = []
        self.turns = 0

    def __call__(self, conversation_id, runner_id, turn, *rest):  # noqa: ANN001, ANN002 - rest: the code, the findings
        outcome = self.original(conversation_id, runner_id, turn, *rest)
        self.stamps.append(_now())
        return outcome if len(self.stamps) < self.turns else self.paused


async def runner_turn_times(turns: int, timed: _TimedTurns) -> list[float]:
    from hitl_dashboard.services.runner.runner import run_conversation
    from tests.support import flow

    timed.stamps, timed.turns = [], turns
    conversation_id = flow.start("benchmark task", gate_policy={
        "mode": "never", "tools": [], "max_turns_without_review": 10**6})
    start = _now()
    await run_conversation(conversation_id, "bench")
    return [(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise([start, *timed.stamps])]


def p50_ms(values: list[tuple[float, float]], clock: int) -> float:
    return statistics.median(v[clock] for v in values) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="3 rounds")
    args = parser.parse_args()
    if args.quick:
        args.rounds = min(args.rounds, 3)
    if args.turns < 20:
        parser.error("--turns must be at least 20")
    model_clients.build_model_client = lambda spec, role: InstantEcho(role)
    import hitl_dashboard.agents.team_run as team_run_module
    import hitl_dashboard.services.runner.runner as runner_module

    team_run_module.build_model_client = model_clients.build_model_client
    timed = _TimedTurns()
    runner_module._store_turn = timed
    bare: list[list[tuple[float, float]]] = []
    ours: list[list[tuple[float, float]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(DATABASE_URL=f"sqlite:///{tmp}/bench.db", MODEL_STREAM="false", SCRIPTED_DELAY_MS="0",
                          SCRIPTED_CHUNK_DELAY_MS="0",  # the scripted model at full speed, not a demo's pace
                          AUDIT_ANCHOR_FILE=f"{tmp}/audit-heads.jsonl")
        from hitl_dashboard import listeners
        from hitl_dashboard.db.migrations import upgrade_to_head
        from tests.support import flow

        listeners.install()  # this process writes through services, as the CLI would
        upgrade_to_head()
        flow.make_people()
        for _ in range(args.rounds):  # alternating, so both see the same load
            bare.append(asyncio.run(bare_turn_times(args.turns)))
            ours.append(asyncio.run(runner_turn_times(args.turns, timed)))

    def window(runs: list[list[tuple[float, float]]], last_turn: int) -> list[tuple[float, float]]:
        return [t for run in runs for t in run[last_turn - 10:last_turn]]  # turns last_turn - 9 .. last_turn

    print(f"turn_overhead: {args.rounds} rounds of {args.turns} turns, SQLite, instant model; baseline = bare "
          f"AutoGen, same team, same run; {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'measure':<34}{'bare p50 ms':>12}{'runner p50 ms':>15}{'added ms':>10}{'target':>9}{'ratio':>8}")
    for clock, clock_name in ((0, "wall"), (1, "CPU")):
        added = {}
        for label, last in (("turn 10 (turns 6-15)", 15), (f"turn {args.turns} (turns {args.turns - 9}-{args.turns})",
                                                             args.turns)):
            base, ours_ms = p50_ms(window(bare, last), clock), p50_ms(window(ours, last), clock)
            added[last] = ours_ms - base
            ok = "" if added[last] <= TARGET_ADDED_MS else "  MISSED"
            print(f"{clock_name + ', ' + label:<34}{base:>12.2f}{ours_ms:>15.2f}{added[last]:>10.2f}{'<= 2':>9}"
                  f"{ours_ms / base:>7.2f}x{ok}")
        growth = added[args.turns] / added[15] if added[15] > 0 else float("inf")
        print(f"{clock_name + ', added turn ' + str(args.turns) + ' / turn 10':<34}{'':>12}{'':>15}{growth:>10.2f}"
              f"{'<= 1.2':>9}{'' if growth <= TARGET_GROWTH else '  MISSED'}")
    print("ratio = runner p50 / bare AutoGen p50 (the runner's turn includes the AutoGen turn); wall is the target's "
          "clock, CPU (this process's) the one a busy machine disturbs least")


if __name__ == "__main__":
    main()
