"""Static-analysis findings of one code revision (issue 14)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class FindingPublic(BaseModel):
    analyser: Literal["bandit", "ruff"]
    rule: str
    severity: Literal["low", "medium", "high"]
    line: int
    column: int
    message: str  # about agent-written code: render it as text


class RevisionFindingsPublic(BaseModel):
    revision_id: int
    file: str
    number: int
    content_hash: str
    status: Literal["pending", "running", "analysed", "not_analysed"]
    reason: str | None  # why not analysed (timeout, too large, not Python)
    findings: list[FindingPublic]
