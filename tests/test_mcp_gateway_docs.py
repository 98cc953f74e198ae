"""docs/mcp-gateway.md's AutoGen McpWorkbench example, taken from the page (so the page cannot rot)
and run against a real gateway over HTTP: it lists the tools, gets an ungated answer at once, and
its gated call is answered once a reviewer approved it (here through the services)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import threading
from pathlib import Path

from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.services.auth.users import find_actor
from hitl_dashboard.services.reviews.decide import decide
from tests.e2e.app_process import ROOT
from tests.support.external_api import person
from tests.support.mcp_gateway_setup import caller, review_of, save_gateway_team, serving_gateway, stdio_upstream
from tests.support.mcp_upstream import ran

MARK = "<!-- mcp-gateway-autogen-example -->"


def example() -> str:
    page = (ROOT / "docs" / "mcp-gateway.md").read_text()
    found = re.search(re.escape(MARK) + r"\n```python\n(.*?)\n```", page, re.S)
    assert found, f"docs/mcp-gateway.md has no python block after {MARK}"
    return found.group(1)


def test_the_docs_autogen_workbench_example_runs_against_the_gateway(sqlite_url: str, tmp_path: Path, monkeypatch):
    log = tmp_path / "ran.jsonl"
    team = save_gateway_team({"deploys": stdio_upstream(log)})
    agent, token = caller()
    reviewer, _ = person(["security_reviewer"])
    with serving_gateway() as base_url:
        monkeypatch.setenv("HITL_URL", base_url)
        monkeypatch.setenv("HITL_TEAM", team)
        monkeypatch.setenv("HITL_TOKEN", token)
        out = io.StringIO()
        failed: list[BaseException] = []

        def run() -> None:
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(example(), "docs/mcp-gateway.md", "exec"), {"__name__": "__main__"})  # noqa: S102
            except BaseException as exc:  # noqa: BLE001 - reported by the test below
                failed.append(exc)

        thread = threading.Thread(target=run)
        thread.start()

        async def approve_when_asked() -> None:
            review_id = await review_of(agent)
            decide(find_actor(reviewer), review_id, DecisionInput(Action.APPROVE))

        asyncio.run(approve_when_asked())
        thread.join(60)
    assert not thread.is_alive() and not failed, failed
    assert out.getvalue().splitlines() == ["['deploy', 'status']", "billing: green", "deployed billing 2.4.1 x1"]
    assert ran(log) == [{"tool": "status", "service": "billing"},
                        {"tool": "deploy", "service": "billing", "version": "2.4.1", "replicas": 1}]
