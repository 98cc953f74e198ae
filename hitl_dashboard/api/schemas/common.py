"""Field types shared by the request models: text the databases can store, bounded ids, UTC times."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Path, Query
from pydantic import AfterValidator, BeforeValidator, StringConstraints

_NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")
# Ids are 32-bit on every database we support; larger numbers are simply unknown (404/422).
MAX_ID = 2**31 - 1


def _storable(value: str) -> str:
    # PostgreSQL refuses NUL in text, and no database stores lone surrogates: say so as a 422,
    # rather than letting the driver fail with a 500.
    if "\x00" in value:
        raise ValueError("text may not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    return value


def _iso_only(value: object) -> object:
    # pydantic would read "0.5" as seconds since 1970; the schema promises ISO 8601 date-times.
    if isinstance(value, (int, float)) or (isinstance(value, str) and _NUMBER.match(value)):
        raise ValueError("expected an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z")
    return value


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:
        raise ValueError("date out of range") from None


def text_rules(max_length: int, min_length: int = 0) -> tuple[Any, ...]:
    """The rules of storable text: `Annotated[str, *text_rules(200)]` (a type checker reads that, not
    a call in an annotation)."""
    return StringConstraints(min_length=min_length, max_length=max_length), AfterValidator(_storable)





# Teams are data (docs/teams.md): which agents a team has is checked by the service against the
# conversation's pinned team (422 naming the field); the request only bounds the name's shape.
AgentName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
UtcDatetime = Annotated[datetime, BeforeValidator(_iso_only), AfterValidator(_utc)]
IdPath = Annotated[int, Path(ge=1, le=MAX_ID)]
Limit = Annotated[int, Query(ge=1, le=500)]
Offset = Annotated[int, Query(ge=0, le=1_000_000)]
Seq = Annotated[int, Query(ge=0, le=MAX_ID)]
