"""Settings of the MCP servers a team saved from the web may use (issue 45). A mixin of Settings.

A stdio MCP server is a command the server runs as its own user, with the variables the team's
env_from passes it. A team saved through the API or the browser editor is written by a web admin,
who must not thereby own the server: such a team may run only the command lines listed here, and
pass on (env_from, headers_env) only the variables listed here. Team files on disk and the CLI
import are the operator's and are not restricted (services/teams/stdio_policy.py).

MCP_STDIO_COMMANDS: JSON, {"name": ["command", "arg", ...]}: the whole command line, compared
exactly (allowing `python -m server` does not allow `python -c ...`). MCP_ALLOWED_ENV: variable
names, comma separated. Both empty by default: the web may declare no stdio server and pass no
variable."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_EXAMPLE = '{"files": ["/usr/bin/python3", "-m", "my_mcp_server"]}'


class McpSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    # A string parsed by parse_stdio_commands (a clear error, not pydantic-settings' JSON decoding).
    mcp_stdio_commands: str = "{}"
    mcp_allowed_env: str = ""
    # The MCP gateway (docs/mcp-gateway.md): the same call (team, server, tool, arguments) from the same
    # caller finds the same review while it waits, and for this long after it was last decided or reported.
    mcp_gateway_repeat_window_s: float = Field(default=600.0, ge=0, le=7 * 24 * 3600)
    # The HTTP gateway's sessions: "stateful" keeps each MCP session in the memory of the web worker that
    # opened it (a client's next request must reach that worker); "stateless" answers every request on
    # its own, so any worker serves any request. Unset: Settings picks (stateless when several web
    # processes may serve the deployment: see Settings._gateway_sessions).
    mcp_gateway_sessions: Literal["stateful", "stateless"] | None = None

    @field_validator("mcp_stdio_commands")
    @classmethod
    def _stdio_commands(cls, value: str) -> str:
        parse_stdio_commands(value)
        return value

    @field_validator("mcp_allowed_env")
    @classmethod
    def _allowed_env(cls, value: str) -> str:
        parse_variable_names(value)
        return value

    def stdio_commands(self) -> dict[str, list[str]]:
        return parse_stdio_commands(self.mcp_stdio_commands)

    def allowed_env(self) -> frozenset[str]:
        return frozenset(parse_variable_names(self.mcp_allowed_env))


def parse_stdio_commands(text: str) -> dict[str, list[str]]:
    """{name: command line} from JSON; ValueError naming what is wrong (never the whole value)."""
    try:
        data = json.loads(text.strip() or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"is not JSON ({exc.msg} at character {exc.pos}); use e.g. {_EXAMPLE}") from None
    if not isinstance(data, dict) or not all(
            isinstance(line, list) and line and all(isinstance(word, str) and word for word in line)
            for line in data.values()):
        raise ValueError(f"must map each server's name to its command line, a non-empty list of words: {_EXAMPLE}")
    bad = sorted(name for name in data if not _SERVER_NAME.match(name))
    if bad:
        raise ValueError(f"has {len(bad)} bad server name(s); a name is 1-40 letters, digits, '_', '.' or '-'")
    return {name: list(line) for name, line in data.items()}


class MissingVariables(LookupError):
    """An MCP server's definition passes variables this process does not have."""


def passed_variables(mapping: dict[str, str]) -> dict[str, str]:
    """{name in the server: value}, read from this process's variables named in `mapping` (env_from,
    headers_env): the values never sit in a team file."""
    missing = sorted(source for source in mapping.values() if source not in os.environ)
    if missing:
        raise MissingVariables(f"the MCP server needs the environment variable(s) {', '.join(missing)}")
    return {target: os.environ[source] for target, source in mapping.items()}


def comma_list(text: str, fits: Callable[[str], object], what: str, advice: str) -> list[str]:
    """The entries of a comma-separated setting; ValueError counting those that do not fit (never
    echoing them: a value may be a secret pasted in the wrong place)."""
    entries = [entry.strip() for entry in text.split(",") if entry.strip()]
    bad = [entry for entry in entries if not fits(entry)]
    if bad:
        raise ValueError(f"has {len(bad)} entry(ies) that are not {what}; {advice}")
    return entries


def parse_variable_names(text: str) -> list[str]:
    return comma_list(text, _VARIABLE.match, "variable names",
                      "use names such as GITHUB_TOKEN,AWS_REGION, comma separated")
