"""Every page and dialog at 390 x 844 (a phone), as the role that sees it: no visible control off the
screen, cut or clipped away by its container, or narrower than 40 px, and no code text with
characters a reader can never bring on screen (tests/e2e/reach.py defines each of these).

To add a page or a dialog: one Screen in SCREENS, with the role that sees it, the path it opens
(from the world's users and conversations), what shows that it has loaded, and, for a dialog or a
form, what opens it. A list page is narrowed to the world's own rows (`own`): what other tests left
must not decide what is measured. A failure names the screen, the control and its box."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import col, select

from hitl_dashboard.db.models import Webhook
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.layout_checks import horizontal_overflow, overflowing
from tests.e2e.reach import unreachable_code, unreachable_controls
from tests.e2e.support import make_user, open_reviews, sign_in, start, wait_for

PHONE = {"width": 390, "height": 844}


@dataclass(frozen=True)
class World:
    """What the screens show, made once for this module: each role's user and the conversations."""

    users: dict[str, str]  # role -> username
    code: int  # a code conversation waiting for security review
    ops: int  # an ops conversation whose deploy_to_prod call waits for approval
    fork: int  # a fork of `code`, with the parent's revision to compare with
    spare_user: str  # the one the admin's dialogs are opened on
    app: RunningApp
    mark: str  # a word in the title of each of its conversations, and no one else's


@dataclass(frozen=True)
class Screen:
    name: str
    role: str  # a key of World.users ("" for signed out)
    path: Callable[[World], str]
    ready: str  # a selector that is visible once the page has loaded what it shows
    open: Callable[[Page, World], None] | None = None  # opens the dialog or form, and waits for it
    own: Callable[[Page, World], None] | None = None  # narrows a list to the world's rows, and waits for it
    others: Callable[[World], str] = lambda w: ""  # a selector of rows not the world's, left unmeasured


def _click_line_number(page: Page, world: World) -> None:
    page.locator("#diff td").filter(has_text=re.compile(r"^2$")).last.click()
    # The form, not its field: a field squeezed to 0 px is "hidden" to Playwright, and the sweep's to report.
    expect(page.locator("#line-comment-form")).to_contain_text("line 2")


def _message_button(css: str, dialog: str) -> Callable[[Page, World], None]:
    def open_dialog(page: Page, world: World) -> None:
        page.locator(f'.message[data-source="coder"] {css}').first.click()
        expect(page.get_by_role("dialog").locator(dialog)).to_be_visible()
    return open_dialog


def _compare_with_parent(page: Page, world: World) -> None:
    page.locator("#fork-compare-parent").click()
    page.get_by_role("option", name=re.compile(rf"^#{world.code} ")).first.click()
    page.locator("#fork-compare-own").click()
    page.get_by_role("option").first.click()
    expect(page.locator("#fork-compare-diff")).to_contain_text("this fork:")


def _click(selector: str, shows: str) -> Callable[[Page, World], None]:
    def open_it(page: Page, world: World) -> None:
        page.locator(selector).first.click()
        expect(page.locator(shows).first).to_be_visible()
    return open_it


def _on_spare_user(css: str, shows: str) -> Callable[[Page, World], None]:
    def open_it(page: Page, world: World) -> None:
        page.locator(f".user-row[data-username='{world.spare_user}'] {css}").click()
        expect(page.locator(shows)).to_be_visible()
    return open_it


def _own_queue(page: Page, world: World) -> None:
    """The queue filtered by the world's mark, as a reviewer narrows it: only its own reviews left."""
    page.fill("#queue-search", world.mark)
    rows = page.locator(".queue-row")
    wait_for(lambda: rows.count() > 0 and all(world.mark in text for text in rows.all_inner_texts()),
             what="only the world's reviews in the queue")
    page.locator("#queue-search").blur()  # a key pressed next is the page's, not the field's


def _own_conversations(page: Page, world: World) -> None:
    rows = page.locator(".conversation-row")
    expect(rows).to_have_count(3)  # the code review, the deploy and the fork, each titled with the mark
    for row in rows.all():
        expect(row).to_contain_text(world.mark)


def _own_audit(page: Page, world: World) -> None:
    """The audit filtered to the world's code conversation, with the filter form as a manager does."""
    page.fill("#filter-conversation", str(world.code))
    page.click("#apply-filters")
    links = page.locator(".audit-row a[href*='/conversations/']")
    wait_for(lambda: links.count() > 0 and set(links.all_inner_texts()) == {f"#{world.code}"},
             what="only the world's conversation in the audit")


def _others_users(world: World) -> str:
    """The users page lists every user, with no filter: the rows of users the world did not make."""
    return ".user-row" + "".join(f":not([data-username='{name}'])"
                                 for name in [*world.users.values(), world.spare_user])


SWEEP_HOOK = "https://hooks.example.invalid/phone-sweep"
SWEEP_ROW_HOOK = "https://rows.example.invalid/phone-sweep"  # listed on the webhooks page, never sent to


def _webhook_listed(page: Page, world: World) -> None:
    """A webhook row of the sweep's own (what other tests left must not decide what is measured)."""
    with UnitOfWork(world.app.engine) as uow:
        uow.session.add(Webhook(url=SWEEP_ROW_HOOK, events=["review.escalated"], secret="phone-sweep", workspace_id=1))
        uow.commit()
    page.reload()
    expect(page.locator(".webhook-row", has_text=SWEEP_ROW_HOOK).first).to_be_visible()


def _remove_webhook(page: Page, world: World) -> None:
    """On a webhook of its own, written to the app's database (the app's delivery cache never hears of
    it, so nothing is sent to it); removed through the dialog, as an admin does."""
    with UnitOfWork(world.app.engine) as uow:
        uow.session.add(Webhook(url=SWEEP_HOOK, events=["review.escalated"], secret="phone-sweep", workspace_id=1))
        uow.commit()
    page.reload()
    page.locator(".webhook-row", has_text=SWEEP_HOOK).locator(".remove-webhook").click()
    expect(page.locator("#confirm-remove")).to_be_visible()


def _admin_abort_confirmation(page: Page, world: World) -> None:
    page.fill("#admin-abort-reason", "phone sweep: the confirmation only, never confirmed")
    page.click("#admin-abort-button")
    expect(page.locator("#admin-abort-confirm")).to_be_visible()


def _keyboard_help(page: Page, world: World) -> None:
    page.locator("body").press("?")
    expect(page.locator("#keyboard-help")).to_be_visible()


SCREENS = [
    Screen("sign-in", "", lambda w: "/login", "#sign-in"),
    Screen("queue", "reviewer", lambda w: "/queue", ".queue-row", own=_own_queue),
    Screen("header menu", "reviewer", lambda w: "/queue", ".queue-row", _click("#nav-menu", "[role=menuitem]"),
           own=_own_queue),
    Screen("keyboard help", "reviewer", lambda w: "/queue", ".queue-row", _keyboard_help, own=_own_queue),
    Screen("conversations", "manager", lambda w: f"/conversations?q={w.mark}", ".conversation-row",
           own=_own_conversations),
    Screen("conversation: code review", "reviewer", lambda w: f"/conversations/{w.code}", ".review-card"),
    Screen("conversation: line comment", "reviewer", lambda w: f"/conversations/{w.code}", ".review-card",
           _click_line_number),
    Screen("conversation: tool call", "reviewer", lambda w: f"/conversations/{w.ops}", "[id^='tool-args-']"),
    Screen("dialog: fork", "reviewer", lambda w: f"/conversations/{w.code}", ".review-card",
           _message_button(".fork-from-here", "#fork-submit")),
    Screen("dialog: replay", "reviewer", lambda w: f"/conversations/{w.code}", ".review-card",
           _message_button(".replay-from-here", "#replay-submit")),
    Screen("fork compared with its parent", "reviewer", lambda w: f"/conversations/{w.fork}", "#fork-tree",
           _compare_with_parent),
    Screen("conversation: admin abort", "admin", lambda w: f"/conversations/{w.code}", "#admin-abort"),
    Screen("dialog: admin abort confirmation", "admin", lambda w: f"/conversations/{w.code}", "#admin-abort",
           _admin_abort_confirmation),
    Screen("dialog: abort confirmation", "reviewer", lambda w: f"/conversations/{w.code}", ".review-card",
           _click(".decide-abort", ".confirm-action")),
    Screen("conversation: edit and approve", "reviewer", lambda w: f"/conversations/{w.code}", ".review-card",
           _click(".edit-approve", "#review-editor")),
    Screen("audit", "manager", lambda w: "/audit", ".audit-row", own=_own_audit),
    Screen("dialog: audit event", "manager", lambda w: "/audit", ".audit-row", _click(".open-event", "#event-dialog"),
           own=_own_audit),
    Screen("analytics", "manager", lambda w: "/analytics", "#csv-reviewers"),
    Screen("new conversation", "reviewer", lambda w: "/new", "#new-task"),
    Screen("admin: users", "admin", lambda w: "/admin/users", "#users-table", others=_others_users),
    Screen("dialog: edit roles", "admin", lambda w: "/admin/users", "#users-table",
           _on_spare_user(".edit-roles", "#save-roles"), others=_others_users),
    Screen("dialog: deactivate user", "admin", lambda w: "/admin/users", "#users-table",
           _on_spare_user(".deactivate-user", "#confirm-status"), others=_others_users),
    Screen("admin: teams", "admin", lambda w: "/admin/teams", ".team-row"),
    Screen("admin: team editor", "admin", lambda w: "/admin/teams?team=code", "#team-title"),
    Screen("admin: team editor, YAML", "admin", lambda w: "/admin/teams?team=code", "#team-title",
           lambda page, w: page.get_by_role("radio", name="YAML").click()),
    Screen("tokens", "reviewer", lambda w: "/tokens", "#create-token"),
    Screen("rules: candidates and thresholds", "admin", lambda w: "/rules", "#rule-settings-save"),
    Screen("webhooks", "admin", lambda w: "/webhooks", "#add-webhook", _webhook_listed),
    Screen("dialog: remove webhook", "admin", lambda w: "/webhooks", "#add-webhook", _remove_webhook),
]


def _fork_of(browser: Browser, app: RunningApp, reviewer: str, cid: int) -> int:
    """Forked in the browser, as a reviewer does (the fork service runs in the app's process)."""
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    try:
        sign_in(page, app, reviewer)
        page.goto(f"{app.base_url}/conversations/{cid}")
        page.locator('.message[data-source="coder"] .fork-from-here').first.click()
        page.click("#fork-submit")
        page.wait_for_url(re.compile(rf"/conversations/(?!{cid}/?$)\d+/?$"), timeout=20_000)
        return int(page.url.rstrip("/").rsplit("/", 1)[-1])
    finally:
        page.context.close()


@pytest.fixture(scope="module")
def world(app_server: RunningApp, browser: Browser) -> Iterator[World]:
    users = {"reviewer": make_user(app_server, "security_reviewer", prefix="sweep"),
             "manager": make_user(app_server, "manager", prefix="sweep-mgr"),
             "admin": make_user(app_server, "admin", prefix="sweep-admin")}
    starter = make_user(app_server, "product_reviewer", prefix="sweep-dev")
    mark = f"sweep{uuid.uuid4().hex[:8]}"
    code = start(app_server, starter, f"{mark}: add retry with exponential backoff to the statement export")
    ops = start(app_server, starter, f"{mark}: deploy billing-api v1.2.3 to production", task_type="ops")
    wait_for(lambda: open_reviews(app_server, code), what="the security review")
    wait_for(lambda: open_reviews(app_server, ops), what="the deploy_to_prod approval")
    fork = _fork_of(browser, app_server, users["reviewer"], code)
    try:
        yield World(users, code, ops, fork, make_user(app_server, "product_reviewer", prefix="sweep-spare"),
                    app_server, mark)
    finally:  # the sweep's webhook is the whole app's: removed (inactive) whatever happened
        with UnitOfWork(app_server.engine) as uow:
            for hook in uow.session.exec(select(Webhook).where(col(Webhook.url).in_([SWEEP_HOOK, SWEEP_ROW_HOOK]))):
                hook.active = False
                uow.session.add(hook)
            uow.commit()


@pytest.mark.parametrize("screen", SCREENS, ids=[screen.name for screen in SCREENS])
def test_every_control_is_on_screen_and_wide_enough(app_server: RunningApp, page: Page, world: World,
                                                    screen: Screen) -> None:
    page.set_viewport_size(PHONE)
    if screen.role:
        sign_in(page, app_server, world.users[screen.role], lands_on="**/*")
    page.goto(app_server.base_url + screen.path(world))
    expect(page.locator(screen.ready).first).to_be_visible(timeout=20_000)
    if screen.own:
        screen.own(page, world)
    if screen.open:
        screen.open(page, world)
    # A dialog fades and zooms in (Radix): measured mid-animation, its controls are still transparent
    # (not visible to the sweep) and everything behind it is aria-hidden, so nothing would be measured.
    page.wait_for_function("document.getAnimations().every((a) => a.playState !== 'running')")

    checked, problems = unreachable_controls(page, screen.others(world))
    assert checked > 0, f"{screen.name}: no control measured"
    problems += unreachable_code(page, screen.others(world))[1]
    assert not problems, f"{screen.name} at {PHONE['width']} px:\n" + "\n".join(problems)
    assert horizontal_overflow(page) == 0, f"{screen.name} scrolls sideways: {overflowing(page)}"
