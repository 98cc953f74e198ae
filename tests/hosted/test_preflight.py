"""Hosted mode refuses demo credentials: users with the well-known demo password."""

from __future__ import annotations

import os
import subprocess

from hitl_dashboard.services.auth.users import create_user
from tests.conftest import run_cli, run_cli_process
from tests.e2e.app_process import ROOT, SERVE, free_port
from tests.hosted.cluster import tool_env


def hosted_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "DEMO_MODE": "false", **extra}


def test_web_app_refuses_demo_users(sqlite_url, tmp_path):
    create_user(username="alice", password="demo", roles=["security_reviewer"], is_demo=True)
    env = {**tool_env(), **hosted_env(), "PORT": str(free_port()), "BIND_HOST": "127.0.0.1",
           "REFLEX_STATES_WORKDIR": str(tmp_path / "states")}
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        returncode = subprocess.run([str(SERVE)], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                    timeout=240).returncode
    assert returncode != 0
    assert "demo users exist (alice)" in log.read_text()
    assert "Traceback" not in log.read_text()  # a message for the operator, not a stack


def test_hosted_mode_refuses_demo_users(sqlite_url):
    create_user(username="alice", password="demo", roles=["security_reviewer"], is_demo=True)
    result = run_cli_process("worker", "--until-idle", env=hosted_env(), check=False)  # refuses to start
    assert result.returncode == 7
    assert "demo users exist (alice)" in result.stderr


def test_demo_seed_is_refused_outside_demo_mode(sqlite_url):
    result = run_cli("demo", "seed", env=hosted_env(), check=False)
    assert result.returncode == 4
    assert "only seeded in demo mode" in result.stderr
