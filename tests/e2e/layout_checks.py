"""What a reader sees of the layout, measured in the page: wrapped text too narrow to read, a page
wider than the window, code lines that wrap or lose their indentation."""

from __future__ import annotations

from playwright.sync_api import Locator, Page

# Every text node that wraps onto several lines: the width its lines span, in the node's own
# average character width ("expo / nenti / al" spans about 5). Text that cannot wrap (nowrap, pre)
# and text with hard line breaks are left out: their short lines are the author's.
_NARROW_TEXT_JS = """(minChars) => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    const chars = text.replace(/\\s+/g, ' ').trim().length;
    if (chars < 2) continue;
    const style = getComputedStyle(node.parentElement);
    if (style.whiteSpace === 'nowrap' || style.whiteSpace === 'pre') continue;
    if (text.includes('\\n') && style.whiteSpace !== 'normal') continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    const lines = new Set(rects.map((r) => Math.round(r.top)));
    if (lines.size < 2) continue;
    const span = Math.max(...rects.map((r) => r.right)) - Math.min(...rects.map((r) => r.left));
    const charWidth = rects.reduce((sum, r) => sum + r.width, 0) / chars;
    const perLine = span / charWidth;
    if (perLine < minChars) found.push(`${perLine.toFixed(1)} chars per line: ${text.slice(0, 50)}`);
  }
  return found;
}"""

# One entry per line of a code element: its text, and where its first and last visible
# characters are drawn (a line that wraps ends lower than it starts).
_CODE_LINES_JS = """(code) => {
  const chars = [];
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.textContent.length; i++) chars.push([node, i, node.textContent[i]]);
  }
  const box = (entry) => {
    const range = document.createRange();
    range.setStart(entry[0], entry[1]);
    range.setEnd(entry[0], entry[1] + 1);
    const r = range.getBoundingClientRect();
    return {left: r.left, top: r.top, width: r.width};
  };
  const lines = [];
  let current = [];
  for (const entry of [...chars, null]) {
    if (entry === null || entry[2] === '\\n') {
      const text = current.map((c) => c[2]).join('');
      const visible = current.filter((c) => c[2].trim() !== '');
      lines.push({text, first: visible.length ? box(visible[0]) : null,
                  last: visible.length ? box(visible[visible.length - 1]) : null,
                  indent: text.length - text.trimStart().length});
      current = [];
    } else {
      current.push(entry);
    }
  }
  return lines;
}"""


# Where a code cell's last character is drawn, and whether a reader sees it there: inside the cell's
# box and the window, and not covered or clipped away (the topmost element at that spot is in the
# cell). What the eyes need, not a DOM property: a computed transform, say, may move nothing.
LAST_CHARS_SEEN = """(cell) => {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  let last = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (node.textContent.trim()) last = node;
  const end = last.textContent.trimEnd().length;
  const range = document.createRange();
  range.setStart(last, end - 1);
  range.setEnd(last, end);
  const at = range.getBoundingClientRect(), box = cell.getBoundingClientRect();
  const x = at.left + at.width / 2, y = at.top + at.height / 2;
  const inCell = x >= box.left && x <= box.right, inWindow = x >= 0 && x <= window.innerWidth;
  return inCell && inWindow && cell.contains(document.elementFromPoint(x, y));
}"""


def end_is_seen(cell: Locator) -> bool:
    """Whether the last character of the code in `cell` is drawn where a reader sees it."""
    return cell.evaluate(LAST_CHARS_SEEN)


def narrow_text(page: Page, min_chars: int) -> list[str]:
    return page.evaluate(_NARROW_TEXT_JS, min_chars)


def horizontal_overflow(page: Page) -> int:
    """How many pixels the page is wider than the window (0: no sideways scrolling)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def overflowing(page: Page) -> list[str]:
    """The innermost elements that reach past the window's right edge (to say what widens the page)."""
    return page.evaluate("""() => [...document.body.querySelectorAll('*')]
        .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .filter((el) => ![...el.children].some((c) => c.getBoundingClientRect().right
                                                      > document.documentElement.clientWidth + 1))
        .slice(0, 5).map((el) => `${el.tagName}.${el.className} ${el.textContent.slice(0, 40)}`)""")


def code_lines(code: Locator) -> list[dict]:
    return code.evaluate(_CODE_LINES_JS)


def box(locator: Locator) -> dict:
    found = locator.bounding_box()
    assert found, f"{locator} has no box (not displayed)"
    return found
