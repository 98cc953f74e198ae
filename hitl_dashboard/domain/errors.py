"""Errors with a clear message; the edges turn them into an HTTP status, exit code or UI text."""


class DomainError(Exception):
    """Base class: a rule refused the request. `str(err)` is meant for the user."""


class NotFound(DomainError):
    pass


class PermissionDenied(DomainError):
    pass


class Conflict(DomainError):
    """The thing changed under you (stale version, already decided, claimed by someone else)."""


class MalformedRequest(DomainError):
    """The request itself is unreadable (a malformed header, say): HTTP 400, not 422."""


class InvalidInput(DomainError):
    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field
