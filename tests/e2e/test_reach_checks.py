"""The phone sweep's measures (tests/e2e/reach.py) fail where a reader is stuck, on small pages
made for it: a control its container clips away entirely, code text cut by its container or by the
window; and pass what a reader can reach (a closed fold, a scrolling region, a reversed one)."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.reach import unreachable_code, unreachable_controls

PAGE = """<!doctype html><body style="margin:0">
<div style="width:200px; overflow:hidden"><div style="margin-left:300px; width:max-content">
  <button id="gone" style="width:80px">Gone</button></div></div>
<div style="height:0; overflow:hidden"><button id="folded" style="width:80px">Folded</button></div>
<div style="width:200px; overflow:auto"><div style="width:600px"><button id="scrolled" style="width:80px;
  margin-left:500px">Scrolled</button></div></div>
<div style="height:60px; overflow-y:auto; display:flex; flex-direction:column-reverse">
  <div><button id="above" style="width:80px">Above</button><div style="height:300px"></div></div></div>
<div style="width:200px; overflow:hidden"><pre id="cut-code">{long}</pre></div>
<div style="width:200px; overflow:auto"><pre id="scrolled-code">{long}</pre></div>
<pre id="wide-code" style="margin:0">{long}</pre>
<pre id="short-code">ok = True</pre>
</body>"""
LONG = "WIDE = (" + ", ".join(str(n) for n in range(200)) + ")"


def test_the_sweep_fails_on_clipped_controls_and_cut_code_and_passes_reachable_ones(page: Page):
    page.set_viewport_size({"width": 390, "height": 844})
    page.set_content(PAGE.replace("{long}", LONG))

    checked, problems = unreachable_controls(page)
    assert checked == 4, problems  # the folded one counts as measured, and passes: it is not shown at all
    assert len(problems) == 1 and problems[0].startswith('button#gone "Gone" is clipped away entirely'), problems

    checked, problems = unreachable_code(page)
    assert checked == 4, problems
    assert len(problems) == 2, problems
    assert "px never shown (cut by div" in problems[0] and "WIDE" in problems[0], problems
    assert "reaches past the window's edge" in problems[1], problems
    assert page.locator("#cut-code").evaluate("e => e.parentElement.scrollWidth > 200")
