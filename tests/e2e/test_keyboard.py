"""A reviewer works with the keyboard only: find the review in the queue (j), claim it (c), open it
(Enter), write instructions (r, typing) and send the revision (Ctrl+Enter), then approve the
revised code (a). The shortcuts list opens with ? and closes with Escape. k moves back up the
queue, and whatever has the focus shows it (a ring: outline or box shadow)."""

from __future__ import annotations

from playwright.sync_api import Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import Decision
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, wait_for, waiting_for_security_review


def decisions_of(app: RunningApp, cid: int) -> list[tuple[str, str]]:
    with UnitOfWork(app.engine) as uow:
        rows = uow.session.exec(select(Decision).where(Decision.conversation_id == cid).order_by(Decision.id))
        return [(d.action, d.instructions or "") for d in rows]


def focused_row_text(page: Page) -> str:
    return page.evaluate("(document.activeElement && document.activeElement.closest('.queue-row')"
                         " || {innerText: ''}).innerText")


# Where the focus is drawn: an outline, or a box shadow the element (or the wrapper that draws its
# border, as Radix's text fields do) has only while focused.
_FOCUS_RING_JS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return {what: 'nothing focused', ring: false};
  const look = (node) => {
    const s = getComputedStyle(node);
    return {outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0
                     && s.outlineColor !== 'rgba(0, 0, 0, 0)' && s.outlineColor !== 'transparent',
            shadow: s.boxShadow};
  };
  const nodes = [el, el.parentElement].filter(Boolean);
  const focused = nodes.map(look);
  el.blur();  // the same elements unfocused: a shadow that was there anyway is no focus ring
  const unfocused = nodes.map(look);
  el.focus();
  const ring = focused.some((f, i) => f.outline || (f.shadow !== 'none' && f.shadow !== unfocused[i].shadow));
  return {what: `${el.tagName}#${el.id}.${el.className}`, ring};
}"""


def focus_ring(page: Page) -> dict:
    return page.evaluate(_FOCUS_RING_JS)


def test_k_moves_up_the_queue_and_the_focus_is_always_visible(app_server: RunningApp, page: Page) -> None:
    reviewer = make_user(app_server, "security_reviewer", prefix="keysk")
    starter = make_user(app_server, "product_reviewer", prefix="dev")
    for task in ("Log the slow queries of the billing service", "Paginate the invoices endpoint"):
        waiting_for_security_review(app_server, task, starter=starter)
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)
    rows = page.locator(".queue-row")
    expect(rows.filter(has_text="Paginate the invoices endpoint")).to_be_visible()
    expect(rows.filter(has_text="Log the slow queries")).to_be_visible()
    # Rows by their link (their text has ages, which tick).
    texts = rows.locator(".queue-title").evaluate_all("links => links.map((a) => a.getAttribute('href'))")
    assert len(texts) >= 2

    def selected() -> str:
        expect(page.locator(".queue-row.kbd-selected")).to_have_count(1)
        focused = page.evaluate("document.activeElement.closest('.queue-row .queue-title')"
                                " && document.activeElement.getAttribute('href')")
        assert focused == page.locator(".queue-row.kbd-selected .queue-title").get_attribute("href")
        return focused

    page.keyboard.press("k")  # nothing selected yet: k starts from the bottom
    assert selected() == texts[-1]
    ring = focus_ring(page)
    assert ring["ring"], ring
    page.keyboard.press("j")
    page.keyboard.press("j")  # past the last row: stays there
    assert selected() == texts[-1]
    page.keyboard.press("k")
    assert selected() == texts[-2]
    for _ in range(len(texts)):
        page.keyboard.press("k")
    assert selected() == texts[0]  # past the first row: stays there
    ring = focus_ring(page)
    assert ring["ring"], ring

    page.keyboard.press("Tab")  # the next control of the row (its claim button) shows the focus too
    ring = focus_ring(page)
    assert ring["ring"], ring

    # On the conversation page: the instructions box that r focuses, and the buttons Tab reaches.
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    page.wait_for_url("**/conversations/*")
    expect(page.locator(".review-card .decide-approve").first).to_be_enabled()
    page.keyboard.press("r")
    expect(page.locator(".review-card textarea[id^='decision-instructions-']").first).to_be_focused()
    ring = focus_ring(page)
    assert ring["ring"], ring
    for _ in range(4):
        page.keyboard.press("Tab")
        ring = focus_ring(page)
        assert ring["ring"], ring


def test_claim_revise_and_approve_with_the_keyboard_only(app_server: RunningApp, page: Page) -> None:
    reviewer = make_user(app_server, "security_reviewer", prefix="keys")
    title = "Cache the exchange rates for an hour"
    waiting = waiting_for_security_review(app_server, title)
    cid, first = waiting.cid, waiting.review
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)
    expect(page.locator(".queue-row").filter(has_text=title)).to_be_visible()

    page.keyboard.press("?")
    expect(page.locator("#keyboard-help")).to_contain_text("claim the selected review")
    page.keyboard.press("Escape")
    expect(page.locator("#keyboard-help")).to_have_count(0)

    for _ in range(page.locator(".queue-row").count()):  # j until our review is the selected row
        page.keyboard.press("j")
        if title in focused_row_text(page):
            break
    assert title in focused_row_text(page)
    row = page.locator(".queue-row.kbd-selected")
    page.keyboard.press("c")
    expect(row.locator(".assignee")).to_have_text(reviewer)

    assert title in focused_row_text(page)  # the claim's live refresh kept the focus on the row
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/conversations/{cid}")
    expect(page.locator(f".review-card[data-review-id='{first.id}'] .decide-approve")).to_be_enabled()
    page.keyboard.press("r")
    page.keyboard.type("Expire the cache when the provider says so")
    page.keyboard.press("Control+Enter")
    wait_for(lambda: decisions_of(app_server, cid), what="the revision")
    assert decisions_of(app_server, cid) == [("revise", "Expire the cache when the provider says so")]

    # The coder answers with a new revision and a new security review; approve it with 'a'.
    [second] = wait_for(lambda: [r for r in open_reviews(app_server, cid) if r.id != first.id],
                        timeout=60, what="the review of the revision")
    expect(page.locator(f".review-card[data-review-id='{second.id}'] .decide-approve")).to_be_enabled(timeout=30_000)
    page.keyboard.press("a")
    wait_for(lambda: len(decisions_of(app_server, cid)) == 2, what="the approval")
    assert decisions_of(app_server, cid)[1] == ("approve", "")
