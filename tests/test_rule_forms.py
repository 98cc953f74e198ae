"""The rule forms (issue 42): conditions written as values one per line (one: equals, several:
one_of), typed by the argument; errors shown beside the row they are about; the form states'
handlers are known (each is an endpoint any browser may call) and change nothing for rows or values
the form does not have. A new handler must be listed here."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.rule_forms import ConditionInput, condition_of, conditions_of, json_type, row_field
from hitl_dashboard.ui.states.new_rule import NewRuleState
from hitl_dashboard.ui.states.rule_candidates import RuleCandidatesState
from hitl_dashboard.ui.states.rule_evidence import RuleEvidenceState
from hitl_dashboard.ui.states.rule_from_review import RuleFromReviewState
from hitl_dashboard.ui.states.rule_terms import ConditionRow

TERMS = {"keep_condition", "set_condition_values", "set_expires_days", "set_daily_cap"}


def test_one_value_is_equals_several_are_one_of_and_each_is_read_as_its_type():
    assert condition_of(ConditionInput("environment", "string", "staging\n"), "f") == {
        "argument": "environment", "equals": "staging"}
    assert condition_of(ConditionInput("environment", "string", "staging\nproduction\nstaging"), "f") == {
        "argument": "environment", "one_of": ["staging", "production"]}
    assert condition_of(ConditionInput("replicas", "integer", "2"), "f") == {"argument": "replicas", "equals": 2}
    assert condition_of(ConditionInput("force", "boolean", "False"), "f") == {"argument": "force", "equals": False}
    assert condition_of(ConditionInput("ratio", "number", "0.5\n1"), "f") == {"argument": "ratio", "one_of": [0.5, 1]}
    assert condition_of(ConditionInput("force", "boolean", "true", kept=False), "f") is None  # unticked: wider
    assert condition_of(ConditionInput("force", "boolean", "  \n"), "f") is None
    with pytest.raises(InvalidInput) as bad:
        conditions_of([ConditionInput("service", "string", ""), ConditionInput("replicas", "integer", "two")])
    assert bad.value.field == "condition.1"


def test_a_services_error_about_when_n_is_shown_beside_its_row():
    made, origin = conditions_of([ConditionInput("a", "string", ""), ConditionInput("b", "string", "x"),
                                  ConditionInput("c", "string", "y")])
    assert [c["argument"] for c in made] == ["b", "c"] and origin == [1, 2]
    assert row_field("when.1.equals", origin) == "condition.2"
    assert row_field("when", origin) == "conditions"
    assert row_field("daily_cap", origin) == "daily_cap"
    assert row_field("when.7", origin) == "when.7"


def test_the_type_comes_from_the_declaration_else_the_calls_value():
    assert json_type({"type": "string", "enum": ["staging"]}) == "string"
    assert json_type({"anyOf": [{"type": "integer"}, {"type": "null"}]}) == "integer"
    assert json_type({"enum": [True, False]}) == "boolean"
    assert json_type({}, 3) == "integer"
    assert json_type({"type": "object"}, {"a": 1}) == ""


def test_the_form_states_handlers_are_known():
    def handlers(state: type) -> set[str]:
        return {name for name in state.event_handlers if name != "setvar"}

    assert handlers(RuleFromReviewState) == TERMS | {"open_rule_form", "close_rule_form", "save_rule"}
    assert handlers(NewRuleState) == TERMS | {"open_form", "open_from_candidate", "close_form", "pick_team",
                                              "pick_tool", "set_effect", "set_reason", "save"}
    assert handlers(RuleCandidatesState) == {"load_candidates", "set_setting", "save_settings"}
    assert handlers(RuleEvidenceState) == {"open_evidence", "close_evidence"}
    # Server-side only: the call's version and hash the form approves, the choices read for the workspace.
    assert all(RuleFromReviewState.__fields__[n]._backend for n in ("_review_id", "_version", "_content_hash"))
    assert NewRuleState.__fields__["_choices"]._backend


def test_a_row_the_form_does_not_have_changes_nothing():
    state = NewRuleState(_reflex_internal_init=True)
    state.conditions = [ConditionRow("environment", "string", "", True)]
    keep, values = (NewRuleState.event_handlers[n].fn for n in ("keep_condition", "set_condition_values"))
    for index in (1, -1, True, "0", None):
        keep(state, index, False)
        values(state, index, "production")
    values(state, 0, ["not", "text"])
    assert state.conditions == [ConditionRow("environment", "string", "", True)]
    values(state, 0, "staging\nproduction")
    keep(state, 0, False)
    assert state.conditions == [ConditionRow("environment", "string", "staging\nproduction", False)]
    with pytest.raises(InvalidInput) as nothing:
        state._terms()
    assert nothing.value.field == "conditions"
    keep(state, 0, True)
    state.daily_cap = "ten"
    with pytest.raises(InvalidInput) as cap:
        state._terms()
    assert cap.value.field == "daily_cap"
    state.daily_cap = "10"
    assert state._terms() == ([{"argument": "environment", "one_of": ["staging", "production"]}], 30, 10, [0])
    NewRuleState.event_handlers["pick_team"].fn(state, "no-such-team")  # not among the choices read: nothing
    assert state.team == "" and state.conditions[0].text == "staging\nproduction"


def test_the_settings_draft_takes_only_its_own_fields():
    state = RuleCandidatesState(_reflex_internal_init=True)
    set_setting = RuleCandidatesState.event_handlers["set_setting"].fn
    for name, value in (("user_id", "5"), ("roles", "admin"), ("min_approvals", 3), ("settings_error", "x")):
        set_setting(state, name, value)
    assert (state.user_id, state.roles, state.min_approvals, state.settings_error) == (0, [], "", "")
    set_setting(state, "min_approvals", "2")
    assert state.min_approvals == "2"
