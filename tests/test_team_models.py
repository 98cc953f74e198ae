"""Models and speaker orders a team file declares, built by agents/ (issue 10)."""

from __future__ import annotations

import pytest
from autogen_agentchat.messages import TextMessage

from hitl_dashboard.agents.model_clients import ModelSpec, build_declared_client
from hitl_dashboard.agents.retrying import RetryingChatCompletionClient
from hitl_dashboard.agents.scripted.model import ScriptedChatCompletionClient
from hitl_dashboard.agents.teams import make_selector
from hitl_dashboard.teams.loading import parse_team
from hitl_dashboard.teams.model import ModelDef
from tests.test_team_files import MINIMAL

OPENAI = "autogen_ext.models.openai.OpenAIChatCompletionClient"


def test_a_component_model_reads_its_key_from_the_named_variable(monkeypatch) -> None:
    model = ModelDef(provider=OPENAI, config={"model": "gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1"},
                     api_key_env="TEAM_TEST_KEY")
    monkeypatch.delenv("TEAM_TEST_KEY", raising=False)
    with pytest.raises(ValueError, match="needs the environment variable TEAM_TEST_KEY"):
        build_declared_client(model, "coder", ModelSpec())
    monkeypatch.setenv("TEAM_TEST_KEY", "sk-team-test-123456")
    client, label = build_declared_client(model, "coder", ModelSpec(timeout_s=7, max_retries=2))
    assert label == "gpt-4o-mini" and type(client.inner).__name__ == "OpenAIChatCompletionClient"
    assert client.inner._client.api_key == "sk-team-test-123456"


def test_a_declared_model_gets_the_servers_timeout_and_retries_unless_it_sets_its_own(monkeypatch) -> None:
    monkeypatch.setenv("TEAM_TEST_KEY", "sk-team-test-123456")
    config = {"model": "gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1"}
    client, _ = build_declared_client(ModelDef(provider=OPENAI, config=config, api_key_env="TEAM_TEST_KEY"), "coder",
                                      ModelSpec(timeout_s=7, max_retries=2))
    assert isinstance(client, RetryingChatCompletionClient)
    assert (client._timeout_s, client._attempt_timeout_s, client._max_attempts) == (7, 7, 2)
    assert (client.inner._client.timeout, client.inner._client.max_retries) == (7, 0)  # the retries are ours
    own = ModelDef(provider=OPENAI, config={**config, "timeout": 120}, api_key_env="TEAM_TEST_KEY")
    client, _ = build_declared_client(own, "coder", ModelSpec(timeout_s=7))
    assert (client._timeout_s, client.inner._client.timeout) == (120, 120)


def test_a_server_that_takes_no_key_never_gets_one_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-secret-000")
    config = {"model": "gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1", "api_key": ""}  # "takes no key"
    model = ModelDef(provider=OPENAI, config=config)
    client, _ = build_declared_client(model, "coder", ModelSpec())
    assert client.inner._client.api_key == "unused"


def test_a_model_that_cannot_load_says_so_without_the_key(monkeypatch) -> None:
    monkeypatch.setenv("TEAM_TEST_KEY", "sk-team-test-123456")
    model = ModelDef(provider=OPENAI, config={"no_such_option": True}, api_key_env="TEAM_TEST_KEY")
    with pytest.raises(ValueError) as caught:
        build_declared_client(model, "coder", ModelSpec())
    assert str(caught.value).startswith(f"cannot load the model {OPENAI}")
    assert "sk-team-test" not in str(caught.value)


def test_the_scripted_model_plays_the_agent() -> None:
    client, label = build_declared_client(ModelDef(provider="scripted", config={"delay_ms": 5}), "coder", ModelSpec())
    assert isinstance(client, ScriptedChatCompletionClient) and label == "scripted"


def _said(*sources: str) -> list[TextMessage]:
    return [TextMessage(source=s, content=f"from {s}") for s in sources]


def test_round_robin_and_mentions() -> None:
    team = parse_team(MINIMAL.replace("mode: planner_then_producer, planner: planner", "mode: round_robin"))
    select = make_selector(team, "ops")
    assert select(_said("user")) == "planner"
    assert select(_said("user", "planner")) == "operator"
    assert select(_said("user", "planner", "operator")) == "planner"
    assert select([*_said("user", "planner"), TextMessage(source="alice", content="@planner again")]) == "planner"


def test_model_selected_defers_to_the_model_unless_mentioned() -> None:
    team = parse_team(MINIMAL.replace("mode: planner_then_producer, planner: planner", "mode: model_selected"))
    select = make_selector(team, "ops")
    assert select(_said("user", "planner")) is None
    assert select([*_said("user"), TextMessage(source="alice", content="@operator go")]) == "operator"


def test_a_scripted_agent_of_another_name_plays_a_builtin_role() -> None:
    client, _ = build_declared_client(ModelDef(provider="scripted", config={"plays": "coder"}), "backend_dev",
                                      ModelSpec())
    assert client.agent_role == "coder"


def test_an_attempt_that_never_answers_is_bounded_even_without_a_client_timeout() -> None:
    """A declared provider may have no timeout of its own: the wrapper's bound ends each attempt."""
    import asyncio

    from autogen_core.models import UserMessage

    from hitl_dashboard.agents.errors import ModelCallFailed

    never = ScriptedChatCompletionClient("coder", delay_ms=3_600_000)  # an hour of "thinking"
    client = RetryingChatCompletionClient(never, endpoint="ollama", timeout_s=0.05, max_attempts=2,
                                          base_delay_s=0.01, attempt_timeout_s=0.05)
    ask = [UserMessage(content="Write a retry helper", source="user")]
    with pytest.raises(ModelCallFailed, match=r"model call timed out after 0.05 s \(2 attempts\)"):
        asyncio.run(client.create(ask))

    async def first_chunk():
        async for item in client.create_stream(ask):
            return item

    with pytest.raises(ModelCallFailed, match="timed out"):
        asyncio.run(first_chunk())
