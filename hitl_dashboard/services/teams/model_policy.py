"""The models a team written by a web admin may use (issue 45, with web_policy.py). A model's
`api_key_env` sends a variable of the server's environment as a key to the model's endpoint, and
its `provider` is a class path whose module is imported. A web admin could otherwise send
SLACK_SIGNING_SECRET to a URL of theirs, or import any module of the server's packages.

So a model of a team saved from the web:
- names one of the model clients the product knows (teams/providers.py), or scripted / server;
- sends a key only from a variable of MODEL_ALLOWED_KEY_ENV;
- when it sends a key (api_key_env, or an Azure token provider: the server's own identity), sends it
  only to an endpoint of MODEL_ALLOWED_URLS or the configured OPENAI_BASE_URL, or leaves the endpoint
  to the provider (its SDK's default, or the operator's variable such as OPENAI_BASE_URL). Every
  `config` key naming an endpoint (`base_url`, `azure_endpoint`, `host`, any `*url*`, `*endpoint*`,
  `*host*`) counts.
A model that sends no key (`api_key: ""`) may name any endpoint: it carries no secret there."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.settings import get_settings
from hitl_dashboard.settings_web_teams import normal_url
from hitl_dashboard.teams.model import SCRIPTED, SERVER, ModelDef, TeamDefinition
from hitl_dashboard.teams.providers import KNOWN_PROVIDERS, is_known_provider

_ENDPOINT_WORDS = ("url", "endpoint", "host")
_CREDENTIALS = ("azure_ad_token_provider",)  # config keys that send a credential of the server's


def model_problems(team: TeamDefinition) -> list[str]:
    problems: list[str] = []
    for name, model in team.models.items():
        if model.provider not in (SCRIPTED, SERVER):
            problems += _model_problems(f"models.{name}", model)
    return problems


def _model_problems(where: str, model: ModelDef) -> list[str]:
    if not is_known_provider(model.provider):
        known = ", ".join(p for p in KNOWN_PROVIDERS if p not in (SCRIPTED, SERVER))
        return [f"{where}.provider: {model.provider} is not a model client a team saved from the web may use; "
                f"use scripted, server or one of {known} (a team file on disk, or `hitl_dashboard teams "
                "import`, may name any)"]
    problems: list[str] = []
    variables = get_settings().model_key_env()
    if model.api_key_env and model.api_key_env not in variables:
        listed = (f"the allowed ones (MODEL_ALLOWED_KEY_ENV) are {', '.join(sorted(variables))}" if variables
                  else "none is allowed: the operator lists them in MODEL_ALLOWED_KEY_ENV")
        problems.append(f"{where}.api_key_env: a team saved from the web may not send the server's variable "
                        f"{model.api_key_env} as a model key; {listed}")
    if model.api_key_env or any(model.config.get(key) for key in _CREDENTIALS):
        allowed = allowed_urls()
        for key, url in _endpoints(model.config).items():
            if normal_url(url) not in allowed:
                problems.append(f"{where}.config.{key}: a team saved from the web may not send a key to {url}; "
                                f"{_listed(key, allowed)}")
    return problems


def allowed_urls() -> dict[str, str]:
    """{URL as compared: where it is allowed}."""
    settings = get_settings()
    allowed = dict.fromkeys(settings.model_urls(), "MODEL_ALLOWED_URLS")
    if settings.openai_base_url:
        allowed[normal_url(settings.openai_base_url)] = "OPENAI_BASE_URL"
    return allowed


def _endpoints(config: dict[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in config.items()
            if any(word in str(key).lower() for word in _ENDPOINT_WORDS) and isinstance(value, str) and value}


def _listed(key: str, allowed: dict[str, str]) -> str:
    urls = ", ".join(f"{url} ({setting})" for url, setting in allowed.items())
    return (f"the endpoints it may send one to are the provider's own (leave {key} out) and {urls or 'no other'}; "
            f"a server that takes no key needs none (api_key: \"\" under config, without api_key_env)")
