"""The Prometheus metrics every process records (web workers and runner processes alike).

With PROMETHEUS_MULTIPROC_DIR set (hosted: several web workers and separate runners), every
process writes its samples to files there and /metrics sums them (prometheus-client's multiprocess
mode); without it (the embedded default: one process) they live in this process's registry.
Counters only move after the transaction that did the work commits (on_commit.py), so they count
what really happened, not what was rolled back."""

from __future__ import annotations

import functools
import os

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import multiprocess as _multiprocess
from prometheus_client.registry import REGISTRY, Collector

PREFIX = "hitl"
# Review waits are minutes to days; the small buckets keep quick reviews (and tests) readable.
DECISION_BUCKETS = (1, 10, 60, 300, 900, 1800, 3600, 2 * 3600, 4 * 3600, 8 * 3600, 24 * 3600, 48 * 3600,
                    7 * 24 * 3600)
MODEL_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120)

DECISIONS = Counter(f"{PREFIX}_decisions", "Decisions recorded, by action and the review's role",
                    ["action", "role"])
TIME_TO_DECISION = Histogram(f"{PREFIX}_time_to_decision_seconds",
                             "From a review request opening to its decision, by role", ["role"],
                             buckets=DECISION_BUCKETS)
SLA_BREACHES = Counter(f"{PREFIX}_sla_breaches", "Review requests that passed their deadline undecided, by role",
                       ["role"])
ESCALATIONS = Counter(f"{PREFIX}_escalations", "Overdue review requests escalated to another role",
                      ["role", "to_role"])
AGENT_TURNS = Counter(f"{PREFIX}_agent_turns", "Agent turns stored, by the agent that spoke last", ["agent"])
MODEL_CALL_SECONDS = Histogram(f"{PREFIX}_model_call_duration_seconds",
                               "Model calls (retries included), by model and outcome", ["model", "outcome"],
                               buckets=MODEL_BUCKETS)
MODEL_ERRORS = Counter(f"{PREFIX}_model_errors", "Model calls that failed after their retries, by model",
                       ["model", "error_type"])
MODEL_TOKENS = Counter(f"{PREFIX}_model_tokens", "Tokens used, by model and direction (input, output)",
                       ["model", "direction"])
WEBHOOK_FAILURES = Counter(f"{PREFIX}_webhook_failures",
                           "Webhook delivery attempts that failed, by event; final=true when it gave up",
                           ["event", "final"])
SLACK_UNVERIFIED = Counter(f"{PREFIX}_slack_unverified_requests",
                           "Requests to the Slack endpoint refused before a good signature (never audited), "
                           "by HTTP status", ["status"])
LEASE_TAKEOVERS = Counter(f"{PREFIX}_runner_lease_takeovers",
                          "Conversations a runner took over from another runner whose lease had expired")


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def exposition(*collectors: Collector) -> bytes:
    """The text format for a scrape: this process's metrics (or every process's, in multiprocess
    mode) plus `collectors` (values read at scrape time, e.g. queue depths from the database)."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        _multiprocess.MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Forward(REGISTRY))
    for collector in collectors:
        registry.register(collector)
    return generate_latest(registry)


class _Forward(Collector):
    """The process's default registry (our metrics, the process and GC collectors) inside a
    scrape registry that also holds this scrape's own collectors."""

    def __init__(self, source: CollectorRegistry):
        self.source = source

    def collect(self):
        return self.source.collect()


# -- what the hooks record ---------------------------------------------------------------------------

def decision(action: str, role: str, waited_s: float | None) -> None:
    DECISIONS.labels(action=action, role=role).inc()
    if waited_s is not None:
        TIME_TO_DECISION.labels(role=role).observe(max(0.0, waited_s))


def overdue(role: str, to_role: str | None) -> None:
    SLA_BREACHES.labels(role=role).inc()
    if to_role:
        ESCALATIONS.labels(role=role, to_role=to_role).inc()


def agent_turn(agent: str) -> None:
    AGENT_TURNS.labels(agent=agent).inc()


def model_call(model: str, seconds: float, *, input_tokens: int = 0, output_tokens: int = 0,
               error_type: str | None = None) -> None:
    calls, tokens_in, tokens_out = _model_children(model)
    (MODEL_CALL_SECONDS.labels(model=model, outcome="error") if error_type else calls).observe(seconds)
    if error_type:
        MODEL_ERRORS.labels(model=model, error_type=error_type).inc()
    if input_tokens:
        tokens_in.inc(input_tokens)
    if output_tokens:
        tokens_out.inc(output_tokens)


@functools.lru_cache(maxsize=256)
def _model_children(model: str):
    """The labelled series of a model, looked up once (labels() takes a lock and builds a key)."""
    return (MODEL_CALL_SECONDS.labels(model=model, outcome="ok"),
            MODEL_TOKENS.labels(model=model, direction="input"), MODEL_TOKENS.labels(model=model, direction="output"))


def webhook_failure(event: str, *, final: bool) -> None:
    WEBHOOK_FAILURES.labels(event=event, final=str(final).lower()).inc()


def slack_unverified(status: int) -> None:
    SLACK_UNVERIFIED.labels(status=str(status)).inc()


def lease_takeover() -> None:
    LEASE_TAKEOVERS.inc()
