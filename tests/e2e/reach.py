"""Can a reader on this window use every control? Measured in the page (tests/e2e/test_phone_sweep.py).

Definitions (the sweep's contract; change them here, for every page at once):
- A control is what a user operates: links with an href, buttons, fields (input, select, textarea),
  <summary>, and the ARIA widgets Radix draws (button, combobox, checkbox, switch, radio, tab,
  menuitem, option, link, slider, textbox, searchbox, spinbutton).
- It is visible unless CSS hides it (display, visibility, opacity 0, a closed ancestor: Chromium's
  checkVisibility), it is hidden from everyone (inside aria-hidden or inert: Radix's mirror of a
  select or checkbox, which the user never touches), or it is visually hidden on purpose (clipped to
  nothing, the "sr-only" pattern). Its size does NOT make it invisible: a 0-px input is a failure.
- Its target is the control, or the widest of its labels (<label for=...> or the <label> around it;
  clicking the label works it: a 16-px checkbox inside "Viewed" is a target as wide as the label).
- It is reachable when its whole width can be brought inside the window: ancestors that clip
  (overflow hidden or clip) cut it; an ancestor that scrolls (overflow auto or scroll) lets the user
  bring any part of its content into view, so a control inside a sideways-scrolling region counts at
  the place scrolling would bring it to, as long as it fits that region and does not lie before the
  region's start (nothing scrolls to negative positions). The page itself scrolls down, not
  sideways: past the window's right or left edge is off-screen. A control in a fixed layer (a
  dialog) must also fit between the window's top and bottom, unless a scrolling ancestor holds it.
- It fails when its target is narrower than MIN_WIDTH px, or when part of its width is cut
  (a tolerance of 1 px for borders and rounding).
"""

from __future__ import annotations

from playwright.sync_api import Page

MIN_WIDTH = 40

CONTROLS = ("a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], "
            "[role=combobox], [role=checkbox], [role=switch], [role=radio], [role=tab], [role=menuitem], "
            "[role=option], [role=link], [role=slider], [role=textbox], [role=searchbox], [role=spinbutton]")

_PROBLEMS_JS = """([selector, minWidth]) => {
  const root = document.documentElement;
  const view = {left: 0, right: root.clientWidth, top: 0, bottom: window.innerHeight};
  const name = (el) => {
    const text = (el.getAttribute('aria-label') || el.innerText || el.value || el.placeholder || '')
      .replace(/\\s+/g, ' ').trim().slice(0, 40);
    const id = el.id ? '#' + el.id : '';
    const cls = typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\\s+/).filter((c) => !c.startsWith('rt-')).slice(0, 2).join('.') : '';
    const role = el.getAttribute('role') ? `[role=${el.getAttribute('role')}]` : '';
    return `${el.tagName.toLowerCase()}${id}${cls === '.' ? '' : cls}${role} "${text}"`;
  };
  const sizeOf = (r) => `x=${Math.round(r.left)} y=${Math.round(r.top + window.scrollY)} `
    + `w=${Math.round(r.width)} h=${Math.round(r.height)}`;
  const visuallyHidden = (el, r) => {
    const style = getComputedStyle(el);
    const clipped = /rect\\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\\)/.test(style.clip) || style.clipPath === 'inset(50%)';
    return clipped || (r.width <= 1 && r.height <= 1 && style.position === 'absolute');
  };
  const problems = [];
  const seen = new Set();
  for (const el of document.querySelectorAll(selector)) {
    if (el.closest('[aria-hidden="true"], [inert]')) continue;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
    const own = el.getBoundingClientRect();
    if (visuallyHidden(el, own)) continue;
    // Its target: itself or the widest of its labels (<label for>, or the <label> around it).
    let target = el;
    let r = own;
    for (const label of el.labels || []) {
      const box = label.getBoundingClientRect();
      if (box.width > r.width && label.checkVisibility()) { target = label; r = box; }
    }
    if (seen.has(target)) continue;  // one label, one target
    seen.add(target);
    let box = {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
    let hidden = false;
    let fixed = false;
    let scrolledY = false;
    for (let a = target.parentElement; a && a !== document.body && a !== root; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.position === 'fixed' && !scrolledY) fixed = true;
      for (const [axis, lo, hi, overflow] of [['x', 'left', 'right', style.overflowX],
                                              ['y', 'top', 'bottom', style.overflowY]]) {
        if (overflow === 'visible') continue;
        const ar = a.getBoundingClientRect();
        const start = axis === 'x' ? ar.left + a.clientLeft : ar.top + a.clientTop;
        const inner = {lo: start, hi: start + (axis === 'x' ? a.clientWidth : a.clientHeight)};
        if (overflow === 'auto' || overflow === 'scroll') {
          if (axis === 'y') scrolledY = true;
          const origin = inner.lo - (axis === 'x' ? a.scrollLeft : a.scrollTop);
          const size = box[hi] - box[lo];
          if (box[lo] >= origin - 1 && size <= inner.hi - inner.lo + 1) {
            // Scrolling brings it inside the region: from here on it is where it would land.
            const shift = box[lo] < inner.lo ? inner.lo - box[lo] : Math.min(0, inner.hi - box[hi]);
            box[lo] += shift; box[hi] += shift;
            continue;
          }
        }
        box[lo] = Math.max(box[lo], inner.lo);
        box[hi] = Math.min(box[hi], inner.hi);
        if (box[hi] - box[lo] <= 0) hidden = true;  // clipped away entirely: folded, not shown
      }
    }
    if (hidden) continue;
    const shown = Math.min(box.right, view.right) - Math.max(box.left, view.left);
    if (r.width < minWidth) {
      problems.push(`${name(el)} is ${Math.round(r.width)} px wide (under ${minWidth}): ${sizeOf(r)}`);
    } else if (shown < r.width - 1) {
      problems.push(`${name(el)} is cut: ${Math.round(Math.max(shown, 0))} of ${Math.round(r.width)} px `
                    + `reachable in a ${view.right} px window: ${sizeOf(r)}`);
    } else if (fixed && (box.top < view.top - 1 || box.bottom > view.bottom + 1)) {
      problems.push(`${name(el)} is above or below the window in a fixed layer: ${sizeOf(r)}`);
    } else if (!fixed && box.top + window.scrollY < -1) {
      problems.push(`${name(el)} is above the page's top: ${sizeOf(r)}`);
    }
  }
  return {checked: seen.size, problems};
}"""


def unreachable_controls(page: Page) -> tuple[int, list[str]]:
    """(how many visible controls were measured, the ones a reader cannot fully reach or hit)."""
    found = page.evaluate(_PROBLEMS_JS, [CONTROLS, MIN_WIDTH])
    return found["checked"], found["problems"]
