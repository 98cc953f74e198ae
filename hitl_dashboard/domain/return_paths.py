"""Where a sign-in may send the browser afterwards: only a path of this site.

A deep link opened while signed out travels through the sign-in page (and the identity provider)
as `next`. Anything that could leave the site is dropped, not repaired: `//evil.example` and
`/\\evil.example` are protocol-relative to browsers, `https://...` is absolute, and control
characters can split a header or be stripped by a browser into one of the above."""

from __future__ import annotations

from urllib.parse import urlsplit

MAX_RETURN_PATH_CHARS = 2000
# Where a sign-in lands when no (acceptable) deep link came with it.
NO_RETURN_PATH = ""


def safe_return_path(candidate: str | None) -> str:
    """`candidate` if it is a same-site relative path ("/conversations/7?x=1#m"), else ""."""
    path = (candidate or "").strip()
    if not path or len(path) > MAX_RETURN_PATH_CHARS or not path.startswith("/"):
        return NO_RETURN_PATH
    if path.startswith("//") or "\\" in path:
        return NO_RETURN_PATH
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in path):
        return NO_RETURN_PATH
    parts = urlsplit(path)
    if parts.scheme or parts.netloc:
        return NO_RETURN_PATH
    if path.startswith(("/login", "/auth/")):  # back to the sign-in itself would loop
        return NO_RETURN_PATH
    return path
