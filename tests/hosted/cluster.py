"""The hosted topology as real processes: web workers (Reflex prod backends sharing Redis),
runner processes, all on one PostgreSQL database. Every process is stopped by the fixture."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.e2e.app_process import ROOT, SERVE, free_port, group_alive, stop


def tool_env() -> dict[str, str]:
    """This process's environment as scripts/common.sh's reflex_env leaves it (our bun, no
    telemetry, the web server, ...): the one place that says how the web tier runs."""
    listed = subprocess.run(["bash", "-c", 'source scripts/common.sh && reflex_env && env -0'], cwd=ROOT,
                            capture_output=True, check=True, timeout=60).stdout.decode()
    exported = dict(item.split("=", 1) for item in listed.split("\0") if "=" in item)
    return {name: value for name, value in exported.items() if name != "_"}  # "_": bash's last argument


@dataclass
class Cluster:
    database_url: str
    redis_url: str
    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    web: dict[int, subprocess.Popen] = field(default_factory=dict)  # port -> process
    runners: list[subprocess.Popen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.env = {
            **tool_env(),
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "DEMO_MODE": "false",
            "RUNNER_IN_WEB": "false",
            "WEB_WORKERS": "1",
            "LEASE_SECONDS": "2",
            "WORKER_POLL_SECONDS": "0.2",
            "SCRIPTED_DELAY_MS": "150",
            "API_RATE_LIMIT": "100000/minute",
            "API_ADDRESS_RATE_LIMIT": "100000/minute",
            "WEBHOOK_RETRY_BASE_S": "0.2",
            "AUDIT_ANCHOR_FILE": str(self.workdir / "audit-heads.jsonl"),
        }

    def start_web(self, port: int | None = None) -> int:
        port = port or free_port()
        log = open(self.workdir / f"web-{port}.log", "ab")
        self.web[port] = subprocess.Popen(  # a web worker as the hosted topology starts one (docs/deploy.md)
            [str(SERVE), "--backend-only"], cwd=ROOT,
            env={**self.env, "PORT": str(port), "BIND_HOST": "127.0.0.1",
                 "REFLEX_STATES_WORKDIR": str(self.workdir / f"states-{port}")},
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                    return port
            except httpx.HTTPError:
                pass
            if self.web[port].poll() is not None:
                raise AssertionError((self.workdir / f"web-{port}.log").read_text()[-3000:])
            time.sleep(0.3)
        raise AssertionError(f"web worker on {port} did not start")

    def stop_web(self, port: int) -> None:
        _stop(self.web.pop(port))

    def start_runner(self) -> subprocess.Popen:
        index = len(self.runners)
        log = open(self.workdir / f"runner-{index}.log", "ab")
        process = subprocess.Popen([sys.executable, "-m", "hitl_dashboard", "worker"], cwd=ROOT, env=self.env,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.runners.append(process)
        return process

    def stop_all(self) -> None:
        for port in list(self.web):
            self.stop_web(port)
        for process in self.runners:
            _stop(process)


def _stop(process: subprocess.Popen) -> None:
    """The process and its whole group (a web worker's gunicorn and its workers outlive reflex a little)."""
    if process.poll() is None or group_alive(process.pid):
        stop(process)
