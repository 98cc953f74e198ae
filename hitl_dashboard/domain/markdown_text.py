"""Untrusted text inside a Markdown document we write (transcript exports).

Two tools, both safe under CommonMark and GitHub's renderer (cmark-gfm), with raw HTML allowed or not:
- `fenced` puts text in a fenced code block whose fence is longer than any run of backticks in
  the text, so nothing inside can close it; a code block shows its content as text, never HTML.
- `inline` keeps a one-line value (a title, a name, a date) as written, escaping only the characters
  that would otherwise start markup there, so "plan_v2", "a.b" or "2026-12-04T10:00" carry no
  backslashes, and no tag, link, image, emphasis, code span, entity or block can start in it.

What `inline` escapes, and why each (everything else is literal text to every renderer):
- `<` (HTML tags, comments, <scheme:...> autolinks), `[` (links, images, footnotes), backticks (code
  spans), `*` and `~` (emphasis, strikethrough), `_` unless between letters or digits (inside a word
  it never emphasises), a backslash before punctuation (it would escape that character), `&` that
  spells an entity (`&lt;` would turn into `<`);
- the colon of "scheme://" and the dot of "www." (GitHub links bare URLs; an escaped one stays text);
- a line's last run of `#` after a space (a heading would drop it as its closing sequence), and what
  would start a block if the value began a line ("# ", ">", "- ", "+ ", "---", "===", "1. ", "1) ").
GitHub also links bare e-mail addresses (mailto:, xmpp:) and no escape prevents it; such a link opens
no page and runs nothing."""

from __future__ import annotations

import re

from hitl_dashboard.domain.text_cuts import cut_visibly

_BACKTICK_RUNS = re.compile(r"`+")
_INFO = re.compile(r"[^A-Za-z0-9_+.-]")
_ALNUM = r"[^\W_]"  # a letter or digit of any script
_MARKUP = re.compile(
    r"[<\[`*~]"
    rf"|(?<!{_ALNUM})_|_(?!{_ALNUM})"
    r"|\\(?=[!-/:-@\[-`{-~])"
    r"|&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)"
    r"|(?<=[A-Za-z0-9])\:(?=//)"
    r"|(?<=(?<![A-Za-z0-9.])[wW]{3})\."
)
_CLOSING_HASHES = re.compile(r"(^|\s)#(#*)$")
# What would open a heading, quote, list, thematic break or setext underline at the start of a line.
_BLOCK_START = re.compile(r"^(?:#{1,6}(?=\s|$)|>|\+(?=\s|$)|-(?=\s|[-\s]*$)|=(?=[=\s]*$)|\d{1,9}(?=[.)](?:\s|$)))")


def inline(text: str, *, limit: int = 300) -> str:
    """A one-line value as literal text that reads as written (see the module's docstring)."""
    flat = cut_visibly(" ".join(str(text).split()), limit)
    escaped = _MARKUP.sub(lambda m: "\\" + m.group(0), flat)
    escaped = _CLOSING_HASHES.sub(r"\1\\#\2", escaped)
    return _BLOCK_START.sub(_escape_block_start, escaped, count=1)


def _escape_block_start(match: re.Match[str]) -> str:
    start = match.group(0)
    return start + "\\" if start[0].isdigit() else "\\" + start  # "1\." is not a list item


def fence_for(text: str) -> str:
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def fenced(text: str, language: str = "") -> str:
    """A fenced code block holding `text` exactly. The info string keeps only characters that
    name a language (a backtick there would break the fence)."""
    fence = fence_for(text)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{_INFO.sub('', language)[:32]}\n{body}{fence}\n"
