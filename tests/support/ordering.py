"""The long cases start first (pytest-xdist hands out work in collection order): a test of a
minute or more that a random order puts last keeps one worker busy after the others are done.
The order stays random within the long cases and within the rest (pytest-randomly's seed)."""

from __future__ import annotations

from pathlib import Path

import pytest

E2E = Path(__file__).resolve().parent.parent / "e2e"


# trylast: after pytest-randomly's shuffle and pytest's own grouping of parametrised cases, which
# run in this hook too. The browser tests are ordered by tests/e2e/conftest.py (they run last).
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: (E2E in Path(str(item.fspath)).parents, item.get_closest_marker("slow") is None))
