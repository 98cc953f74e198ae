"""How the CLI prints: a human table/text by default, JSON with --json."""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import datetime
from typing import Any


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items()}
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump())
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def emit(args, data: Any, text: str | None = None) -> None:
    if getattr(args, "json", False):
        print(json.dumps(_plain(data), indent=2, default=str))
    elif text is not None:
        print(text)
    else:
        print(json.dumps(_plain(data), indent=2, default=str))


def fail(args, exc: Exception, code: int) -> int:
    field = getattr(exc, "field", None)
    # A configuration error carries one line per bad variable; everything else is one message.
    problems = getattr(exc, "problems", None)
    # A refusal names what was refused (`when.0.argument: ...`), as the API's 422 does, unless it already does.
    named = field and not str(exc).startswith(f"{field}:") and not problems
    lines = problems or [f"{field}: {exc}" if named else str(exc)]
    if getattr(args, "json", False):
        error = {"error": type(exc).__name__, "message": str(exc), "field": field}
        print(json.dumps(error | ({"problems": problems} if problems else {})), file=sys.stderr)
    else:
        for line in lines:
            print(f"error: {line}", file=sys.stderr)
    return code


def table(rows: list[list[Any]], headers: list[str]) -> str:
    cells = [headers] + [[("" if c is None else str(c)) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
