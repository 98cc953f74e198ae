"""The tools part of the team file format: a tool (a Python function or an MCP server's tool), its
approval mode and its `when` rule. Pure data, as teams/model.py (which re-exports these names); the
MCP gateway's section (teams/gateway_model.py) reuses the server and the rule."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from hitl_dashboard.domain.names import did_you_mean, listed

EnvVarName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")]
ApprovalMode = Literal["always", "never", "when"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


OPERATORS = ("equals", "one_of")


class ApprovalRule(_Strict):
    """`when` approval: the call waits for a human when the argument equals the value (or is one of)."""

    argument: str = Field(min_length=1, max_length=64)
    equals: str | int | float | bool | None = None
    one_of: list[str | int | float | bool] | None = None

    @model_validator(mode="before")
    @classmethod
    def _known_operators(cls, data: Any) -> Any:
        if isinstance(data, str):
            raise ValueError(f"the rule {data!r} is text; write it as {{argument: <name>, equals: <value>}} "
                             f"or {{argument: <name>, one_of: [<values>]}} (the operators are {listed(OPERATORS)})")
        if isinstance(data, dict):
            for key in data:
                if key != "argument" and key not in OPERATORS:
                    test = f"`when {data.get('argument')} {key} {data[key]!r}`"
                    raise ValueError(f"the rule {test} uses the unknown operator {key!r}; the operators are "
                                     f"{listed(OPERATORS)}{did_you_mean(key, OPERATORS)}")
        return data

    @model_validator(mode="after")
    def _exactly_one_test(self) -> ApprovalRule:
        if (self.equals is None) == (self.one_of is None):
            raise ValueError("give exactly one of equals or one_of")
        return self

    def matches(self, arguments: dict[str, Any]) -> bool:
        if self.argument not in arguments:
            # Fail closed: a call the rule cannot judge (the argument is missing, or the rule names
            # one the tool does not have) waits for a human; it never runs unreviewed.
            return True
        value = arguments[self.argument]
        return value == self.equals if self.one_of is None else value in self.one_of


class McpServerDef(_Strict):
    """The tools of an MCP server, over stdio (command + args) or HTTP (streamable_http or sse + url)."""

    transport: Literal["stdio", "streamable_http", "sse"]
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env_from: dict[EnvVarName, EnvVarName] = Field(
        default_factory=dict, description="variables passed to the server: name in the server <- name here")
    url: str | None = Field(default=None, pattern=r"^https?://")
    headers_env: dict[str, EnvVarName] = Field(
        default_factory=dict, description="HTTP headers whose values come from environment variables")
    tool: str | None = Field(default=None, description="the server's name for the tool (default: the key)")

    @model_validator(mode="after")
    def _transport_fields(self) -> McpServerDef:
        if self.transport == "stdio" and not self.command:
            raise ValueError("a stdio MCP server needs a command")
        if self.transport != "stdio" and not self.url:
            raise ValueError(f"an {self.transport} MCP server needs a url")
        return self


class ToolDef(_Strict):
    """A Python function by import path (`package.module:function`) or a tool of an MCP server."""

    function: str | None = Field(default=None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    mcp: McpServerDef | None = None
    description: str | None = None
    approval: ApprovalMode = "always"
    when: ApprovalRule | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ToolDef:
        if (self.function is None) == (self.mcp is None):
            raise ValueError("give exactly one of function or mcp")
        if (self.approval == "when") != (self.when is not None):
            raise ValueError("approval 'when' needs a when rule, and a when rule needs approval 'when'")
        return self

    def needs_approval(self, arguments: dict[str, Any]) -> bool:
        if self.approval == "when":
            assert self.when is not None
            return self.when.matches(arguments)
        return self.approval == "always"
