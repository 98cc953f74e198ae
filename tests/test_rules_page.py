"""The Rules page (/rules): its rows come from the services, in the workspace the tab shows, and its
only handlers are `load` and `act` (whose rule id and action are checked before any service call;
the services check the rights). A new handler must be listed here."""

from __future__ import annotations

from hitl_dashboard.services.rules import rules
from hitl_dashboard.services.rules.rules import RuleCommand
from hitl_dashboard.ui.pages.rules import rules_page
from hitl_dashboard.ui.states.rules import _ACTIONS, RulesState, rule_rows
from tests.support import flow


def test_the_page_lists_the_workspaces_rules_with_their_evidence(sqlite_url):
    flow.make_people()
    made = rules.create_rule(flow.actor("alice"), RuleCommand(
        team="ops", tool="deploy_to_prod", when={"argument": "environment", "equals": "staging"}))
    (row,) = rule_rows(flow.actor("frank"))
    assert (row.rule_id, row.state, row.when, row.owner) == (made.id, "shadow", "environment == 'staging'", "alice")
    assert row.evidence == "0 agreed · 0 disagreed · 0 decided"
    assert rule_rows(flow.actor("bob")) == [rule_rows(flow.actor("frank"))[0]]  # members read; rights act
    rules_page()  # builds


def test_the_states_handlers_are_known():
    assert {name for name in RulesState.event_handlers if name != "setvar"} == {"load", "act", "set_override"}
    assert set(_ACTIONS) == {"promote", "pause", "revoke"}


def test_a_sign_off_gate_rule_says_which_gate_it_decides(sqlite_url):
    from tests.test_content_gate_rules import allow, gate_rule

    flow.make_people()
    allow("security_reviewer")
    made = gate_rule({"argument": "file", "equals": "README.md"})
    (row,) = [r for r in rule_rows(flow.actor("frank")) if r.rule_id == made.id]
    assert row.tool == made.scope and row.tool.startswith("sign-off ") and "security_reviewer" in row.tool
