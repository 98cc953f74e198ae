"""`hitl_dashboard rules ...`: make, refuse, promote (four eyes), show and revoke a standing rule from the shell."""

from __future__ import annotations

import json

from tests.conftest import run_cli
from tests.support import flow


def test_rules_from_the_shell(sqlite_url):
    flow.make_people()
    when = '{"argument": "environment", "equals": "staging"}'
    made = run_cli("rules", "create", "--as", "alice", "--team", "ops", "--tool", "deploy_to_prod", "--when", when,
                   "--json")
    rule = json.loads(made.stdout)
    assert rule["state"] == "shadow" and rule["owner"] == "alice"
    bad = run_cli("rules", "create", "--as", "alice", "--team", "ops", "--tool", "deploy_to_prod",
                  "--when", '{"argument": "env", "equals": "staging"}', check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("error: when.0.argument: ")
    assert "'env' is not an argument of deploy_to_prod" in bad.stderr
    own = run_cli("rules", "promote", str(rule["id"]), "--as", "alice", check=False)
    assert own.returncode != 0 and "four eyes" in own.stderr + own.stdout
    promoted = run_cli("rules", "promote", str(rule["id"]), "--as", "erin", "--override-reason", "staging only")
    assert f"rule {rule['id']} is active" in promoted.stdout
    listed = run_cli("rules", "list", "--as", "frank")
    assert "active" in listed.stdout and "environment == 'staging'" in listed.stdout
    shown = json.loads(run_cli("rules", "show", str(rule["id"]), "--as", "frank", "--json").stdout)
    assert shown["promoted_by"] == "erin" and shown["override_reason"] == "staging only"
    assert "is revoked" in run_cli("rules", "revoke", str(rule["id"]), "--as", "frank", "--reason", "done").stdout
