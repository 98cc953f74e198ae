"""One bad team per kind of rule that must be refused where a team is written (issue 28): each a
change to the built-in ops team (planner + operator, model `server`, tool deploy_to_prod) and the
words the refusal must contain: the field, the bad name, the allowed names and the closest one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml


@dataclass(frozen=True)
class BadTeam:
    kind: str
    change: Callable[[dict[str, Any]], None]
    expected: tuple[str, ...]  # each in the one problem line the refusal names


def _when(rule: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    return lambda team: team["tools"]["deploy_to_prod"].update(approval="when", when=rule)


BAD_TEAMS = [
    BadTeam("argument the tool does not declare", _when({"argument": "enviroment", "equals": "production"}),
            ("tools.deploy_to_prod.when.argument:", "`when enviroment == 'production'`", "'enviroment'",
             "'service', 'version', 'environment'", "did you mean 'environment'?")),
    BadTeam("enum value that does not exist", _when({"argument": "environment", "equals": "prod"}),
            ("tools.deploy_to_prod.when.equals:", "`when environment == 'prod'`", "'staging', 'production'",
             "did you mean 'production'?")),
    BadTeam("value of the wrong type", _when({"argument": "version", "one_of": ["2.4.1", 3]}),
            ("tools.deploy_to_prod.when.one_of:", "compares version with 3", "it is a string")),
    BadTeam("unknown operator", _when({"argument": "environment", "equal": "production"}),
            ("tools.deploy_to_prod.when:", "unknown operator 'equal'", "'equals', 'one_of'",
             "did you mean 'equals'?")),
    BadTeam("unknown tool in the gates", lambda team: team["gates"].update(tools=["deploy_to_prd"]),
            ("gates.tools:", "'deploy_to_prd' is not a tool", "'deploy_to_prod'", "did you mean 'deploy_to_prod'?")),
    BadTeam("unknown agent in the gates", lambda team: team["gates"].update(agents=["opertor"]),
            ("gates.agents:", "'opertor' is not an agent", "'planner', 'operator'", "did you mean 'operator'?")),
    BadTeam("unknown model", lambda team: team["agents"][1].update(model="sever"),
            ("agents.operator.model:", "'sever' is not a model", "'server'", "did you mean 'server'?")),
    BadTeam("unknown role in the sign-off chain", lambda team: team["task_types"]["ops"].update(
        sign_off=["final_aprover"]),
            ("task_types.ops.sign_off.0:", "'final_aprover'", "'security_reviewer', 'product_reviewer'",
             "did you mean 'final_approver'?")),
]


def bad_team_file(base: str, bad: BadTeam) -> str:
    """The team file `base` (YAML) with the bad change made."""
    team = yaml.safe_load(base)
    bad.change(team)
    return yaml.safe_dump(team, sort_keys=False)


def named(bad: BadTeam, text: str) -> bool:
    """The refusal `text` names this problem: one of its lines holds every expected part."""
    return any(all(part in line for part in bad.expected) for line in text.splitlines())
