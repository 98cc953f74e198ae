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


class ConfigurationError(Exception):
    """The environment does not configure a runnable app. One line per problem, each naming the
    environment variable and what to do; never the value (it may be a secret)."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


class DatabaseNotReady(Exception):
    """The database cannot serve this version of the app: unreachable, or its schema is not at the
    migrations' head. The message says what to run."""


class DatabaseNotMigrated(DatabaseNotReady):
    pass


class TooManyAttempts(DomainError):
    """Throttled: too many recent failures. `retry_after_s` says when trying again makes sense."""

    def __init__(self, message: str, retry_after_s: int):
        super().__init__(message)
        self.retry_after_s = retry_after_s
