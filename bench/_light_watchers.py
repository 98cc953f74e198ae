"""Light watchers for bench/live_transcript.py: protocol-level Reflex clients that open a conversation
over the app's websocket exactly as a browser tab does, and record when each update arrives.

Why: on the benchmark's 2 cores, N real Chromium renderers beside the server queue for the CPU, so an
all-Chromium figure measures the renderers, not the app; in a deployment every watcher's browser runs
on its own machine. A light watcher costs the server what a real tab costs (it is signed in, hydrated,
registered as a watcher of the conversation feed, and sent every delta and stream frame) while costing
the bench's machine almost nothing: it stamps each frame on arrival and decodes it only when asked.

The protocol (Reflex 0.10.1, seen with Playwright's `framesent` on a real page and in .web/utils/state.js):
a websocket to /_event/?token=<tab token>&EIO=4&transport=websocket with the Reflex version as the
subprotocol and the browser's sign-in cookie in the handshake (an HttpOnly cookie, set by POST
/auth/sign-in), offering permessage-deflate as Chromium does (what the server accepts is recorded: a
compression context per socket is memory per tab, bench/tab_cost.py); the tab's first event
(`hydrate_and_load`, with the page's route) rides in the socket.io CONNECT packet's auth; every update
comes back as `42/_event,["event", {delta}]`.
The boot event is recorded from a real page of the same run, so hashes and schema are the built app's.

Not a benchmark itself (scripts/bench.sh runs only files that do not start with an underscore)."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import multiprocessing
import time
import uuid

NAMESPACE = "/_event"  # Reflex's socket.io namespace, also the socket's path
SIGN_IN_COOKIE = "hitl_sign_in"  # services/auth/browser_sign_ins.py
READY_TIMEOUT_S = 120


def _socketio(packet_type: int, data=None) -> str:
    """One socket.io packet in an engine.io message ("4"), as socket.io-client encodes it."""
    from socketio import packet

    return "4" + packet.Packet(packet_type, data=data, namespace=NAMESPACE).encode()


def _update(raw: str) -> dict | None:
    """The update of a `42/_event,["event", {...}]` frame (None for any other frame)."""
    from socketio import packet

    if not raw.startswith("42"):
        return None
    decoded = packet.Packet(encoded_packet=raw[1:])
    if decoded.data and decoded.data[0] == "event":
        return decoded.data[1]
    return None


def _browser_like_client():
    """simple_websocket's asyncio client, whose handshake offers permessage-deflate as a browser's does
    (Chromium: `permessage-deflate; client_max_window_bits`); simple_websocket's own offers no extension,
    so a server that compresses would have looked cheaper to the bench than to a browser. The
    extensions the server accepted are kept in `extensions` (wsproto then inflates what it sends)."""
    import simple_websocket
    from wsproto.events import AcceptConnection, RejectConnection, Request
    from wsproto.extensions import PerMessageDeflate

    class BrowserLikeClient(simple_websocket.AioClient):
        extensions: list[str] = []

        async def handshake(self) -> None:
            self.wsock.write(self.ws.send(Request(host=self.host, target=self.path, subprotocols=self.subprotocols,
                                                  extra_headers=self.extra_headeers,
                                                  extensions=[PerMessageDeflate()])))
            event = None
            while event is None:
                data = await self.rsock.read(self.receive_bytes)
                if not data:
                    raise ConnectionError("closed during the websocket handshake")
                self.ws.receive_data(data)
                event = next(self.ws.events(), None)
            if isinstance(event, RejectConnection) or not isinstance(event, AcceptConnection):
                raise ConnectionError(getattr(event, "status_code", 400))
            self.subprotocol, self.connected = event.subprotocol, True
            self.extensions = [extension.name for extension in event.extensions]
            self.connected = await self._handle_events()  # what came in the same read as the 101

    return BrowserLikeClient


class Socket:
    """One tab's websocket: engine.io pings answered, each socket.io event frame kept with its arrival
    time (ms since the epoch, the clock the app stamps created_at with)."""

    def __init__(self, base: str, boot: dict, cookie: str):
        self.url = base.replace("http", "ws", 1) + f"{NAMESPACE}/?token={uuid.uuid4()}&EIO=4&transport=websocket"
        self.boot, self.cookie = boot, cookie
        self.frames: list[tuple[float, str]] = []
        self.received = 0  # event frames since the socket opened (never reset)
        self.bytes = 0  # characters of those frames as received (inflated, if the server compressed)
        self.largest = 0  # the largest of them
        self.connected = asyncio.Event()
        self.closed = False
        self._new_frame = asyncio.Event()

    async def open(self, version: str) -> None:
        self.ws = await _browser_like_client().connect(self.url, subprotocols=[version], receive_bytes=65536,
                                                           headers={"Cookie": self.cookie})
        self._reader = asyncio.create_task(self._receive())
        await self.ws.send(_socketio(0, self.boot))  # CONNECT, with the boot event as auth

    async def _receive(self) -> None:
        try:
            while True:
                raw = await self.ws.receive()
                arrived = time.time() * 1000
                if raw == "2":  # engine.io ping: a tab that does not answer is dropped
                    await self.ws.send("3")
                elif raw.startswith("40"):
                    self.connected.set()
                elif raw.startswith("42"):
                    self.received += 1
                    self.bytes += len(raw)
                    self.largest = max(self.largest, len(raw))
                    self.frames.append((arrived, raw))
                    self._new_frame.set()
        except Exception:  # noqa: BLE001 - a closed socket: counted as missing messages, reported
            self.closed = True

    async def send_event(self, event: dict) -> None:
        await self.connected.wait()
        await self.ws.send(_socketio(2, ["event", event]))

    async def wait_for(self, marker: str, wanted=lambda update: True, timeout: float = READY_TIMEOUT_S) -> dict:
        """The first update (from the start) whose frame contains `marker` and that is `wanted`."""
        seen = 0
        async with asyncio.timeout(timeout):
            while True:
                for _, raw in self.frames[seen:]:
                    if marker in raw and wanted(update := _update(raw) or {}):
                        return update
                seen = len(self.frames)
                self._new_frame.clear()
                await self._new_frame.wait()

    async def close(self) -> None:
        self._reader.cancel()
        if not self.closed:
            await self.ws.close()


class LightWatcher:
    """A conversation page opened over the websocket; records like the real pages' MutationObserver:
    per stored message (seq) when it first arrived, and the streamed texts with their arrival."""

    def __init__(self, socket: Socket, names: dict):
        self.socket, self.names = socket, names
        self.seqs: dict[str, float] = {}
        self.poller: asyncio.Task | None = None
        self.streams: list = []
        self._parsed = 0

    def _parse_new(self) -> None:
        feed, stream = self.names["conversation_feed"], self.names["stream_feed"]
        messages, marker = "messages" + self.names["field_marker"], self.names["field_marker"]
        for arrived, raw in self.socket.frames[self._parsed:]:
            delta = (_update(raw) or {}).get("delta", {})
            for row in delta.get(feed, {}).get(messages, []):
                self.seqs.setdefault(str(row["seq"]), arrived)
            if stream in delta:
                values = delta[stream]
                parts = [values.get(name + marker, "") for name in ("previous_text", "text")]
                self.streams.append([arrived, [[len(p), p[:40]] for p in parts if p]])
        self._parsed = len(self.socket.frames)

    def lacking(self, seqs: list[str]) -> bool:
        self._parse_new()
        return any(seq not in self.seqs for seq in seqs)

    def collect(self) -> dict:
        """The record so far (the page's shape); the streams start over, as the pages' do."""
        self._parse_new()
        record = {"seqs": dict(self.seqs), "streams": self.streams, "closed": self.socket.closed}
        self.streams = []
        del self.socket.frames[:]
        self._parsed = 0
        return record


def _deflated(frames) -> int:
    """Bytes these frames (those kept since the last forget_frames) would take with permessage-deflate as
    browsers negotiate it (one context a socket, kept from frame to frame, 15-bit window): what a server
    that compresses would save on the wire, for the figures of a server that does not."""
    import zlib

    compressor, total = zlib.compressobj(wbits=-15), 0
    for raw in frames:
        total += len(compressor.compress(raw.encode()) + compressor.flush(zlib.Z_SYNC_FLUSH)) - 4  # RFC 7692 7.2.1
    return total


def sign_in(base: str, username: str, password: str) -> str:
    """The sign-in page's form, posted as the browser posts it; returns the Cookie header the tab's
    websocket carries (the HttpOnly sign-in cookie)."""
    import httpx

    response = httpx.post(f"{base}/auth/sign-in", data={"username": username, "password": password},
                          headers={"Origin": base}, timeout=60)
    cookie = response.cookies.get(SIGN_IN_COOKIE)
    if response.status_code != 303 or not cookie:
        raise RuntimeError(f"sign-in refused: {response.status_code} {response.headers.get('location')}")
    return f"{SIGN_IN_COOKIE}={cookie}"


def _feed_ready(names: dict, page: str):
    """(marker, predicate) of the update that says the page's on_load filled its feed (it registers the
    tab as a watcher first); the hydrate before it may carry the feed's defaults when no hashes trim them."""
    feed, field = ((names["conversation_feed"], "messages") if page == "conversation"
                   else (names["queue_feed"], "loaded"))
    field += names["field_marker"]
    return field, lambda update: bool(update.get("delta", {}).get(feed, {}).get(field))


async def open_watchers(base: str, template: dict, names: dict, cookie: str, count: int,
                        page: str = "conversation") -> list[LightWatcher]:
    boot = copy.deepcopy(template)
    boot["event"].setdefault("payload", {}).pop("vars", None)  # nothing of the sign-in rides in the boot
    watchers = [LightWatcher(Socket(base, boot, cookie), names) for _ in range(count)]
    marker, ready = _feed_ready(names, page)
    for watcher in watchers:  # one after the other, as the real pages open
        await watcher.socket.open(names["version"])
        await watcher.socket.wait_for(marker, ready)
        watcher.poller = asyncio.create_task(act_like_a_tab(watcher.socket, boot["event"]["router_data"], names,
                                                            page))
    return watchers


async def act_like_a_tab(socket: Socket, router_data: dict, names: dict, page: str = "conversation") -> None:
    """The events a real tab sends by itself (seen with `framesent`): on mount the queue summary (and on
    a conversation page the linked-message jump), then, when the served version polls it (names["poll_ms"]
    > 0: the baseline's tabs polled every 10 s; since issue 33 it is pushed), the queue summary every
    poll_ms while visible (assets/queue_watch.js); headless pages count as visible. Their server work
    is a tab's too."""
    from simple_websocket import ConnectionClosed

    with contextlib.suppress(ConnectionClosed):  # closed: its missing messages say so
        await socket.send_event({"name": names["queue_refresh"], "router_data": router_data})
        if page == "conversation":
            await socket.send_event({"name": names["jump_to_message"], "router_data": router_data})
        while names.get("poll_ms", 0) > 0 and not socket.closed:
            await asyncio.sleep(names["poll_ms"] / 1000)
            await socket.send_event({"name": names["queue_refresh"], "router_data": router_data})


async def _serve(connection, base: str, template: dict, names: dict, user: tuple[str, str],
                 count: int, page: str) -> None:
    cookie = await asyncio.to_thread(sign_in, base, *user)
    watchers = await open_watchers(base, template, names, cookie, count, page)
    connection.send("open")
    while True:
        command, argument = await asyncio.to_thread(connection.recv)
        if command == "lacking":
            connection.send(sum(w.lacking(argument) for w in watchers))
        elif command == "frames_with":  # how many watchers received a frame containing the text
            connection.send(sum(any(argument in raw for _, raw in w.socket.frames) for w in watchers))
        elif command == "received":  # event frames received so far, all watchers together
            connection.send(sum(w.socket.received for w in watchers))
        elif command == "wire":  # the websocket as the tabs saw it: extensions, frames, characters
            sockets = [w.socket for w in watchers]
            connection.send({"extensions": sorted({name for s in sockets for name in s.ws.extensions}),
                             "frames": sum(s.received for s in sockets), "chars": sum(s.bytes for s in sockets),
                             "largest": max(s.largest for s in sockets),
                             "deflated": sum(_deflated(raw for _, raw in s.frames) for s in sockets)})
        elif command == "forget_frames":
            for watcher in watchers:
                del watcher.socket.frames[:]
                watcher._parsed = 0
            connection.send("ok")
        elif command == "collect":
            connection.send([w.collect() for w in watchers])
        else:
            break
    for watcher in watchers:
        watcher.poller.cancel()
    await asyncio.gather(*(w.socket.close() for w in watchers), return_exceptions=True)
    connection.send("closed")


def _main(connection, *args) -> None:
    try:
        asyncio.run(_serve(connection, *args))
    except Exception as exc:  # noqa: BLE001 - the bench reports it and goes on
        connection.send(f"error: {type(exc).__name__}: {exc}")


class LightWatchers:
    """`count` light watchers in a process of their own, so that decoding frames never holds up the
    bench's Playwright loop (and their CPU is reported apart). Signs in once, as a second browser
    whose tabs they are."""

    def __init__(self, base: str, template: dict, names: dict, user: tuple[str, str], count: int,
                 page: str = "conversation"):
        context = multiprocessing.get_context("spawn")
        self._connection, child = context.Pipe()
        self.process = context.Process(target=_main, args=(child, base, template, names, user, count, page),
                                       daemon=True)
        self.process.start()
        # They open one after another: a busy machine takes a few seconds per tab.
        deadline = time.monotonic() + READY_TIMEOUT_S + 60 + 3 * count
        while not self._connection.poll(1):
            if not self.process.is_alive() or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("the light watchers did not open (in time)")
        answer = self._connection.recv()
        if answer != "open":
            self.close()
            raise RuntimeError(f"the light watchers did not open: {answer}")

    def _ask(self, command: str, argument=None):
        self._connection.send((command, argument))
        return self._connection.recv()

    def lacking(self, seqs: list[int]) -> int:
        """How many watchers have not received all of these stored messages yet."""
        return self._ask("lacking", [str(seq) for seq in seqs])

    def collect(self) -> list[dict]:
        return self._ask("collect")

    def frames_with(self, text: str) -> int:
        """How many watchers received a frame containing `text` since the last forget_frames."""
        return self._ask("frames_with", text)

    def received(self) -> int:
        """Event frames the watchers received since they opened, all together."""
        return self._ask("received")

    def wire(self) -> dict:
        """The extensions the server accepted (any tab), event frames and their characters (all tabs
        together, since they opened) and the largest frame."""
        return self._ask("wire")

    def forget_frames(self) -> None:
        self._ask("forget_frames")

    def close(self) -> None:
        if self.process.is_alive():
            with contextlib.suppress(OSError, EOFError):  # it ended on its own
                self._ask("stop")
            self.process.join(timeout=20)
        if self.process.is_alive():
            self.process.kill()


def reflex_names() -> dict:
    """The full names the frames use, from the app's own state classes."""
    from reflex import constants
    from reflex_base.constants.state import FIELD_MARKER

    from hitl_dashboard.ui.states.app_state import AppState
    from hitl_dashboard.ui.states.feeds import ConversationFeed, QueueFeed
    from hitl_dashboard.ui.states.queue_summary import QueueSummary
    from hitl_dashboard.ui.states.stream_feed import StreamFeed
    from hitl_dashboard.ui.states.transcript_export import TranscriptExportState

    return {"version": constants.Reflex.VERSION, "field_marker": FIELD_MARKER, "app_state": AppState.get_full_name(),
            "conversation_feed": ConversationFeed.get_full_name(), "queue_feed": QueueFeed.get_full_name(),
            "stream_feed": StreamFeed.get_full_name(),
            # poll_ms: what the served page says (RealPage.poll_ms in bench/tab_cost.py); none by default.
            "queue_refresh": f"{QueueSummary.get_full_name()}.refresh", "poll_ms": 0,
            "jump_to_message": f"{TranscriptExportState.get_full_name()}.jump_to_linked_message"}


def recorded_boot(frame: str) -> dict | None:
    """The auth of a CONNECT frame a real page sent (`40/_event,{...}`), or None for another frame."""
    prefix = "40" + NAMESPACE + ","
    return json.loads(frame[len(prefix):]) if frame.startswith(prefix) else None
