"""axe-core (from the npm registry, installed by scripts/browser.sh) finds no serious or critical
accessibility violation on the pages reviewers and managers live in, text contrast (WCAG AA) included:
assets/app.css darkens Radix's soft badges, callouts and avatar initials; transcript code uses the
Coldark theme. And every form control has a real name (its label, aria-label or aria-labelledby):
axe takes a placeholder for a name, but a placeholder is a hint that goes away as one types."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.app_process import ROOT, RunningApp
from tests.e2e.support import decide_as, make_user, sign_in, waiting_for_security_review

AXE = ROOT / ".tools" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")


def violations(page: Page) -> list[str]:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/browser.sh (make test does)")
    # Evaluated, not added as a <script>: the app's Content-Security-Policy refuses inline scripts
    # (docs/security.md), and the test's own evaluation is not the page's.
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;void 0")
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {
            runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']},
        });
        return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                             nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    return [f"{v['impact']}: {v['id']} ({v['help']}) at {v['nodes']}" for v in found if v["impact"] in BLOCKING]


# Every form control a reader can reach: native fields and the ARIA widgets Radix draws (its select
# trigger is a button with role combobox, its checkbox a button with role checkbox).
CONTROLS = ("input:not([type=hidden]), textarea, select, [role=combobox], [role=checkbox], [role=textbox], "
            "[role=searchbox], [role=switch], [role=radio], [role=slider], [role=spinbutton]")
# Where Chromium may take a control's name from that is no label: a hint, a tooltip, its own value.
NOT_A_LABEL = ("placeholder", "aria-placeholder", "title")
# A radio button or a checkbox is named by its own text ("30 days"); a text field's text is its value.
NAMED_BY_CONTENT = ("radio", "checkbox", "switch")


def unnamed_controls(page: Page) -> tuple[int, list[str]]:
    """(how many controls were checked, the ones without a real name), from Chromium's own
    accessibility tree: the name a screen reader announces, and what it was computed from."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node_ids = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": CONTROLS})["nodeIds"]
        checked, problems = 0, []
        for node_id in node_ids:
            tree = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node_id, "fetchRelatives": False})
            node = tree["nodes"][0]
            if node.get("ignored"):  # hidden from the reader (display: none, aria-hidden): nothing to name
                continue
            checked += 1
            name = node.get("name", {})
            used = [s for s in name.get("sources", []) if s.get("value") and not s.get("superseded")]
            source = used[0] if used else {}
            role = node.get("role", {}).get("value")
            label_like = (source.get("type") in ("relatedElement", "attribute")
                          and source.get("attribute") not in NOT_A_LABEL) \
                or (source.get("type") == "contents" and role in NAMED_BY_CONTENT)
            if (name.get("value") or "").strip() and label_like:
                continue
            attributes = cdp.send("DOM.describeNode", {"nodeId": node_id})["node"].get("attributes", [])
            described = dict(zip(attributes[::2], attributes[1::2], strict=True))
            problems.append(f"{role} id={described.get('id', '')!r} "
                            f"name={name.get('value', '')!r} from {source.get('type')}/{source.get('attribute')}")
        return checked, problems
    finally:
        cdp.detach()


def test_every_control_has_a_name_that_is_not_its_placeholder(app_server: RunningApp, page: Page) -> None:
    """The queue (its search), a conversation with a review (instructions, reason, question, target,
    a line comment; an admin also sees the override reason and the abort reason), audit, new."""
    reviewer = make_user(app_server, "security_reviewer", "manager", prefix="names")
    admin = make_user(app_server, "admin", prefix="names-admin")
    cid = waiting_for_security_review(app_server, "Hash the API tokens before they are stored").cid
    page.set_viewport_size({"width": 1400, "height": 900})
    report, seen = {}, {}

    def check(name: str, *must_include: str) -> None:
        for selector in must_include:
            expect(page.locator(selector).first).to_be_visible()
        seen[name], report[name] = unnamed_controls(page)

    sign_in(page, app_server, reviewer)
    expect(page.locator(".queue-row").first).to_be_visible()
    check("queue", "#queue-search")
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(page.locator("#diff")).to_contain_text("def ")
    page.locator("#diff td").filter(has_text=re.compile(r"^2$")).last.click()  # opens the line comment
    check("conversation", "[id^='decision-instructions-']", "[id^='decision-reason-']", ".ask-question-text",
          "[id^='decision-target-']", "#line-comment-text")
    page.goto(f"{app_server.base_url}/audit")
    check("audit", "#audit-table", "#filter-user", "#filter-conversation")
    page.goto(f"{app_server.base_url}/new")
    check("new", "#new-task", "#new-title", "#new-keywords", ".model-row input")
    page.goto(f"{app_server.base_url}/conversations")
    check("conversations", "#conversation-q")

    page.click("#sign-out")
    sign_in(page, app_server, admin)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    check("conversation (admin)", "[id^='override-reason-']", "#admin-abort-reason")

    assert all(seen.values()), seen  # the check saw the forms
    assert not any(report.values()), "\n".join(f"{name}: {line}" for name, lines in report.items() for line in lines)


def test_no_serious_violations_on_the_main_pages(app_server: RunningApp, page: Page) -> None:
    """With a decision of its own in the app, so the audit page draws every chart with bars and labels
    (the median chart's labelled bars once carried an ARIA role axe calls invalid)."""
    reviewer = make_user(app_server, "security_reviewer", "manager", prefix="a11y")
    decided = waiting_for_security_review(app_server, "Log every failed sign-in with the address it came from")
    decide_as(app_server, reviewer, decided.review, "approve", reason="logged without the password")
    cid = waiting_for_security_review(app_server, "Escape user input in the search results page",
                                      starter=decided.starter).cid
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
    expect(page.locator("#chart-medians .recharts-bar-rectangle").first).to_be_attached()
    report["audit"] = violations(page)
    page.goto(f"{app_server.base_url}/new")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    report["new"] = violations(page)
    page.goto(f"{app_server.base_url}/conversations")
    expect(page.locator(".conversation-row").first).to_be_visible()
    report["conversations"] = violations(page)
    assert not any(report.values()), "\n".join(f"{name}: {line}" for name, lines in report.items() for line in lines)
