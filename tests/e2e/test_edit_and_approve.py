"""Edit and approve in Chromium (issue 32): the reviewer opens the proposed file in the code editor
(line numbers, Python highlighting, search), changes a line and approves their version. The next
role sees the agent's and the reviewer's versions side by side; the approval binds to the edited
file's hash; the audit trail holds both hashes; the next agent turn starts from the edited file."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect
from sqlmodel import col, select

from hitl_dashboard.db.models import AuditEvent, CodeRevision, Conversation, Decision, TurnCheckpoint, User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.hashing import content_hash
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, wait_for, waiting_for_security_review

MODULE = "app/retry.py"
MINE = "MAX_ATTEMPTS = 3  # the gateway allows three"


def _rows(app: RunningApp, cid: int, model, *order):
    with UnitOfWork(app.engine) as uow:
        return list(uow.session.exec(select(model).where(model.conversation_id == cid).order_by(*order)))


def test_edit_the_proposed_file_and_approve_it(app_server: RunningApp, browser: Browser, screenshot_dir: Path):
    editor_name = make_user(app_server, "security_reviewer", prefix="esec")
    final_name = make_user(app_server, "final_approver", prefix="efin")
    waiting = waiting_for_security_review(app_server, "Add retry with exponential backoff to the payments client")
    cid, review = waiting.cid, waiting.review
    agent_hash = review.content_hash

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(page, app_server, editor_name)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    page.click(f"#edit-approve-{review.id}")

    # A real code editor: line numbers, the file's language, search.
    editor = page.locator(f"#review-editor .code-editor[data-edit-key='{MODULE}'] .cm-editor")
    expect(editor).to_be_visible(timeout=20_000)
    expect(editor.locator(".cm-lineNumbers .cm-gutterElement", has_text="12")).to_be_visible()
    expect(editor.locator(".cm-content")).to_have_attribute("data-language", "python")
    line = editor.locator(".cm-line", has_text="MAX_ATTEMPTS = 5")
    line.click()
    page.keyboard.press("Control+f")
    expect(editor.locator(".cm-search input[name='search']")).to_be_focused()
    page.keyboard.press("Escape")
    expect(editor.locator(".cm-search")).to_have_count(0)

    line.click()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.type(MINE.removeprefix("MAX_ATTEMPTS = "))
    expect(editor.locator(".cm-line", has_text=MINE)).to_have_count(1)
    page.keyboard.press("Home")  # the editor scrolls back to the start of the lines
    page.locator("#review-editor").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "edit-and-approve.png"))  # the README's, with UPDATE_SCREENSHOTS=1
    page.click("#approve-edited")
    expect(page.locator(f".review-card[data-review-id='{review.id}']")).to_have_count(0, timeout=20_000)

    # The reviewer's version is a revision they wrote; the approval and the next review bind to its hash.
    agent, mine = _rows(app_server, cid, CodeRevision, col(CodeRevision.id))
    with UnitOfWork(app_server.engine) as uow:
        editor_id = uow.session.exec(select(User.id).where(User.username == editor_name)).one()
    assert mine.author_id == editor_id and agent.author_id is None and MINE in mine.content
    assert mine.content == agent.content.replace("MAX_ATTEMPTS = 5", MINE)
    edited_hash = content_hash(sorted([[MODULE, mine.content_hash]]))
    (decision,) = _rows(app_server, cid, Decision)
    assert decision.content_hash == edited_hash != agent_hash
    (final,) = open_reviews(app_server, cid)
    assert (final.required_role, final.content_hash) == ("final_approver", edited_hash)
    hashes = {(e.action, e.content_hash) for e in _rows(app_server, cid, AuditEvent, col(AuditEvent.seq))}
    assert {("review.requested", agent_hash), ("review.edited", edited_hash),
            ("decision.recorded", edited_hash), ("review.requested", edited_hash)} <= hashes

    # The next role sees the agent's version against the reviewer's.
    other = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(other, app_server, final_name)
    other.goto(f"{app_server.base_url}/conversations/{cid}")
    section = other.locator(f"#diff .diff-file[data-key='{MODULE}']")
    expect(section.locator(".diff-file-header")).to_contain_text(f"{MODULE} r1 → {MODULE} r2")
    expect(section).to_contain_text("MAX_ATTEMPTS = 5")
    expect(section).to_contain_text(MINE)
    expect(other.locator(f".review-card[data-review-id='{final.id}']")).to_contain_text("edited by " + editor_name)

    # A revision from there: the coder starts from the edited file, told exactly what changed.
    other.fill(f"#decision-instructions-{final.id}", "add a timeout to every call")
    other.click(f"#decide-revise-{final.id}")
    third = wait_for(lambda: next((r for r in _rows(app_server, cid, CodeRevision, col(CodeRevision.id))
                                   if r.number == 3), None), what="the coder's next revision")
    assert MINE in third.content and "timeout" in third.content and third.author_id is None
    with UnitOfWork(app_server.engine) as uow:
        last_turn = uow.session.get(Conversation, cid).checkpoint_version
    turn = next(t for t in _rows(app_server, cid, TurnCheckpoint, col(TurnCheckpoint.turn)) if t.turn == last_turn)
    told = (turn.input or {}).get("content", "")
    assert "-MAX_ATTEMPTS = 5" in told and f"+{MINE}" in told and "REVISE @coder" in told
    page.close()
    other.close()
