"""`runner` (also `worker`, its former name): run the agents, analyse their code, answer reviewers'
questions, escalate overdue reviews and deliver webhooks (for ever, or until idle: see
services/runner/until_idle.py for what "idle" means)."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import asdict
from typing import Any

from hitl_dashboard.cli.output import emit
from hitl_dashboard.cli.registry import command, leaf


def register(sub: Any) -> None:
    # "worker" is kept as an alias: deployments and scripts written before the rename call it so.
    p = leaf(sub, "runner", "run the agents (and SLA escalation)", aliases=("worker",))
    p.add_argument("--until-idle", action="store_true",
                   help="return when every turn, analysis, question and due webhook delivery is done or failed")


@command("runner")
def _runner(args) -> int:
    # Imported here: the runner brings in AutoGen, which the other commands do not need.
    from hitl_dashboard.services.auth.preflight import check_hosted_ready
    from hitl_dashboard.services.reviews.escalation import escalate_overdue
    from hitl_dashboard.services.runner.loop import run_runner_forever
    from hitl_dashboard.services.runner.until_idle import run_until_idle
    from hitl_dashboard.teams.catalogue import catalogue

    check_hosted_ready()
    catalogue()  # a bad team file stops the runner now, with its errors, not at its first conversation
    if args.until_idle:
        escalated = escalate_overdue()  # first: an escalation's webhooks are delivered in the drain
        report = asyncio.run(run_until_idle())
        emit(args, {**asdict(report), "escalated": escalated}, f"{report.describe()}; escalated {len(escalated)}")
        return 0
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_runner_forever())
    return 0
