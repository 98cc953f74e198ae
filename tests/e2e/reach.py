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
  (a tolerance of 1 px for borders and rounding), or when a container that shows something clips it
  away entirely. Only a container with no room left on that axis (a fold closed to 0 px) hides it.
- Code text (pre, code, a diff line) is read, not clicked: every character of it must be reachable.
  Text past the edge of a scrolling region is reachable by scrolling; past the edge of a clipping one
  it is cut, except in a diff half, whose own scrollbar (assets/diff_scroll.js) moves its lines by
  as much as the bar scrolls. The page does not scroll sideways: text past the window's edge is cut.
"""

from __future__ import annotations

from playwright.sync_api import Page

MIN_WIDTH = 40

CONTROLS = ("a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], "
            "[role=combobox], [role=checkbox], [role=switch], [role=radio], [role=tab], [role=menuitem], "
            "[role=option], [role=link], [role=slider], [role=textbox], [role=searchbox], [role=spinbutton]")

# Shared by both checks: names, and the walk up a target's ancestors that cuts its box to what
# clipping ancestors show and moves it to where scrolling ancestors can bring it.
_WALK_JS = r"""
  const root = document.documentElement;
  const view = {left: 0, right: root.clientWidth, top: 0, bottom: window.innerHeight};
  const name = (el) => {
    const text = (el.getAttribute('aria-label') || el.innerText || el.value || el.placeholder || '')
      .replace(/\s+/g, ' ').trim().slice(0, 40);
    const id = el.id ? '#' + el.id : '';
    const cls = typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\s+/).filter((c) => !c.startsWith('rt-')).slice(0, 2).join('.') : '';
    const role = el.getAttribute('role') ? `[role=${el.getAttribute('role')}]` : '';
    return `${el.tagName.toLowerCase()}${id}${cls === '.' ? '' : cls}${role} "${text}"`;
  };
  const sizeOf = (r) => `x=${Math.round(r.left)} y=${Math.round(r.top + window.scrollY)} `
    + `w=${Math.round(r.width)} h=${Math.round(r.height)}`;
  const ignored = (el, exclude) => !!el.closest('[aria-hidden="true"], [inert]' + (exclude ? ', ' + exclude : ''))
    || !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
  // How far a diff half's bar moves the lines of `cell` left (ahead) and back (behind): 0 without a bar.
  const diffReach = (cell) => {
    const body = cell.closest('.diff-file-body');
    const split = body && body.querySelector('tr > td.left ~ td.right');
    const pane = split && cell.classList.contains('right') ? 'right' : 'left';
    const bar = body && body.querySelector(`.diff-pane-scroll[data-pane="${pane}"]`);
    if (!bar || bar.dataset.wide !== 'true' || !bar.checkVisibility()) return {ahead: 0, behind: 0};
    return {ahead: bar.scrollWidth - bar.clientWidth - bar.scrollLeft, behind: bar.scrollLeft};
  };
  // whole: the box must fit a scrolling region at once (a control); else any part of it is enough
  // to bring into view in turn (text). Returns where the box can be seen, and what cut or hid it.
  const walk = (target, r, whole) => {
    const box = {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
    let folded = false, fixed = false, scrolledY = false;
    const cuts = [];
    for (let a = target.parentElement; a && a !== document.body && a !== root; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.position === 'fixed' && !scrolledY) fixed = true;
      for (const [axis, lo, hi, overflow] of [['x', 'left', 'right', style.overflowX],
                                              ['y', 'top', 'bottom', style.overflowY]]) {
        if (overflow === 'visible') continue;
        const ar = a.getBoundingClientRect();
        const start = axis === 'x' ? ar.left + a.clientLeft : ar.top + a.clientTop;
        const room = axis === 'x' ? a.clientWidth : a.clientHeight;
        const inner = {lo: start, hi: start + room};
        if (overflow === 'auto' || overflow === 'scroll') {
          if (axis === 'y') scrolledY = true;
          // Where its content starts: a reversed region (column-reverse, rtl) starts scrolled to
          // its end, its scroll offset counting down from 0, and its content lies before its start.
          const reversed = axis === 'x' ? style.direction === 'rtl' || style.flexDirection === 'row-reverse'
            : style.flexDirection === 'column-reverse';
          const extra = reversed ? (axis === 'x' ? a.scrollWidth : a.scrollHeight) - room : 0;
          const origin = inner.lo - (axis === 'x' ? a.scrollLeft : a.scrollTop) - extra;
          const size = box[hi] - box[lo];
          if (box[lo] >= origin - 1 && (!whole || size <= room + 1)) {
            // Scrolling brings it inside the region: from here on it is where it would land.
            const shift = box[lo] < inner.lo ? inner.lo - box[lo] : Math.min(0, inner.hi - box[hi]);
            box[lo] += shift; box[hi] += shift;
            if (!whole) { box[lo] = Math.max(box[lo], inner.lo); box[hi] = Math.min(box[hi], inner.hi); }
            continue;
          }
        } else if (axis === 'x' && !whole && a.matches('.diff-file-body td.left, .diff-file-body td.right')) {
          const reach = diffReach(a);
          if (box.right - reach.ahead <= inner.hi + 1 && box.left + reach.behind >= inner.lo - 1) {
            box.left = Math.max(box.left, inner.lo); box.right = Math.min(box.right, inner.hi);
            continue;
          }
        }
        if (room <= 1) { folded = true; continue; }  // a closed fold: nothing of it is shown
        const before = box[hi] - box[lo];
        box[lo] = Math.max(box[lo], inner.lo);
        box[hi] = Math.min(box[hi], inner.hi);
        if (box[hi] - box[lo] < before - 1) cuts.push({by: name(a), shown: Math.max(box[hi] - box[lo], 0), before});
        if (box[hi] - box[lo] <= 0) { box[hi] = box[lo]; }
      }
    }
    return {box, folded, fixed, cuts};
  };
"""

_PROBLEMS_JS = """([selector, minWidth, exclude]) => {""" + _WALK_JS + r"""
  const visuallyHidden = (el, r) => {
    const style = getComputedStyle(el);
    const clipped = /rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)/.test(style.clip) || style.clipPath === 'inset(50%)';
    return clipped || (r.width <= 1 && r.height <= 1 && style.position === 'absolute');
  };
  const problems = [];
  const seen = new Set();
  for (const el of document.querySelectorAll(selector)) {
    if (ignored(el, exclude)) continue;
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
    const {box, folded, fixed, cuts} = walk(target, r, true);
    if (folded) continue;
    const gone = cuts.find((cut) => cut.shown <= 0);
    const shown = Math.min(box.right, view.right) - Math.max(box.left, view.left);
    if (gone) {
      problems.push(`${name(el)} is clipped away entirely by ${gone.by}: ${sizeOf(r)}`);
    } else if (r.width < minWidth) {
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

# Code text: the outermost code element of each piece (a <code> in a <pre> is the <pre>'s text).
CODE = 'pre, code, [class*="content-text"]'

_CODE_JS = """([selector, exclude]) => {""" + _WALK_JS + r"""
  const problems = [];
  let checked = 0;
  for (const el of document.querySelectorAll(selector)) {
    if (el.parentElement.closest(selector) || ignored(el, exclude)) continue;
    const range = document.createRange();
    range.selectNodeContents(el);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.length) continue;
    const r = {left: Math.min(...rects.map((x) => x.left)), right: Math.max(...rects.map((x) => x.right)),
               top: Math.min(...rects.map((x) => x.top)), bottom: Math.max(...rects.map((x) => x.bottom))};
    r.width = r.right - r.left; r.height = r.bottom - r.top;
    const {box, folded, cuts} = walk(el, r, false);
    if (folded) continue;
    checked += 1;
    const text = `${el.tagName.toLowerCase()} "${el.textContent.replace(/\s+/g, ' ').trim().slice(0, 40)}"`;
    if (cuts.length) {
      const cut = cuts[0];
      problems.push(`code ${text}: ${Math.round(cut.before - cut.shown)} of ${Math.round(cut.before)} px `
                    + `never shown (cut by ${cut.by}): ${sizeOf(r)}`);
    } else if (box.right > view.right + 1 || box.left < view.left - 1) {
      problems.push(`code ${text} reaches past the window's edge: ${sizeOf(r)}`);
    }
  }
  return {checked, problems};
}"""


def unreachable_controls(page: Page, exclude: str = "") -> tuple[int, list[str]]:
    """(how many visible controls were measured, the ones a reader cannot fully reach or hit);
    none inside an element that `exclude` (a selector) matches."""
    found = page.evaluate(_PROBLEMS_JS, [CONTROLS, MIN_WIDTH, exclude])
    return found["checked"], found["problems"]


def unreachable_code(page: Page, exclude: str = "") -> tuple[int, list[str]]:
    """(how many pieces of visible code text were measured, the ones with characters a reader can
    never bring on screen); none inside an element that `exclude` matches."""
    found = page.evaluate(_CODE_JS, [CODE, exclude])
    return found["checked"], found["problems"]
