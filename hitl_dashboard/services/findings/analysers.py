"""Run bandit and ruff on one file's text, each in its own subprocess with a time and a size limit.

The text is written to a fresh temporary directory and only parsed by the analysers: the agent's
code is never imported or run. A failure, a timeout, an unexpected exit or a parse error the
analyser reports inside a successful run is an answer ("not analysed: why", naming the file), never
an exception for the caller and never "0 findings".

Each parses as the Python the team declares: ruff through --target-version; bandit parses with the
server's interpreter, so code newer than it is "not analysed" and the reason says so."""

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

from hitl_dashboard.domain.analyser_reports import AnalyserReport, ReportUnreadable, parse_bandit, parse_ruff
from hitl_dashboard.domain.findings import DEFAULT_PYTHON_VERSION, RUFF_RULES, Finding, ruff_target
from hitl_dashboard.settings import get_settings

MAX_REPORT_BYTES = 4 * 1024 * 1024
ANALYSED, NOT_ANALYSED = "analysed", "not_analysed"
SERVER_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
# The exits that come with a report: bandit says 1 when it found something; ruff runs --exit-zero.
EXPECTED_EXITS = {"bandit": (0, 1), "ruff": (0,)}


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


async def analyse(key: str, content: str, python_version: str = DEFAULT_PYTHON_VERSION) -> AnalysisResult:
    settings = get_settings()
    name = analysed_name(key)
    size = len(content.encode("utf-8"))
    if size > settings.analysis_max_bytes:
        return AnalysisResult(NOT_ANALYSED,
                              f"{name} is too large to analyse ({size} bytes > {settings.analysis_max_bytes})")
    with tempfile.TemporaryDirectory(prefix="hitl-analysis-") as folder:
        path = Path(folder) / name
        path.write_text(content, encoding="utf-8")
        bandit = [*bandit_command(), "-f", "json", "-q", str(path)]
        ruff = [*ruff_command(), "check", "--isolated", "--no-cache", "--exit-zero", "--output-format", "json",
                "--target-version", ruff_target(python_version), "--select", ",".join(RUFF_RULES), str(path)]
        outcomes = await asyncio.gather(
            _run("bandit", bandit, folder, settings.analysis_timeout_s, parse_bandit),
            _run("ruff", ruff, folder, settings.analysis_timeout_s, parse_ruff),
        )
    problems = [_problem(analyser, name, python_version, problem, report)
                for analyser, (problem, report) in zip(("bandit", "ruff"), outcomes, strict=True)]
    if any(problems):
        return AnalysisResult(NOT_ANALYSED, "; ".join(p for p in problems if p))
    findings = [f for _, report in outcomes for f in report.findings]
    return AnalysisResult(ANALYSED, None, sorted(findings, key=lambda f: (f.line, f.analyser, f.rule)))


def _problem(analyser: str, name: str, python_version: str, problem: str | None, report: AnalyserReport) -> str:
    """Why this analyser's answer is not an analysis of the file ('' when it is)."""
    if problem:
        return f"{problem} on {name}"
    if not report.parse_errors:
        return ""
    why = f"{analyser} could not parse {name}: {'; '.join(report.parse_errors)}"
    if analyser == "bandit" and _newer(python_version, SERVER_PYTHON):
        why += f" (the team declares Python {python_version}; this server parses {SERVER_PYTHON})"
    return why


def _newer(version: str, than: str) -> bool:
    return tuple(map(int, version.split("."))) > tuple(map(int, than.split(".")))


async def _run(name: str, command: list[str], folder: str, timeout_s: float,
               parse) -> tuple[str | None, AnalyserReport]:
    nothing = AnalyserReport()
    try:
        process = await asyncio.create_subprocess_exec(
            *command, cwd=folder, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True,  # a timeout ends its whole group
            env={"PATH": os.environ.get("PATH", ""), "HOME": folder, "LANG": "C.UTF-8"},
        )
    except OSError as exc:
        return f"{name} could not start ({exc})", nothing
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout_s)
    except TimeoutError:
        _kill(process)
        await process.wait()
        return f"{name} timed out after {timeout_s:g} s", nothing
    except asyncio.CancelledError:
        _kill(process)
        raise
    if len(stdout) > MAX_REPORT_BYTES:
        return f"{name} wrote a report larger than {MAX_REPORT_BYTES} bytes", nothing
    if process.returncode not in EXPECTED_EXITS[name]:  # a negative code: killed by a signal (a crash)
        tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        return f"{name} failed (exit {process.returncode}: {tail[0][:200]})", nothing
    try:
        report = parse(stdout.decode("utf-8", "replace"))
    except ReportUnreadable as exc:
        return f"{name} gave an unreadable report ({exc})", nothing
    if name == "bandit" and process.returncode == 1 and not report.findings and not report.parse_errors:
        return f"{name} failed (exit 1 without a finding)", nothing
    return None, report


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
