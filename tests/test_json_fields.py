"""JSON output carries what the pages show (issue 28): the team version a conversation is pinned
to and the model of each message, in `show --json`; the version in `teams show --json`."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from hitl_dashboard.teams.catalogue import get_team
from hitl_dashboard.teams.loading import dump_team
from tests.support import flow
from tests.support.cli_in_process import cli


def test_show_json_names_the_pinned_team_version_and_each_messages_model(tmp_path: Path, sqlite_url,
                                                                         capsys) -> None:
    flow.make_people()
    pinned_to_first = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops")
    changed = yaml.safe_load(dump_team(get_team("ops")))
    changed["sla_hours"] = {"final_approver": 6}
    (tmp_path / "ops.yaml").write_text(yaml.safe_dump(changed, sort_keys=False))
    assert cli(capsys, "teams", "import", str(tmp_path / "ops.yaml"), "--as", "erin")[0] == 0
    pinned_to_second = flow.start("Deploy billing-api v2.4.2 to production", task_type="ops")
    flow.work()

    code, out, _err = cli(capsys, "teams", "show", "ops", "--json")
    assert code == 0 and json.loads(out)["version"] == 2
    first = json.loads(cli(capsys, "show", str(pinned_to_first), "--json")[1])
    second = json.loads(cli(capsys, "show", str(pinned_to_second), "--json")[1])
    assert (first["template"], first["team_version"], second["team_version"]) == ("ops", 1, 2)
    models = [(m["source"], m["model"]) for m in second["messages"]]
    assert models[:3] == [("frank", None), ("planner", "scripted"), ("operator", "scripted")]
    text = cli(capsys, "show", str(pinned_to_second))[1]
    assert "team ops v2" in text and "--- 2 planner (text, model scripted)" in text
