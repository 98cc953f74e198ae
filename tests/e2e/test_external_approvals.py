"""An agent outside the product asks for approval through hitl_dashboard.client, as its own process,
over real HTTP against the shared app: a reviewer approves it in Chromium with edited arguments and
the process runs with them; killed while it waits and started again with the same request id, it
gets the same review; what it reports shows in the transcript and the audit trail; a denial raises
ApprovalDenied with the reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

import httpx
from playwright.sync_api import Browser, expect
from sqlmodel import func, select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import ReviewRequest
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import ROOT, RunningApp
from tests.e2e.support import api_token, make_user, sign_in, wait_for

CALLER = ROOT / "tests" / "support" / "external_caller.py"
EDITED = {"service": "billing", "version": "2.4.2", "replicas": 1}


def _caller(app: RunningApp, token: str, request_id: str) -> subprocess.Popen:
    env = {**os.environ, "HITL_URL": app.base_url, "HITL_TOKEN": token, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-u", str(CALLER), request_id], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finished(process: subprocess.Popen, app: RunningApp) -> tuple[int, list[dict]]:
    """The caller's exit code and JSON lines, once its long polls have seen the decision (each poll
    reads the database every second or so: a recorded decision releases it within seconds)."""
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"the caller was not released within 60 s; stdout:\n{out}\nstderr:\n{err}\n"
                             f"server log:\n{app.log_tail(80)}") from None
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert lines, f"no output; stderr:\n{err}"
    return process.returncode, lines


def _requests(app: RunningApp, request_id: str) -> list[tuple[int, int]]:
    """(approval id, conversation id) of every external request with this id."""
    with UnitOfWork(app.engine) as uow:
        return [(r.id, r.conversation_id) for r in uow.session.exec(
            select(ExternalRequest).where(ExternalRequest.caller_request_id == request_id))]


def _status(app: RunningApp, review_id: int) -> str:
    with UnitOfWork(app.engine) as uow:
        review = uow.session.get(ReviewRequest, review_id)
        assert review is not None
        return str(review.status)


def _reviews(app: RunningApp, conversation_id: int) -> int:
    with UnitOfWork(app.engine) as uow:
        return uow.session.exec(select(func.count()).select_from(ReviewRequest)
                                .where(ReviewRequest.conversation_id == conversation_id)).one()


@dataclass
class Asked:
    caller: str
    token: str
    reviewer: str
    request_id: str
    process: subprocess.Popen
    approval_id: int
    conversation_id: int


def _asked_from_outside(app: RunningApp, prefix: str) -> Asked:
    """A caller with an approvals token, a security reviewer, and the caller's process started: it
    has asked (its request is stored) and now waits."""
    caller = make_user(app, "manager", prefix="ci")
    token = api_token(app, caller, name="nightly-release", scope="approvals")
    reviewer = make_user(app, "security_reviewer", prefix="sec")
    request_id = f"{prefix}-{caller}"
    process = _caller(app, token, request_id)
    [(approval_id, cid)] = wait_for(lambda: _requests(app, request_id), what="the external request")
    return Asked(caller, token, reviewer, request_id, process, approval_id, cid)


def test_an_external_process_is_released_by_an_approval_in_chromium_with_the_edited_arguments(
        app_server: RunningApp, browser: Browser):
    asked = _asked_from_outside(app_server, "release")
    caller, token, reviewer, request_id = asked.caller, asked.token, asked.reviewer, asked.request_id
    first, approval_id, cid = asked.process, asked.approval_id, asked.conversation_id
    first.kill()  # while it waits for the decision
    first.wait(10)
    second = _caller(app_server, token, request_id)  # a restarted agent asks again with its own id

    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    sign_in(page, app_server, reviewer)
    row = page.locator(".queue-row").filter(has_text="Deploy billing 2.4.1").filter(has_text=caller)
    expect(row).to_have_count(1)
    expect(row.locator(".external-badge")).to_have_text("external")
    review_id = int(row.get_attribute("data-review-id"))
    row.locator(".queue-title").click()
    page.wait_for_url(f"**/conversations/{cid}")
    card = page.locator("#external-request")
    expect(card).to_be_visible()
    expect(page.locator("#external-caller")).to_have_text(caller)
    expect(card).to_contain_text("nightly-release")
    link = page.locator("#external-link")
    expect(link).to_have_attribute("href", "https://ci.example.com/runs/7?step=deploy")
    assert "noopener" in (link.get_attribute("rel") or "")
    expect(page.locator("#external-context strong")).to_have_text("billing")  # markdown, rendered
    expect(page.locator("#external-context img")).to_have_count(0)  # raw HTML is not
    assert page.title() != "pwned"

    approve = page.locator(f"#decide-approve-{review_id}")
    expect(page.locator(".args-edited")).to_be_hidden()
    before = approve.bounding_box()
    page.locator(f"#tool-args-{review_id}").fill(json.dumps(EDITED, indent=2))
    # The server's answer to the edit shows this line above the buttons; it appears in room kept for
    # it, so Approve stays where the reviewer's pointer is (a click could hit the line otherwise).
    expect(page.locator(".args-edited")).to_be_visible()
    assert approve.bounding_box() == before, (before, approve.bounding_box())
    page.locator(f"#decide-approve-{review_id}").click()
    # What the reviewer sees first: the approval recorded (the card leaves), or the card's error.
    try:
        wait_for(lambda: _status(app_server, review_id) not in ("pending", "claimed"), timeout=30,
                 what="the approval recorded")
    except AssertionError:
        said = page.locator(".field-error, [data-sonner-toast], [role=alert]").all_inner_texts()
        raise AssertionError(f"the approval was not recorded; the page says {said}; approve button "
                             f"{page.locator(f'#decide-approve-{review_id}').evaluate('b => b.outerHTML')[:300]}; "
                             f"page:\n{page.inner_text('body')[:3000]}\n{app_server.log_tail(30)}") from None
    assert _status(app_server, review_id) == "decided"
    code, lines = _finished(second, app_server)
    assert code == 0, lines
    assert lines[0] == {"ran": EDITED} and lines[-1] == {"result": "deployed billing 2.4.2 x1"}
    assert _requests(app_server, request_id) == [(approval_id, cid)] and _reviews(app_server, cid) == 1

    transcript = page.locator("#conversation-transcript")
    expect(transcript).to_contain_text("deployed billing 2.4.2 x1")
    expect(transcript).to_contain_text(f"reported by {caller}")
    manager = make_user(app_server, "manager", prefix="audit")
    events = httpx.get(f"{app_server.base_url}/api/audit", params={"conversation_id": cid, "action": "tool.executed"},
                       headers={"Authorization": f"Bearer {api_token(app_server, manager)}"}, timeout=30).json()
    [executed] = events["items"]
    assert executed["actor"] == caller
    assert executed["details"]["result"] == "deployed billing 2.4.2 x1"
    assert executed["details"]["arguments"] == EDITED


def test_a_denial_raises_approval_denied_with_the_reason_and_nothing_runs(app_server: RunningApp):
    asked = _asked_from_outside(app_server, "denied")
    reviewer, process, cid = asked.reviewer, asked.process, asked.conversation_id
    with UnitOfWork(app_server.engine) as uow:
        review_id = uow.session.exec(select(ReviewRequest.id).where(ReviewRequest.conversation_id == cid)).one()
    decided = httpx.post(f"{app_server.base_url}/api/reviews/{review_id}/decision",
                         json={"action": "revise", "reason": "change freeze until Monday"},
                         headers={"Authorization": f"Bearer {api_token(app_server, reviewer)}"}, timeout=30)
    assert decided.status_code == 200, decided.text
    code, lines = _finished(process, app_server)
    assert (code, lines) == (3, [{"denied": "change freeze until Monday"}])
