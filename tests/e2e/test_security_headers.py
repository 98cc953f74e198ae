"""Browser protections (issue 45), in Chromium against the shared app: every page is served with a
Content-Security-Policy that it really works under (no violation reported, its websocket connected,
its data shown), with framing refused, nosniff and a strict referrer policy; /api answers carry them
too; and an image in a caller's text is shown as a link, never fetched from the caller's host."""

from __future__ import annotations

import contextlib
import re
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import (
    api_token,
    make_user,
    sign_in,
    waiting_for_security_review,
)
from tests.support.external_api import tool_request

# Every violation the page sees, in page order: the browser fires this event for each blocked
# script, style, connection, image, frame or form target (and for eval), before anything else runs.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} `
                                + `at ${e.sourceFile || document.location.pathname}:${e.lineNumber}`);
});
"""


def _check_document_headers(headers: dict[str, str], where: str) -> None:
    policy = headers.get("content-security-policy", "")
    assert policy, f"{where}: no Content-Security-Policy"
    directives = {d.strip().split()[0]: d.strip().split()[1:] for d in policy.split(";") if d.strip()}
    assert directives.get("frame-ancestors") == ["'none'"], f"{where}: {policy}"
    assert directives.get("object-src") == ["'none'"], f"{where}: {policy}"
    # No inline script but the built pages' own, by hash ('unsafe-eval' stays: Reflex's call_script).
    assert "'unsafe-inline'" not in directives.get("script-src", []), f"{where}: {policy}"
    assert all(s in ("'self'", "'unsafe-eval'") or s.startswith("'sha256-") for s in directives["script-src"])
    # Images only from the app itself (and data:/blob: it makes): a caller's host is never asked.
    assert set(directives.get("img-src", [])) <= {"'self'", "data:", "blob:"}, f"{where}: {policy}"
    assert headers.get("x-content-type-options") == "nosniff", where
    assert headers.get("x-frame-options") == "DENY", where
    assert headers.get("referrer-policy") in ("no-referrer", "same-origin"), where


class _Watched:
    """A page whose CSP violations (as events and as console errors) and websockets are recorded."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.console: list[str] = []
        self.sockets: list[str] = []
        page.add_init_script(RECORD_VIOLATIONS)
        page.on("console", lambda m: self.console.append(m.text)
                if "Content Security Policy" in m.text or m.text.startswith("Refused to") else None)
        page.on("websocket", lambda socket: self.sockets.append(socket.url))

    def visit(self, app: RunningApp, path: str, *shown: str, username: str | None = None) -> None:
        """Load `path`, check the document's headers, and that it works: `shown` are visible, the
        signed-in user (state from the server, over the websocket) is named, no violation so far."""
        response = self.page.goto(app.base_url + path)
        assert response is not None and response.ok, f"{path}: {response and response.status}"
        _check_document_headers(response.all_headers(), path)
        for selector in shown:
            expect(self.page.locator(selector).first).to_be_visible()
        if username is not None:
            expect(self.page.locator("#signed-in-user")).to_have_text(username)
        self.assert_no_violation(path)

    def assert_no_violation(self, where: str) -> None:
        seen = self.page.evaluate("window.__cspViolations || []") + self.console
        assert not seen, f"{where}: {seen}"


def test_every_page_is_served_with_the_policy_and_works_under_it(app_server: RunningApp, browser: Browser) -> None:
    """As a user entitled to every page (the instance admin, also a manager and a security reviewer
    of the default workspace), with a conversation waiting for review so its page has a diff."""
    user = make_user(app_server, "admin", "manager", "security_reviewer", prefix="csp")
    cid = waiting_for_security_review(app_server, "Hash the API tokens before they are stored").cid
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    watched = _Watched(page)

    # The sign-in page: its button is enabled once the websocket has hydrated the state.
    watched.visit(app_server, "/login", "#username")
    expect(page.locator("#sign-in")).to_be_enabled()
    sign_in(page, app_server, user)  # the form posts to /auth/sign-in: form-action and Origin still work
    watched.assert_no_violation("sign-in")

    watched.visit(app_server, "/queue", ".queue-row", username=user)
    watched.visit(app_server, "/conversations", "#conversation-q", ".conversation-row", username=user)
    watched.visit(app_server, f"/conversations/{cid}", "#diff", username=user)
    expect(page.locator("#diff")).to_contain_text("def ")  # the diff viewer rendered the agents' code
    watched.visit(app_server, "/new", "#new-task", username=user)
    watched.visit(app_server, "/audit", "#audit-table", username=user)
    watched.visit(app_server, "/analytics", "h1", username=user)
    watched.visit(app_server, "/admin/users", ".user-row", username=user)
    watched.visit(app_server, "/admin/teams?team=code", "#team-view", username=user)
    expect(page.locator("#team-title")).to_have_text(re.compile(r"^code · version \d+$"))
    page.get_by_role("radio", name="YAML").click()
    expect(page.locator("#team-yaml")).to_be_visible()
    watched.visit(app_server, "/admin/workspaces", "#new-workspace-slug", username=user)
    watched.visit(app_server, "/webhooks", "#webhook-url", username=user)
    watched.visit(app_server, "/tokens", "#token-name", username=user)
    # The browser really talked to the server over the websocket (allowed by connect-src).
    assert any("/_event" in url for url in watched.sockets), watched.sockets
    watched.assert_no_violation("the end")


def test_api_answers_carry_the_headers(app_server: RunningApp) -> None:
    user = make_user(app_server, "security_reviewer", prefix="csp-api")
    token = api_token(app_server, user)
    health = httpx.get(f"{app_server.base_url}/api/health", timeout=10)
    listed = httpx.get(f"{app_server.base_url}/api/conversations", timeout=10,
                       headers={"Authorization": f"Bearer {token}"})
    missing = httpx.get(f"{app_server.base_url}/api/no-such-thing", timeout=10)
    for answer in (health, listed, missing):
        assert answer.headers["content-type"].startswith("application/json"), answer.url
        assert answer.headers.get("x-content-type-options") == "nosniff", answer.url
        assert "frame-ancestors 'none'" in answer.headers.get("content-security-policy", ""), answer.url
    assert health.status_code == 200 and listed.status_code == 200 and missing.status_code == 404


@contextlib.contextmanager
def _pixel_host() -> Iterator[list[str]]:
    """An HTTP server on 127.0.0.1 that records the path of every GET: the caller's "pixel"."""
    fetched: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            fetched.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:  # keep the test output quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        fetched.append(f"port:{server.server_address[1]}")  # the first entry names the port
        yield fetched
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_an_image_in_a_callers_context_is_a_link_and_is_never_fetched(
        app_server: RunningApp, browser: Browser) -> None:
    caller = make_user(app_server, "manager", prefix="ci")
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    with _pixel_host() as fetched:
        port = fetched.pop(0).removeprefix("port:")
        pixel = f"http://127.0.0.1:{port}/pixel.png"
        body = tool_request(f"pixel-{uuid.uuid4().hex[:8]}",
                            context=f"Nightly release of **billing**.\n\n![p]({pixel})\n\n![]({pixel}?2)")
        answer = httpx.post(f"{app_server.base_url}/api/external/approvals", json=body, timeout=30,
                            headers={"Authorization": f"Bearer {api_token(app_server, caller)}"})
        assert answer.status_code == 201, answer.text
        cid = answer.json()["conversation_id"]

        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        watched = _Watched(page)
        sign_in(page, app_server, reviewer)
        watched.visit(app_server, f"/conversations/{cid}", "#external-context strong", username=reviewer)
        context = page.locator("#external-context")
        expect(context.locator("strong")).to_have_text("billing")  # the rest of the markdown still renders
        # Shown as links that name the address (the alt text when there is one), not as images.
        expect(context.locator(f'a[href="{pixel}"]')).to_have_count(1)
        expect(context.locator(f'a[href="{pixel}"]')).to_contain_text(pixel)
        expect(context.locator(f'a[href="{pixel}"]')).to_contain_text(re.compile(r"\bp\b"))
        expect(context.locator(f'a[href="{pixel}?2"]')).to_have_count(1)
        expect(context.locator("img")).to_have_count(0)
        watched.assert_no_violation("the conversation")  # not even blocked by the CSP: never asked for
        # Everything the page asks for has been asked by now: the transcript of the request shows too.
        expect(page.locator("#external-request")).to_be_visible()
        page.reload()
        expect(context.locator(f'a[href="{pixel}"]')).to_have_count(1)
        assert fetched == [], f"the caller's host was asked for {fetched}"
