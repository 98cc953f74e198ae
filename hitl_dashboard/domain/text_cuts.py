"""The one way text is shortened to a cap: never silently. A cut text ends with how much is
missing ("... [1,234 more characters]"), so a reader (or a model) never takes a part for the whole.
The caps are listed in docs/operations.md ("Text caps")."""

from __future__ import annotations

WORD_SEARCH = 30  # cut at a space this close to the cap rather than mid-word


def cut_marker(missing: int) -> str:
    return f" ... [{missing:,} more characters]"


def cut_visibly(text: str, limit: int) -> str:
    """`text` if it has at most `limit` characters; else its start and the marker, together at most
    `limit` characters (so the result fits the column the cap protects)."""
    if len(text) <= limit:
        return text
    room = limit - len(cut_marker(len(text)))
    if room <= 0:  # a cap too small for the marker: the marker alone says that text is missing
        return cut_marker(len(text)).strip()[:limit]
    space = text.rfind(" ", max(room - WORD_SEARCH, 1), room + 1)
    shown = text[: space if space > 0 else room].rstrip()
    return shown + cut_marker(len(text) - len(shown))
