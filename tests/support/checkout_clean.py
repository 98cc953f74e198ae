"""A test run leaves no data file in the checkout. Files that tests write (published audit heads,
deploy logs, databases) belong in temporary folders; git ignores most of them, so `git status`
alone would not show one that lands in the checkout. At the end of a run (the xdist controller's,
or a plain run's) this plugin lists what `git status --porcelain --ignored` shows that it did not
show at the start, leaves out the folders of tools, caches and builds, and fails the run on the rest.

Registered from tests/conftest.py (pytest_plugins)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The virtual environment and tools, caches, and builds (Reflex's web folders, fetched assets).
EXPECTED = re.compile(
    r"^(\.venv|\.tools|\.web|\.web-e2e|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.hypothesis"
    r"|\.import_linter_cache|assets/external)(/|$)|(^|/)__pycache__/"
)
_at_start = pytest.StashKey[set[str]]()


def untracked(root: Path = ROOT) -> set[str]:
    """Paths that git does not track, ignored or not, as `git status --porcelain --ignored` names them."""
    listed = subprocess.run(["git", "status", "--porcelain", "--ignored", "-z"], cwd=root, capture_output=True,
                            check=True).stdout.decode()
    return {entry[3:] for entry in listed.split("\0") if entry[:3] in ("?? ", "!! ")}


def data_files(paths: set[str]) -> set[str]:
    return {path for path in paths if not EXPECTED.search(path)}


def _controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")  # an xdist worker's run is not the whole run


def pytest_sessionstart(session: pytest.Session) -> None:
    if _controller(session.config):
        session.config.stash[_at_start] = untracked()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not _controller(session.config) or _at_start not in session.config.stash:
        return
    left = sorted(data_files(untracked() - session.config.stash[_at_start]))
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = "tests left data files in the checkout (write them under tmp_path): " + ", ".join(left)
        if reporter is not None:
            reporter.write(f"\n{message}\n", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
