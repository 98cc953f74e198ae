"""What a caller of an external approval can be told, as exceptions."""

from __future__ import annotations


class ApprovalError(Exception):
    """The server refused the request (bad input, unknown team, a token without the right, ...)."""

    def __init__(self, message: str, status_code: int | None = None):
        super().__init__(message)
        self.status_code = status_code


class RequestIdConflict(ApprovalError):
    """This request_id was already used for a different request (HTTP 409): pick a new id."""


class ApprovalDenied(Exception):
    """A reviewer denied the request (or it was aborted, or its deadline passed with abort)."""

    def __init__(self, reason: str, *, approval_id: int, decided_by: str | None = None):
        super().__init__(f"approval {approval_id} denied: {reason}")
        self.reason = reason
        self.approval_id = approval_id
        self.decided_by = decided_by


class RevisionRequested(Exception):
    """A reviewer asks for changes: revise as instructed and ask again with a new request_id."""

    def __init__(self, instructions: str, *, approval_id: int, decided_by: str | None = None):
        super().__init__(f"approval {approval_id}: revision requested: {instructions}")
        self.instructions = instructions
        self.approval_id = approval_id
        self.decided_by = decided_by


class ApprovalTimeout(Exception):
    """Still pending when the caller's own timeout ran out. The review stays open: asking again with
    the same request_id picks it up where it is."""

    def __init__(self, approval_id: int, waited_s: float):
        super().__init__(f"approval {approval_id} still pending after {waited_s:.0f} s")
        self.approval_id = approval_id
