"""Starting and stopping the real app for end-to-end tests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import Engine

from hitl_dashboard.db.engine import get_engine

ROOT = Path(__file__).resolve().parents[2]
SERVE = ROOT / "scripts" / "serve.sh"
MCP_TEST_SERVER = ROOT / "tests" / "support" / "mcp_deploy_server.py"
# A fresh checkout installs the frontend packages and builds the bundle on first start.
START_TIMEOUT_S = float(os.environ.get("E2E_START_TIMEOUT_S", "240"))
# A Reflex prod build bakes the app's port into the frontend, and every start rebuilds its web
# folder; so each pytest-xdist worker builds its apps in folders of its own (git-ignored), kept
# between runs so that only the first run installs the frontend packages into them.
WEB_DIRS = ROOT / ".web-e2e"


@dataclass(frozen=True)
class RunningApp:
    base_url: str
    database_url: str
    log_path: Path

    @property
    def engine(self) -> Engine:
        return get_engine(self.database_url)

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    @property
    def mcp_calls_log(self) -> Path:
        """Where the MCP test server the shared app allows (MCP_STDIO_COMMANDS) logs the calls it runs."""
        return self.log_path.parent / "mcp-calls.jsonl"

    def mcp_command_line(self) -> list[str]:
        """That server's whole command line: a team saved from the browser may run it, and nothing else."""
        return [sys.executable, str(MCP_TEST_SERVER), "--log", str(self.mcp_calls_log)]


def web_dir(role: str) -> Path:
    """This worker's web folder for `role`: "shared" (the session's app) or "own" (apps a test starts)."""
    return WEB_DIRS / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{role}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def migrate(database_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": database_url}
    if (ROOT / "hitl_dashboard" / "cli.py").exists():
        command = [sys.executable, "-m", "hitl_dashboard", "db", "upgrade"]
    else:  # before the CLI existed; the Alembic revisions are the same
        command = [sys.executable, "-m", "alembic", "upgrade", "head"]
    subprocess.run(command, cwd=ROOT, env=env, check=True)


def wait_until_serving(process: subprocess.Popen, app: RunningApp) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the app exited with {process.returncode} while starting:\n{app.log_tail()}")
        try:
            if httpx.get(f"{app.base_url}/ping", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    pytest.fail(f"the app did not answer /ping within {START_TIMEOUT_S:.0f} s:\n{app.log_tail()}")


def proc_stats() -> Iterator[tuple[int, str, list[str]]]:
    """(pid, command name, the fields of /proc/<pid>/stat after the name) of every process; one that ends
    while it is read is skipped. The e2e teardown and the benches' CPU and process-group readers use it."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue
        yield int(entry.name), raw[raw.index("(") + 1:raw.rindex(")")], raw[raw.rindex(")") + 2:].split()


def group_alive(pgid: int) -> bool:
    """Whether a process of group `pgid` still runs (zombies aside): gunicorn's master and workers outlive the
    reflex process that started them by their graceful shutdown, writing state files as they go."""
    return any(fields[0] != "Z" and int(fields[2]) == pgid for _, _, fields in proc_stats())


def stop(process: subprocess.Popen, grace: float = 30) -> None:
    """serve.sh execs reflex, which starts gunicorn and its workers: SIGTERM to the whole process group, SIGKILL
    to what is left after `grace` seconds, and return once all of it has ended (gunicorn's workers outlive
    reflex by their graceful shutdown, still writing their state files and holding the database). The
    benches stop their servers with it too."""
    for sig, wait_s in ((signal.SIGTERM, grace), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait_s
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=wait_s)
        while group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not group_alive(process.pid):
            break
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
