"""A live update to the tabs of this worker (ui/fanout.py `_emit_once`): the Socket.IO packet is
encoded once and the same frame is queued on every tab's socket; a tab that disconnected since the
watcher lookup is skipped, and the others still get it. A real python-socketio server and manager;
only the engine.io sockets (the websockets) are stand-ins that record what they are given."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import socketio
from reflex.app import _sio_dumps, _sio_loads
from reflex.state import StateUpdate

from hitl_dashboard.ui.fanout import _emit_once

NAMESPACE = "/_event"


class RecordingSocket:
    closed = False

    def __init__(self):
        self.sent: list = []

    async def send(self, pkt) -> None:
        self.sent.append(pkt)


def test_one_encoding_reaches_every_connected_tab_and_skips_a_gone_one():
    async def scenario():
        # Reflex's own JSON for its packets (reflex/app.py), which knows StateUpdate.
        server = socketio.AsyncServer(async_mode="asgi", json=SimpleNamespace(
            dumps=staticmethod(_sio_dumps), loads=staticmethod(_sio_loads)))
        namespace = socketio.AsyncNamespace(NAMESPACE)
        server.register_namespace(namespace)
        sockets, sids = {}, []
        for eio_sid in ("eio-a", "eio-b", "eio-c"):
            sids.append(await server.manager.connect(eio_sid, NAMESPACE))
            sockets[eio_sid] = server.eio.sockets[eio_sid] = RecordingSocket()
        await server.manager.disconnect(sids[2], NAMESPACE)  # gone since the lookup
        update = StateUpdate(delta={"state.conversation_feed": {"status_rx_state_": "paused"}})
        await _emit_once(namespace, update, sids)
        return sockets

    sockets = asyncio.run(scenario())
    a, b = sockets["eio-a"].sent, sockets["eio-b"].sent
    assert len(a) == len(b) == 1 and sockets["eio-c"].sent == []
    assert a[0] is b[0], "the frame was encoded once for all tabs"
    encoded = a[0].encode()
    assert encoded.startswith("42" + NAMESPACE + ",")
    event, body = json.loads(encoded[len("42" + NAMESPACE + ","):])
    assert event == "event"
    assert body["delta"] == {"state.conversation_feed": {"status_rx_state_": "paused"}}
