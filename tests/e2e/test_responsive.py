"""The conversation page and the queue on a phone (390 x 844) and on a desktop (1400 x 900):
what is stacked or side by side, text readable (never a few letters per line), no sideways
scrolling of the page, and code shown line for line with its indentation."""

from __future__ import annotations

import hashlib
import re

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import CodeRevision, Message
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.layout_checks import box, code_lines, horizontal_overflow, narrow_text, overflowing
from tests.e2e.support import make_user, sign_in, start, waiting_for_security_review

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}
MIN_CHARS_PER_LINE = 12
FENCED = re.compile(r"```[a-z]*\n(.*?)\n```", re.DOTALL)


@pytest.fixture(scope="module")
def review(app_server: RunningApp) -> tuple[str, int]:
    """A code conversation waiting for security review, and a security reviewer."""
    reviewer = make_user(app_server, "security_reviewer", prefix="resp")
    cid = waiting_for_security_review(app_server, "Add retry with exponential backoff to the statement export").cid
    return reviewer, cid


def messages(app: RunningApp, cid: int) -> list[Message]:
    with UnitOfWork(app.engine) as uow:
        return list(uow.session.exec(select(Message).where(Message.conversation_id == cid).order_by(Message.seq)))


def open_conversation(page: Page, app: RunningApp, review: tuple[str, int], viewport: dict) -> None:
    reviewer, cid = review
    page.set_viewport_size(viewport)
    sign_in(page, app, reviewer)
    page.goto(f"{app.base_url}/conversations/{cid}")
    expect(page.locator(".message")).to_have_count(len(messages(app, cid)))
    expect(page.locator(".review-card")).to_be_visible()
    expect(page.locator("#diff")).to_contain_text("def call_with_retry")


def test_phone_stacks_the_conversation_page(app_server: RunningApp, page: Page, review: tuple[str, int]) -> None:
    open_conversation(page, app_server, review, PHONE)

    # Status, decisions, diff, transcript: one below the other, each the width of the page.
    blocks = ["#status-banner", "#decision-panel", "#diff", "#transcript"]
    boxes = {selector: box(page.locator(selector)) for selector in blocks}
    for above, below in zip(blocks, blocks[1:], strict=False):
        upper, lower = boxes[above], boxes[below]
        assert lower["y"] >= upper["y"] + upper["height"] - 1, f"{below} is not below {above}: {upper} {lower}"
    for selector, found in boxes.items():
        assert found["width"] > PHONE["width"] * 0.8, f"{selector} is a narrow strip: {found}"
    assert horizontal_overflow(page) == 0
    assert narrow_text(page, MIN_CHARS_PER_LINE) == []


def test_desktop_keeps_transcript_beside_decisions(app_server: RunningApp, page: Page,
                                                   review: tuple[str, int]) -> None:
    open_conversation(page, app_server, review, DESKTOP)

    transcript, side = box(page.locator("#transcript")), box(page.locator("#conversation-side"))
    assert transcript["x"] + transcript["width"] <= side["x"], (transcript, side)
    assert side["y"] < transcript["y"] + transcript["height"] and transcript["y"] < side["y"] + side["height"]
    assert horizontal_overflow(page) == 0
    assert narrow_text(page, MIN_CHARS_PER_LINE) == []


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1400"])
def test_transcript_code_keeps_lines_and_indentation(app_server: RunningApp, page: Page, review: tuple[str, int],
                                                     viewport: dict) -> None:
    open_conversation(page, app_server, review, viewport)
    coder = next(m for m in messages(app_server, review[1]) if m.source == "coder")
    source = FENCED.search(coder.content).group(1).split("\n")
    code = page.locator(".message[data-source='coder'] .message-body pre code").first

    lines = code_lines(code)
    assert [line["text"] for line in lines] == source  # leading whitespace is in the page
    shown = [line for line in lines if line["first"]]
    char_width = min(line["first"]["width"] for line in shown)
    margin = min(line["first"]["left"] - line["indent"] * char_width for line in shown)
    for line in shown:
        # Drawn on one line (no wrap), starting where its indentation says.
        assert line["last"]["top"] == line["first"]["top"], f"wrapped: {line['text']!r}"
        assert abs(line["first"]["left"] - (margin + line["indent"] * char_width)) < 1, f"moved: {line['text']!r}"
    tops = [line["first"]["top"] for line in shown]
    assert tops == sorted(set(tops))
    if viewport is PHONE:  # the longest lines do not fit: the block scrolls, the page does not
        assert code.evaluate("c => c.closest('pre').scrollWidth > c.closest('pre').clientWidth")
        assert code.evaluate("c => c.closest('pre').tabIndex") == 0  # arrow keys can scroll it too
        assert horizontal_overflow(page) == 0


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1400"])
def test_diff_keeps_lines_and_indentation(app_server: RunningApp, page: Page, review: tuple[str, int],
                                          viewport: dict) -> None:
    open_conversation(page, app_server, review, viewport)
    with UnitOfWork(app_server.engine) as uow:
        revision = uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == review[1])
                                    .order_by(CodeRevision.id.desc())).first()
    section = page.locator(f"#diff section[data-key='{revision.key}']")
    cells = section.locator("td.right > [class*='content-text']")  # the new side's code, line by line
    expect(cells.first).to_be_visible()

    lines = [line for cell in cells.all() for line in code_lines(cell) if line["text"].strip()]
    # Every line of the revision, leading whitespace included, in order (a new file: the new side only).
    assert [line["text"] for line in lines] == [text for text in revision.content.split("\n") if text.strip()]
    char_width = min(line["first"]["width"] for line in lines)
    margin = min(line["first"]["left"] - line["indent"] * char_width for line in lines)
    for line in lines:
        assert line["last"]["top"] == line["first"]["top"], f"wrapped: {line['text']!r}"
        assert abs(line["first"]["left"] - (margin + line["indent"] * char_width)) < 1, f"moved: {line['text']!r}"
    assert any(line["indent"] for line in lines)  # the check saw indented Python
    assert horizontal_overflow(page) == 0


def test_phone_diff_is_one_column_with_the_new_code_on_screen(app_server: RunningApp, page: Page,
                                                              review: tuple[str, int]) -> None:
    """No empty "(nothing before)" half pushing the code off to the right: at 390 px each file is
    one column and the first lines of its new code start inside the window, readable."""
    open_conversation(page, app_server, review, PHONE)
    expect(page.locator("#diff-split-toggle")).to_be_hidden()  # no two halves to switch to here
    sections = page.locator("#diff section.diff-file")
    expect(sections.first.locator("td.right > [class*='content-text']").first).to_be_visible()
    for section in sections.all():
        if section.get_attribute("data-open") != "true":
            continue
        expect(section.locator("td.left")).to_have_count(0)  # a new file: no old half at all
        expect(section.locator("th")).to_contain_text("(new file)")
        cells = section.locator("td.right > [class*='content-text']")  # the new side's code
        lines = [line for cell in cells.all()[:8] for line in code_lines(cell) if line["text"].strip()][:4]
        assert lines, "no code shown"
        char_width = min(line["first"]["width"] for line in lines)
        for line in lines:
            start = line["first"]["left"]
            # Starts inside the window with room for at least 20 characters before its right edge.
            assert start >= 0 and start + 20 * char_width <= PHONE["width"], (line["text"], start, char_width)
    assert horizontal_overflow(page) == 0


def test_phone_header_is_a_keyboard_menu(app_server: RunningApp, page: Page, review: tuple[str, int]) -> None:
    reviewer, _ = review
    page.set_viewport_size(PHONE)
    sign_in(page, app_server, reviewer)
    expect(page.locator("#nav-conversations")).to_be_hidden()
    menu = page.get_by_role("button", name="Menu")
    expect(menu).to_be_visible()
    assert horizontal_overflow(page) == 0

    menu.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("menuitem", name="Queues")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("menuitem", name="Conversations")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url("**/conversations")
    expect(page.get_by_role("heading", name="Conversations", level=1)).to_be_visible()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1400"])
def test_queue_rows_are_cards_on_a_phone(app_server: RunningApp, page: Page, review: tuple[str, int],
                                         viewport: dict) -> None:
    reviewer, cid = review
    page.set_viewport_size(viewport)
    sign_in(page, app_server, reviewer)
    row = page.locator(f".queue-row:has(a[href='/conversations/{cid}'])")
    expect(row).to_be_visible()

    title, kind, claim = (box(row.locator(s)) for s in (".queue-title", "td[data-label='Type']", ".claim-button"))
    if viewport is PHONE:  # a card: the fields one under the other, all inside the window
        assert kind["y"] >= title["y"] + title["height"] - 1
        assert claim["y"] > kind["y"]
        assert box(row)["width"] <= PHONE["width"]
        expect(page.locator("#queue-table thead")).to_be_hidden()
    else:  # a table row: the fields side by side
        assert kind["x"] > title["x"] + title["width"] - 1
        assert abs(claim["y"] - kind["y"]) < title["height"]
    assert horizontal_overflow(page) == 0
    assert narrow_text(page, MIN_CHARS_PER_LINE) == []


def test_phone_conversation_list_fits_the_window(app_server: RunningApp, page: Page) -> None:
    # A conversation of this test's own, found by its starter (the list's own filter), with a long
    # address in its title: a task is often a link.
    starter = make_user(app_server, "manager", prefix="resp-list")
    cid = start(app_server, starter, "Retry the export at https://api.example.com/v2/statements/"
                                     "export?format=csv&since=2026-01-01T00:00:00Z&account=acct_9f8e7d6c5b4a3928")
    page.set_viewport_size(PHONE)
    sign_in(page, app_server, starter, lands_on="**/conversations*")
    page.goto(f"{app_server.base_url}/conversations?initiator={starter}")
    row = page.locator(".conversation-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text(f"#{cid}")

    assert box(row)["width"] <= PHONE["width"]
    assert horizontal_overflow(page) == 0, overflowing(page)
    assert narrow_text(page, MIN_CHARS_PER_LINE) == []


# Every action the product writes, each with details of the longest shape it writes: a hash, a
# webhook address, an IPv6 address, a 64-character attempted username, a model's error, a tool's
# arguments. A card must fit a phone whatever the event (one of them was 592 px wide at 390 px).
_HASH = hashlib.sha256(b"revision").hexdigest()
_URL = "https://hooks.example.com/services/T024BE7LD/B01ABCDEF9G/9f8e7d6c5b4a39281706f5e4d3c2b1a0"
_LONG_DETAILS = {
    "from_hash": _HASH, "to_hash": hashlib.sha256(b"edited").hexdigest(), "url": _URL,
    "address": "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "username": "x" * 64,
    "error": "ConnectTimeout('http://127.0.0.1:8000/v1/chat/completions did not answer in 30 s')",
    "arguments": {"service": "billing", "version": "2.4.1"}, "request_id": "req_" + _HASH[:32],
    "events": ["review.requested", "decision.recorded", "review.escalated"],
}
AUDIT_ACTIONS = (
    "conversation.aborted", "conversation.completed_without_review", "conversation.failed",
    "conversation.finished", "conversation.forked", "conversation.replayed", "conversation.rerouted",
    "conversation.retried", "conversation.started", "decision.override", "decision.recorded",
    "external.decided", "external.reported", "review.claimed", "review.decided", "review.dismissed",
    "review.edited", "review.escalated", "review.expired", "review.question_answered",
    "review.question_asked", "review.question_retried", "review.released", "review.requested",
    "runner.crashed", "slack.action_received", "slack.refused", "slack.user_linked", "slack.user_unlinked",
    "team.saved", "token.created", "token.revoked", "user.created", "user.deactivated", "user.reactivated",
    "user.roles_changed", "user.sign_in_failed", "user.signed_in", "user.signed_out",
    "user.signed_out_everywhere", "webhook.added", "webhook.removed", "webhook.secret_rotated",
    "webhook.tested",
)


def test_phone_audit_cards_fit_the_window_for_every_action(app_server: RunningApp, page: Page) -> None:
    manager = make_user(app_server, "manager", prefix="resp-mgr")
    # The actor's own name is long too (a username with no break in it), and the filter finds
    # exactly this test's events, whatever other tests wrote.
    actor = make_user(app_server, "admin", prefix="auditsweepadministratorwithalongname")
    with UnitOfWork(app_server.engine) as uow:
        for action in AUDIT_ACTIONS:
            append_audit(uow.session, actor=actor, actor_role="admin", action=action, content_hash=_HASH,
                         workspace_id=1,  # the manager's workspace (default): theirs to read
                         details={"action": action.split(".")[-1], **_LONG_DETAILS})
        uow.commit()
    page.set_viewport_size(PHONE)
    sign_in(page, app_server, manager, lands_on="**/conversations*")
    page.goto(app_server.base_url + "/audit")
    page.fill("#filter-user", actor)
    page.click("#filter-show-sessions")
    page.click("#apply-filters")
    rows = page.locator(".audit-row")
    expect(rows).to_have_count(len(AUDIT_ACTIONS))

    too_wide = [(row.get_attribute("data-seq"), box(row)["width"]) for row in rows.all()
                if box(row)["width"] > PHONE["width"]]
    assert too_wide == []
    assert horizontal_overflow(page) == 0, overflowing(page)
    assert narrow_text(page, MIN_CHARS_PER_LINE) == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_member_of_two_workspaces_switches_between_them_on_a_desktop_and_a_phone(
        app_server: RunningApp, page: Page, viewport: dict) -> None:
    """Issue 41: the header's switcher (on a phone: the menu's workspaces) changes what the queue
    shows, and the header still fits the window with it."""
    from tests.e2e.support import make_workspace, set_member

    places = {name: make_workspace(app_server, name) for name in ("north", "south")}
    reviewer = make_user(app_server, "security_reviewer", prefix="two", workspace_id=places["north"][0])
    set_member(app_server, places["south"][0], reviewer, ["security_reviewer"])
    titles = {}
    for name, (workspace_id, slug) in places.items():
        starter = make_user(app_server, "product_reviewer", prefix=f"{name}-dev", workspace_id=workspace_id)
        titles[name] = f"Rate limits of the {name} gateway {slug}"
        waiting_for_security_review(app_server, starter=starter, workspace=slug, title=titles[name])
    page.set_viewport_size(viewport)
    sign_in(page, app_server, reviewer)
    page.goto(f"{app_server.base_url}/queue?role=security_reviewer")
    rows = page.locator(".queue-row")
    expect(rows.filter(has_text=titles["north"])).to_have_count(1)  # the first of theirs, by name
    expect(rows.filter(has_text=titles["south"])).to_have_count(0)
    assert horizontal_overflow(page) == 0, overflowing(page)

    if viewport is DESKTOP:
        page.click("#workspace-switcher")
        page.get_by_role("option", name="South", exact=True).click()  # make_workspace names it so
    else:
        expect(page.locator("#workspace-switcher")).to_be_hidden()
        page.click("#nav-menu")
        page.locator(f".menu-workspace[data-slug='{places['south'][1]}']").click()
    expect(rows.filter(has_text=titles["south"])).to_have_count(1)
    expect(rows.filter(has_text=titles["north"])).to_have_count(0)
    assert horizontal_overflow(page) == 0, overflowing(page)
