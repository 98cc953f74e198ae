"""The import-linter contracts in pyproject.toml hold on the real tree, and they do catch a breach:
a copy of the package with reflex imported from a service fails, naming the broken rule."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

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


def test_reflex_imported_from_a_service_breaks_its_contract(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "hitl_dashboard", tmp_path / "hitl_dashboard",
                    ignore=shutil.ignore_patterns("__pycache__", ".web", ".states"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    service = tmp_path / "hitl_dashboard" / "services" / "transactions.py"
    service.write_text(service.read_text() + "\nimport reflex  # the breach under test\n")

    result = lint_imports(tmp_path)

    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "reflex only in ui and the app module BROKEN" in output
    assert "hitl_dashboard.services.transactions -> reflex" in output
