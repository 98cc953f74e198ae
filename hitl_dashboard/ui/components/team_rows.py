"""The team editor's rows (issue 30): each agent (its model client, its tools, its prompt), each model
client (a provider this server knows and its settings), each tool (a Python function by import path,
or an MCP server's tool, with its approval mode), each task type's sign-off chain. Rows are added and
removed here; a problem shows at the row's field it concerns."""

from __future__ import annotations

import reflex as rx
from reflex.vars import StringVar

from hitl_dashboard.teams.references import SCRIPTED_PLAYS
from hitl_dashboard.ui.components.allowed_mcp import server_picker
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.team_fields import field, problem, remove_button, select, text_input
from hitl_dashboard.ui.states.admin_teams import AdminTeamsState as Teams
from hitl_dashboard.ui.views.team_form import APPROVALS, REVIEW_ROLES, TASK_TYPES, AgentRow, ChainRow, ModelRow, ToolRow

TOOL_KINDS = {"function": "Python function", "mcp": "MCP server tool"}
TRANSPORTS = {"stdio": "stdio (a command)", "streamable_http": "Streamable HTTP", "sse": "SSE"}
OPERATORS = {"equals": "equals", "one_of": "is one of"}


def _key(section: str, index: rx.Var[int], part: str = "") -> rx.Var:
    return section + "." + index.to_string() + ("." + part if part else "")


def _id(name: str, index: rx.Var[int]) -> rx.Var:
    return name + "-" + index.to_string()


def _text(section: str, row, index: rx.Var[int], part: str, label: str, hint: str = "", **props) -> rx.Component:
    return field(label, text_input(getattr(row, part), lambda v: Teams.set_row(section, index, part, v),
                                   _id(f"{section[:-1]}-{part.replace('_', '-')}", index), **props),
                 _key(section, index, part), hint)


def _choice(section: str, row, index: rx.Var[int], part: str, label: str, choices, hint: str = "",
            **props) -> rx.Component:
    return field(label, select(choices, getattr(row, part), lambda v: Teams.set_row(section, index, part, v),
                               _id(f"{section[:-1]}-{part.replace('_', '-')}", index), label, **props),
                 _key(section, index, part), hint)


def _card(section: str, index: rx.Var[int], title: StringVar, *content: rx.Component) -> rx.Component:
    return rx.card(rx.vstack(
        rx.hstack(rx.text(title, weight="bold", size="2"), rx.spacer(),
                  *([_move(index, -1, "arrow-up", "Move up"), _move(index, 1, "arrow-down", "Move down")]
                    if section == "agents" else []),
                  remove_button("Remove " + title, Teams.remove_row(section, index),
                                _id(f"remove-{section[:-1]}", index)),
                  align="center", width="100%"),
        *content, problem(_key(section, index)),
        spacing="2", width="100%",
    ), size="1", width="100%", class_name=f"{section[:-1]}-card")


def _move(index: rx.Var[int], step: int, icon: str, label: str) -> rx.Component:
    """The agents' order is the round-robin order (and the file's)."""
    return rx.icon_button(rx.icon(icon, size=14), on_click=Teams.move_row("agents", index, step), size="1",
                          variant="ghost", aria_label=label, title=label, id=_id(f"agent-{icon}", index))


def agent_card(agent: RowVar[AgentRow], index: rx.Var[int]) -> rx.Component:
    def holds(tool: RowVar[ToolRow]) -> rx.Component:
        return rx.checkbox(tool.name, checked=agent.tools.contains(tool.name), size="1",
                           on_change=lambda on: Teams.toggle_agent_tool(index, tool.name, on),
                           id="agent-" + index.to_string() + "-tool-" + tool.name)

    return _card("agents", index, agent.name, rx.grid(
        _text("agents", agent, index, "name", "Name", "an identifier: reviewers write @name"),
        _choice("agents", agent, index, "model", "Model client", Teams.model_names),
        columns=rx.breakpoints(initial="1", sm="2"), spacing="3", width="100%"),
        _text("agents", agent, index, "description", "Description"),
        field("System prompt", rx.text_area(value=agent.prompt, rows="4", width="100%", id=_id("agent-prompt", index),
                                            on_change=lambda v: Teams.set_row("agents", index, "prompt", v)),
              _key("agents", index, "prompt")),
        field("Tools", rx.hstack(
            rx.foreach(Teams.tools, holds),
            # A name it holds that is no tool of the team (renamed or removed): shown, to uncheck.
            rx.foreach(agent.tools, lambda name: rx.cond(~Teams.tool_names.contains(name), rx.checkbox(
                name + " (not a tool of this team)", checked=True, size="1", color_scheme="red",
                on_change=lambda on: Teams.toggle_agent_tool(index, name, on)))),
            rx.cond((Teams.tools.length() == 0) & (agent.tools.length() == 0),
                    rx.text("The team has no tools yet.", size="1", color_scheme="gray")),
            wrap="wrap", spacing="3"), _key("agents", index, "tools")),
    )


def model_card(model: RowVar[ModelRow], index: rx.Var[int]) -> rx.Component:
    return _card("models", index, model.name, rx.grid(
        _text("models", model, index, "name", "Name", "agents choose their model client by this name"),
        _choice("models", model, index, "provider", "Provider", Teams.providers, pairs=True),
        columns=rx.breakpoints(initial="1", sm="2"), spacing="3", width="100%"),
        rx.cond(model.provider == "scripted",
                _choice("models", model, index, "plays", "Plays", {p: p for p in SCRIPTED_PLAYS},
                        "the built-in script an agent of another name follows", none="its agent's own name")),
        rx.cond((model.provider != "scripted") & (model.provider != "server"), rx.vstack(
            rx.grid(
                _text("models", model, index, "model", "Model", placeholder="e.g. gpt-4o-mini"),
                _text("models", model, index, "base_url", "Base URL", placeholder="optional, e.g. http://127.0.0.1:8000/v1"),
                _text("models", model, index, "api_key_env", "Key from the environment variable",
                      placeholder="e.g. OPENAI_API_KEY"),
                columns=rx.breakpoints(initial="1", sm="3"), spacing="3", width="100%"),
            rx.checkbox("This server takes no key (api_key: \"\")", checked=model.no_key, size="1",
                        on_change=lambda on: Teams.set_row("models", index, "no_key", on),
                        id=_id("model-no-key", index)),
            spacing="2", width="100%")),
        _text("models", model, index, "other", "Other settings (JSON)",
              placeholder='optional, e.g. {"temperature": 0}'),
    )


def tool_card(tool: RowVar[ToolRow], index: rx.Var[int]) -> rx.Component:
    def on(part: str):
        return lambda v: Teams.set_row("tools", index, part, v)

    return _card("tools", index, tool.name, rx.grid(
        _text("tools", tool, index, "name", "Name", "the name agents call it by"),
        _choice("tools", tool, index, "kind", "Kind", TOOL_KINDS),
        _choice("tools", tool, index, "approval", "Approval", {a: a for a in APPROVALS}),
        columns=rx.breakpoints(initial="1", sm="3"), spacing="3", width="100%"),
        rx.cond(tool.kind == "function",
                _text("tools", tool, index, "function", "Function", "package.module:function",
                      placeholder="hitl_dashboard.agents.tools:deploy_to_prod"),
                _mcp_fields(tool, index)),
        rx.cond(tool.approval == "when", rx.vstack(rx.hstack(
            rx.input(value=tool.when_argument, on_change=on("when_argument"), placeholder="argument, e.g. environment",
                     aria_label="When argument", size="1", id=_id("tool-when-argument", index)),
            rx.box(select(OPERATORS, tool.when_operator, on("when_operator"), _id("tool-when-operator", index),
                          "When operator"), width="9em"),
            rx.input(value=tool.when_value, on_change=on("when_value"), placeholder="e.g. production (one_of: a, b)",
                     aria_label="When value", size="1", id=_id("tool-when-value", index)),
            align="center", spacing="2", wrap="wrap"), problem(_key("tools", index, "when")), width="100%")),
        rx.checkbox("Listed in gates.tools (informational: the approval mode decides)",
                    checked=Teams.gate_tools.contains(tool.name), size="1",
                    on_change=lambda checked: Teams.toggle_gate_tool(tool.name, checked), id=_id("gate-tool", index)),
        _text("tools", tool, index, "description", "Description", placeholder="optional: the function's docstring"),
    )


def _mcp_fields(tool: RowVar[ToolRow], index: rx.Var[int]) -> rx.Component:
    return rx.vstack(
        rx.cond(tool.transport == "stdio", server_picker(index)),
        rx.grid(
            _choice("tools", tool, index, "transport", "Transport", TRANSPORTS),
            rx.cond(tool.transport == "stdio",
                    _text("tools", tool, index, "command", "Command", placeholder="e.g. python"),
                    _text("tools", tool, index, "url", "URL", placeholder="https://...")),
            _text("tools", tool, index, "server_tool", "The server's name for it", placeholder="if not the same"),
            columns=rx.breakpoints(initial="1", sm="3"), spacing="3", width="100%"),
        rx.cond(tool.transport == "stdio",
                _text("tools", tool, index, "args", "Arguments", "shell words, e.g. server.py --port 0"),
                _text("tools", tool, index, "headers_env", "Headers from variables",
                      "Header=VARIABLE, comma separated")),
        rx.cond(tool.transport == "stdio",
                _text("tools", tool, index, "env_from", "Variables the server gets",
                      "NAME_THERE=NAME_HERE, comma separated")),
        problem(_key("tools", index, "mcp")),
        spacing="2", width="100%",
    )


def chain_row(chain: ChainRow, index: rx.Var[int]) -> rx.Component:
    return rx.hstack(
        rx.box(_choice("chains", chain, index, "task_type", "Task type", {t: t for t in TASK_TYPES}), width="8em"),
        rx.box(_choice("chains", chain, index, "producer", "Producer", Teams.agent_names), width="12em"),
        rx.box(_text("chains", chain, index, "roles", "Sign-off, in order",
                     "comma separated: " + ", ".join(REVIEW_ROLES)), flex="1"),
        remove_button("Remove the chain of " + chain.task_type, Teams.remove_row("chains", index),
                      _id("remove-chain", index)),
        align="start", spacing="3", width="100%", wrap="wrap", class_name="chain-row",
    )
