"""Standing rules (issue 42): what checking the rules adds to a tool call, and what they would decide.

    .venv/bin/python bench/standing_rules.py                 # SQLite and PostgreSQL
    .venv/bin/python bench/standing_rules.py --backend sqlite --samples 300

1. Overhead: decide_by_rules (the gate's read of the active rules of the call's workspace, team and
   tool, and their conditions checked against the arguments) on a tool-call request no rule decides,
   in its transaction, with no rules and with 1,000 rules in the workspace, side by side (p50/p95).
   Two layouts of the 1,000: spread over 50 tools (20 on the called tool), and all 1,000 on the called
   tool. A tenth of the rules have no `equals` condition (only one_of), so they are read for every
   call of their tool; the others are found by their first `equals` (match_key). Target: <= 1 ms
   added at p95.
2. Replay: a seeded history of tool calls with known human decisions (28 days, split in time):
   candidates proposed from the first 14 days (services/rules/candidates.candidates_from, N=20, T=14),
   tried in shadow on the last 14 (domain/standing_rules.rule_matches on the parsed conditions): the
   share of the second part's calls the rules would decide, and the calls a rule would have approved
   that a person denied or edited (goal 0).
3. Decision time, through the HTTP API (the app under granian, as bench/_support.serve_api serves it):
   a call an active rule approves (POST /api/external/approvals: the rule decides in the request's own
   transaction, the answer is already `approved`) against a person's decision of the same kind of call
   (POST /api/reviews/<id>/decision by its tool approver), interleaved, p50/p95. The person's figure is
   the decision request alone: the minutes a person takes to read the call come on top.

    .venv/bin/python bench/standing_rules.py --decisions 100  # a different number of decisions each"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import BACKENDS, p95, temporary_database  # noqa: E402

TOOL = "deploy_to_prod"


def _seed_call(workspace_id: int, team: str = "ops") -> tuple[int, int]:
    """A conversation of `team` in the workspace with one open tool-call request (rows written
    directly: the request is what the gate reads). Returns (conversation id, request id)."""
    from hitl_dashboard.db.models import Conversation, ReviewRequest, ToolCall, utcnow
    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.db.workspace_models import Workspace
    from hitl_dashboard.services.auth.users import insert_user

    with UnitOfWork() as uow:
        if uow.session.get(Workspace, workspace_id) is None:
            uow.session.add(Workspace(id=workspace_id, slug=f"bench-{workspace_id}", name=f"bench {workspace_id}"))
            uow.session.flush()
        user = insert_user(uow, username=f"bench-owner-{workspace_id}", password="pw-bench-owner",
                           roles=["security_reviewer"])
        conversation = Conversation(workspace_id=workspace_id, title="bench", task="bench", task_type="ops",
                                    template=team, gate_policy={}, status="awaiting_review", initiator_id=user.id,
                                    next_seq=1)
        uow.session.add(conversation)
        uow.session.flush()
        call = ToolCall(conversation_id=conversation.id, call_id="c1", tool_name=TOOL, args_hash="0" * 64,
                        arguments={"service": "billing-api", "version": "2.4.1", "environment": "production"})
        uow.session.add(call)
        uow.session.flush()
        request = ReviewRequest(conversation_id=conversation.id, workspace_id=workspace_id, kind="tool_call",
                                required_role="security_reviewer", rule="tool", reason="bench", risk_flags=[],
                                subject_type="tool_call", subject_id=call.id, subject_label="bench",
                                content_hash="0" * 64, due_at=utcnow() + timedelta(hours=4), created_at=utcnow())
        uow.session.add(request)
        uow.commit()
        return conversation.id, request.id


def _add_rules(workspace_id: int, count: int, on_tool: int) -> None:
    """`count` active rules in the workspace: `on_tool` of them on ops/deploy_to_prod (none
    matching the seeded call: service == 'svc-i'), the rest on 49 other tools."""
    from hitl_dashboard.db.models import utcnow
    from hitl_dashboard.db.rule_models import StandingRule
    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.domain.standing_rules import rule_key

    with UnitOfWork() as uow:
        for i in range(count):
            tool = TOOL if i < on_tool else f"tool_{i % 49}"
            conditions: list[dict] = [{"argument": "service", "equals": f"svc-{i}"},
                                      {"argument": "environment", "equals": "staging"}]
            if i % 10 == 0:  # a tenth with no equals condition: read for every call of their tool
                conditions = [{"argument": "service", "one_of": [f"svc-{i}", f"svc-{i}b"]}]
            uow.session.add(StandingRule(
                workspace_id=workspace_id, team="ops", tool=tool, effect="approve", state="active", owner_id=1,
                conditions=conditions, match_key=rule_key(conditions), expires_at=utcnow() + timedelta(days=30)))
        uow.commit()


def _check_once(conversation_id: int, request_id: int) -> float:
    """ms of decide_by_rules alone, inside a transaction that is rolled back."""
    import time

    from hitl_dashboard.db.models import Conversation, ReviewRequest
    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.services.rules.gate import decide_by_rules

    with UnitOfWork() as uow:
        conversation = uow.session.get_one(Conversation, conversation_id)
        request = uow.session.get_one(ReviewRequest, request_id)
        start = time.perf_counter()
        decided = decide_by_rules(uow.session, conversation, [request])
        took = (time.perf_counter() - start) * 1000
        assert decided == 0
        uow.rollback()
    return took


LAYOUTS = ((1, "no rules", 0, 0), (2, "1,000 rules, 20 on the tool", 1000, 20),
           (3, "1,000 rules, all on the tool", 1000, 1000))


def overhead(backend: str, samples: int) -> None:
    """One workspace per layout, measured in turn (A, B, C, A, B, C...), so the machine's noise falls
    on each layout alike."""
    with temporary_database(backend):
        calls = {}
        for workspace_id, _, count, on_tool in LAYOUTS:
            calls[workspace_id] = _seed_call(workspace_id)
            if count:
                _add_rules(workspace_id, count, on_tool)
        times: dict[int, list[float]] = {w: [] for w, *_ in LAYOUTS}
        for round_ in range(samples + 5):
            for workspace_id, *_ in LAYOUTS:
                took = _check_once(*calls[workspace_id])
                if round_ >= 5:  # warm-up
                    times[workspace_id].append(took)
    base = p95(times[1])
    print(f"\n{backend}: checking the rules on a tool call ({samples} samples each, interleaved)")
    print(f"  {'rules in the workspace':32} {'p50 ms':>8} {'p95 ms':>8} {'added p50':>10} {'added p95':>10}")
    for workspace_id, name, *_ in LAYOUTS:
        values = times[workspace_id]
        print(f"  {name:32} {statistics.median(values):8.3f} {p95(values):8.3f} "
              f"{statistics.median(values) - statistics.median(times[1]):+10.3f} {p95(values) - base:+10.3f}")


# The seeded history: who would approve what, as reviewers of a platform team do.
SERVICES = ("billing-api", "search", "checkout", "auth", "mailer", "reports")


def _history(calls: int, seed: int) -> list[tuple[float, str, str, dict, str, bool]]:
    """(day, team, tool, arguments, human action, edited): 28 days of tool calls and people's decisions."""
    rng = random.Random(seed)
    out = []
    for i in range(calls):
        day = 28 * i / calls
        kind = rng.random()
        args: dict[str, object]
        if kind < 0.45:
            env = "staging" if rng.random() < 0.6 else "production"
            args = {"service": rng.choice(SERVICES), "version": f"{rng.randint(1, 3)}.{rng.randint(0, 20)}."
                    f"{rng.randint(0, 9)}", "environment": env}
            tool = "deploy_to_prod"
            if env == "staging":
                action, edited = "approve", False
            else:
                r = rng.random()
                action, edited = ("approve", False) if r < 0.7 else ("revise", False) if r < 0.9 else ("approve", True)
        elif kind < 0.7:
            tool, force = "restart_service", rng.random() < 0.25
            args = {"service": rng.choice(SERVICES), "force": force}
            action, edited = ("approve", False) if not force or rng.random() < 0.5 else ("revise", False)
        elif kind < 0.85:
            tool = "send_email"
            external = rng.random() < 0.3
            args = {"to_domain": rng.choice(["gmail.com", "example.org"]) if external else "corp.example.com",
                    "template": rng.choice(["release-notes", "incident", "weekly"])}
            action, edited = ("approve", False) if not external or rng.random() < 0.6 else ("approve", True)
        else:
            tool, replicas = "scale", rng.randint(1, 10)
            args = {"service": rng.choice(SERVICES), "replicas": replicas}
            action, edited = ("approve", False) if replicas <= 5 or rng.random() < 0.5 else ("revise", False)
        out.append((day, "platform", tool, args, action, edited))
    return out


def replay(calls: int, seed: int) -> None:
    from hitl_dashboard.domain.standing_rules import RuleSettings, rule_matches
    from hitl_dashboard.services.rules.candidates import candidates_from
    from hitl_dashboard.teams.model import ApprovalRule

    history = _history(calls, seed)
    first = [h for h in history if h[0] < 14]
    second = [h for h in history if h[0] >= 14]
    settings = RuleSettings(min_approvals=20, window_days=14)
    proposed = candidates_from([(t, tool, a, act, ed, i) for i, (_, t, tool, a, act, ed) in enumerate(first)],
                               settings)
    rules = [(c.team, c.tool, (ApprovalRule.model_validate(c.when),)) for c in proposed]
    decided = wrong = 0
    for _, team, tool, args, action, edited in second:
        if any(team == rt and tool == rtool and rule_matches(conds, args) for rt, rtool, conds in rules):
            decided += 1
            wrong += action != "approve" or edited
    print(f"\nreplay: {len(history)} tool calls with people's decisions over 28 days (seed {seed}); "
          f"first 14 days: {len(first)}, last 14: {len(second)}")
    print(f"  candidates proposed from the first part (N=20, T=14): {len(proposed)}")
    for c in proposed:
        print(f"    {c.tool}: {c.argument} == {c.equals!r}  ({c.approved_unchanged} approved unchanged, 0 contrary)")
    print(f"  second part decided by the rules in shadow: {decided}/{len(second)} = {decided / len(second):.1%}")
    print(f"  calls a rule would have approved that a person denied or edited: {wrong} (goal 0)")


def _decision_people() -> tuple[str, str]:
    """(approvals-scope token of a caller, full token of the ops team's tool approver) and an active
    rule approving staging deploys, promoted by a workspace admin with a recorded reason."""
    from hitl_dashboard.services.auth.tokens import create_token
    from hitl_dashboard.services.auth.users import create_user, find_actor
    from hitl_dashboard.services.rules.rules import RuleCommand, create_rule, promote_rule

    approver = create_user(username="approver", password="pw-approver-bench", roles=["security_reviewer"])
    create_user(username="wsadmin", password="pw-wsadmin-bench", roles=["workspace_admin"])
    caller = create_user(username="caller", password="pw-caller-bench", roles=["product_reviewer"])
    rule = create_rule(find_actor("approver"), RuleCommand(
        team="ops", tool="deploy_to_prod", when={"argument": "environment", "equals": "staging"}))
    promote_rule(find_actor("wsadmin"), rule.id, override_reason="bench")
    return create_token(user_id=caller.id, name="bench", scope="approvals")[1], \
        create_token(user_id=approver.id, name="bench")[1]


def decision_time(backend: str, decisions: int) -> None:
    import time
    import uuid

    import httpx

    from bench._support import serve_api

    def ask(http: httpx.Client, token: str, environment: str) -> dict:
        body = {"request_id": uuid.uuid4().hex, "team": "ops", "title": "Deploy",
                "tool_call": {"name": "deploy_to_prod",
                              "arguments": {"service": "billing-api", "version": "2.4.1", "environment": environment}}}
        answer = http.post("/api/external/approvals", json=body, headers={"Authorization": f"Bearer {token}"})
        answer.raise_for_status()
        return answer.json()

    by_rule: list[float] = []
    by_person: list[float] = []
    with temporary_database(backend) as url:
        caller, approver = _decision_people()
        with serve_api(url) as base, httpx.Client(base_url=base, timeout=30) as http:
            for n in range(decisions + 5):
                start = time.perf_counter()
                decided = ask(http, caller, "staging")
                took_rule = (time.perf_counter() - start) * 1000
                assert decided["status"] == "approved" and decided["decided_by"].startswith("rule:"), decided
                waiting = ask(http, caller, "production")
                assert waiting["status"] == "pending", waiting
                start = time.perf_counter()
                answer = http.post(f"/api/reviews/{waiting['review_id']}/decision",
                                   json={"action": "approve", "reason": "looks right"},
                                   headers={"Authorization": f"Bearer {approver}", "Idempotency-Key": uuid.uuid4().hex})
                took_person = (time.perf_counter() - start) * 1000
                answer.raise_for_status()
                if n >= 5:  # warm-up
                    by_rule.append(took_rule)
                    by_person.append(took_person)
    print(f"\n{backend}: decision time through the API ({decisions} of each, interleaved)")
    print(f"  {'':58} {'p50 ms':>8} {'p95 ms':>8}")
    for name, values in (("a rule: the request's POST, answered `approved`", by_rule),
                         ("a person: the decision's POST (reading time not counted)", by_person)):
        print(f"  {name:58} {statistics.median(values):8.2f} {p95(values):8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=BACKENDS, action="append")
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--calls", type=int, default=2400)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--decisions", type=int, default=100)
    args = parser.parse_args()
    for backend in args.backend or BACKENDS:
        overhead(backend, args.samples)
    replay(args.calls, args.seed)
    for backend in args.backend or BACKENDS:
        decision_time(backend, args.decisions)


if __name__ == "__main__":
    main()
