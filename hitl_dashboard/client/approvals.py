"""`require_approval`: one line between an agent's risky action and the people who must agree.

As a call (tool call or content), sync or async:

    approval = require_approval(tool="deploy", arguments={"version": "2.4.1"}, team="ops", title="Deploy",
                                request_id="deploy-2.4.1")
    approval.report(deploy(**approval.arguments))

As a decorator, on a sync or an async function: the call waits for the decision, then runs the
function with the approved arguments (a reviewer's edits included) and reports its result, or its
error, which it raises again. A denial raises ApprovalDenied (with the reason), a revision request
RevisionRequested (with the instructions); the function does not run then."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from hitl_dashboard.client.aclient import AsyncApprovalClient
from hitl_dashboard.client.client import ApprovalClient
from hitl_dashboard.client.wire import Approval, Ask

RequestId = str | Callable[[dict[str, Any]], str] | None


def require_approval(func: Callable[..., Any] | None = None, /, *, title: str | None = None, team: str | None = None,
                     tool: str | None = None, arguments: dict[str, Any] | None = None,
                     args_schema: dict[str, Any] | None = None, content: str | None = None,
                     file_name: str | None = None, request_id: RequestId = None, link: str | None = None,
                     context: str | None = None, callback_url: str | None = None, timeout_s: float | None = None,
                     base_url: str | None = None, token: str | None = None,
                     client: ApprovalClient | AsyncApprovalClient | None = None) -> Any:
    """A plain call when given `arguments` (with `tool`) or `content`: blocks until decided and
    returns the Approval. Otherwise a decorator (`@require_approval` or `@require_approval(...)`).

    request_id: your own id, or a function of the call's arguments that makes one. Asking again with
    the same id (after a crash, say) gives the same review. None: a new id per call.
    base_url, token, team: default to HITL_URL, HITL_TOKEN, HITL_TEAM. client: an ApprovalClient (or,
    for async functions, an AsyncApprovalClient) to use instead of one per call; it stays open."""
    options: dict[str, Any] = {
        "title": title, "team": team, "args_schema": args_schema, "request_id": request_id, "link": link,
        "context": context, "callback_url": callback_url, "timeout_s": timeout_s, "base_url": base_url,
        "token": token, "client": client}
    if arguments is not None or content is not None:
        if func is not None:
            raise TypeError("require_approval: give a function to decorate, or arguments/content to ask now")
        ask = _ask(tool=tool, arguments=arguments, content=content, file_name=file_name, **options)
        with _sync_client(client, base_url, token) as sync_client:
            return sync_client.require(ask, timeout_s)
    if func is not None:
        return _decorate(func, tool, options)
    return lambda f: _decorate(f, tool, options)


async def arequire_approval(*, title: str | None = None, team: str | None = None, tool: str | None = None,
                            arguments: dict[str, Any] | None = None, args_schema: dict[str, Any] | None = None,
                            content: str | None = None, file_name: str | None = None, request_id: RequestId = None,
                            link: str | None = None, context: str | None = None, callback_url: str | None = None,
                            timeout_s: float | None = None, base_url: str | None = None,
                            token: str | None = None, client: AsyncApprovalClient | None = None) -> Approval:
    """require_approval's plain call for asyncio code: awaits the decision without blocking the loop."""
    ask = _ask(tool=tool, arguments=arguments, content=content, file_name=file_name, title=title, team=team,
               args_schema=args_schema, request_id=request_id, link=link, context=context,
               callback_url=callback_url)
    async with _async_client(client, base_url, token) as async_client:
        return await async_client.require(ask, timeout_s)


def _ask(*, tool: str | None, arguments: dict[str, Any] | None, content: str | None, file_name: str | None,
         title: str | None, team: str | None, args_schema: dict[str, Any] | None, request_id: RequestId,
         link: str | None, context: str | None, callback_url: str | None, **_connection: Any) -> Ask:
    if content is None and tool is None:
        raise TypeError("require_approval: a tool call needs tool= (its name) with arguments=")
    made_id = request_id(arguments or {}) if callable(request_id) else request_id
    return Ask(title=title or (f"Run {tool}" if tool else f"Sign off {file_name or 'content'}"), team=team,
               request_id=made_id, tool=tool, arguments=arguments, args_schema=args_schema, content=content,
               file_name=file_name, link=link, context=context, callback_url=callback_url)


def _decorate(func: Callable[..., Any], tool: str | None, options: dict[str, Any]) -> Callable[..., Any]:
    signature = inspect.signature(func)
    by_name = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    if any(p.kind not in by_name for p in signature.parameters.values()):
        raise TypeError(f"require_approval: {func.__name__} must take its arguments by name "
                        "(no positional-only parameters, *args or **kwargs): they are sent and edited by name")
    name = tool or func.__name__
    schema = options.pop("args_schema") or _schema_of(signature)
    timeout_s, base_url, token = options.pop("timeout_s"), options.pop("base_url"), options.pop("token")
    given = options.pop("client")

    def ask_for(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Ask:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        try:
            json.dumps(arguments)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"require_approval: the arguments of {name} must be JSON values: {exc}") from None
        return _ask(tool=name, arguments=arguments, content=None, file_name=None, args_schema=schema, **options)

    if inspect.iscoroutinefunction(func):
        @functools.wraps(func)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            async with _async_client(given, base_url, token) as client:
                approval = await client.require(ask_for(args, kwargs), timeout_s)
                try:
                    result = await func(**(approval.arguments or {}))
                except Exception as exc:
                    await client.report(approval.id, error=exc)
                    raise
                await client.report(approval.id, result=result)
                return result

        return async_wrapper

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _sync_client(given, base_url, token) as client:
            approval = client.require(ask_for(args, kwargs), timeout_s)
            try:
                result = func(**(approval.arguments or {}))
            except Exception as exc:
                client.report(approval.id, error=exc)
                raise
            client.report(approval.id, result=result)
            return result

    return wrapper


def _schema_of(signature: inspect.Signature) -> dict[str, Any]:
    """Without a schema of its own, a reviewer's edit may still only set the function's own parameters,
    and must keep those without a default."""
    params = signature.parameters.values()
    return {"type": "object", "additionalProperties": False, "properties": {p.name: {} for p in params},
            "required": [p.name for p in params if p.default is inspect.Parameter.empty]}


@contextmanager
def _sync_client(given: Any, base_url: str | None, token: str | None) -> Iterator[ApprovalClient]:
    if given is not None:
        if not isinstance(given, ApprovalClient):
            raise TypeError("require_approval: a plain function needs an ApprovalClient as client=")
        yield given
        return
    with ApprovalClient(base_url, token) as made:
        yield made


@asynccontextmanager
async def _async_client(given: Any, base_url: str | None, token: str | None) -> AsyncIterator[AsyncApprovalClient]:
    if given is not None:
        if not isinstance(given, AsyncApprovalClient):
            raise TypeError("require_approval: an async function needs an AsyncApprovalClient as client=")
        yield given
        return
    async with AsyncApprovalClient(base_url, token) as made:
        yield made
