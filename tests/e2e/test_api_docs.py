"""/api/docs renders in Chromium with no internet: Swagger UI's assets come from the app."""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.sync_api import Page, Route, expect

from tests.e2e.app_process import RunningApp

LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def test_api_docs_render_offline(app_server: RunningApp, page: Page) -> None:
    outside: list[str] = []

    def offline(route: Route) -> None:
        # As on a machine with no internet: anything not served by the app fails to load.
        url = route.request.url
        if urlsplit(url).scheme in ("http", "https") and urlsplit(url).hostname not in LOCAL_HOSTS:
            outside.append(url)
            route.abort("internetdisconnected")
        else:
            route.continue_()

    page.route("**/*", offline)
    page.goto(f"{app_server.base_url}/api/docs")

    expect(page.get_by_role("heading", name="HITL Dashboard API")).to_be_visible()
    start = page.locator(".opblock.opblock-post").filter(
        has=page.locator('.opblock-summary-path[data-path="/api/conversations"]')
    )
    expect(start).to_be_visible()
    start.locator(".opblock-summary").click()  # an operation opens: the UI's script is live
    expect(start.get_by_role("button", name="Try it out")).to_be_visible()
    assert outside == []
