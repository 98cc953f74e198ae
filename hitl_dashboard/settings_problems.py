"""Turn pydantic's ValidationError for Settings into one line per problem, without values.

pydantic's own text ends with `input_value=...`, which for a model-level rule is the whole
environment-derived settings dict: secrets included. So each line is rebuilt here from the
error's location and message only, and any input value that still shows up is blanked."""

from __future__ import annotations

from pydantic import ValidationError
from pydantic_core import ErrorDetails

HIDDEN = "<hidden>"
# Shorter values are words like "false" that our own messages legitimately contain.
MIN_SCRUBBED_LENGTH = 6


def describe(exc: ValidationError) -> list[str]:
    return [_scrub(_line(error), error.get("input")) for error in exc.errors(include_url=False)]


def env_name(field: str) -> str:
    return field.upper()  # the settings have no env prefix and are case-insensitive


def _line(error: ErrorDetails) -> str:
    message = error["msg"]
    if error["type"] == "value_error":
        # Our validators phrase the whole line (the problem and what to do).
        message = message.removeprefix("Value error, ")
    else:
        message = message.removeprefix("Input ") + "; set a valid value or unset it to use the default"
    fields = [part for part in error["loc"] if isinstance(part, str)]
    if not fields:  # a rule across several settings: the message names its variables itself
        return message
    return f"{env_name(fields[0])}: {message}"


def _scrub(line: str, value: object) -> str:
    for text in _strings_in(value):
        if len(text) >= MIN_SCRUBBED_LENGTH:
            line = line.replace(text, HIDDEN)
    return line


def _strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings_in(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings_in(item)]
    return []
