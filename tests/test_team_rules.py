"""Team rules are checked where they are written (issue 28): `teams validate` and `teams import`
refuse each kind of bad rule with one message naming it (PUT /api/teams: tests/test_api_teams.py).
A team saved before the checks still loads and runs, is listed by `teams validate --all`, and a
rule that cannot judge a call makes the call wait for a human."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

import pytest
from pydantic import BaseModel

from hitl_dashboard.domain.approval_rules import rule_problems
from hitl_dashboard.services.teams.team_checks import team_problems
from hitl_dashboard.teams.catalogue import get_team
from hitl_dashboard.teams.loading import dump_team, parse_team
from tests.support import flow
from tests.support.cli_in_process import cli
from tests.support.invalid_rules import BAD_TEAMS, BadTeam, bad_team_file, named
from tests.support.team_dirs import teams_dir
from tests.test_team_runtime import TEAM, deploys


@pytest.mark.parametrize("bad", BAD_TEAMS, ids=lambda bad: bad.kind)
def test_validate_refuses_each_bad_rule_naming_it(bad: BadTeam, tmp_path: Path, capsys) -> None:
    target = tmp_path / "ops.yaml"
    target.write_text(bad_team_file(dump_team(get_team("ops")), bad))
    code, out, err = cli(capsys, "teams", "validate", str(target))
    assert code == 2 and out == ""
    assert named(bad, err), err


def test_import_refuses_each_bad_rule_and_saves_nothing(tmp_path: Path, sqlite_url, capsys) -> None:
    flow.make_people()
    base = dump_team(get_team("ops"))
    target = tmp_path / "ops.yaml"
    for bad in BAD_TEAMS:
        target.write_text(bad_team_file(base, bad))
        code, _out, err = cli(capsys, "teams", "import", str(target), "--as", "erin")
        assert code == 2 and named(bad, err), (bad.kind, err)
    code, out, _err = cli(capsys, "teams", "versions", "ops", "--json")
    assert [v["number"] for v in json.loads(out)] == [1]


def test_a_string_compared_with_an_integer_parameter_is_refused() -> None:
    class Size(Enum):
        SMALL = "small"
        LARGE = "large"

    class ScaleArgs(BaseModel):
        replicas: int
        size: Size | None = None

    schema = ScaleArgs.model_json_schema()
    [(field, message)] = rule_problems("scale", schema, "replicas", equals="3")
    assert field == "equals" and "compares replicas with '3'" in message and "it is an integer" in message
    [(field, message)] = rule_problems("scale", schema, "size", one_of=["small", "huge"])
    assert field == "one_of" and "'small', 'large'" in message
    assert rule_problems("scale", schema, "replicas", one_of=[2, 3]) == []
    assert rule_problems("scale", schema, "size", equals="large") == []


BROKEN = TEAM.replace("when: {argument: environment, equals: production}",
                      "when: {argument: enviroment, equals: production}")


@pytest.fixture
def broken_team(tmp_path: Path, monkeypatch, sqlite_url):
    """careful-ops as it might have been saved before the checks: its rule names a missing argument."""
    assert BROKEN != TEAM
    with teams_dir(tmp_path / "teams", monkeypatch, {"careful-ops.yaml": BROKEN}) as folder:
        yield folder


def test_a_saved_team_that_fails_the_checks_is_listed_and_still_runs_failing_closed(broken_team, capsys) -> None:
    code, out, _err = cli(capsys, "teams", "validate", "--all", "--json")
    listed = json.loads(out)
    assert code == 2 and listed["valid"] is False and list(listed["teams"]) == ["careful-ops"]
    [problem] = listed["teams"]["careful-ops"]
    assert problem.startswith("tools.deploy_to_prod.when.argument: the rule `when enviroment == 'production'`")
    assert "did you mean 'environment'?" in problem

    # The admin page marks it with the same problems (ui/pages/admin_teams.py shows row.problems).
    from hitl_dashboard.ui.states.team_listing import team_rows

    flow.make_people()
    rows = {row.name: row for row in team_rows(flow.actor("erin"))}
    assert rows["careful-ops"].problems == [problem] and rows["ops"].problems == []

    # A staging deploy would run at once under the rule as meant; under a rule that cannot judge
    # the call, it waits for the team's tool approver.
    cid = flow.start("Deploy billing-api v2.4.1 to staging", task_type="ops", template="careful-ops")
    flow.work()
    assert deploys() == []
    review = flow.only_open_review(cid)
    assert (review.kind, review.required_role, review.rule) == ("tool_call", "final_approver", "tool")


def test_validate_all_passes_the_builtin_teams(sqlite_url, capsys) -> None:
    code, out, _err = cli(capsys, "teams", "validate", "--all")
    assert (code, out.strip()) == (0, "ok: the newest version of every team passes the checks")


def test_a_rule_on_a_function_whose_parameters_cannot_be_read_is_refused() -> None:
    untyped = BROKEN.replace("hitl_dashboard.agents.tools:deploy_to_prod", "os.path:join")
    assert team_problems(parse_team(untyped)) == [
        "tools.deploy_to_prod.function: cannot read the parameters of os.path:join "
        "(tool 'deploy_to_prod': parameter a has no type hint)"]
