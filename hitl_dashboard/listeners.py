"""The process's SQLAlchemy listeners, registered by one explicit call at start-up, never as a side
effect of an import: the Reflex app module, the API app factory, the CLI entry (which also starts
the runner), the benchmarks and a session-wide fixture of the tests call install(). Idempotent.

Every unit of work is covered: they listen on SQLAlchemy's Session class. In order:
- the audit chain (db/audit.py) links a transaction's events before its commit; without it no
  audit event is stored, so append_audit refuses to run until it is installed (fail closed);
- callbacks after a commit (observability/on_commit.py), which the metrics use;
- the audit anchor publishes each committed head (services/audit/audit_anchor.py), and queues it
  for webhooks (services/webhooks/audit_head_webhook.py);
- the webhook subscription cache forgets what a committed change made stale;
- metrics and trace spans from the audit events a transaction writes.

The live-update sinks are started by who can reach browsers, when they can: the web app's lifespan
task (ui/live.py), the CLI's publisher to Redis or the database (cli/entry.py), the runner's wake-up
(runner/loop.py)."""

from __future__ import annotations

from collections.abc import Callable

from hitl_dashboard.db import audit as audit_chain
from hitl_dashboard.observability import on_commit
from hitl_dashboard.services.audit import audit_anchor
from hitl_dashboard.services.observability import audit_metrics, audit_traces
from hitl_dashboard.services.webhooks import audit_head_webhook, webhook_cache

INSTALLERS: tuple[Callable[[], None], ...] = (
    audit_chain.install, on_commit.install, audit_anchor.install, audit_head_webhook.install, webhook_cache.install,
    audit_metrics.install, audit_traces.install,
)


def install() -> None:
    for installer in INSTALLERS:
        installer()
