"""Structured logs: one JSON object per line in hosted mode (plain text in demo), carrying the
request, conversation and review ids; credentials masked and long messages (a transcript) cut."""

from __future__ import annotations

import json
import logging

import pytest

from hitl_dashboard.observability import context, logs
from tests.conftest import run_cli
from tests.support import flow


@pytest.fixture
def our_handler():
    root = logging.getLogger()
    level = root.level
    yield
    for handler in [h for h in root.handlers if getattr(h, logs.MARKER, False)]:
        root.removeHandler(handler)
    root.setLevel(level)


def test_json_lines_carry_the_ids_and_no_secret(capsys, our_handler):
    logs.configure(json_lines=True, level="INFO", limit=300, service="web")
    log = logging.getLogger("hitl_dashboard.test")
    with context.bound(request_id="req-12345678", conversation_id=42, review_id=7):
        log.info("deciding with Authorization: Bearer %s", "hitl_" + "x" * 43)
    log.warning("db at postgresql://app:s3cr3t-pass@db.internal/hitl, key sk-%s, api_key=abc123secret", "a" * 30)
    log.info("agent said: %s", "word " * 500)
    logging.getLogger("autogen_core").info("a whole message that AutoGen routed")
    try:
        raise ValueError("token=hitl_" + "y" * 43)
    except ValueError:
        log.exception("it failed")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert len(lines) == 4  # AutoGen's INFO chatter is not logged

    first, second, third, fourth = lines
    assert (first["level"], first["logger"], first["service"]) == ("INFO", "hitl_dashboard.test", "web")
    assert (first["request_id"], first["conversation_id"], first["review_id"]) == ("req-12345678", 42, 7)
    assert first["message"] == "deciding with Authorization: Bearer [redacted]" and "time" in first
    assert "request_id" not in second  # outside the block, no ids
    assert "s3cr3t" not in second["message"] and "sk-aaaa" not in second["message"]
    assert "abc123secret" not in second["message"] and "postgresql://app:[redacted]@db.internal" in second["message"]
    assert len(third["message"]) < 400 and third["message"].endswith("more characters]")
    assert "yyyyyyyy" not in json.dumps(fourth) and "ValueError" in fourth["exc_info"]


def test_plain_text_in_demo_mode(capsys, our_handler):
    logs.configure(json_lines=False, level="INFO", limit=2000)
    with context.bound(conversation_id=5):
        logging.getLogger("hitl_dashboard.runner").info("turn stored")
    line = capsys.readouterr().err.strip()
    assert line.endswith("INFO hitl_dashboard.runner: turn stored [conversation_id=5]")


def test_a_hosted_runner_writes_json_lines_without_the_transcript(sqlite_url):
    flow.make_people()
    secret_task = "Add retry to the payments client " + "unmistakable-task-text " * 3
    flow.start(secret_task)
    result = run_cli("runner", "--until-idle", env={"LOG_FORMAT": "json", "LOG_LEVEL": "DEBUG"})
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines, "the runner logged nothing"
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all(r["service"] == "runner" for r in records)
    assert "unmistakable-task-text" not in result.stderr
