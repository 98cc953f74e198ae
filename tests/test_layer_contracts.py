"""The import-linter contracts in pyproject.toml hold on the real tree, and they do catch a breach:
a copy of the package with a planted breach (reflex imported from a service, a loop inside db/, a
services group importing one above it) fails, naming the broken rule."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    # The package is imported from `project` (not installed), so it must come first on the path.
    env = {**os.environ, "PYTHONPATH": str(project)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=project, env=env, capture_output=True, text=True, timeout=120,
    )


def test_the_real_tree_keeps_every_layer_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def planted_copy(tmp_path: Path, module: str, breach: str) -> Path:
    """A copy of the package and its contracts with `breach` appended to `module` (a path under hitl_dashboard/)."""
    shutil.copytree(ROOT / "hitl_dashboard", tmp_path / "hitl_dashboard",
                    ignore=shutil.ignore_patterns("__pycache__", ".web", ".states"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    planted = tmp_path / "hitl_dashboard" / module
    planted.write_text(planted.read_text() + breach)
    return tmp_path


# A function-level import counts like a top-level one: a lazy import hides no breach.
BREACHES = {
    "reflex from a service": (
        "services/transactions.py", "\nimport reflex  # the breach under test\n",
        "reflex only in ui and the app module BROKEN", "hitl_dashboard.services.transactions -> reflex"),
    "a loop inside db": (
        "db/models.py", "\n\ndef _breach():\n    from hitl_dashboard.db.team_models import TeamVersion\n\n"
                        "    return TeamVersion\n",
        "db has no import loop BROKEN", ".team_models -> .models"),
    "a back-arrow up the services stack": (
        "services/teams/versions.py", "\n\ndef _breach():\n    from hitl_dashboard.services.runner.runner import "
                                      "new_runner_id\n\n    return new_runner_id()\n",
        "services groups form a stack BROKEN",
        "hitl_dashboard.services.teams.versions -> hitl_dashboard.services.runner.runner"),
}


@pytest.mark.parametrize("name", sorted(BREACHES))
def test_a_planted_breach_breaks_its_contract(tmp_path: Path, name: str) -> None:
    module, breach, broken, arrow = BREACHES[name]

    result = lint_imports(planted_copy(tmp_path, module, breach))

    output = " ".join((result.stdout + result.stderr).split())  # import-linter wraps long lines
    assert result.returncode != 0, output
    assert broken in output
    assert arrow in output
