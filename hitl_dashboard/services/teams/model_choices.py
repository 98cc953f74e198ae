"""The model clients this server can build for a team's model (the team editor's choices): the
scripted model, the server's own, and the known AutoGen clients whose extra is installed here."""

from __future__ import annotations

import functools
import importlib

from hitl_dashboard.teams.model import SCRIPTED, SERVER
from hitl_dashboard.teams.providers import KNOWN_PROVIDERS


@functools.cache
def usable_providers() -> tuple[tuple[str, str], ...]:
    """(provider, label) pairs, in the order of KNOWN_PROVIDERS. Imported once per process: an
    extra is installed, or not, for the life of the server."""
    return tuple((provider, label) for provider, label in KNOWN_PROVIDERS.items() if _imports(provider))


def _imports(provider: str) -> bool:
    if provider in (SCRIPTED, SERVER):
        return True
    module, _, attribute = provider.rpartition(".")
    try:
        return hasattr(importlib.import_module(module), attribute)
    except ImportError:  # the provider's extra (its SDK) is not installed on this server
        return False
