"""Settings of the tool functions and model keys a team saved from the web may use (issue 45). A
mixin of Settings, beside settings_mcp.py (the MCP servers).

A team saved through the API or the browser editor is written by a web admin, who must not thereby
own the server. A tool `function` runs Python of the server's packages as its user; a model's
`api_key_env` sends a variable of the server's environment to the model's endpoint. So such a team
may name only the functions of the built-in teams and those listed here, send a key only from the
variables listed here, and only to an endpoint listed here, the configured OPENAI_BASE_URL or the
provider's own. Team files on disk and the CLI import are the operator's and are not restricted
(services/teams/web_policy.py).

TEAM_TOOL_FUNCTIONS: `package.module:function` paths, comma separated (as a team file writes them).
MODEL_ALLOWED_KEY_ENV: variable names, comma separated; default the variables the known providers'
SDKs read by themselves. MODEL_ALLOWED_URLS: http(s) URLs, comma separated, compared whole (a
trailing `/` aside); default the OpenAI and Anthropic APIs."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from hitl_dashboard.settings_mcp import comma_list, parse_variable_names

_FUNCTION = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")  # teams/model.py ToolDef.function
DEFAULT_KEY_ENV = "OPENAI_API_KEY,AZURE_OPENAI_API_KEY,ANTHROPIC_API_KEY"
DEFAULT_MODEL_URLS = "https://api.openai.com/v1,https://api.anthropic.com"


class WebTeamSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    team_tool_functions: str = ""
    model_allowed_key_env: str = DEFAULT_KEY_ENV
    model_allowed_urls: str = DEFAULT_MODEL_URLS

    @field_validator("team_tool_functions")
    @classmethod
    def _functions(cls, value: str) -> str:
        parse_functions(value)
        return value

    @field_validator("model_allowed_key_env")
    @classmethod
    def _key_env(cls, value: str) -> str:
        parse_variable_names(value)
        return value

    @field_validator("model_allowed_urls")
    @classmethod
    def _urls(cls, value: str) -> str:
        parse_urls(value)
        return value

    def tool_functions(self) -> list[str]:
        return parse_functions(self.team_tool_functions)

    def model_key_env(self) -> frozenset[str]:
        return frozenset(parse_variable_names(self.model_allowed_key_env))

    def model_urls(self) -> list[str]:
        return parse_urls(self.model_allowed_urls)


def parse_functions(text: str) -> list[str]:
    return comma_list(text, _FUNCTION.match, "function paths",
                      "write each as package.module:function (e.g. my_tools.deploys:rollback), comma separated")


def parse_urls(text: str) -> list[str]:
    urls = comma_list(text, _http_url, "http(s) URLs", "write each as e.g. https://gateway.example/v1, comma separated")
    return [normal_url(url) for url in urls]


def normal_url(url: str) -> str:
    """The URL as compared: scheme and host lower-cased, without a trailing `/`."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # e.g. "http://[": matches no allowed URL, as it stands
        return url.strip()
    return parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower()).geturl().rstrip("/")


def _http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)
