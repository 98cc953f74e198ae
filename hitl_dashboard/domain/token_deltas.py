"""A stored message as the token-sized pieces a streaming client expects (the AG-UI stream): whole
words with the whitespace after them, a few words per piece, that add up to exactly the text."""

from __future__ import annotations

import re

MAX_DELTA_CHARS = 48  # about a dozen tokens: a 3,000-line file is thousands of events, not a million
_WORDS = re.compile(r"\S+\s*|\s+")


def deltas(text: str, max_chars: int = MAX_DELTA_CHARS) -> list[str]:
    """Pieces of at most `max_chars` characters (a longer word is split), none empty, whose
    concatenation is `text`. The same text always gives the same pieces: a client that resumes
    mid-message gets the rest of the very pieces it was reading."""
    pieces: list[str] = []
    current = ""
    for word in _WORDS.findall(text):
        while len(word) > max_chars:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:max_chars])
            word = word[max_chars:]
        if len(current) + len(word) > max_chars:
            pieces.append(current)
            current = ""
        current += word
    if current:
        pieces.append(current)
    return [p for p in pieces if p]
