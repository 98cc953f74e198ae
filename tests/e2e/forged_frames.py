"""Forging Reflex event frames from a real browser, for the every-handler forged-frame test.

Three parts:
- `event_handlers()`: every event handler of every State, read from Reflex's own registry
  after importing the app module as the server does, so a new handler is covered at once.
- `forged_calls()`: the arguments an attacker would send to one handler, derived from its
  signature and annotations (ids of rows the attacker has no right to, made-up views).
- `WireTap` and `round_trip_all`: a page's Reflex websocket routed through Playwright, so the test can inject
  frames, see every frame the server sends back to that page, and know when its frames were handled.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import time
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Page, WebSocketRoute

# Reflex's own handlers that are framework plumbing. Each acts only on the caller's own
# client state, which the browser may set anyway, so forging them grants nothing:
SKIPPED = {
    # re-send the caller's own state snapshot / flip the caller's own "hydrated" flag
    "hydrate", "hydrate_and_load", "set_is_hydrated",
    # queue the on_load handlers of the page the caller names; those handlers are swept themselves
    "on_load_internal",
    # copy the caller's own cookies / LocalStorage values into its own state
    "update_vars_internal",
    # log the caller's own frontend error on the server
    "handle_frontend_exception",
}


@dataclass(frozen=True)
class Handler:
    state: type
    name: str

    @property
    def event_name(self) -> str:
        """The name a browser puts in the frame: the state's full name, a dot, the handler."""
        return f"{self.state.get_full_name()}.{self.name}"

    @property
    def label(self) -> str:
        return f"{self.state.__name__}.{self.name}"

    @property
    def fn(self):
        return self.state.event_handlers[self.name].fn

    @property
    def is_background(self) -> bool:
        return bool(self.state.event_handlers[self.name].is_background)


def _walk(state: type) -> Iterator[type]:
    yield state
    for sub in sorted(state.get_substates(), key=lambda s: s.get_full_name()):
        yield from _walk(sub)


def event_handlers() -> list[Handler]:
    """Every event handler the running app registers, minus the framework plumbing above."""
    import reflex as rx

    import hitl_dashboard.hitl_dashboard  # noqa: F401 - builds the state tree exactly as the server does

    return [Handler(state, name) for state in _walk(rx.State) for name in sorted(state.event_handlers)
            if name not in SKIPPED]


# -- forged arguments ------------------------------------------------------------------------
@dataclass(frozen=True)
class Targets:
    """Rows the attacker has no right to act on, and the text every made-up value carries."""

    canary: str  # unique text in every forged string: if a victim's page ever shows it, the forgery got through
    victim_review: tuple[int, int]  # (id, version) of the review the victim is looking at
    other_review: tuple[int, int]  # another conversation's review: the target of a redirect
    tool_review: tuple[int, int]  # a pending tool-call review (deploy_to_prod)
    other_conversation: int
    victim_username: str
    victim_workspace: str = "default"  # the slug of the workspace the victim's rows belong to
    rule: int = 0  # a standing rule of the victim's workspace: every `rule...` argument names it
    # Sent as `action` too, beyond the variants: the Rules page's act(action, rule_id) takes these.
    rule_actions: tuple[str, ...] = ("promote", "pause", "revoke")
    roles: tuple[str, ...] = ("security_reviewer", "product_reviewer", "final_approver", "manager", "admin")

    def reviews(self) -> list[tuple[int, int]]:
        return [self.other_review, self.victim_review, self.tool_review]


VARIANTS = 3  # each handler is called once per target review (other, victim's, tool call)


def _int_value(name: str, t: Targets, i: int) -> int:
    review_id, version = t.reviews()[i % VARIANTS]
    if "rule" in name and t.rule:
        return t.rule
    if "version" in name:
        return version
    if "conversation" in name:
        return t.other_conversation
    return review_id


def _str_value(name: str, t: Targets, i: int) -> str:
    review_id, version = t.reviews()[i % VARIANTS]
    by_name = {
        "action": ["approve", "approve", "approve"],
        "kind": ["signoff", "signoff", "tool_call"],
        "role": list(t.roles),
        "username": [t.victim_username, t.victim_username, t.victim_username],
        "version": [str(version)] * VARIANTS,
        "slug": [t.victim_workspace] * VARIANTS,
        "workspace": [t.victim_workspace] * VARIANTS,
    }
    for key, values in by_name.items():
        if key in name:
            return values[i % len(values)]
    if name.endswith("id") or name in ("seq", "index"):
        return str(review_id)
    return f"{t.canary} forged {name}"


def forge(annotation: Any, name: str, t: Targets, i: int, items: bool = True) -> Any:
    """A made-up value of this type: rows the attacker has no right to, text carrying the canary.

    items=False leaves lists empty: a made-up view that renders cleanly (a list of half-typed
    rows may crash the state that stores it before the victim ever sees the text)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return forge(options[0], name, t, i, items) if options else None
    if dataclasses.is_dataclass(annotation):
        return {f.name: forge(_field_type(annotation, f), f.name, t, i, items)
                for f in dataclasses.fields(annotation)}
    if annotation is bool:
        return True
    if annotation is int:
        return _int_value(name, t, i)
    if annotation is float:
        return 0.5
    if annotation is str:
        return _str_value(name, t, i)
    if origin in (list, tuple, set) or annotation in (list, tuple, set):
        args = typing.get_args(annotation)
        item = args[0] if args else dict
        # Rows that carry a review id are the redirect payload; other rows stay empty, because a
        # half-typed row (a dict where the state expects a dataclass) crashes the computed vars
        # reading it, which stalls every browser linked to the feed and hides what they would see.
        carries_review = dataclasses.is_dataclass(item) and "review_id" in {f.name for f in dataclasses.fields(item)}
        forgeable = items and (carries_review or not dataclasses.is_dataclass(item))
        return [forge(item, name, t, i, items)] if forgeable else []
    if origin is dict or annotation is dict:
        return _forged_mapping(t, i)
    return _forged_mapping(t, i)  # Any or unknown: a view-like object with a little of everything


def _forged_mapping(t: Targets, i: int) -> dict:
    """A form, a view or a row: whatever a handler reads from it is made up or someone else's."""
    review_id, version = t.reviews()[i % VARIANTS]
    return {
        "title": f"{t.canary} forged title", "banner": f"{t.canary} forged banner", "status": "awaiting_review",
        "username": t.victim_username, "password": f"{t.canary}-password", "role": "security_reviewer",
        "review_id": review_id, "version": version, "conversation_id": t.other_conversation, "found": True,
        "workspace": t.victim_workspace, "slug": t.victim_workspace,
        "messages": [{"seq": 1, "source": "coder", "content": f"{t.canary} forged message"}],
        "reviews": [{"review_id": review_id, "version": version, "kind": "signoff", "role": "security_reviewer",
                     "status": "pending", "reason": f"{t.canary} forged reason"}],
        "rows": [{"review_id": review_id, "version": version, "title": f"{t.canary} forged row"}],
    }


def _field_type(cls: type, item: dataclasses.Field) -> Any:
    return typing.get_type_hints(cls).get(item.name, Any)


def forged_calls(handler: Handler, t: Targets) -> list[dict[str, Any]]:
    """The payloads to send: one per target review; for setvar, one per var of the state."""
    if handler.name == "setvar":
        return [{"var_name": var, "value": forge(v._var_type, var, t, 0)}
                for var, v in sorted(handler.state.base_vars.items())]
    try:
        hints = typing.get_type_hints(handler.fn)
    except Exception:  # noqa: BLE001 - an unresolvable hint falls back to "anything"
        hints = {}
    params = [p for p in inspect.signature(handler.fn).parameters.values() if p.name != "self"]
    if not params:
        return [{}]
    calls = [{p.name: forge(hints.get(p.name, Any), p.name, t, 0, items=False) for p in params}]
    calls += [{p.name: forge(hints.get(p.name, Any), p.name, t, i) for p in params} for i in range(VARIANTS)]
    if any(p.name == "action" for p in params):
        calls += [{**calls[-1], "action": action} for action in t.rule_actions]
    return [call for n, call in enumerate(calls) if call not in calls[:n]]


# -- the wire ---
# Socket.IO over Engine.IO: "4" message, "0" connect / "2" event, then the namespace. Reflex's
# first event rides in the connect packet: '40/_event,{"event": {...}}'; later ones are
# '42/_event,["event", {...}]'.
EVENT_PREFIX = "42/_event,"


def _router_data(message: str) -> dict | None:
    head, _, body = message.partition(",")
    if head not in ("40/_event", "42/_event") or not body:
        return None
    try:
        frame = json.loads(body)
    except ValueError:
        return None
    event = frame.get("event") if isinstance(frame, dict) else (frame[1] if len(frame) == 2 else None)
    return event.get("router_data") if isinstance(event, dict) else None


class WireTap:
    """A page's Reflex websocket, routed: inject frames, read what the server sent back."""

    def __init__(self, page: Page):
        self.page = page
        self.server: WebSocketRoute | None = None
        # Where the page says it is, from its first event on this socket; forged frames say the same.
        self.router_data: dict | None = None
        self.received: list[str] = []
        self.connections = 0  # a full navigation opens a new socket
        self.sent: list[str] = []  # the first frames the page sent, for the failure message
        page.route_web_socket(re.compile(r".*/_event.*"), self._route)

    def _route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        self.server, self.router_data = server, None
        self.connections += 1

        def to_server(message):
            if len(self.sent) < 20:
                self.sent.append(message if isinstance(message, str) else repr(message[:200]))
            if self.router_data is None and isinstance(message, str):
                self.router_data = _router_data(message)
            server.send(message)

        def to_page(message):
            if isinstance(message, str):
                self.received.append(message)
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    def pump(self, predicate, timeout: float = 15.0, what: str = "condition"):
        """Poll predicate() with a deadline, letting Playwright deliver websocket callbacks meanwhile."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            self.page.wait_for_timeout(25)
        raise AssertionError(f"timed out waiting for {what}")

    def ready(self) -> None:
        self.pump(lambda: self.server is not None and self.router_data is not None,
                  what=f"the page's first event frame; it sent {self.sent}")

    def send(self, event_name: str, payload: dict) -> None:
        self.ready()
        event = {"name": event_name, "payload": payload, "router_data": self.router_data}
        self.server.send(EVENT_PREFIX + json.dumps(["event", event]))

    def frames_since(self, mark: int) -> list[str]:
        return self.received[mark:]


def round_trip_all(taps: list[WireTap], marker: str, var: str) -> None:
    """Send the marker event on every tap at once and wait until each one's state change comes back.

    Reflex runs one browser's (non-background) events in order, so once the marker's delta arrives
    on a tap, every frame injected there before it has been handled. If a page opened a new socket
    meanwhile (a forged handler redirected it), the marker is sent again on the new one. The taps'
    browsers are independent, so waiting for all together costs one round trip, not one per tap."""
    pending = list(taps)
    for _ in range(3):
        sent = {id(tap): (len(tap.received), tap.connections) for tap in pending}
        for tap in pending:
            tap.send(marker, {})

        def all_answered(waiting: list[WireTap] = pending, sent: dict = sent) -> bool:
            # Delta keys carry a suffix after the var's name, hence no closing quote.
            return all(tap.connections != sent[id(tap)][1]
                       or any(f'"{var}' in m for m in tap.received[sent[id(tap)][0]:]) for tap in waiting)

        pending[0].pump(all_answered, what=f"the reply to {marker}")
        pending = [tap for tap in pending if tap.connections != sent[id(tap)][1]]  # reconnected: again
        if not pending:
            return
    raise AssertionError(f"{marker} got no reply: {[tap.page.url for tap in pending]} keep reconnecting")
