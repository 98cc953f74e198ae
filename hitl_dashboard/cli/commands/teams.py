"""`teams list`, `teams show NAME`, `teams versions NAME`, `teams validate FILE|--all`,
`teams import FILE --as ADMIN`, `teams export NAME [--output FILE]`.

`validate` reads only the file. The others read the teams' versions in the database, which the
team files (built-in and TEAMS_DIR) seed; `import` saves a file as a new version (admins)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.services.auth.users import find_actor
from hitl_dashboard.services.teams import team_checks, team_queries


def register(sub: Any) -> None:
    commands = group(sub, "teams", "team definitions (docs/teams.md)")
    leaf(commands, "list", "list the teams this server knows", handler="teams list")
    p = leaf(commands, "show", "show one team: agents, models, tools, review rules", handler="teams show")
    p.add_argument("name")
    p = leaf(commands, "validate", "check a team file (or, with --all, every saved team); every problem names "
                                   "its field", handler="teams validate")
    p.add_argument("file", nargs="?")
    p.add_argument("--all", action="store_true", dest="all_teams",
                   help="check the newest saved version of every team against today's checks")
    p = leaf(commands, "versions", "every version of a team, newest first", handler="teams versions")
    p.add_argument("name")
    p = leaf(commands, "import", "save a team file as the team's newest version (admins)", handler="teams import")
    p.add_argument("file")
    p.add_argument("--as", dest="as_user", required=True, help="an admin: the version names who saved it")
    p = leaf(commands, "export", "print a team as a YAML team file", handler="teams export")
    p.add_argument("name")
    p.add_argument("--output", "-o", help="write to this file instead of printing")


@command("teams list")
def _teams_list(args) -> int:
    teams = team_queries.list_teams()
    emit(args, teams, table([[t.name, str(t.version), ", ".join(t.task_types), ", ".join(t.agents),
                              ", ".join(f"{n} ({a})" for n, a in t.tools.items()) or "-", t.source] for t in teams],
                            ["name", "version", "task types", "agents", "tools (approval)", "source"]))
    return 0


@command("teams versions")
def _teams_versions(args) -> int:
    found = team_queries.team_versions(None, args.name)
    emit(args, found, table([[str(v.number), v.origin, v.created_by or "-", v.created_at.isoformat(timespec="seconds"),
                              v.content_hash[:12]] for v in found],
                            ["version", "origin", "saved by", "saved at", "content"]))
    return 0


@command("teams import")
def _teams_import(args) -> int:
    text = team_queries.read_team_file(args.file)
    version, created = team_queries.save_team(find_actor(args.as_user), text, origin="import")
    emit(args, {"team": version.team, "version": version.number, "created": created},
         f"team '{version.team}' version {version.number}" + (" saved" if created else
                                                             " unchanged: the file equals the newest version"))
    return 0


@command("teams show")
def _teams_show(args) -> int:
    number, document = team_queries.versioned_team_document(None, args.name)
    emit(args, {"version": number, **document}, f"version {number}\n" + _describe(document))
    return 0


@command("teams validate")
def _teams_validate(args) -> int:
    if args.all_teams == bool(args.file):
        raise InvalidInput("give a team file or --all, not both", "file")
    if args.all_teams:
        return _validate_saved_teams(args)
    team = team_queries.check_team_file(args.file)
    emit(args, {"valid": True, "name": team.name, "agents": list(team.agent_names)},
         f"ok: {args.file} is a valid team file for team '{team.name}' ({len(team.agents)} agents)")
    return 0


def _validate_saved_teams(args) -> int:
    """Saved versions that fail today's checks still load and run (a conversation may be pinned to
    one); this lists them so an admin can fix and save them. Exit 2 when any is listed."""
    broken = team_checks.saved_team_problems(None)
    lines = [f"{name}: {problem}" for name, problems in broken.items() for problem in problems]
    emit(args, {"valid": not broken, "teams": broken},
         "\n".join(lines) if broken else "ok: the newest version of every team passes the checks")
    return 2 if broken else 0


@command("teams export")
def _teams_export(args) -> int:
    text = team_queries.export_team(None, args.name)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        emit(args, {"name": args.name, "file": args.output}, f"wrote team '{args.name}' to {args.output}")
    elif getattr(args, "json", False):
        emit(args, {"name": args.name, "yaml": text})
    else:
        print(text, end="")
    return 0


def _describe(team: dict[str, Any]) -> str:
    lines = [f"team {team['name']}: {team['description']}".rstrip(": "),
             f"speaker order: {team['speaker_order']['mode']}"
             + (f" (planner: {team['speaker_order']['planner']})" if team["speaker_order"]["planner"] else "")]
    lines.append("agents:")
    for agent in team["agents"]:
        tools = f", tools: {', '.join(agent['tools'])}" if agent["tools"] else ""
        lines.append(f"  {agent['name']} ({agent['description']}) model: {agent['model']}{tools}")
    lines.append("models:")
    for name, model in team["models"].items():
        key = f", key from ${model['api_key_env']}" if model["api_key_env"] else ""
        lines.append(f"  {name}: {model['provider']} {model['config'].get('model', '')}".rstrip() + key)
    if team["tools"]:
        lines.append("tools:")
        for name, tool in team["tools"].items():
            when = _rule(tool["when"])
            where = tool["function"] or f"MCP {tool['mcp']['transport']}"
            lines.append(f"  {name}: {where}, approval {tool['approval']}{when}")
    lines.append("task types:")
    for task_type, spec in team["task_types"].items():
        lines.append(f"  {task_type}: producer {spec['producer']}, sign-off {' -> '.join(spec['sign_off'])}")
    gates = team["gates"]
    lines.append(f"gates: {gates['mode']}, keywords {gates['keywords']}, tools needing approval {gates['tools']}")
    lines.append(f"tool calls approved by: {team['tool_approver']}")
    if team["sla_hours"]:
        lines.append("SLA: " + ", ".join(f"{role} {hours} h" for role, hours in team["sla_hours"].items()))
    return "\n".join(lines)


def _rule(rule: dict[str, Any] | None) -> str:
    if rule is None:
        return ""
    test = f"== {rule['equals']!r}" if rule["one_of"] is None else f"in {rule['one_of']!r}"
    return f" when {rule['argument']} {test}"
