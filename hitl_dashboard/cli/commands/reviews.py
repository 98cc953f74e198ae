"""`queue`, `claim`, `release`, `decide` and `decide-batch`: a reviewer's work from the command line."""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, json_arg, leaf
from hitl_dashboard.domain.batch_decisions import BatchAction, BatchItem, batch_command
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action, SubjectType
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.services.findings.review_flags import review_findings_reading
from hitl_dashboard.services.reviews import claims, queues
from hitl_dashboard.services.reviews.acting_reviewer import acting_reviewer
from hitl_dashboard.services.reviews.batch_decide import decide_batch
from hitl_dashboard.services.reviews.decide import decide


def register(sub: Any) -> None:
    p = leaf(sub, "queue", "a role's review queue")
    p.add_argument("--role", required=True)
    p.add_argument("--as", dest="as_user", help="defaults to the first user holding the role")
    p.add_argument("--search")

    for name in ("claim", "release"):
        p = leaf(sub, name, f"{name} a review request")
        p.add_argument("review_id", type=int)
        p.add_argument("--as", dest="as_user", required=True)

    p = leaf(sub, "decide", "decide a review request")
    p.add_argument("review_id", type=int)
    p.add_argument("--as", dest="as_user", required=True)
    p.add_argument("--action", required=True, choices=[a.value for a in Action])
    p.add_argument("--instructions")
    p.add_argument("--target")
    p.add_argument("--reason")
    p.add_argument("--args", help="edited tool arguments as a JSON object")
    p.add_argument("--key", help="idempotency key")
    p.add_argument("--expected-version", type=int)
    p.add_argument("--override-reason")

    p = leaf(sub, "decide-batch", "approve or deny several review requests, each checked on its own")
    p.add_argument("reviews", nargs="+", metavar="REVIEW[:VERSION]",
                   help="review ids, each optionally with the version you saw (refused if it changed)")
    p.add_argument("--as", dest="as_user", required=True)
    p.add_argument("--action", required=True, choices=[a.value for a in BatchAction])
    p.add_argument("--reason", help="recorded on each decision; deny: what the agents read")
    p.add_argument("--key", help="the batch's idempotency key (default: a new one, printed): the same key "
                                 "again applies nothing twice")


@command("queue")
def _queue(args) -> int:
    actor = acting_reviewer(args.as_user, role=args.role)
    items = queues.role_queue(actor, args.role, search=args.search)
    flags = review_findings_reading([i.id for i in items if i.subject_type == SubjectType.CODE_REVISION])
    rows = [[i.id, i.conversation_id, i.title[:40], i.kind, i.subject_label, i.rule, i.status,
             i.assignee or "", f"{i.due_at:%Y-%m-%d %H:%M}", flags[i.id].flag if i.id in flags else ""]
            for i in items]
    data = [{"review_id": i.id, **{k: v for k, v in dataclasses.asdict(i).items() if k != "id"},
             "findings": flags[i.id].as_dict() if i.id in flags else None} for i in items]
    emit(args, data, table(rows, ["review", "conv", "title", "kind", "subject", "rule", "status", "assignee", "due",
                                  "findings"])
         if items else f"the {args.role} queue is empty")
    return 0


@command("claim")
def _claim(args) -> int:
    return _claim_or_release(args, claims.claim, "claimed")


@command("release")
def _release(args) -> int:
    return _claim_or_release(args, claims.release, "released")


def _claim_or_release(args, operation, verb: str) -> int:
    request = operation(acting_reviewer(args.as_user), args.review_id)
    emit(args, {"review_id": request.id, "status": request.status, "version": request.version},
         f"{verb} review request {request.id}")
    return 0


@command("decide")
def _decide(args) -> int:
    decision = DecisionInput(
        action=Action(args.action), reason=args.reason, instructions=args.instructions,
        target_agent=args.target, edited_args=json_arg(args.args, "args"), idempotency_key=args.key,
        expected_version=args.expected_version, override_reason=args.override_reason,
    )
    outcome = decide(acting_reviewer(args.as_user), args.review_id, decision)
    note = " (already recorded earlier; nothing applied twice)" if outcome.replayed else ""
    emit(args, outcome, f"{outcome.action} recorded on review {outcome.review_request_id}; conversation "
                        f"{outcome.conversation_id} is {outcome.conversation_status}{note}")
    return 0


@command("decide-batch")
def _decide_batch(args) -> int:
    key = args.key or "cli-" + secrets.token_urlsafe(16)
    command_ = batch_command(args.action, [_batch_item(text) for text in args.reviews], key, args.reason)
    outcome = decide_batch(acting_reviewer(args.as_user), command_)
    lines = [f"{outcome.count('decided')} decided, {outcome.count('replayed')} already decided by this batch "
             f"(nothing applied twice), {outcome.count('refused')} refused (batch key {key})"]
    lines += [f"  #{r.review_id}: {r.status}" + (f" ({r.refusal}): {r.reason}" if r.reason else "")
              for r in outcome.results]
    emit(args, {"key": key, **dataclasses.asdict(outcome)}, "\n".join(lines))
    # Exit 1 when anything was refused, so a script notices; the rest was decided all the same.
    return 1 if outcome.count("refused") else 0


def _batch_item(text: str) -> BatchItem:
    review, _, version = text.partition(":")
    if not (review.isascii() and review.isdigit()) or (version and not (version.isascii() and version.isdigit())):
        raise InvalidInput(f"{text!r} is not REVIEW or REVIEW:VERSION (whole numbers)", "reviews")
    return BatchItem(int(review), int(version) if version else None)
