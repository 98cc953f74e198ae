"""The check of a team where it is written: `teams validate`, `teams import`, `PUT /api/teams/{name}`
and the admin page (save and "Try it") all call check_team, so they refuse with the same words.

Beyond the format (teams/model.py) it checks what only the running code can see: that function
tools and model providers import, that every name the team uses exists (teams/references.py), and
that each `when` approval rule names an argument its tool declares and compares it with a value
that argument can take (domain/approval_rules.py). An MCP tool's arguments are known only once a
conversation of this process has read them from its server; until then its rule is not checked
here (a check never starts or reaches a server), and at run time a rule on an argument the call
does not carry makes the call wait for approval.

Versions saved before these checks keep loading (a conversation pinned to one must still run);
saved_team_problems lists them for `teams validate --all` and the admin page."""

from __future__ import annotations

import importlib

from hitl_dashboard.agents.tools import ToolUnavailable, declared_parameters
from hitl_dashboard.domain.approval_rules import rule_problems
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.teams import versions, web_policy
from hitl_dashboard.teams.loading import TeamFileInvalid
from hitl_dashboard.teams.model import SCRIPTED, SERVER, TeamDefinition
from hitl_dashboard.teams.references import bad_references


def check_team(team: TeamDefinition, source: str) -> TeamDefinition:
    """The team, or TeamFileInvalid with every problem, one 'field: what is wrong' line each."""
    problems = team_problems(team)
    if problems:
        raise TeamFileInvalid(source, problems, problems[0].split(":")[0])
    return team


def team_problems(team: TeamDefinition) -> list[str]:
    imports = _import_problems(team)
    unusable = {line.split(".")[1] for line in imports if line.startswith("tools.")}
    return [*imports, *(str(p) for p in bad_references(team)), *_approval_rule_problems(team, unusable)]


def saved_team_problems(actor: Actor | None) -> dict[str, list[str]]:
    """Each team whose newest version fails today's checks: {name: its problems}. A version saved from
    the web that names what the operator does not allow gets those problems only: the other checks
    would import its functions and providers."""
    found = {name: _saved_problems(version, team) for name, (version, team) in versions.list_current(actor).items()}
    return {name: problems for name, problems in found.items() if problems}


def _saved_problems(version: versions.VersionInfo, team: TeamDefinition) -> list[str]:
    refused = [] if version.origin in web_policy.OPERATOR_ORIGINS else web_policy.web_team_problems(team)
    return refused or team_problems(team)


def _import_problems(team: TeamDefinition) -> list[str]:
    problems: list[str] = []
    for name, tool in team.tools.items():
        if tool.function is not None:
            module, _, attribute = tool.function.partition(":")
            try:
                found = getattr(importlib.import_module(module), attribute)
            except (ImportError, AttributeError) as exc:
                problems.append(f"tools.{name}.function: cannot import {tool.function} ({exc})")
            else:
                if not callable(found):
                    problems.append(f"tools.{name}.function: {tool.function} is not a function")
    for name, model in team.models.items():
        if model.provider not in (SCRIPTED, SERVER):
            module, _, attribute = model.provider.rpartition(".")
            try:
                getattr(importlib.import_module(module), attribute)
            except (ImportError, AttributeError, ValueError) as exc:
                problems.append(f"models.{name}.provider: cannot import {model.provider} ({exc}); "
                                "is its autogen-ext extra installed?")
    return problems


def _approval_rule_problems(team: TeamDefinition, unusable: set[str]) -> list[str]:
    """unusable: tools whose function does not import (already named)."""
    problems: list[str] = []
    for name, tool in team.tools.items():
        if tool.when is None or name in unusable:
            continue
        try:
            schema = declared_parameters(name, tool)
        except (ToolUnavailable, TypeError, ValueError, NameError) as exc:  # an untyped or unreadable signature
            problems.append(f"tools.{name}.function: cannot read the parameters of {tool.function} ({exc})")
            continue
        if schema is None:
            continue  # an MCP tool whose server has not been read yet (see the module's docstring)
        rule = tool.when
        for field, message in rule_problems(name, schema, rule.argument, rule.equals, rule.one_of):
            problems.append(f"tools.{name}.when.{field}: {message}")
    return problems
