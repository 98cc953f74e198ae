"""Bad configuration as an operator meets it: every entry point (the CLI, scripts/serve.sh,
`reflex run`, the app module the web server imports, alembic) prints one line per bad variable, naming
it and what to do, exits non-zero, and never echoes a value: not the model key, not the secret."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, run_cli, run_cli_process

FAKE_KEY = "sk-test-THIS-MUST-NOT-LEAK"
DB_PASSWORD = "hunter2-db-password"
# What must never be printed, whatever the problem: a model key, a URL's password.
SECRETS = (FAKE_KEY, DB_PASSWORD)
# A setting every process validates on its own, whatever the entry point.
UNKNOWN_ANCHOR_SINK = {"DEMO_MODE": "false", "AUDIT_ANCHOR_SINKS": "file, s3"}


def bad_env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "MODEL_PROVIDER", "OPENAI_BASE_URL")}
    env.update({"OPENAI_API_KEY": FAKE_KEY, "PYTHONUNBUFFERED": "1"}, **overrides)
    return env


def assert_clean_refusal(result: subprocess.CompletedProcess, *variables: str, prefix: str = "error") -> list[str]:
    output = result.stdout + result.stderr
    for secret in SECRETS:
        assert secret not in output
    assert "Traceback" not in output and "input_value" not in output, output
    assert result.returncode == 2, (result.returncode, output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == len(variables), output  # one line per problem, nothing else
    for line, variable in zip(lines, variables, strict=True):
        assert line.startswith(f"{prefix}: {variable}: "), line
    return lines


@pytest.mark.parametrize(("variable", "value", "hint"), [
    ("RUNNER_CONCURRENCY", "eight", "should be a valid integer"),
    ("RUNNER_CONCURRENCY", "0", "should be greater than or equal to 1"),
    ("MODEL_TIMEOUT_S", "soon", "should be a valid number"),
    ("DEMO_MODE", "perhaps-later", "should be a valid boolean"),
    ("DATABASE_URL", f"mysql://admin:{DB_PASSWORD}@db.internal/hitl", "postgresql://user@host:5432/hitl"),
    ("DATABASE_URL", f"not a url {DB_PASSWORD}", "is not a SQLite or PostgreSQL URL"),
    ("REDIS_URL", f"http://:{DB_PASSWORD}@cache:6379", "is not a Redis URL"),
    ("PUBLIC_URL", "dashboard.example.org", "is not an http(s) URL"),
    ("OPENAI_BASE_URL", "127.0.0.1:8000/v1", "is not an http(s) URL"),
    ("MODEL_PROVIDER", "gemini-pro-unknown", "should be 'scripted' or 'openai'"),
    ("API_RATE_LIMIT", "lots-every-minute", "use the `limits` notation"),
    ("MCP_STDIO_COMMANDS", "{files: /usr/bin/python3}", "is not JSON"),
    ("MCP_STDIO_COMMANDS", '{"files": "/usr/bin/python3 -m server"}', "a non-empty list of words"),
    ("MCP_ALLOWED_ENV", "GITHUB_TOKEN,AWS-REGION", "not variable names"),
    ("TEAM_TOOL_FUNCTIONS", "my_tools.deploys.rollback", "package.module:function"),
    ("MODEL_ALLOWED_KEY_ENV", "OPENAI_API_KEY,MY-KEY", "not variable names"),
    ("MODEL_ALLOWED_URLS", "gateway.example/v1", "not http(s) URLs"),
])
def test_cli_names_each_bad_variable_without_its_value(variable, value, hint):
    result = run_cli("users", "list", env=bad_env(**{variable: value}), check=False)
    [line] = assert_clean_refusal(result, variable)
    assert hint in line
    assert value not in line


def test_every_problem_gets_its_own_line_and_json_lists_them():
    env = bad_env(RUNNER_CONCURRENCY="many", PUBLIC_URL="nowhere", MODEL_PROVIDER="other")
    # A worker process that refuses to start: the process's own output and exit code.
    assert_clean_refusal(run_cli_process("worker", env=env, check=False), "PUBLIC_URL", "MODEL_PROVIDER",
                         "RUNNER_CONCURRENCY")
    result = run_cli("--json", "worker", env=env, check=False)
    assert result.returncode == 2 and result.stdout == ""
    error = json.loads(result.stderr)
    assert error["error"] == "ConfigurationError"
    assert [p.split(":")[0] for p in error["problems"]] == ["PUBLIC_URL", "MODEL_PROVIDER", "RUNNER_CONCURRENCY"]


def test_openai_provider_without_key_or_endpoint_is_refused():
    env = bad_env(MODEL_PROVIDER="openai")
    env.pop("OPENAI_API_KEY")
    [line] = assert_clean_refusal(run_cli("check", env=env, check=False), "OPENAI_API_KEY")
    assert "OPENAI_BASE_URL" in line


def run(command: list[str], env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def reflex_env(env: dict) -> dict:
    tools = ROOT / ".tools" / "node_modules" / ".bin"
    return {**env, "PATH": f"{tools}:{ROOT / '.venv' / 'bin'}:{env['PATH']}", "REFLEX_USE_SYSTEM_BUN": "1",
            "REFLEX_TELEMETRY_ENABLED": "false", "REFLEX_CHECK_LATEST_VERSION": "false"}


# The processes that serve or migrate, not only the CLI. serve.sh is what operators run; the
# others are what it (or a hand-run deploy) starts, each reading the settings on its own.
APP_ENTRY_POINTS = {
    "serve.sh": ([str(ROOT / "scripts" / "serve.sh")], "error"),
    "reflex run": ([sys.executable, "-m", "reflex", "run", "--env", "prod"], "configuration error"),
    "app module": ([sys.executable, "-c", "import hitl_dashboard.hitl_dashboard"], "configuration error"),
    "alembic": ([sys.executable, "-m", "alembic", "upgrade", "head"], "configuration error"),
}


@pytest.mark.parametrize("entry_point", APP_ENTRY_POINTS)
def test_app_processes_refuse_bad_settings_in_one_line(entry_point, tmp_path):
    command, prefix = APP_ENTRY_POINTS[entry_point]
    env = reflex_env(bad_env(**UNKNOWN_ANCHOR_SINK, DATABASE_URL=f"sqlite:///{tmp_path / 'x.db'}",
                             PORT="1", REFLEX_STATES_WORKDIR=str(tmp_path / "states")))
    result = run(command, env)
    [line] = assert_clean_refusal(result, "AUDIT_ANCHOR_SINKS", prefix=prefix)
    assert "unknown sink (s3)" in line
    assert not (tmp_path / "x.db").exists()  # refused before touching anything


def test_app_process_names_a_bad_integer(tmp_path):
    env = reflex_env(bad_env(API_MAX_BODY_BYTES="256k", DATABASE_URL=f"sqlite:///{tmp_path / 'x.db'}"))
    result = run([sys.executable, "-m", "reflex", "run", "--env", "prod"], env)
    assert_clean_refusal(result, "API_MAX_BODY_BYTES", prefix="configuration error")
