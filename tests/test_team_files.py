"""The team file format (issue 10): what a valid file gives, and what a bad one is told."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from hitl_dashboard.teams.loading import TeamFileInvalid, dump_team, load_team_file, parse_team
from hitl_dashboard.teams.providers import implicit_key_variable
from hitl_dashboard.teams.schema import SCHEMA_PATH, schema_text

BUILTIN = Path(__file__).resolve().parents[1] / "hitl_dashboard" / "teams"

MINIMAL = """
name: reviewed-deploys
agents:
  - name: planner
    description: Plans the work
    system_prompt: Plan it.
    model: fast
  - name: operator
    description: Deploys
    system_prompt: Deploy it.
    model: strong
    tools: [deploy]
models:
  fast: {provider: scripted}
  strong:
    provider: autogen_ext.models.openai.OpenAIChatCompletionClient
    config: {model: gpt-4o-mini, base_url: "http://127.0.0.1:9/v1"}
    api_key_env: OPENAI_API_KEY
tools:
  deploy:
    function: hitl_dashboard.agents.tools:deploy_to_prod
    approval: when
    when: {argument: environment, equals: production}
speaker_order: {mode: planner_then_producer, planner: planner}
task_types:
  ops: {producer: operator, sign_off: [security_reviewer, final_approver]}
gates: {tools: [deploy]}
sla_hours: {security_reviewer: 2}
"""


def _with(change) -> str:
    data = yaml.safe_load(MINIMAL)
    change(data)
    return yaml.safe_dump(data)


def _problems(text: str) -> list[str]:
    with pytest.raises(TeamFileInvalid) as caught:
        parse_team(text, "team.yaml")
    return caught.value.problems


def test_a_valid_file_gives_a_definition() -> None:
    team = parse_team(MINIMAL)
    assert team.agent_names == ("planner", "operator")
    assert team.fixed_task_type == "ops" and team.sign_off("ops") == ("security_reviewer", "final_approver")
    assert team.default_policy("ops").agents == ("operator",)
    assert team.models["strong"].api_key_env == "OPENAI_API_KEY"
    # approval 'when environment == production'
    assert team.needs_approval("deploy", {"environment": "production"})
    assert not team.needs_approval("deploy", {"environment": "staging"})
    assert team.needs_approval("deploy", {})  # cannot judge: a human looks


def test_export_round_trips() -> None:
    team = parse_team(MINIMAL)
    assert parse_team(dump_team(team)) == team


def test_a_missing_field_is_named() -> None:
    problems = _problems(_with(lambda d: d["agents"][1].pop("system_prompt")))
    assert problems == ["agents.1.system_prompt: required field is missing"]


def test_an_unknown_approval_mode_is_named() -> None:
    problems = _problems(_with(lambda d: d["tools"]["deploy"].update(approval="sometimes")))
    assert len(problems) == 1 and problems[0].startswith("tools.deploy.approval: Input should be 'always', 'never'")


def test_a_literal_api_key_is_refused_and_not_echoed() -> None:
    secret = "sk-live-do-not-store-1234567890"
    with pytest.raises(TeamFileInvalid) as caught:
        parse_team(_with(lambda d: d["models"]["strong"]["config"].update(api_key=secret)), "team.yaml")
    assert caught.value.problems == [
        "models.strong.config: 'api_key' holds a secret: a team file never contains a key value; name its "
        "environment variable with api_key_env (e.g. api_key_env: OPENAI_API_KEY)"]
    assert caught.value.field == "models.strong.config"
    assert secret not in str(caught.value)
    # Next to the provider instead of in config: an unknown field, with the same advice.
    problems = _problems(_with(lambda d: d["models"]["strong"].update(api_key=secret)))
    assert problems == ["models.strong.api_key: unknown field (a key value is never stored: use api_key_env)"]


@pytest.mark.parametrize("config", [
    {"model": "llama3.1", "base_url": "http://127.0.0.1:11434/v1"},  # a local gateway: it would get OPENAI_API_KEY
    {"model": "llama3.1", "base_url": "http://127.0.0.1:11434/v1", "api_key": None},  # null: the SDK reads the env
    {"model": "gpt-4o-mini"},  # OpenAI itself: still say which variable
], ids=["local-gateway", "null-key", "openai"])
def test_a_model_whose_sdk_would_read_a_key_by_itself_must_say_where_its_key_comes_from(config) -> None:
    def change(data):
        data["models"]["strong"] = {"provider": "autogen_ext.models.openai.OpenAIChatCompletionClient",
                                    "config": config}

    with pytest.raises(TeamFileInvalid) as caught:
        parse_team(_with(change), "team.yaml")
    [problem] = caught.value.problems
    assert caught.value.field == "models.strong"
    assert problem.startswith("models.strong: api_key_env is missing: say where the key comes from, with "
                              "api_key_env: OPENAI_API_KEY (or another variable), or with api_key: \"\" under config")
    assert f"would send the OPENAI_API_KEY of the server's environment to {config.get('base_url', 'its endpoint')}" \
        in problem
    # Either answer is valid: a named variable, or "this server takes no key".
    for fix in ({"api_key_env": "LOCAL_GATEWAY_KEY"}, {"config": {**config, "api_key": ""}}):
        parse_team(_with(lambda d, fix=fix: (change(d), d["models"]["strong"].update(fix))))
    azure = {"provider": "AzureOpenAIChatCompletionClient", "config": {"azure_endpoint": "https://x.openai.azure.com"}}
    assert "AZURE_OPENAI_API_KEY" in _problems(_with(lambda d: d["models"].update(strong=azure)))[0]


def test_references_must_resolve() -> None:
    assert _problems(_with(lambda d: d["agents"][0].update(model="strnog"))) == [
        "agents.planner.model: 'strnog' is not a model of this team; the models are 'fast', 'strong' "
        "(did you mean 'strong'?)"]
    assert _problems(_with(lambda d: d["agents"][1].update(tools=["rm"]))) == [
        "agents.operator.tools: 'rm' is not a tool of this team; the tools are 'deploy'"]
    assert _problems(_with(lambda d: d["task_types"]["ops"].update(producer="opertor"))) == [
        "task_types.ops.producer: 'opertor' is not an agent of this team; the agents are 'planner', 'operator' "
        "(did you mean 'operator'?)"]


@pytest.mark.parametrize(("change", "expected"), [
    (lambda d: d["tools"]["deploy"].pop("when"), "tools.deploy: approval 'when' needs a when rule"),
    (lambda d: d["tools"]["deploy"].update(mcp={"transport": "stdio"}), "tools.deploy.mcp: a stdio MCP server"),
    (lambda d: d["task_types"]["ops"].update(sign_off=["janitor"]), "task_types.ops.sign_off.0: Input should be"),
    (lambda d: d["gates"].update(regex="("), "gates: gate policy regex is invalid"),
    (lambda d: d["sla_hours"].update(security_reviewer=0), "sla_hours.security_reviewer: Input should be greater"),
    (lambda d: d["agents"][0].update(name="bad name"), "agents.0.name: String should match pattern"),
])
def test_other_bad_fields_are_named(change, expected) -> None:
    problems = _problems(_with(change))
    assert any(p.startswith(expected) for p in problems), problems


def test_not_yaml_or_not_a_mapping() -> None:
    assert _problems("name: [unclosed")[0].startswith("the file is not valid YAML")
    assert _problems("- a list")[0].startswith("the file must be a mapping")


def test_the_builtin_teams_are_valid_files() -> None:
    names = {load_team_file(path).name for path in BUILTIN.glob("*.yaml")}
    assert names == {"code", "copy", "ops", "auto"}


def test_the_published_schema_is_current() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), (
        "docs/team.schema.json is stale: run python -m hitl_dashboard.teams.schema")
    schema = json.loads(schema_text())
    assert list(schema["properties"]["tools"]["patternProperties"].values()) == [{"$ref": "#/$defs/ToolDef"}]
    assert schema["$defs"]["ToolDef"]["properties"]["approval"]["enum"] == ["always", "never", "when"]


def test_the_builtin_sign_off_chains_are_todays() -> None:
    teams = {load_team_file(path).name: load_team_file(path) for path in BUILTIN.glob("*.yaml")}
    chains = {"code": ("security_reviewer", "final_approver"), "copy": ("product_reviewer", "final_approver"),
              "ops": ("final_approver",)}
    for task_type, chain in chains.items():
        assert teams[task_type].sign_off(task_type) == chain == teams["auto"].sign_off(task_type)


def test_the_team_in_the_docs_is_valid() -> None:
    docs = (BUILTIN.parents[1] / "docs" / "teams.md").read_text(encoding="utf-8")
    example = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    team = parse_team(example, "docs/teams.md")
    assert team.name == "careful-ops" and team.tools["deploy_to_prod"].approval == "when"


def test_the_readme_team_file_is_valid_and_uses_two_models() -> None:
    """The README's example is what newcomers copy: it must load as it stands."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme[readme.index("## Bring your own team"):]
    team = parse_team(re.search(r"```yaml\n(.*?)```", section, re.S).group(1), "README.md")
    assert {team.agent("planner").model, team.agent("coder").model} == {"local", "gpt"}
    assert team.models["gpt"].api_key_env == "OPENAI_API_KEY" and "api_key" not in team.models["gpt"].config
    # A model whose SDK reads a key by itself says where its key comes from (parse_team refuses it
    # otherwise): the local server takes none, so the operator's OPENAI_API_KEY never goes to it.
    for name, model in team.models.items():
        if implicit_key_variable(model.provider):
            assert model.api_key_env or model.config.get("api_key") == "", name
    assert team.models["local"].config["api_key"] == "" and team.models["local"].api_key_env is None
