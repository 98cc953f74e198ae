"""Values a browser sends to an event handler, read defensively: any browser may send anything."""

from __future__ import annotations

MAX_ROW_ID = 2**31 - 1  # the API's bound on ids too (api/schemas/common.py)


def row_id(value: object) -> int | None:
    """A positive row id from a browser's argument (an int, or digits), or None for anything else:
    text, floats, booleans, and numbers a database column could not hold."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and 0 < value <= MAX_ROW_ID else None
