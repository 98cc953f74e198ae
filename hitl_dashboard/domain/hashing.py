"""Content hashes: sign-offs and audit events bind to exact content through these."""

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(value: Any) -> str:
    """Hash of text, or of a JSON value in canonical form (key order does not matter)."""
    if isinstance(value, str):
        return sha256_text(value)
    return sha256_text(canonical_json(value))
