"""axe-core (from the npm registry, installed by scripts/browser.sh) finds no serious or critical
accessibility violation on the pages reviewers and managers live in, text contrast (WCAG AA) included:
assets/app.css darkens Radix's soft badges, callouts and avatar initials; transcript code uses the
Coldark theme."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.app_process import ROOT, RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, start, wait_for

AXE = ROOT / ".tools" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")


def violations(page: Page) -> list[str]:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/browser.sh (make test does)")
    page.add_script_tag(path=str(Path(AXE)))
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {
            runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']},
        });
        return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                             nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    return [f"{v['impact']}: {v['id']} ({v['help']}) at {v['nodes']}" for v in found if v["impact"] in BLOCKING]


def test_no_serious_violations_on_the_main_pages(app_server: RunningApp, page: Page) -> None:
    reviewer = make_user(app_server, "security_reviewer", "manager", prefix="a11y")
    starter = make_user(app_server, "product_reviewer", prefix="dev")
    cid = start(app_server, starter, "Escape user input in the search results page")
    wait_for(lambda: open_reviews(app_server, cid), what="the security review")
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)

    report = {}
    expect(page.locator(".queue-row").first).to_be_visible()
    report["queue"] = violations(page)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(page.locator(".review-card").first).to_be_visible()
    report["conversation"] = violations(page)
    page.goto(f"{app_server.base_url}/audit")
    expect(page.locator("#audit-table")).to_be_visible()
    report["audit"] = violations(page)
    page.goto(f"{app_server.base_url}/new")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    report["new"] = violations(page)
    page.goto(f"{app_server.base_url}/conversations")
    expect(page.locator(".conversation-row").first).to_be_visible()
    report["conversations"] = violations(page)
    assert not any(report.values()), "\n".join(f"{name}: {line}" for name, lines in report.items() for line in lines)
