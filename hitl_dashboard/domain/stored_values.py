"""Rules that make model output fit the columns it is stored in.

Agent and model output is untrusted and unbounded; a value that does not fit its column must not
make a turn unstorable (on PostgreSQL a too-long value is an error, not a silent truncation).
Each rule is stable: the same input always gives the same stored value, so revisions of one long
file name still line up, and two different long names stay distinct (a hash of the full value is
kept in what is stored)."""

from __future__ import annotations

import hashlib
import re

# Column sizes in db/models.py; kept here so the rules need no ORM import.
KEY_CHARS = 255
LANGUAGE_CHARS = 32
SOURCE_CHARS = 64
MODEL_CHARS = 128  # messages.model
CALL_ID_CHARS = 128
LABEL_CHARS = 255
TOOL_NAME_CHARS = 64

_HASH_CHARS = 12
_KEY_JUNK = re.compile(r"[^A-Za-z0-9._/+@=-]+")
_LANGUAGE_JUNK = re.compile(r"[^a-z0-9+#._-]+")
_TOOL_NAME = re.compile(rf"^[A-Za-z_][A-Za-z0-9_.-]{{0,{TOOL_NAME_CHARS - 1}}}$")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]


def storable_text(text: str) -> str:
    """Text any database accepts: PostgreSQL refuses NUL characters, and a lone surrogate (from a
    JSON escape like \\ud800) cannot be encoded as UTF-8 by either driver."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")  # each lone surrogate becomes "?"
    return text


def fit_with_hash(value: str, limit: int) -> str:
    """`value` if it fits, else a readable prefix + "~" + a short hash of the whole value."""
    value = storable_text(value)
    if len(value) <= limit:
        return value
    return value[: limit - _HASH_CHARS - 1] + "~" + _digest(value)


def revision_key(raw: str) -> str:
    """A file key as stored: a relative path of safe characters, at most KEY_CHARS long.

    Path junk (backslashes, "." and ".." parts, a leading "/", spaces, control characters) is
    normalised, so "./app/x.py" and "app/x.py" are one file. A name still too long keeps its start
    and its extension around a hash of the whole name."""
    parts = [p for p in raw.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    cleaned = "/".join(_KEY_JUNK.sub("_", p).strip("_") or "_" for p in parts) or "snippet"
    if len(cleaned) <= KEY_CHARS:
        return cleaned
    stem, dot, ext = cleaned.rpartition(".")
    suffix = f".{ext}" if dot and stem and "/" not in ext and len(ext) <= 16 else ""
    room = KEY_CHARS - _HASH_CHARS - 1 - len(suffix)
    return cleaned[: len(cleaned) - len(suffix)][:room] + "~" + _digest(cleaned) + suffix


def language_token(raw: str | None) -> str:
    """A fence's language as a short lower-case token; "text" when there is nothing usable."""
    token = _LANGUAGE_JUNK.sub("", (raw or "").lower())[:LANGUAGE_CHARS]
    return token or "text"


def short_label(text: str, limit: int = LABEL_CHARS) -> str:
    """A label for people: cut with an ellipsis (the label is not an identifier)."""
    text = storable_text(text)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def is_tool_name(name: str) -> bool:
    """Tool names that can be registered and stored: an identifier of at most TOOL_NAME_CHARS."""
    return bool(_TOOL_NAME.match(name))
