"""What a team written by a web admin may make the server run or send (issue 45). A web admin (the
instance's or a workspace's) must not own the server by saving a team, so a team saved through the
API or the browser editor (and the editor's "Try it") may name only
- the stdio MCP command lines and variables the operator lists (stdio_policy.py);
- the tool functions of the built-in teams and of TEAM_TOOL_FUNCTIONS: a `function` runs any Python
  of the server's packages, and naming it imports its module;
- the model clients, key variables and endpoints the operator allows (model_policy.py).

Team files on disk and `teams import` are the operator's: not checked. A web-saved version is checked
again before anything of it is used: each time its conversation runs (runner.py), before an agent's
model answers a question, and before a reviewer's edited arguments are checked against a tool's schema
(which would import the function, or start the MCP server in the web worker). So a version saved
before these checks, or naming what the operator has since removed, fails closed."""

from __future__ import annotations

from functools import lru_cache

from sqlmodel import Session

from hitl_dashboard.db.team_models import TeamVersion
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.services.teams import model_policy, stdio_policy
from hitl_dashboard.settings import get_settings
from hitl_dashboard.teams.catalogue import BUILTIN_DIR
from hitl_dashboard.teams.loading import TeamFileInvalid, load_team_file
from hitl_dashboard.teams.model import TeamDefinition

OPERATOR_ORIGINS = frozenset({"file", "import"})  # where a version comes from the operator's hands


def check_web_team(team: TeamDefinition, source: str = "the team") -> None:
    """TeamFileInvalid naming each refused command line, variable, function or model, and what is allowed."""
    problems = web_team_problems(team)
    if problems:
        raise TeamFileInvalid(source, problems, problems[0].split(":")[0])


def web_team_problems(team: TeamDefinition) -> list[str]:
    """One 'field: what is wrong' line each; empty: a save from the web may name all of it."""
    return [*stdio_policy.mcp_problems(team), *_function_problems(team), *model_policy.model_problems(team)]


def run_problems(session: Session, version_id: int | None, team: TeamDefinition) -> list[str]:
    """Step: why a conversation on this version may not use its tools and models (empty: it may).
    Reads the version's origin only when the team names something a web save may not."""
    if version_id is None:
        return []  # started before versions (0012): its team's file, the operator's
    problems = web_team_problems(team)
    if not problems:
        return []
    row = session.get(TeamVersion, version_id)
    if row is None or row.origin in OPERATOR_ORIGINS:
        return []
    return problems


def check_run(session: Session, version_id: int | None, team: TeamDefinition, field: str) -> None:
    """InvalidInput at `field` when run_problems finds any: nothing of the team is imported or started."""
    problems = run_problems(session, version_id, team)
    if problems:
        raise InvalidInput(refusal(problems), field)


def refusal(problems: list[str]) -> str:
    return ("the team was saved from the web and names what the operator does not allow such a team to "
            "use: " + "; ".join(problems))


def allowed_functions() -> list[str]:
    """The built-in teams' functions, then the operator's (TEAM_TOOL_FUNCTIONS)."""
    return list(dict.fromkeys([*builtin_functions(), *get_settings().tool_functions()]))


@lru_cache(maxsize=1)
def builtin_functions() -> tuple[str, ...]:
    """Whatever tool functions the built-in team files name (the product's own: deploy_to_prod)."""
    found = (tool.function for path in sorted(BUILTIN_DIR.glob("*.yaml"))
             for tool in load_team_file(path).tools.values())
    return tuple(dict.fromkeys(function for function in found if function is not None))


def _function_problems(team: TeamDefinition) -> list[str]:
    problems: list[str] = []
    allowed = allowed_functions()
    for name, tool in team.tools.items():
        if tool.function is not None and tool.function not in allowed:
            problems.append(f"tools.{name}.function: the function {tool.function} is not one the operator allows "
                            f"a team saved from the web to name; the allowed ones (the built-in teams' and "
                            f"TEAM_TOOL_FUNCTIONS) are {', '.join(allowed)}")
    return problems
