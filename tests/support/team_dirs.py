"""A TEAMS_DIR holding given team files, read by the process as at start-up, and forgotten after."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hitl_dashboard.settings import reset_settings_cache
from hitl_dashboard.teams.catalogue import reset_catalogue


@contextmanager
def teams_dir(folder: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> Iterator[Path]:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    monkeypatch.setenv("TEAMS_DIR", str(folder))
    reset_settings_cache()
    reset_catalogue()
    try:
        yield folder
    finally:
        monkeypatch.delenv("TEAMS_DIR")
        reset_settings_cache()
        reset_catalogue()
