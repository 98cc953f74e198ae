"""Sign-off rules: which roles must approve, in which order, on the same content.

The chain (an ordered tuple of role names) comes from the conversation's team, per task type."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Approval:
    role: str
    content_hash: str


@dataclass(frozen=True)
class SignOffStep:
    role: str
    approved: bool


def progress(chain: Sequence[str], approvals: list[Approval], content_hash: str) -> list[SignOffStep]:
    """Only approvals of exactly this content count; a new revision starts over."""
    approved_roles = {a.role for a in approvals if a.content_hash == content_hash}
    return [SignOffStep(role, role in approved_roles) for role in chain]


def next_role(chain: Sequence[str], approvals: list[Approval], content_hash: str) -> str | None:
    for step in progress(chain, approvals, content_hash):
        if not step.approved:
            return step.role
    return None


def first_role(chain: Sequence[str]) -> str:
    return chain[0]
