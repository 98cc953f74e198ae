"""Run bandit and ruff on one file's text, each in its own subprocess with a time and a size limit.

The text is written to a fresh temporary directory and only parsed by the analysers: the agent's
code is never imported or run. A failure or a timeout is an answer ("not analysed: why"), never
an exception for the caller."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from hitl_dashboard.domain.findings import RUFF_RULES, Finding, ReportUnreadable, parse_bandit, parse_ruff
from hitl_dashboard.settings import get_settings

MAX_REPORT_BYTES = 4 * 1024 * 1024
ANALYSED, NOT_ANALYSED = "analysed", "not_analysed"


@dataclass(frozen=True)
class AnalysisResult:
    status: str
    reason: str | None = None
    findings: list[Finding] = field(default_factory=list)


def analysed_name(key: str) -> str:
    """A safe file name for the analysers (the key is model output): its last part if it is a .py
    name made of plain characters, else module.py."""
    name = PurePosixPath(key.replace("\\", "/")).name
    return name if name.endswith(".py") and name.replace("_", "").replace(".", "").isalnum() else "module.py"


def bandit_command() -> list[str]:
    configured = get_settings().analysis_bandit_command.strip()
    return shlex.split(configured) if configured else [sys.executable, "-m", "bandit"]


def ruff_command() -> list[str]:
    ruff = Path(sys.executable).parent / "ruff"
    return [str(ruff)] if ruff.exists() else [sys.executable, "-m", "ruff"]


async def analyse(key: str, content: str) -> AnalysisResult:
    settings = get_settings()
    size = len(content.encode("utf-8"))
    if size > settings.analysis_max_bytes:
        return AnalysisResult(NOT_ANALYSED, f"too large to analyse ({size} bytes > {settings.analysis_max_bytes})")
    with tempfile.TemporaryDirectory(prefix="hitl-analysis-") as folder:
        path = Path(folder) / analysed_name(key)
        path.write_text(content, encoding="utf-8")
        bandit = [*bandit_command(), "-f", "json", "-q", str(path)]
        ruff = [*ruff_command(), "check", "--isolated", "--no-cache", "--exit-zero", "--output-format", "json",
                "--select", ",".join(RUFF_RULES), str(path)]
        outcomes = await asyncio.gather(
            _run("bandit", bandit, folder, settings.analysis_timeout_s, parse_bandit),
            _run("ruff", ruff, folder, settings.analysis_timeout_s, parse_ruff),
        )
    problems = [problem for problem, _ in outcomes if problem]
    if problems:
        return AnalysisResult(NOT_ANALYSED, "; ".join(problems))
    findings = [f for _, found in outcomes for f in found]
    return AnalysisResult(ANALYSED, None, sorted(findings, key=lambda f: (f.line, f.analyser, f.rule)))


async def _run(name: str, command: list[str], folder: str, timeout_s: float, parse) -> tuple[str | None, list]:
    try:
        process = await asyncio.create_subprocess_exec(
            *command, cwd=folder, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True,  # a timeout ends its whole group
            env={"PATH": os.environ.get("PATH", ""), "HOME": folder, "LANG": "C.UTF-8"},
        )
    except OSError as exc:
        return f"{name} could not start: {exc}", []
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout_s)
    except TimeoutError:
        _kill(process)
        await process.wait()
        return f"{name} timed out after {timeout_s:g} s", []
    except asyncio.CancelledError:
        _kill(process)
        raise
    if len(stdout) > MAX_REPORT_BYTES:
        return f"{name} wrote a report larger than {MAX_REPORT_BYTES} bytes", []
    # bandit exits 1 when it found something; anything else non-zero is a failure.
    if process.returncode not in (0, 1):
        tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        return f"{name} failed (exit {process.returncode}): {tail[0][:200]}", []
    try:
        return None, parse(stdout.decode("utf-8", "replace"))
    except ReportUnreadable as exc:
        return f"{name} gave an unreadable report ({exc})", []


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
