"""The names the gateway lists: each upstream tool under its own name, or `<server>__<tool>` when
two servers offer a tool of the same name (then both are prefixed, so neither wins by order)."""

from __future__ import annotations

from collections import Counter

SEPARATOR = "__"


def public_names(listing: dict[str, list[str]]) -> dict[str, tuple[str, str]]:
    """{listed name: (server, tool)} from {server: its tools' names}."""
    counts = Counter(tool for tools in listing.values() for tool in tools)
    names: dict[str, tuple[str, str]] = {}
    for server, tools in listing.items():
        for tool in tools:
            names[tool if counts[tool] == 1 else f"{server}{SEPARATOR}{tool}"] = (server, tool)
    return names
