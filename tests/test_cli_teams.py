"""`python -m hitl_dashboard teams list|show|validate|export` (issue 10), as an operator runs them."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.conftest import run_cli
from tests.test_team_files import MINIMAL


def test_list_and_show_the_builtin_teams(tmp_path: Path, sqlite_url) -> None:
    listed = json.loads(run_cli("teams", "list", "--json").stdout)
    assert [t["name"] for t in listed] == ["code", "copy", "ops", "auto"]
    ops = next(t for t in listed if t["name"] == "ops")
    assert ops["tools"] == {"deploy_to_prod": "always"} and ops["source"] == "built-in"
    text = run_cli("teams", "show", "code").stdout
    assert "code: producer coder, sign-off security_reviewer -> final_approver" in text
    shown = json.loads(run_cli("teams", "show", "auto", "--json").stdout)
    assert shown["task_types"]["copy"] == {"producer": "copywriter", "sign_off": ["product_reviewer", "final_approver"]}
    missing = run_cli("teams", "show", "nope", check=False)
    assert missing.returncode == 3 and "no team named 'nope'" in missing.stderr


def test_export_gives_a_file_that_validates(tmp_path: Path, sqlite_url) -> None:
    exported = run_cli("teams", "export", "ops").stdout
    assert yaml.safe_load(exported)["tools"]["deploy_to_prod"]["approval"] == "always"
    target = tmp_path / "ops.yaml"
    run_cli("teams", "export", "ops", "--output", str(target))
    assert target.read_text() == exported
    checked = run_cli("teams", "validate", str(target))
    assert checked.stdout.strip() == f"ok: {target} is a valid team file for team 'ops' (2 agents)"


def test_validate_names_each_bad_field(tmp_path: Path) -> None:
    good = tmp_path / "team.yaml"
    good.write_text(MINIMAL)
    assert json.loads(run_cli("teams", "validate", str(good), "--json").stdout)["name"] == "reviewed-deploys"

    data = yaml.safe_load(MINIMAL)
    del data["agents"][0]["description"]
    data["tools"]["deploy"]["approval"] = "sometimes"
    data["models"]["strong"]["config"]["api_key"] = "sk-not-to-be-echoed-123456"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    result = run_cli("teams", "validate", str(bad), check=False)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert "error: agents.0.description: required field is missing" in lines
    assert any(line.startswith("error: tools.deploy.approval: Input should be 'always', 'never' or 'when'")
               for line in lines)
    assert any(line.startswith("error: models.strong.config: 'api_key' holds a secret") for line in lines)
    assert "sk-not-to-be-echoed" not in result.stderr + result.stdout

    as_json = json.loads(run_cli("teams", "validate", str(bad), "--json", check=False).stderr)
    assert as_json["field"] == "agents.0.description" and len(as_json["problems"]) == 3


def test_validate_checks_the_function_imports(tmp_path: Path) -> None:
    data = yaml.safe_load(MINIMAL)
    data["tools"]["deploy"]["function"] = "no_such_package.tools:deploy"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    result = run_cli("teams", "validate", str(bad), check=False)
    assert result.returncode == 2
    assert "error: tools.deploy.function: cannot import no_such_package.tools:deploy" in result.stderr


def test_validate_checks_the_model_provider_imports(tmp_path: Path) -> None:
    data = yaml.safe_load(MINIMAL)
    data["models"]["strong"]["provider"] = "autogen_ext.models.nowhere.MissingClient"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    result = run_cli("teams", "validate", str(bad), check=False)
    assert result.returncode == 2
    assert "error: models.strong.provider: cannot import autogen_ext.models.nowhere.MissingClient" in result.stderr


def test_import_saves_a_version_that_new_conversations_get(tmp_path: Path, sqlite_url) -> None:
    from tests.support import flow

    flow.make_people()
    data = yaml.safe_load(run_cli("teams", "export", "ops").stdout)
    data["sla_hours"] = {"final_approver": 6}
    changed = tmp_path / "ops.yaml"
    changed.write_text(yaml.safe_dump(data, sort_keys=False))

    refused = run_cli("teams", "import", str(changed), "--as", "dave", check=False)
    assert refused.returncode != 0 and "only an admin of the workspace may save a team" in refused.stderr
    done = run_cli("teams", "import", str(changed), "--as", "erin")
    assert done.stdout.strip() == "team 'ops' version 2 saved"
    again = json.loads(run_cli("teams", "import", str(changed), "--as", "erin", "--json").stdout)
    assert again == {"team": "ops", "version": 2, "created": False}
    listed = json.loads(run_cli("teams", "versions", "ops", "--json").stdout)
    assert [(v["number"], v["origin"], v["created_by"]) for v in listed] == [(2, "import", "erin"), (1, "file", None)]
    assert json.loads(run_cli("teams", "show", "ops", "--json").stdout)["sla_hours"] == {"final_approver": 6.0}

    data["sla_hours"] = {"final_approver": "soon"}
    changed.write_text(yaml.safe_dump(data))
    bad = run_cli("teams", "import", str(changed), "--as", "erin", check=False)
    assert bad.returncode != 0 and "sla_hours.final_approver" in bad.stderr
