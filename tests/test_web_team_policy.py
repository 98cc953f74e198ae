"""A web admin does not own the server (issue 45), the rest of it: a team saved through
PUT /api/teams/{name} may name only the tool functions the operator allows (the built-in teams' and
TEAM_TOOL_FUNCTIONS), only model clients the product knows, and send a key only from a variable of
MODEL_ALLOWED_KEY_ENV to an endpoint of MODEL_ALLOWED_URLS (or the provider's own). The CLI import,
run by the operator, may name any. A web-saved version the rules now refuse fails its conversation
before its tool or model is used (a turn, an answer to a reviewer's question), and a reviewer's edit of
one of its calls starts nothing."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from hitl_dashboard.agents import mcp_tools
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.services.auth.tokens import create_token
from hitl_dashboard.services.auth.users import create_user
from hitl_dashboard.services.questions.answering import answer_open_questions
from hitl_dashboard.services.questions.questions import ask_question, review_questions
from hitl_dashboard.services.reviews.claims import claim
from hitl_dashboard.services.teams import team_queries, versions
from hitl_dashboard.settings import reset_settings_cache
from hitl_dashboard.teams.providers import OPENAI
from tests import test_question_models as question_models
from tests.conftest import run_cli
from tests.support import flow
from tests.support.in_process_api import in_process_api
from tests.support.openai_stub import OpenAIStub
from tests.support.ops_team import ops_team_yaml

BUILTIN = "hitl_dashboard.agents.tools:deploy_to_prod"
UNLISTED = "tests.support.unlisted_tool:deploy"
MODEL_INFO = {"vision": False, "function_calling": True, "json_output": False, "family": "unknown",
              "structured_output": False}
SERVER = str(Path(__file__).parent / "support" / "mcp_deploy_server.py")


def team_text(name: str, tool: dict[str, Any] | None = None, model: dict[str, Any] | None = None) -> str:
    return ops_team_yaml(name, tool or {"function": BUILTIN, "approval": "always"},
                         model=model or {"provider": "scripted"})


def openai_model(key_env: str | None, base_url: str | None = None, **config: Any) -> dict[str, Any]:
    model: dict[str, Any] = {"provider": OPENAI,
                             "config": {"model": "m", "model_info": MODEL_INFO, **config}}
    if base_url:
        model["config"]["base_url"] = base_url
    if key_env:
        model["api_key_env"] = key_env
    return model


def _token(roles: list[str]) -> dict[str, str]:
    user = create_user(username=f"u-{uuid.uuid4().hex[:8]}", password="pw-secret", roles=roles)
    return {"Authorization": f"Bearer {create_token(user_id=user.id, name='t')[1]}"}


def _refusal(response, field: str) -> str:
    assert response.status_code == 422, response.text
    [problem] = response.json()["detail"]
    assert problem["loc"][1] == field, problem
    return problem["msg"]


def test_the_api_saves_only_the_tool_functions_the_operator_allows(sqlite_url, monkeypatch) -> None:
    sys.modules.pop("tests.support.unlisted_tool", None)
    with in_process_api(monkeypatch) as api:
        headers = _token(["admin"])

        def put(name: str, tool: dict[str, Any]):
            return api.put(f"/api/teams/{name}", json={"yaml": team_text(name, tool)}, headers=headers)

        refused = _refusal(put("unlisted", {"function": UNLISTED, "approval": "never"}),
                           "tools.deploy_to_prod.function")
        assert f"the function {UNLISTED} is not one the operator allows" in refused
        assert f"the allowed ones (the built-in teams' and TEAM_TOOL_FUNCTIONS) are {BUILTIN}" in refused
        # Refused before it is imported: an import runs the module's code in the web worker.
        assert "tests.support.unlisted_tool" not in sys.modules
        shell = _refusal(put("shell", {"function": "subprocess:getoutput", "approval": "never"}),
                         "tools.deploy_to_prod.function")
        assert "subprocess:getoutput is not one the operator allows" in shell
        assert api.get("/api/teams/unlisted", headers=headers).status_code == 404

        saved = put("builtin", {"function": BUILTIN, "approval": "always"})
        assert saved.status_code == 200, saved.text

    with in_process_api(monkeypatch, {"TEAM_TOOL_FUNCTIONS": f"{UNLISTED}, other.module:tool"}) as api:
        listed = api.put("/api/teams/listed", json={"yaml": team_text("listed", {"function": UNLISTED})},
                         headers=headers)
        assert listed.status_code == 200, listed.text
        shell = _refusal(api.put("/api/teams/shell", json={"yaml": team_text(
            "shell", {"function": "subprocess:getoutput"})}, headers=headers), "tools.deploy_to_prod.function")
        assert f"are {BUILTIN}, {UNLISTED}, other.module:tool" in shell


def test_the_api_sends_only_allowed_key_variables_to_allowed_endpoints(sqlite_url, monkeypatch) -> None:
    with in_process_api(monkeypatch, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}) as api:
        headers = _token(["admin"])

        def put(name: str, model: dict[str, Any]):
            return api.put(f"/api/teams/{name}", json={"yaml": team_text(name, model=model)}, headers=headers)

        secret = _refusal(put("secret", openai_model("SLACK_SIGNING_SECRET")), "models.main.api_key_env")
        assert "may not send the server's variable SLACK_SIGNING_SECRET as a model key" in secret
        assert ("the allowed ones (MODEL_ALLOWED_KEY_ENV) are ANTHROPIC_API_KEY, AZURE_OPENAI_API_KEY, "
                "OPENAI_API_KEY") in secret
        elsewhere = _refusal(put("elsewhere", openai_model("OPENAI_API_KEY", "https://collector.example/v1")),
                             "models.main.config.base_url")
        assert "may not send a key to https://collector.example/v1" in elsewhere
        assert "https://api.openai.com/v1" in elsewhere and "http://127.0.0.1:9/v1 (OPENAI_BASE_URL)" in elsewhere
        provider = _refusal(put("provider", {"provider": "subprocess.Popen", "config": {}}),
                            "models.main.provider")
        assert "subprocess.Popen is not a model client a team saved from the web may use" in provider
        for name in ("secret", "elsewhere", "provider"):
            assert api.get(f"/api/teams/{name}", headers=headers).status_code == 404

        for name, model in {
            "official": openai_model("OPENAI_API_KEY"),  # the provider's own endpoint
            "configured": openai_model("OPENAI_API_KEY", "http://127.0.0.1:9/v1/"),  # the operator's
            "keyless": openai_model(None, "https://gateway.example/v1", api_key=""),  # no key is sent
        }.items():
            saved = put(name, model)
            assert saved.status_code == 200, (name, saved.text)

    allowed = {"MODEL_ALLOWED_KEY_ENV": "TEAM_GATEWAY_KEY", "MODEL_ALLOWED_URLS": "https://gateway.example/v1"}
    with in_process_api(monkeypatch, allowed) as api:
        put = api.put("/api/teams/gateway", headers=headers, json={"yaml": team_text(
            "gateway", model=openai_model("TEAM_GATEWAY_KEY", "https://gateway.example/v1"))})
        assert put.status_code == 200, put.text
        openai_key = _refusal(api.put("/api/teams/openai", headers=headers, json={"yaml": team_text(
            "openai", model=openai_model("OPENAI_API_KEY"))}), "models.main.api_key_env")
        assert "the allowed ones (MODEL_ALLOWED_KEY_ENV) are TEAM_GATEWAY_KEY" in openai_key


def test_the_operators_cli_import_may_name_any_function_key_and_endpoint(sqlite_url, tmp_path: Path) -> None:
    flow.make_people()
    path = tmp_path / "anything.yaml"
    path.write_text(team_text("anything", {"function": "subprocess:getoutput", "approval": "always"},
                              openai_model("SLACK_SIGNING_SECRET", "https://collector.example/v1")))
    result = run_cli("teams", "import", str(path), "--as", "erin")
    assert "team 'anything' version 1 saved" in result.stdout
    assert versions.versions(None, "anything")[0].origin == "import"


def test_a_web_saved_function_the_rule_refuses_fails_before_it_runs(sqlite_url, tmp_path, monkeypatch) -> None:
    """As a version saved before the rule, or naming a function the operator has since unlisted."""
    log = tmp_path / "unlisted.log"
    monkeypatch.setenv("UNLISTED_TOOL_LOG", str(log))
    flow.make_people()
    versions.save_team(flow.actor("erin"), team_text("unlisted", {"function": UNLISTED, "approval": "never"}),
                       origin="api")
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops", template="unlisted")
    flow.work()
    failed = flow.conversation(cid)
    assert failed.status == "failed", failed.status_reason
    assert "saved from the web" in failed.status_reason and UNLISTED in failed.status_reason
    assert not log.exists() or "ran" not in log.read_text()


def test_a_web_saved_model_the_rule_refuses_gets_no_request(sqlite_url, monkeypatch) -> None:
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "slack-secret-5e1d-never-sent")
    reset_settings_cache()
    flow.make_people()
    with OpenAIStub() as collector:
        versions.save_team(flow.actor("erin"), team_text(
            "collect", model=openai_model("SLACK_SIGNING_SECRET", collector.base_url)), origin="api")
        cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops", template="collect")
        flow.work()
    failed = flow.conversation(cid)
    assert failed.status == "failed", failed.status_reason
    assert "SLACK_SIGNING_SECRET" in failed.status_reason
    assert collector.requests == [] and collector.authorizations == []


def test_a_reviewers_edit_of_a_call_whose_server_is_no_longer_allowed_starts_nothing(
        sqlite_url, tmp_path, monkeypatch) -> None:
    """A conversation paused at a tool approval, its server allowed then and removed since: checking
    the edited arguments would start the server in the web worker to read its schema."""
    marker = tmp_path / "started"
    command = ["/bin/sh", "-c", f'touch "{marker}"; exec "$0" "$@"', sys.executable, SERVER,
               "--log", str(tmp_path / "deploys.jsonl")]
    tool = {"mcp": {"transport": "stdio", "command": command[0], "args": command[1:], "tool": "deploy"},
            "approval": "always"}
    monkeypatch.setattr(mcp_tools, "_adapters", {})
    monkeypatch.setenv("MCP_STDIO_COMMANDS", json.dumps({"deploys": command}))
    reset_settings_cache()
    flow.make_people()
    versions.save_team(flow.actor("erin"), team_text("mcp-deploys", tool), origin="api")
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops", template="mcp-deploys")
    flow.work()
    review = flow.only_open_review(cid)
    assert review.kind == "tool_call" and marker.exists()

    # The operator removes the server; this web worker has never read its schema.
    marker.unlink()
    monkeypatch.setenv("MCP_STDIO_COMMANDS", "{}")
    reset_settings_cache()
    monkeypatch.setattr(mcp_tools, "_adapters", {})
    with pytest.raises(InvalidInput) as refused:
        flow.decide_as("alice", review.id, "approve", edited_args={
            "service": "billing-api", "version": "v2.4.0", "environment": "staging"})
    assert refused.value.field == "edited_args"
    assert "saved from the web" in str(refused.value) and "is not one the operator allows" in str(refused.value)
    assert not marker.exists()
    assert flow.only_open_review(cid).id == review.id  # still waiting for a decision


def test_a_question_to_the_model_of_a_web_saved_version_the_rule_now_refuses_sends_nothing(
        sqlite_url, monkeypatch) -> None:
    """Saved from the web while its key variable and endpoint were allowed; the operator removed them."""
    monkeypatch.setenv("TEAM_CODER_Q_KEY", "sk-coder-q-2b7e-never-sent")
    with OpenAIStub() as stub:
        monkeypatch.setenv("MODEL_ALLOWED_KEY_ENV", "TEAM_CODER_Q_KEY")
        monkeypatch.setenv("MODEL_ALLOWED_URLS", stub.base_url)
        reset_settings_cache()
        flow.make_people()
        text = question_models.team_file(stub.base_url).replace(
            'api_key: "", ', "").replace("speaker_order:", "    api_key_env: TEAM_CODER_Q_KEY\nspeaker_order:")
        team_queries.save_team(flow.actor("erin"), text, origin="api")
        stub.enqueue(question_models.CODE)
        cid = flow.start("Write a helper to run a shell command", template="stub-coders")
        flow.work()
        review = flow.only_open_review(cid)
        claim(flow.actor("alice"), review.id)
        asked = len(stub.requests)

        monkeypatch.setenv("MODEL_ALLOWED_URLS", "")
        reset_settings_cache()
        ask_question(flow.actor("alice"), review.id, "Why shell=True?")
        assert asyncio.run(answer_open_questions()) == 1
        assert len(stub.requests) == asked
    [thread] = review_questions(flow.actor("alice"), review.id)
    assert thread.status == "failed" and "saved from the web" in thread.error and stub.base_url in thread.error
