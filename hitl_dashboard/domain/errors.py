"""Errors with a clear message; the edges turn them into an HTTP status, exit code or UI text."""


class DomainError(Exception):
    """Base class: a rule refused the request. `str(err)` is meant for the user."""


class NotFound(DomainError):
    pass


class PermissionDenied(DomainError):
    pass


class Conflict(DomainError):
    """The thing changed under you (stale version, already decided, claimed by someone else)."""


class InvalidInput(DomainError):
    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class TooManyAttempts(DomainError):
    """Throttled: too many recent failures. `retry_after_s` says when trying again makes sense."""

    def __init__(self, message: str, retry_after_s: int):
        super().__init__(message)
        self.retry_after_s = retry_after_s
