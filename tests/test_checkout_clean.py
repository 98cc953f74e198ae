"""The end-of-run check (tests/support/checkout_clean.py) names a data file that a test leaves in a
checkout, ignored by git or not, and passes over the folders of tools, caches and builds."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.checkout_clean import data_files, untracked


def test_a_data_file_left_in_a_checkout_is_named_and_tool_folders_are_not(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("*.jsonl\n.venv\n.web/\n__pycache__/\n")
    for name in (".venv/bin/python", ".web/backend/x.js", "tests/__pycache__/a.pyc", "tests/test_a.py",
                 ".gitignore"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).touch()
    subprocess.run(["git", "-C", str(tmp_path), "add", ".gitignore", "tests/test_a.py"], check=True)
    before = untracked(tmp_path)
    (tmp_path / "hitl.db-audit-heads.jsonl").write_text("{}\n")  # ignored: git status alone hides it
    (tmp_path / "notes.db").write_text("")  # not ignored

    assert data_files(before) == set()
    assert data_files(untracked(tmp_path) - before) == {"hitl.db-audit-heads.jsonl", "notes.db"}
