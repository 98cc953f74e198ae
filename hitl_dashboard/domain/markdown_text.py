"""Untrusted text inside a Markdown document we write (transcript exports).

Two tools, both safe under any CommonMark renderer, with raw HTML allowed or not:
- `fenced` puts text in a fenced code block whose fence is longer than any run of backticks in
  the text, so nothing inside can close it; a code block shows its content as text, never HTML.
- `inline` escapes every ASCII punctuation character with a backslash (CommonMark lets any of
  them be escaped), so no tag, link, emphasis or heading can start in a one-line value."""

from __future__ import annotations

import re

from hitl_dashboard.domain.text_cuts import cut_visibly

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_BACKTICK_RUNS = re.compile(r"`+")
_INFO = re.compile(r"[^A-Za-z0-9_+.-]")


def inline(text: str, *, limit: int = 300) -> str:
    """A one-line value (a title, a name, a reason) as literal text."""
    flat = cut_visibly(" ".join(str(text).split()), limit)
    return _PUNCTUATION.sub(r"\\\1", flat)


def fence_for(text: str) -> str:
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def fenced(text: str, language: str = "") -> str:
    """A fenced code block holding `text` exactly. The info string keeps only characters that
    name a language (a backtick there would break the fence)."""
    fence = fence_for(text)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{_INFO.sub('', language)[:32]}\n{body}{fence}\n"
