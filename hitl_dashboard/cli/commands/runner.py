"""`runner` (also `worker`, its former name): run the agents, escalate overdue reviews and deliver
webhooks (for ever, or until idle)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from hitl_dashboard.cli.output import emit
from hitl_dashboard.cli.registry import command, leaf


def register(sub: Any) -> None:
    # "worker" is kept as an alias: deployments and scripts written before the rename call it so.
    p = leaf(sub, "runner", "run the agents (and SLA escalation)", aliases=("worker",))
    p.add_argument("--until-idle", action="store_true", help="return when nothing is runnable")


@command("runner")
def _runner(args) -> int:
    # Imported here: the runner brings in AutoGen, which the other commands do not need.
    from hitl_dashboard.services.auth.preflight import check_hosted_ready
    from hitl_dashboard.services.reviews.escalation import escalate_overdue
    from hitl_dashboard.services.runner.loop import run_runner_forever
    from hitl_dashboard.services.runner.runner import run_until_idle
    from hitl_dashboard.services.webhooks.webhook_delivery import deliver_due
    from hitl_dashboard.teams.catalogue import catalogue

    check_hosted_ready()
    catalogue()  # a bad team file stops the runner now, with its errors, not at its first conversation
    if args.until_idle:
        escalated = escalate_overdue()
        runs = asyncio.run(run_until_idle())
        asyncio.run(deliver_due(limit=100))
        emit(args, {"runs": runs, "escalated": escalated}, f"idle after {runs} run(s); escalated {len(escalated)}")
        return 0
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_runner_forever())
    return 0
