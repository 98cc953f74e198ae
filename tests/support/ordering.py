"""The order of the collected tests, in one place: pytest-randomly's shuffle (its seed replays it),
then a stable sort that keeps it within each part.

- The browser tests (tests/e2e) run last: Playwright's sync API keeps an asyncio loop running in the
  main thread from the first browser test until the session ends, and any later test calling
  asyncio.run() would fail with "cannot be called from a running event loop".
- The long cases (`slow`) start first, and among the browser tests the modules with an app of their
  own (an `xdist_group`, tests/e2e/conftest.py) next: pytest-xdist hands out work in collection
  order, and a test of a minute or more that a random order puts last keeps one worker busy after
  the others are done."""

from __future__ import annotations

from pathlib import Path

import pytest

E2E = Path(__file__).resolve().parent.parent / "e2e"


def _order(item: pytest.Item) -> tuple[bool, bool, bool]:
    browser = E2E in Path(str(item.fspath)).parents
    return browser, item.get_closest_marker("slow") is None, browser and item.get_closest_marker("xdist_group") is None


# trylast: after pytest-randomly's shuffle and pytest's own grouping of parametrised cases, which
# run in this hook too.
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_order)
