"""Static-analysis findings in Chromium (issue 14): bandit's and ruff's findings sit on their lines
of the diff, the queue row carries the risk flag, the findings gate sent the revision to security
review, one click turns a finding into a line comment, and agent-influenced text stays text. Code
the analysers cannot read is "not analysed" and goes to security review all the same (issue 28)."""

from __future__ import annotations

import re
import sys
import uuid
from pathlib import Path

import httpx
from playwright.sync_api import Browser, expect
from sqlmodel import select

from hitl_dashboard.db.findings_models import CodeAnalysis, CodeFinding
from hitl_dashboard.db.models import CodeRevision, User
from hitl_dashboard.db.questions_models import ReviewQuestion
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.users import actor_of
from hitl_dashboard.services.conversations.conversations import StartCommand, add_conversation
from tests.e2e.app_process import RunningApp
from tests.e2e.support import api_token, make_user, open_reviews, sign_in, wait_for
from tests.support.openai_stub import OpenAIStub
from tests.support.py312 import findings_gated_team, py312_reply

XSS = '<img src=x onerror="window.__findingXss=1">'


def _start(app: RunningApp, username: str, task: str, gate_policy: dict | None, **more) -> int:
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == username)).one()
        conversation = add_conversation(uow.session, actor_of(user),
                                        StartCommand(task=task, task_type="code", gate_policy=gate_policy, **more))
        uow.commit()
        return conversation.id


def _analysed_revision(app: RunningApp, cid: int) -> CodeRevision | None:
    with UnitOfWork(app.engine) as uow:
        revision = uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == cid)).first()
        analysis = revision and uow.session.get(CodeAnalysis, revision.content_hash)
        return revision if analysis is not None and analysis.status == "analysed" else None


def test_findings_on_their_lines_queue_flag_and_gate(app_server: RunningApp, browser: Browser,
                                                     screenshot_dir: Path):
    security = make_user(app_server, "security_reviewer", prefix="fsec")
    starter = make_user(app_server, "product_reviewer", prefix="fdev")
    title = "Write a helper to run a shell command for the nightly job"
    # mode never: no rule but the findings gate can stop this conversation.
    cid = _start(app_server, starter, title, {"mode": "never", "agents": [], "keywords": [],
                                              "min_finding_severity": "high"})
    reviews = wait_for(lambda: open_reviews(app_server, cid), what="the findings review")
    assert (reviews[0].rule, reviews[0].required_role) == ("findings", "security_reviewer")
    revision = wait_for(lambda: _analysed_revision(app_server, cid), what="the analysis")
    with UnitOfWork(app_server.engine) as uow:  # a finding whose text carries markup must stay text
        uow.session.add(CodeFinding(content_hash=revision.content_hash, analyser="ruff", rule="F821",
                                    severity="low", line=6, column=1, message=XSS))
        uow.commit()

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(page, app_server, security)
    row = page.locator(".queue-row").filter(has_text=title)
    expect(row.locator(".findings-flag")).to_have_text("1 high finding")
    expect(row).to_contain_text("findings")  # the rule that fired
    row.locator(".queue-title").click()
    page.wait_for_url(f"**/conversations/{cid}")

    # Each analyser's finding on its own line of the new file (line 1 is the "# file:" comment).
    diff = page.locator("#diff")
    expect(diff).to_contain_text("subprocess.call(cmd, shell=True)")
    shell = diff.locator(".finding-icon[data-rule='B602']")
    expect(shell).to_have_attribute("data-line", "7")
    expect(shell).to_have_attribute("title", re.compile(r"^high · bandit B602: .*shell=True"))
    expect(shell).to_have_class(re.compile("finding-high"))
    unused = diff.locator(".finding-icon[data-rule='F401']")
    expect(unused).to_have_attribute("data-line", "2")
    expect(unused).to_have_attribute("title", re.compile("ruff F401: `os` imported but unused"))
    expect(diff.locator("tr:has(.finding-icon[data-rule='B602'])")).to_contain_text("subprocess.call(cmd, shell=True)")
    expect(diff.locator("tr:has(.finding-icon[data-rule='F401'])")).to_contain_text("import os")
    expect(page.locator(".findings-count")).to_contain_text("app/shell_runner.py: 4 findings")

    # The list under the diff: the markup in a finding is shown as text and never runs.
    xss_row = page.locator(".finding-row[data-rule='F821']")
    expect(xss_row.locator(".finding-message")).to_have_text(XSS)
    assert page.evaluate("window.__findingXss") is None
    assert page.locator("#findings img").count() == 0

    page.locator("#findings").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "findings.png"))

    # One click: the finding becomes a line comment of the draft.
    page.locator(".finding-row[data-rule='F401'] .finding-comment").click()
    expect(page.locator(".line-comment")).to_contain_text("Static analysis F401: `os` imported but unused")
    expect(page.locator(".line-comment")).to_contain_text("2")


def test_a_question_from_a_diff_line_is_answered_and_the_review_stays_open(app_server: RunningApp,
                                                                          browser: Browser):
    from hitl_dashboard.db.models import AuditEvent

    security = make_user(app_server, "security_reviewer", prefix="qsec")
    starter = make_user(app_server, "product_reviewer", prefix="qdev")
    title = "Write a helper to run a shell command for the backups"
    cid = _start(app_server, starter, title, {"mode": "after_agent", "agents": ["coder"]})
    wait_for(lambda: open_reviews(app_server, cid), what="the security review")
    wait_for(lambda: _analysed_revision(app_server, cid), what="the analysis")

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(page, app_server, security)
    row = page.locator(".queue-row").filter(has_text=title)
    row.locator(".claim-button").click()
    expect(row.locator(".assignee")).to_have_text(security)
    row.locator(".queue-title").click()
    page.wait_for_url(f"**/conversations/{cid}")

    # Pick line 7 (the shell=True call) of the new file and ask about it instead of commenting.
    page.locator("#diff tr:has(.finding-icon[data-rule='B602']) td").filter(has_text=re.compile(r"^7$")).first.click()
    page.fill("#line-comment-text", f"Why shell=True? {XSS}")
    page.click("#ask-line-question")
    card = page.locator(".review-card")
    expect(card.locator(".question-text")).to_have_text(f"Why shell=True? {XSS}")
    expect(card.locator(".answer-text")).to_contain_text("shell=True lets the caller pass a whole command line",
                                                         timeout=30_000)
    expect(card.locator(".answer-text")).to_contain_text("`return subprocess.call(cmd, shell=True)`")
    assert page.evaluate("window.__findingXss") is None
    # Still open, still claimed by the same reviewer; no new revision.
    expect(card).to_contain_text(f"Claimed by {security}")
    # In the transcript, marked as such (the kind badge): the question, then the coder's answer.
    expect(page.locator(f".message[data-source='{security}']").filter(has_text="QUESTION #")).to_contain_text(
        "about app/shell_runner.py line 7")
    expect(page.locator(".message[data-source='coder']").filter(has_text="ANSWER to question #")).to_have_count(1)
    with UnitOfWork(app_server.engine) as uow:
        assert len(uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == cid)).all()) == 1

    # A model that failed (the scripted one never does: a failure as it is stored) shows on the card
    # with a Retry; the retry is answered and the review stays open.
    with UnitOfWork(app_server.engine) as uow:
        asked = uow.session.exec(select(ReviewQuestion).where(ReviewQuestion.conversation_id == cid)).one()
        asked.status, asked.answer, asked.error = "failed", None, f"model endpoint down {XSS}"
        uow.session.add(asked)
        uow.commit()
    page.reload()
    expect(card.locator(".answer-failure")).to_have_text(f"No answer: model endpoint down {XSS}")
    card.locator(".retry-question").click()
    expect(card.locator(".answer-text")).to_contain_text("shell=True lets the caller", timeout=30_000)
    expect(card.locator(".answer-model")).to_have_text("answered by scripted")
    assert page.evaluate("window.__findingXss") is None
    expect(card).to_contain_text(f"Claimed by {security}")

    page.click(".decide-approve")
    expect(page.locator(".signoff-step").first).to_contain_text("approved")
    # The decision's audit event (its details are what the audit page's context shows).
    with UnitOfWork(app_server.engine) as uow:
        details = uow.session.exec(select(AuditEvent.details).where(
            AuditEvent.conversation_id == cid, AuditEvent.action == "decision.recorded")).one()
    [question] = details["questions"]
    assert question["question"] == f"Why shell=True? {XSS}" and "shell=True lets" in question["answer"]
    [shown] = details["findings_shown"]
    assert {"B602", "F401"} <= {f["rule"] for f in shown["findings"]}


def test_code_the_analysers_cannot_read_goes_to_security_review_with_the_reason(
        app_server: RunningApp, browser: Browser, openai_stub: OpenAIStub):
    security = make_user(app_server, "security_reviewer", prefix="nasec")
    starter = make_user(app_server, "product_reviewer", prefix="nadev")
    admin = api_token(app_server, make_user(app_server, "admin", prefix="naadm"))
    team = f"py312-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=app_server.base_url, headers={"Authorization": f"Bearer {admin}"},
                      params={"workspace": "default"}) as api:  # the instance admin names the workspace
        saved = api.put(f"/api/teams/{team}", json={"yaml": findings_gated_team(team, "3.12")})
        assert saved.status_code in (200, 201), saved.text
    title = f"Nightly shell job on Python 3.12 {team}"
    openai_stub.enqueue(py312_reply("app/nightly.py"))  # the coder's turn; the planner stays scripted
    cid = _start(app_server, starter, title, None, template=team, model_routing={"coder": {"provider": "openai"}})
    [review] = wait_for(lambda: open_reviews(app_server, cid), what="the security review")
    server = f"{sys.version_info[0]}.{sys.version_info[1]}"
    why = ("bandit could not parse nightly.py: syntax error while parsing AST from file "
           f"(the team declares Python 3.12; this server parses {server})")
    # The gate's mode is never: only the findings gate, failing closed, can have stopped it.
    assert (review.rule, review.required_role) == ("findings", "security_reviewer")

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(page, app_server, security)
    row = page.locator(".queue-row").filter(has_text=title)
    expect(row.locator(".findings-flag")).to_have_text(f"not analysed: {why}")
    expect(row.locator(".findings-flag")).to_have_attribute("data-not-analysed", "true")
    expect(row).to_contain_text("findings")  # the rule that fired
    row.locator(".queue-title").click()
    page.wait_for_url(f"**/conversations/{cid}")
    expect(page.locator(".review-card .review-reason")).to_have_text(f"findings: not analysed: {why}")
    expect(page.locator("#diff")).to_contain_text("def run[T](cmd: Command, default: T)")
    expect(page.locator("#diff")).to_contain_text(f"not analysed: {why}")  # on the diff, never "no findings"
    expect(page.locator("#diff")).not_to_contain_text("no findings")

    # The API carries the same: the queue's flag, the conversation's review and revision.
    token = api_token(app_server, security)
    with httpx.Client(base_url=app_server.base_url, headers={"Authorization": f"Bearer {token}"}) as api:
        [item] = api.get("/api/reviews", params={"role": "security_reviewer", "conversation_id": cid}).json()
        assert (item["findings"]["status"], item["findings"]["flag"]) == ("not_analysed", f"not analysed: {why}")
        assert item["findings"]["not_analysed"] == [{"file": "app/nightly.py", "reason": why}]
        body = api.get(f"/api/conversations/{cid}").json()
        assert body["revisions"][0]["analysis"] == {"status": "not_analysed", "reason": why,
                                                    "counts": {"low": 0, "medium": 0, "high": 0}}
        assert body["open_reviews"][0]["findings"]["status"] == "not_analysed"
