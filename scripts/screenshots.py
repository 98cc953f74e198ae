"""Retake the README's screenshots (queue and conversation page, at 1400 and 390 px wide).

Against a running app with the demo data (`make run`, then in another shell):
    .venv/bin/python scripts/screenshots.py [--base-url http://localhost:3000] [--out docs/screenshots]
Signs in as the demo security reviewer and opens the first code review in that queue.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
WIDTHS = {"1400": {"width": 1400, "height": 900}, "390": {"width": 390, "height": 844}}
SCREENS = 2  # the phone's conversation page: two screens high, to show how it stacks


def sign_in(page: Page, base_url: str, username: str, password: str) -> None:
    page.goto(base_url + "/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#sign-in")
    page.wait_for_url("**/queue*", timeout=30_000)
    expect(page.locator(".queue-row").first).to_be_visible(timeout=30_000)


def shoot(page: Page, base_url: str, out: Path, width: str) -> list[Path]:
    queue = out / f"queue-{width}.png"
    page.screenshot(path=str(queue))
    # A code review: its page has a diff and code in the transcript.
    page.locator(".queue-row").filter(has_text="code").first.locator(".queue-title").click()
    page.wait_for_url("**/conversations/*")
    expect(page.locator("#status-banner")).to_be_visible()
    expect(page.locator("#diff")).to_be_visible()
    expect(page.locator("#transcript .message").first).to_be_visible()
    page.evaluate("document.fonts.ready")
    conversation = out / f"conversation-{width}.png"
    viewport = page.viewport_size
    if viewport["width"] < 768:
        height = min(page.evaluate("document.documentElement.scrollHeight"), viewport["height"] * SCREENS)
        page.screenshot(path=str(conversation), full_page=True,
                        clip={"x": 0, "y": 0, "width": viewport["width"], "height": height})
    else:
        page.screenshot(path=str(conversation))
    return [queue, conversation]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", default="http://localhost:3000")
    parser.add_argument("--user", default="alice")
    parser.add_argument("--password", default="demo")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox",
                                                                           "--disable-gpu"])
        for width, viewport in WIDTHS.items():
            page = browser.new_context(viewport=viewport).new_page()
            sign_in(page, args.base_url, args.user, args.password)
            for path in shoot(page, args.base_url, args.out, width):
                print(path)
        browser.close()


if __name__ == "__main__":
    main()
