"""The admin page's team form (ui/views/team_form.py, team_document.py, team_problems.py): every
field of a team document goes through the form and back unchanged; agents, model clients and tools
(Python and MCP) are added and removed in rows; what the form cannot read is named at its field, and
what the team schema refuses is placed at the row and field it concerns, or at its YAML line."""

from __future__ import annotations

import copy
import dataclasses

import pytest
import yaml

from hitl_dashboard.teams.catalogue import get_team
from hitl_dashboard.teams.loading import TeamFileInvalid, dump_team, validate_team
from hitl_dashboard.teams.model import TeamDefinition
from hitl_dashboard.teams.providers import OPENAI
from hitl_dashboard.ui.views.team_document import apply_form, document_text
from hitl_dashboard.ui.views.team_form import AgentRow, ChainRow, ModelRow, ToolRow, form_of
from hitl_dashboard.ui.views.team_problems import form_problems, yaml_marks

# Every field of the format, with values that are not the defaults.
EVERYTHING = """\
format: 1
name: everything
description: Every field the format has.
agents:
  - name: planner
    description: Plans
    system_prompt: Plan it.
    model: local
  - name: releaser
    description: Releases
    system_prompt: |
      Release it.
      Then say DONE.
    model: offline
    tools: [deploy, notify, lookup]
models:
  local:
    provider: autogen_ext.models.openai.OpenAIChatCompletionClient
    config: {model: llama3.1, base_url: "http://127.0.0.1:11434/v1", api_key: "", temperature: 0.2,
             model_info: {vision: false, function_calling: true, json_output: false, family: unknown,
                          structured_output: false}}
    description: A local server
  offline:
    provider: scripted
    config: {plays: operator, delay_ms: 0}
  hosted:
    provider: autogen_ext.models.openai.OpenAIChatCompletionClient
    config: {model: gpt-4o-mini}
    api_key_env: OPENAI_API_KEY
tools:
  deploy:
    mcp:
      transport: stdio
      command: python
      args: [server.py, --log, "/tmp/a log.jsonl"]
      env_from: {TOKEN_THERE: TOKEN_HERE, REGION: AWS_REGION}
      tool: deploy_service
    description: Deploys through MCP
    approval: when
    when: {argument: environment, one_of: [production, dr]}
  notify:
    mcp:
      transport: streamable_http
      url: https://mcp.example.test/mcp
      headers_env: {Authorization: NOTIFY_TOKEN}
    approval: never
  lookup:
    function: hitl_dashboard.agents.tools:deploy_to_prod
    approval: when
    when: {argument: replicas, equals: 3}
speaker_order: {mode: round_robin, planner: planner}
task_types:
  ops: {producer: releaser, sign_off: [security_reviewer, final_approver]}
  code: {producer: releaser, sign_off: [final_approver]}
gates:
  mode: on_done
  agents: [releaser]
  keywords: [DROP TABLE, rm -rf]
  regex: (?i)password
  min_confidence: 0.7
  tools: [deploy, lookup, elsewhere]
  max_turns_without_review: 5
  min_finding_severity: high
tool_approver: product_reviewer
sla_hours: {security_reviewer: 4, final_approver: 1.5}
python_version: "3.12"
"""


def round_trip(document: dict) -> tuple[dict, dict]:
    return apply_form(document, form_of(document))


@pytest.mark.parametrize("name", ["code", "copy", "ops", "auto"])
def test_every_builtin_team_survives_the_form_unchanged(name: str) -> None:
    document = get_team(name).model_dump(mode="json")
    again, problems = round_trip(document)
    assert problems == {} and again == document


def test_every_field_survives_the_form_unchanged() -> None:
    written = yaml.safe_load(EVERYTHING)
    assert round_trip(written) == (written, {})  # as the YAML view holds it: absent stays absent
    saved = TeamDefinition.model_validate(written).model_dump(mode="json")
    assert round_trip(saved) == (saved, {})  # as a saved version is: every field there
    # The YAML view shows it as `teams export` writes it: the same team, no null fields.
    assert document_text(saved) == dump_team(TeamDefinition.model_validate(written))


def test_agents_models_and_tools_are_added_and_removed_in_rows() -> None:
    document = get_team("ops").model_dump(mode="json")
    form = form_of(document)
    form.models.append(ModelRow(name="gateway", provider=OPENAI, model="llama3.1",
                                base_url="http://127.0.0.1:8000/v1", no_key=True, other='{"temperature": 0}'))
    form.tools = [ToolRow(name="deploy_to_prod", kind="mcp", command="/usr/bin/python3",
                          args="deploy_server.py --log '/tmp/deploy log.jsonl'", server_tool="deploy",
                          env_from="MCP_LOG=DEPLOY_LOG", approval="when", when_argument="environment",
                          when_value="production")]
    form.agents.append(AgentRow(name="releaser", description="Releases", model="gateway", prompt="Release.",
                                tools=["deploy_to_prod"]))
    form.agents[1].tools = []
    form.chains = [ChainRow("ops", "releaser", "security_reviewer, final_approver")]
    form.gate_tools = ["deploy_to_prod"]
    edited, problems = apply_form(document, form)
    assert problems == {}
    team = validate_team(edited)
    assert team.agent_names == ("planner", "operator", "releaser")
    assert team.agent("releaser").model == "gateway" and team.agent("releaser").tools == ["deploy_to_prod"]
    assert team.models["gateway"].config == {"temperature": 0, "model": "llama3.1",
                                             "base_url": "http://127.0.0.1:8000/v1", "api_key": ""}
    tool = team.tools["deploy_to_prod"]
    assert tool.function is None and tool.mcp is not None
    assert tool.mcp.args == ["deploy_server.py", "--log", "/tmp/deploy log.jsonl"]
    assert (tool.mcp.tool, tool.mcp.env_from) == ("deploy", {"MCP_LOG": "DEPLOY_LOG"})
    assert tool.when is not None and tool.when.equals == "production"
    assert team.task_types["ops"].producer == "releaser" and team.gates.tools == ["deploy_to_prod"]
    assert document == get_team("ops").model_dump(mode="json")  # the original is untouched


def test_what_the_form_cannot_read_is_named_at_its_field() -> None:
    document = get_team("ops").model_dump(mode="json")
    form = form_of(document)
    form.min_confidence, form.max_turns = "high", "1.5"
    form.agents.append(AgentRow(name="planner", description="Again", model="server", prompt="p"))
    form.models.append(ModelRow(name="", other="[1, 2]"))
    form.tools.append(ToolRow(name="relay", kind="mcp", args="--name 'unclosed", env_from="JUSTANAME"))
    _, problems = apply_form(document, form)
    assert problems == {
        "gates.min_confidence": "a number", "gates.max_turns_without_review": "a whole number",
        "agents.2.name": "another agent is named 'planner'", "models.1.name": "every model needs a name",
        "models.1.other": 'the other settings must be a JSON object, e.g. {"temperature": 0}',
        "tools.1.mcp": "write each as NAME=VARIABLE, comma separated ('JUSTANAME' is not)",
    }
    form.tools[-1] = dataclasses.replace(form.tools[-1], env_from="")
    assert "cannot be read as shell words" in apply_form(document, form)[1]["tools.1.mcp"]


def test_schema_problems_are_placed_at_the_row_and_field_they_concern() -> None:
    document = yaml.safe_load(EVERYTHING)
    broken = copy.deepcopy(document)
    broken["agents"][1]["description"] = ""
    broken["agents"][0]["model"] = "nowhere"
    broken["tools"]["notify"]["mcp"]["transport"] = "carrier-pigeon"
    broken["models"]["hosted"]["config"]["api_key"] = "sk-not-here"
    broken["task_types"]["ops"]["sign_off"] = ["final_aprover"]
    with pytest.raises(TeamFileInvalid) as caught:
        validate_team(broken)
    placed = form_problems(caught.value.problems, form_of(broken))
    assert {"agents.1.description", "tools.1.mcp", "models.2.other", "chains.0.roles"} <= set(placed), placed
    assert "did you mean 'final_approver'" in placed["chains.0.roles"]
    # The reference checks name an agent by its name: the same row.
    from hitl_dashboard.teams.references import bad_references
    team = validate_team(document)
    with_gate = team.model_copy(update={"gates": team.gates.model_copy(update={"tools": ["deploy", "elsewhere"]})})
    assert form_problems([str(p) for p in bad_references(with_gate)], form_of(document)) == {
        "gates.tools": "'elsewhere' is not a tool of this team; the tools are 'deploy', 'notify', 'lookup'"}
    assert form_problems(["agents.releaser.tools: 'x' is not a tool"], form_of(document)) == {
        "agents.1.tools": "'x' is not a tool"}


def test_problems_are_marked_at_their_line_in_the_yaml() -> None:
    syntax = yaml_marks("name: x", ["the file is not valid YAML at line 3, column 7: no"], 3, 7)
    assert [(m.line, m.column, m.message) for m in syntax] == [(3, 7, "the file is not valid YAML: no")]
    marks = yaml_marks(EVERYTHING, ["tools.deploy.when.one_of.1: bad", "the team as a whole", "agents.1.model: m"])
    assert [(m.line, m.column, m.message) for m in marks] == [
        (1, 1, "the team as a whole"), (14, 5, "agents.1.model: m"), (40, 56, "tools.deploy.when.one_of.1: bad")]


def test_a_bad_tool_name_is_placed_at_that_tools_name() -> None:
    document = get_team("ops").model_dump(mode="json")
    form = form_of(document)
    form.tools[0].name = "deploy to prod"
    form.agents[1].tools = ["deploy to prod"]
    edited, problems = apply_form(document, form)
    assert problems == {}
    with pytest.raises(TeamFileInvalid) as caught:
        validate_team(edited)
    placed = form_problems(caught.value.problems, form)
    assert placed["tools.0.name"].startswith("String should match pattern")
    assert placed["agents.1.tools"].startswith("String should match pattern")


def test_agents_keep_what_is_theirs_when_their_order_changes() -> None:
    """The agents' order is the round-robin order; a moved agent keeps its own prompt and tools."""
    document = yaml.safe_load(EVERYTHING)
    form = form_of(document)
    form.agents.reverse()
    edited, problems = apply_form(document, form)
    assert problems == {} and edited["agents"] == list(reversed(document["agents"]))
