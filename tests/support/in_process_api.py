"""The real API app in this process (Starlette's TestClient: real HTTP semantics over ASGI, no port),
built after the test has set its environment, on the test's database."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hitl_dashboard.settings import reset_settings_cache


@contextlib.contextmanager
def in_process_api(monkeypatch: pytest.MonkeyPatch | None = None, settings: dict[str, str] | None = None,
                   **client_options: Any) -> Iterator[TestClient]:
    """A client of a freshly built API: `settings` set as environment variables first (through the
    test's monkeypatch), so the app reads them; the cached settings are dropped again afterwards."""
    for name, value in (settings or {}).items():
        assert monkeypatch is not None, "settings need the test's monkeypatch"
        monkeypatch.setenv(name, value)
    reset_settings_cache()
    from hitl_dashboard.api.app import create_api  # after the settings above

    try:
        with TestClient(create_api(), **client_options) as client:
            yield client
    finally:
        reset_settings_cache()
