"""What we know of some AutoGen model providers, as data: which ones take a key from the environment
by themselves, and which are autogen-ext's OpenAI clients.

Why it matters: the OpenAI SDK reads OPENAI_API_KEY when its configuration gives no key. A team file
that names a local gateway as base_url and says nothing about a key would have the operator's OpenAI
key sent to that gateway. So a model of such a provider must say where its key comes from:
`api_key_env` (a variable name), or `api_key: ""` under config for a server that takes no key (the
client builder then sends a placeholder, never a key of the environment)."""

from __future__ import annotations

from typing import Any

OPENAI = "autogen_ext.models.openai.OpenAIChatCompletionClient"
AZURE_OPENAI = "autogen_ext.models.openai.AzureOpenAIChatCompletionClient"
ANTHROPIC = "autogen_ext.models.anthropic.AnthropicChatCompletionClient"
OLLAMA = "autogen_ext.models.ollama.OllamaChatCompletionClient"

# The model clients a team's model may name, as the team editor offers them (services/teams/
# model_choices.py keeps those this server can import). Any other AutoGen provider class path still
# works in the file itself.
KNOWN_PROVIDERS = {
    "scripted": "Scripted (offline, no key)",
    "server": "This server's model (MODEL_PROVIDER)",
    OPENAI: "OpenAI, or an OpenAI-compatible server",
    AZURE_OPENAI: "Azure OpenAI",
    ANTHROPIC: "Anthropic",
    OLLAMA: "Ollama",
}

# Every name ChatCompletionClient.load_component accepts for them (autogen_core WELL_KNOWN_PROVIDERS,
# and the class paths of their modules).
_IMPLICIT_KEYS = {
    **dict.fromkeys((OPENAI, "OpenAIChatCompletionClient", "openai_chat_completion_client",
                     "autogen_ext.models.openai._openai_client.OpenAIChatCompletionClient"), "OPENAI_API_KEY"),
    **dict.fromkeys((AZURE_OPENAI, "AzureOpenAIChatCompletionClient", "azure_openai_chat_completion_client",
                     "autogen_ext.models.openai._openai_client.AzureOpenAIChatCompletionClient"),
                    "AZURE_OPENAI_API_KEY"),
    **dict.fromkeys((ANTHROPIC, "autogen_ext.models.anthropic._anthropic_client.AnthropicChatCompletionClient"),
                    "ANTHROPIC_API_KEY"),
}
NO_KEY = ""  # api_key: "" under config: this server takes no key


def implicit_key_variable(provider: str) -> str | None:
    """The variable the provider's SDK would read by itself (None: none that we know of)."""
    return _IMPLICIT_KEYS.get(provider)


def is_openai_sdk(provider: str) -> bool:
    """An autogen-ext OpenAI or Azure OpenAI client (its config takes timeout and max_retries)."""
    return implicit_key_variable(provider) in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY")


def implicit_key_problem(provider: str, config: dict[str, Any], api_key_env: str | None) -> str | None:
    """Why this model would send a key of the environment that the file never named (None: it would not)."""
    variable = implicit_key_variable(provider)
    explicit = api_key_env or config.get("api_key") == NO_KEY or config.get("azure_ad_token_provider")
    if variable is None or explicit:
        return None
    where = config.get("base_url") or config.get("azure_endpoint") or "its endpoint"
    return (f"api_key_env is missing: say where the key comes from, with api_key_env: {variable} (or another "
            f"variable), or with api_key: \"\" under config for a server that takes no key; with neither, the SDK "
            f"would send the {variable} of the server's environment to {where}")


def is_known_provider(provider: str) -> bool:
    """One of the model clients above, by any name we list for it (a team saved from the web may use
    only these: loading a provider imports its module, whatever module the name points at)."""
    return provider in KNOWN_PROVIDERS or provider in _IMPLICIT_KEYS
