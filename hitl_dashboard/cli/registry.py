"""The CLI's registry: each command module declares its parsers next to its handlers.

A handler is registered under its full name ("users add"); the parser stores that name, and
cli/entry.py looks the handler up after parsing. Command modules import this module, never
each other or the entry point, so the CLI has no import cycle."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from hitl_dashboard.domain.bounded_input import load_json
from hitl_dashboard.domain.errors import InvalidInput

Handler = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, Handler] = {}


def command(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        COMMANDS[name] = handler
        return handler

    return register


def group(sub: Any, name: str, help_text: str) -> Any:
    """A command with subcommands (`users add`, `users list`)."""
    return sub.add_parser(name, help=help_text).add_subparsers(dest=f"{name}_command", required=True)


def leaf(sub: Any, name: str, help_text: str, *, handler: str | None = None,
         aliases: tuple[str, ...] = ()) -> argparse.ArgumentParser:
    """A runnable command; every one takes --json. `handler` defaults to the command's name."""
    parser = sub.add_parser(name, help=help_text, aliases=list(aliases))
    parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    parser.set_defaults(handler=handler or name)
    return parser


def json_arg(text: str | None, field: str) -> Any:
    """A JSON-valued option, or a clear error naming it."""
    if text is None:
        return None
    try:
        return load_json(text, f"--{field}")
    except InvalidInput as exc:
        raise InvalidInput(str(exc), field) from None
