"""The MCP gateway's rules without a server: which calls wait for a person (the team file's gateway
section, its `when` rules, fail closed for tools it does not list), what a bad section says, and the
names it lists (prefixed by server only where two servers offer the same name)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hitl_dashboard.services.mcp_gateway.names import public_names
from hitl_dashboard.teams.gateway_model import GatewayDef


def _gateway(**server) -> GatewayDef:
    return GatewayDef.model_validate({"servers": {"ops": {"transport": "streamable_http",
                                                           "url": "http://127.0.0.1:1/mcp", **server}}})


def test_approval_modes_and_when_rules_decide_which_calls_wait():
    server = _gateway(approvals={"status": {"approval": "never"}, "deploy": {
        "approval": "when", "when": {"argument": "environment", "one_of": ["production"]}}}).servers["ops"]
    assert not server.needs_approval("status", {})
    assert server.needs_approval("deploy", {"environment": "production"})
    assert not server.needs_approval("deploy", {"environment": "staging"})
    assert server.needs_approval("deploy", {})  # the rule cannot judge it: a person does
    assert server.needs_approval("drop_database", {})  # not listed: always, unless default_approval says never
    assert not _gateway(default_approval="never").servers["ops"].needs_approval("drop_database", {})


def test_a_bad_gateway_section_says_what_is_wrong():
    with pytest.raises(ValidationError, match="approval 'when' needs a when rule"):
        _gateway(approvals={"deploy": {"approval": "when"}})
    with pytest.raises(ValidationError, match="offers all its tools"):
        _gateway(tool="deploy")
    with pytest.raises(ValidationError, match="needs a command"):
        GatewayDef.model_validate({"servers": {"files": {"transport": "stdio"}}})


def test_names_are_prefixed_by_server_only_where_two_clash():
    names = public_names({"files": ["read", "search"], "web": ["search", "fetch"]})
    assert names == {"read": ("files", "read"), "files__search": ("files", "search"),
                     "web__search": ("web", "search"), "fetch": ("web", "fetch")}
