"""Errors raised by the agents layer, with messages meant to be shown to people as they are."""


class ModelCallFailed(Exception):
    """A model call failed for good (after retries, or with an error retrying cannot fix).

    The message says in plain words what went wrong, e.g.
    "model endpoint http://127.0.0.1:8000/v1 answered HTTP 500 three times".
    The underlying exception is chained as ``__cause__``.
    """
