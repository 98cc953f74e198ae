"""Hosted: a browser on the web tier sees, live, what a separate runner process produces
(runner -> Redis -> web worker -> Reflex state in Redis -> browser)."""

from __future__ import annotations

import contextlib
import subprocess
import time
import uuid

import httpx
import pytest
from playwright.sync_api import Page, expect

from hitl_dashboard.db.engine import get_engine
from tests.conftest import create_pg_database, drop_pg_database, require_pg, run_cli_process
from tests.e2e.app_process import ROOT, SERVE, RunningApp, free_port, migrate, stop, wait_until_serving
from tests.e2e.support import (
    LOGIN_PAGE,
    api_token,
    decide_as,
    make_user,
    make_workspace,
    open_reviews,
    record_frames,
    set_member,
    sign_in,
    start,
    state_deltas,
    wait_for,
)
from tests.hosted.cluster import tool_env
from tests.hosted.test_cluster import require_redis

REDIS_URL = "redis://127.0.0.1:6379/8"
RECORD_LIVE_TYPING = """() => {
  window.__live = {typing: [], streamed: []};
  new MutationObserver(() => {
    const typing = document.querySelector('#typing-indicator');
    if (typing) window.__live.typing.push(typing.textContent);
    const streamed = document.querySelector('.streaming-text');
    if (streamed && streamed.textContent) window.__live.streamed.push(streamed.textContent);
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


@pytest.fixture(scope="module")
def hosted_app(tmp_path_factory):
    require_pg()
    require_redis()
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    workdir = tmp_path_factory.mktemp("hosted")
    name = create_pg_database()
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    migrate(url)
    port = free_port()
    app = RunningApp(f"http://127.0.0.1:{port}", url, workdir / "web.log")
    env = {**tool_env(), "DATABASE_URL": url, "REDIS_URL": REDIS_URL, "DEMO_MODE": "false",
           "RUNNER_IN_WEB": "false", "WEB_WORKERS": "2",
           "PORT": str(port), "BIND_HOST": "127.0.0.1", "REFLEX_STATES_WORKDIR": str(workdir / "states"),
           "SCRIPTED_CHUNK_DELAY_MS": "15", "WORKER_POLL_SECONDS": "0.2",
           "AUDIT_ANCHOR_FILE": str(workdir / "audit-heads.jsonl")}
    with app.log_path.open("wb") as log:
        web = subprocess.Popen([str(SERVE)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    with (workdir / "runner.log").open("wb") as log:
        runner = subprocess.Popen([str(ROOT / ".venv/bin/python"), "-m", "hitl_dashboard", "worker"], cwd=ROOT,
                                  env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until_serving(web, app)
        yield app, env
    finally:
        stop(runner)
        stop(web)
        get_engine(url).dispose()
        drop_pg_database(name)


def test_browser_sees_a_separate_runner_process_live(hosted_app, page: Page):
    app, env = hosted_app
    reviewer = make_user(app, "security_reviewer", prefix="sec")
    starter = make_user(app, "product_reviewer", prefix="dev")
    cid = start(app, starter, "Add retry with backoff to the ledger client")
    deadline = time.monotonic() + 60
    while not open_reviews(app, cid):
        assert time.monotonic() < deadline, "the runner process never paused the conversation for review"
        time.sleep(0.3)
    sign_in(page, app, reviewer)
    frames: list[str] = []
    page.on("websocket", lambda socket: socket.on("framereceived", lambda payload: frames.append(
        payload if isinstance(payload, str) else payload.decode(errors="replace"))))
    page.goto(f"{app.base_url}/conversations/{cid}")
    expect(page.locator(".message")).to_have_count(3)

    # The typing indicator and the streamed text last only while the coder types: record what the
    # page showed with a MutationObserver, so a fast turn cannot slip between two polls.
    page.evaluate(RECORD_LIVE_TYPING)
    opened = len(frames)  # what came after this is pushed by the server, not answers to the page

    # The decision comes from yet another process (the CLI); the runner process does the turn.
    [review] = open_reviews(app, cid)
    run_cli_process("decide", str(review.id), "--as", reviewer, "--action", "revise", "--instructions",
            "add a timeout", env={k: env[k] for k in ("DATABASE_URL", "REDIS_URL", "DEMO_MODE")})
    expect(page.locator(".message")).to_have_count(5, timeout=30_000)
    seen = page.evaluate("window.__live")
    assert any("coder" in text for text in seen["typing"]), seen["typing"][-5:]
    assert seen["streamed"], "no streamed text reached the page before the message was stored"
    expect(page.locator(".message").last).to_contain_text("timeout")
    # Relayed through Redis, streamed text still travels alone: StreamFeed's update and nothing else.
    streamed = [delta for delta in state_deltas(frames[opened:]) if any(name.endswith("stream_feed") for name in delta)
                and any(values.get("source_rx_state_") == "coder" for values in delta.values())]
    assert streamed, "no streamed update reached the page"
    assert all(len(delta) == 1 for delta in streamed), [list(delta) for delta in streamed if len(delta) > 1]
    expect(page.locator("#status-banner")).to_contain_text("Waiting for security review")


def _waiting_on(admin, table: str) -> int:
    """Backends of other sessions waiting for a lock to read `table`."""
    return admin.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        " AND query ILIKE %s", (f"%FROM {table}%",)).fetchone()[0]


def test_a_change_committed_while_the_page_opens_is_not_lost(hosted_app, page: Page):
    """A tab reads the conversation while a reviewer claims its review: the claim commits after the
    tab read the review, before the tab's own view went out. The page must still show the claim.

    The window is held open with a real lock: the test locks the team versions table, which the
    page's read reaches only after it has read the review (the team's sign-off steps, the version
    shown) and which neither the claim, the queues nor the paused runner read, so the tab's read
    waits there; the claim then commits and its refresh
    runs; the lock is released. Before watch-then-read, the claim's refresh found nobody watching
    the conversation (the tab registered after its read) and the page kept showing the review
    unclaimed."""
    import psycopg

    app, _env = hosted_app
    reviewer = make_user(app, "security_reviewer", prefix="sec")
    starter = make_user(app, "product_reviewer", prefix="dev")
    cid = start(app, starter, "Add a circuit breaker to the payments client")
    [review] = wait_for(lambda: open_reviews(app, cid), 60, "the runner to pause the conversation for review")
    token = api_token(app, reviewer)
    sign_in(page, app, reviewer)
    dsn = app.database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as admin, psycopg.connect(dsn) as locker:
        pinned = admin.execute("SELECT team_version_id FROM conversations WHERE id = %s", (cid,)).fetchone()[0]
        assert pinned is not None, "the conversation page reads its team version last; this test needs one"
        locker.execute("LOCK TABLE team_versions IN ACCESS EXCLUSIVE MODE")
        try:
            page.goto(f"{app.base_url}/conversations/{cid}", wait_until="commit")
            wait_for(lambda: _waiting_on(admin, "team_versions") >= 1, 30, "the page's read to reach the lock")
            claimed = httpx.post(f"{app.base_url}/api/reviews/{review.id}/claim",
                                 headers={"Authorization": f"Bearer {token}"}, timeout=30)
            assert claimed.status_code == 200, claimed.text
            # The claim's refresh reads the conversation too (and waits at the lock) when it finds
            # the tab watching; before the fix it found nobody and read nothing.
            with contextlib.suppress(AssertionError):
                wait_for(lambda: _waiting_on(admin, "team_versions") >= 2, 3, "the claim's refresh")
        finally:
            locker.rollback()
    expect(page.get_by_text(f"Claimed by {reviewer}")).to_be_visible(timeout=15_000)


def test_a_deactivated_users_open_pages_and_api_token_stop_working_at_once(hosted_app, browser):
    """Two web workers: an admin deactivates one reviewer from the users page and the operator another
    from the CLI (a separate process, through Redis); each reviewer's open page goes to sign-in within
    seconds, on whichever worker holds it, and their API tokens are refused at once."""
    app, env = hosted_app
    admin = make_user(app, "admin", prefix="adm")
    victims = [make_user(app, "security_reviewer", prefix="gone") for _ in range(2)]
    tokens = {name: api_token(app, name) for name in victims}

    def api_status(name: str) -> int:
        return httpx.get(f"{app.base_url}/api/conversations", headers={"Authorization": f"Bearer {tokens[name]}"},
                         timeout=30).status_code

    assert [api_status(name) for name in victims] == [200, 200]
    pages = {}
    for name in [admin, *victims]:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        sign_in(page, app, name)
        pages[name] = page
    for name in victims:
        pages[name].goto(f"{app.base_url}/conversations")
        expect(pages[name].locator("#signed-in-user")).to_have_text(name)
        expect(pages[name].locator("#session-watch")).to_be_attached()

    by_page, by_cli = victims
    admin_page = pages[admin]
    admin_page.goto(f"{app.base_url}/admin/users")
    admin_page.locator(f".user-row[data-username='{by_page}'] .deactivate-user").click()
    admin_page.click("#confirm-status")
    began = time.monotonic()
    pages[by_page].wait_for_url(LOGIN_PAGE, timeout=10_000)
    seconds_page = time.monotonic() - began
    assert api_status(by_page) == 401
    expect(admin_page.locator(f".user-row[data-username='{by_page}']")).to_contain_text("deactivated")

    run_cli_process("users", "deactivate", by_cli, env={k: env[k] for k in ("DATABASE_URL", "REDIS_URL", "DEMO_MODE")})
    began = time.monotonic()  # from the CLI's commit (its process start is not the product's delay)
    assert api_status(by_cli) == 401
    pages[by_cli].wait_for_url(LOGIN_PAGE, timeout=10_000)
    seconds_cli = time.monotonic() - began
    print(f"deactivated pages reached sign-in after {seconds_page:.2f} s (admin page), {seconds_cli:.2f} s (CLI)")
    for name in victims:  # and they stay out: a reload, or a page of their own, is the sign-in page
        pages[name].goto(f"{app.base_url}/queue")
        pages[name].wait_for_url(LOGIN_PAGE, timeout=10_000)
        expect(pages[name].locator("#signed-in-user")).to_have_count(0)


def test_two_workspaces_two_tabs_see_only_their_own_and_a_removed_member_loses_one(hosted_app, browser):
    """Issue 41, on the two-worker Redis setup with a separate runner: a reviewer of alpha and one of
    beta each have a queue tab open. Both workspaces get work and decisions; each tab shows only its
    own rows and counts, and no frame it receives carries the other workspace's text. A reviewer in
    both, removed from beta by the operator's CLI (another process, through Redis), loses beta in
    their open tab within seconds."""
    app, env = hosted_app
    alpha_id, alpha = make_workspace(app, "alpha")
    beta_id, beta = make_workspace(app, "beta")
    marker = {alpha: f"ALPHAWORK{uuid.uuid4().hex[:6]}", beta: f"BETAWORK{uuid.uuid4().hex[:6]}"}
    reviewer = {alpha: make_user(app, "security_reviewer", prefix="ra", workspace_id=alpha_id),
                beta: make_user(app, "security_reviewer", prefix="rb", workspace_id=beta_id)}
    starter = {alpha: make_user(app, "product_reviewer", prefix="sa", workspace_id=alpha_id),
               beta: make_user(app, "product_reviewer", prefix="sb", workspace_id=beta_id)}
    both = make_user(app, "security_reviewer", prefix="rab", workspace_id=alpha_id)
    set_member(app, beta_id, both, ["security_reviewer"])

    pages, frames = {}, {}
    for slug in (alpha, beta):
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        frames[slug] = record_frames(page)
        sign_in(page, app, reviewer[slug])
        page.goto(f"{app.base_url}/queue?role=security_reviewer")
        expect(page.locator("#queue-empty")).to_be_visible()
        pages[slug] = page
    first = {slug: start(app, starter[slug], f"Add rate limiting {marker[slug]}", workspace=slug)
             for slug in (alpha, beta)}
    for slug in (alpha, beta):  # live: the runner's review reaches the tab of its own workspace only
        row = pages[slug].locator(".queue-row")
        expect(row).to_have_count(1, timeout=60_000)
        expect(row).to_contain_text(marker[slug])
        expect(pages[slug].locator("#tab-security_reviewer")).to_contain_text("1")
    second = start(app, starter[beta], f"Write a CSV parser {marker[beta]}", workspace=beta)
    expect(pages[beta].locator(".queue-row")).to_have_count(2, timeout=60_000)
    decided = {}
    for slug in (alpha, beta):  # decisions in both workspaces, by their own reviewers
        [review] = open_reviews(app, first[slug])
        decide_as(app, reviewer[slug], review, "revise", instructions="add a timeout")
        decided[slug] = review.id
    asked_again = {slug: wait_for(lambda slug=slug: open_reviews(app, first[slug]), 60,
                                  "the runner to ask again after the revision") for slug in (alpha, beta)}
    expected = {alpha: {asked_again[alpha][0].id}, beta: {asked_again[beta][0].id, *(r.id for r in
                                                                                     open_reviews(app, second))}}
    for slug in (alpha, beta):  # the decided review left, the revised work's review came, live
        rows = pages[slug].locator(".queue-row")
        expect(rows).to_have_count(len(expected[slug]), timeout=30_000)
        wait_for(lambda slug=slug, rows=rows: {int(r.get_attribute("data-review-id")) for r in rows.all()}
                 == expected[slug], 30, f"{slug}'s tab to show its open reviews")
        assert decided[slug] not in expected[slug]
    for slug, other in ((alpha, beta), (beta, alpha)):
        texts = pages[slug].locator(".queue-row").all_inner_texts()
        assert all(marker[slug] in text for text in texts), texts
        leaked = [frame[:200] for frame in frames[slug] if marker[other] in frame]
        assert not leaked, f"a tab of {slug} received {other}'s text: {leaked}"

    # A reviewer in both, looking at beta, is removed from beta by the operator: the tab loses it.
    tab = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_in(tab, app, both)
    tab.goto(f"{app.base_url}/queue?role=security_reviewer&workspace={beta}")
    expect(tab.locator(".queue-row").first).to_contain_text(marker[beta], timeout=30_000)
    expect(tab.locator("#session-watch")).to_be_attached()
    reading = tab.context.new_page()  # and one of beta's conversations open beside it
    reading.goto(f"{app.base_url}/conversations/{second}")
    expect(reading.locator(".message").first).to_contain_text(marker[beta], timeout=30_000)
    expect(reading.locator("#session-watch")).to_be_attached()
    run_cli_process("workspaces", "members", "remove", beta, both,
                    env={k: env[k] for k in ("DATABASE_URL", "REDIS_URL", "DEMO_MODE")})
    began = time.monotonic()
    expect(tab.locator(".queue-row").first).to_contain_text(marker[alpha], timeout=10_000)
    print(f"the removed member's tab left {beta} after {time.monotonic() - began:.2f} s")
    expect(tab.locator(".queue-row")).to_have_count(1)
    # The conversation page opened its feed again, checked: beta's conversation is gone for them.
    expect(reading.get_by_text(f"conversation {second} does not exist")).to_be_visible(timeout=10_000)
    expect(reading.locator(".message")).to_have_count(0)
    for page in [tab, *pages.values()]:
        page.context.close()
