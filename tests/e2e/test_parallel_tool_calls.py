"""Two tool calls in one turn, in Chromium: each card owns its form; what a card submits is what it
shows; deciding one never dismisses the other; each approved call runs once with its own arguments."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import select

from hitl_dashboard.db.models import ToolCall, User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.users import actor_of
from hitl_dashboard.services.conversations.conversations import StartCommand, add_conversation
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, wait_for
from tests.support.openai_stub import OpenAIStub, ParallelToolCallsReply, ToolCallReply

STAGING = {"environment": "staging", "service": "billing-api", "version": "2.4.1"}
PRODUCTION = {"environment": "production", "service": "billing-api", "version": "2.4.1"}
EDITS = {"staging": {**STAGING, "version": "9.9.9"}, "production": {**PRODUCTION, "version": "2.4.2"}}


def _deploys(app: RunningApp) -> list[dict]:
    log = app.log_path.parent / "deploys.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _start_with_two_calls(app: RunningApp, stub: OpenAIStub, starter: str) -> int:
    stub.enqueue(
        ParallelToolCallsReply((ToolCallReply("deploy_to_prod", STAGING), ToolCallReply("deploy_to_prod", PRODUCTION))),
        "Deployment report: both calls were handled as the reviewers decided.\nDONE",
    )
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == starter)).one()
        conversation = add_conversation(uow.session, actor_of(user), StartCommand(
            task="Deploy billing-api 2.4.1 to staging and production", task_type="ops",
            model_routing={"operator": {"provider": "openai"}}))
        uow.commit()
        return conversation.id


def _environment(app: RunningApp, review) -> str:
    with UnitOfWork(app.engine) as uow:
        return uow.session.get(ToolCall, review.subject_id).arguments["environment"]


@pytest.mark.parametrize("first", ["production", "staging"])
def test_two_parallel_calls_each_run_once_with_their_own_edited_arguments(
        app_server: RunningApp, browser: Browser, openai_stub: OpenAIStub, first: str):
    reviewer = make_user(app_server, "security_reviewer", prefix="ops")
    starter = make_user(app_server, "product_reviewer", prefix="dev")
    before = len(_deploys(app_server))
    cid = _start_with_two_calls(app_server, openai_stub, starter)
    reviews = wait_for(lambda: len(open_reviews(app_server, cid)) == 2 and open_reviews(app_server, cid),
                       what="two tool call reviews")
    rid = {_environment(app_server, r): r.id for r in reviews}
    second = "staging" if first == "production" else "production"

    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    sign_in(page, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(page.locator(".review-card")).to_have_count(2)
    args = {env: page.locator(f"#tool-args-{rid[env]}") for env in rid}
    for env in ("staging", "production"):
        args[env].fill(json.dumps(EDITS[env], indent=2, sort_keys=True))
    # Each card keeps its own arguments: editing one never changed the other.
    for env in ("staging", "production"):
        expect(args[env]).to_have_value(json.dumps(EDITS[env], indent=2, sort_keys=True))

    page.locator(f"#decide-approve-{rid[first]}").click()
    # The decided card leaves once the decision is stored and pushed back: 20 s, as another worker's
    # app may be building its frontend on the same cores meanwhile (e2e runs on 2 workers).
    expect(page.locator(".review-card")).to_have_count(1, timeout=20_000)
    expect(page.locator(f".review-card[data-review-id='{rid[second]}']")).to_be_visible()
    expect(args[second]).to_have_value(json.dumps(EDITS[second], indent=2, sort_keys=True))
    outcome = page.locator(f".review-outcome[data-review-id='{rid[first]}']")
    expect(outcome).to_contain_text(f"APPROVE by {reviewer}")
    expect(outcome).to_contain_text(EDITS[first]["version"])
    assert len(_deploys(app_server)) == before  # nothing runs before every call of the turn is decided
    assert [r.status for r in open_reviews(app_server, cid)] == ["pending"]

    page.locator(f"#decide-approve-{rid[second]}").click()
    ran = wait_for(lambda: len(_deploys(app_server)) >= before + 2 and _deploys(app_server)[before:],
                   what="both deployments")
    assert sorted((d["environment"], d["version"]) for d in ran) == [("production", "2.4.2"), ("staging", "9.9.9")]
    # The transcript shows what really ran, with the edit beside what the agent proposed.
    results = page.locator(".message[data-source='tool_runner']")
    expect(results).to_have_count(2, timeout=20_000)
    expect(results.filter(has_text="9.9.9")).to_contain_text("edited by the reviewer")
    expect(page.locator("#transcript")).not_to_contain_text("PENDING_APPROVAL")
    expect(page.locator(f".review-outcome[data-review-id='{rid[second]}']")).to_contain_text("Ran deploy_to_prod")
    assert len(_deploys(app_server)) == before + 2
