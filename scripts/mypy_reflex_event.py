"""mypy plugin (pyproject.toml, [tool.mypy] plugins): `@rx.event` as Reflex types it.

Reflex types `@rx.event def handler(self, a: A, b: B)` as an `EventCallback[A, B]` through the
`__new__` of its EventNamespace class. mypy does not follow a `__new__` that returns another type
(nor its `EventCallback[*P]` return annotation), so every decorated handler was an EventNamespace
and each `State.handler(arg)` in ui/ "not callable". This hook gives the decorated handler the type
Reflex declares: EventCallback of the handler's parameters after self, so a call with a wrong
value is still reported. Only the bare decorator form is used here; any other call is left as is."""

from __future__ import annotations

from collections.abc import Callable

from mypy.nodes import ARG_POS, TypeInfo
from mypy.plugin import FunctionContext, Plugin
from mypy.types import CallableType, Instance, Type, get_proper_type

EVENT_NAMESPACE = "reflex_base.event.EventNamespace"
EVENT_CALLBACK = "reflex_base.event.EventCallback"


def _event_callback(ctx: FunctionContext) -> Type:
    handler = get_proper_type(ctx.arg_types[0][0]) if ctx.arg_types and len(ctx.arg_types[0]) == 1 else None
    if not isinstance(handler, CallableType) or any(kind != ARG_POS for kind in handler.arg_kinds[1:]):
        return ctx.default_return_type
    namespace = get_proper_type(ctx.default_return_type)  # an EventNamespace: its module has EventCallback
    if not isinstance(namespace, Instance):
        return ctx.default_return_type
    module = namespace.type.module_name
    callback = ctx.api.modules[module].names["EventCallback"].node
    if not isinstance(callback, TypeInfo):
        return ctx.default_return_type
    return Instance(callback, handler.arg_types[1:])  # a variadic generic's arguments, flat


class ReflexEventPlugin(Plugin):
    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return _event_callback if fullname == EVENT_NAMESPACE else None


def plugin(version: str) -> type[Plugin]:
    return ReflexEventPlugin
