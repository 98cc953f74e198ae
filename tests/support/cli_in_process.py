"""The CLI in this process, as `python -m hitl_dashboard ...` runs it, without a new interpreter."""

from __future__ import annotations

import pytest

from hitl_dashboard.cli.entry import main


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit code, stdout, stderr."""
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err
