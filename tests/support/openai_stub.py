"""A real OpenAI-protocol HTTP server for tests, scripted reply by reply.

Runs stdlib ``ThreadingHTTPServer`` on 127.0.0.1 with an ephemeral port in a background
thread, so the real ``openai`` SDK (and AutoGen's OpenAI client on top of it) talks to it
over real HTTP: plain and streamed (SSE) chat completions, tool calls, HTTP errors,
hangs and garbage bodies.

    with OpenAIStub() as stub:
        stub.enqueue(ErrorReply(500), "fine now")
        client = OpenAIChatCompletionClient(base_url=stub.base_url, ...)
        ...
        assert len(stub.requests) == 2
"""

from __future__ import annotations

import collections
import contextlib
import json
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class TextReply:
    text: str


@dataclass(frozen=True)
class ToolCallReply:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    call_id: str = ""


@dataclass(frozen=True)
class ParallelToolCallsReply:
    """One assistant message asking for several tool calls at once (OpenAI parallel function calling)."""

    calls: tuple[ToolCallReply, ...]


@dataclass(frozen=True)
class ErrorReply:
    status: int = 500
    message: str = "stub: internal server error"


@dataclass(frozen=True)
class HangReply:
    """Answer only after ``seconds`` (longer than the client timeout), then with ``text``."""

    seconds: float
    text: str = "too late"


@dataclass(frozen=True)
class GarbageReply:
    """A 200 response whose body is not a chat completion (non-JSON, or JSON without choices)."""

    body: str = "<html>definitely not json"
    content_type: str = "application/json"


@dataclass(frozen=True)
class BrokenStreamReply:
    """Streams the first ``good_chunks`` words of ``text``, then an undecodable SSE event."""

    text: str = "partial answer that breaks"
    good_chunks: int = 2


@dataclass(frozen=True, eq=False)
class GatedStreamReply:
    """Streams the first ``before_gate`` words of ``text``, waits until ``gate`` is set, then the rest,
    ``word_delay_s`` apart: a test can look at the page while a message is half streamed."""

    text: str
    gate: threading.Event
    before_gate: int = 3
    word_delay_s: float = 0.0


Reply = (GatedStreamReply | TextReply | ToolCallReply | ParallelToolCallsReply | ErrorReply | HangReply | GarbageReply
         | BrokenStreamReply)


class OpenAIStub:
    """Context manager owning the server thread; ``requests`` holds every request body (parsed JSON)."""

    def __init__(self, port: int = 0) -> None:
        """port: 0 for any free one; a stopped stub's port to bring "the same server" back up."""
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str] = []  # each request's Authorization header ("" when none)
        self._replies: collections.deque[Reply] = collections.deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _make_handler(self))
        self._server.daemon_threads = True  # a hanging handler must not block shutdown
        self._thread = threading.Thread(target=self._server.serve_forever, name="openai-stub", daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def enqueue(self, *replies: Reply | str) -> None:
        """Queue replies in order; a plain string is a TextReply."""
        with self._lock:
            self._replies.extend(TextReply(r) if isinstance(r, str) else r for r in replies)

    def forget_replies(self) -> None:
        """Drop what is still queued: a test that failed before its conversation asked for every
        reply it queued must not hand the rest to the next test's conversation."""
        with self._lock:
            self._replies.clear()

    def __enter__(self) -> OpenAIStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()  # wakes handlers stuck in a HangReply
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- called from handler threads -------------------------------------------------------
    def _record_and_pick(self, body: dict[str, Any], authorization: str = "") -> Reply:
        with self._lock:
            self.requests.append(body)
            self.authorizations.append(authorization)
            if self._replies:
                return self._replies.popleft()
        return TextReply(f"Stub echo: {_last_user_text(body)[:200]}")


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # multi-part content
                return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
            return str(content or "")
    return ""


def _make_handler(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw or b"{}")
            reply = stub._record_and_pick(body, self.headers.get("Authorization") or "")
            # The client may have given up (timeout) before we answer.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._answer(body, reply)

        def _answer(self, body: dict[str, Any], reply: Reply) -> None:
            if isinstance(reply, HangReply):
                if stub._closing.wait(reply.seconds):
                    return
                reply = TextReply(reply.text)
            if isinstance(reply, ErrorReply):
                error = {"error": {"message": reply.message, "type": "server_error", "code": reply.status}}
                self._send_json(reply.status, error)
            elif isinstance(reply, GarbageReply):
                self._send_raw(200, reply.body.encode(), reply.content_type)
            elif body.get("stream"):
                self._send_stream(body, reply)
            else:
                self._send_json(200, _completion(body, reply))

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            self._send_raw(status, json.dumps(payload).encode(), "application/json")

        def _send_raw(self, status: int, data: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, body: dict[str, Any], reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")  # the body ends when we close
            self.end_headers()
            self.close_connection = True
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            for index, event in enumerate(_stream_events(body, reply, include_usage)):
                if isinstance(reply, GatedStreamReply) and index >= reply.before_gate:
                    while index == reply.before_gate and not reply.gate.wait(0.05):
                        if stub._closing.is_set():
                            return
                    time.sleep(reply.word_delay_s)
                self.wfile.write(f"data: {event}\n\n".encode())
                self.wfile.flush()

    return Handler


def _usage(body: dict[str, Any], output: str) -> dict[str, int]:
    prompt = sum(len(json.dumps(m).split()) for m in body.get("messages", []))
    completion = max(1, len(output.split()))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _calls(reply: ToolCallReply | ParallelToolCallsReply) -> tuple[ToolCallReply, ...]:
    return reply.calls if isinstance(reply, ParallelToolCallsReply) else (reply,)


def _tool_call(reply: ToolCallReply) -> dict[str, Any]:
    call_id = reply.call_id or f"call_{uuid.uuid4().hex[:12]}"
    function = {"name": reply.name, "arguments": json.dumps(reply.arguments)}
    return {"id": call_id, "type": "function", "function": function}


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    if isinstance(reply, (ToolCallReply, ParallelToolCallsReply)):
        calls = _calls(reply)
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [_tool_call(c) for c in calls]}
        finish, output = "tool_calls", " ".join(json.dumps(c.arguments) for c in calls)
    else:
        text = reply.text if isinstance(reply, (TextReply, BrokenStreamReply, GatedStreamReply)) else ""
        message, finish, output = {"role": "assistant", "content": text}, "stop", text
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "stub-model"),  # echo it: AutoGen warns when the model differs
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": _usage(body, output),
    }


def _stream_events(body: dict[str, Any], reply: Reply, include_usage: bool) -> list[str]:
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "stub-model"),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    if isinstance(reply, (ToolCallReply, ParallelToolCallsReply)):
        events, outputs = [], []
        for index, one in enumerate(_calls(reply)):
            call = _tool_call(one)
            args = call["function"]["arguments"]
            half = len(args) // 2  # split the arguments so the client has to reassemble them
            function = {"name": one.name, "arguments": args[:half]}
            head = {"index": index, "id": call["id"], "type": "function", "function": function}
            delta = {"role": "assistant", "tool_calls": [head]} if index == 0 else {"tool_calls": [head]}
            events.append(chunk(delta))
            events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": args[half:]}}]}))
            outputs.append(args)
        events.append(chunk({}, "tool_calls"))
        output = " ".join(outputs)
    else:
        output = reply.text if isinstance(reply, (TextReply, BrokenStreamReply, GatedStreamReply)) else ""
        words = [w + " " for w in output.split(" ")]
        words[-1] = words[-1][:-1]
        if isinstance(reply, BrokenStreamReply):
            return [chunk({"content": w}) for w in words[: reply.good_chunks]] + ["{this is not json"]
        events = [chunk({"role": "assistant", "content": w}) for w in words if w]
        events.append(chunk({}, "stop"))
    if include_usage:
        events.append(json.dumps({**base, "choices": [], "usage": _usage(body, output)}))
    events.append("[DONE]")
    return events


@contextlib.contextmanager
def stub_as_model_endpoint(monkeypatch, **settings: str) -> Iterator[OpenAIStub]:
    """A stub that this process's "openai" model clients reach: a short timeout and one retry, so a
    test of a failing model does not wait; `settings` adds or overrides environment settings."""
    from hitl_dashboard.settings import reset_settings_cache

    with OpenAIStub() as server:
        for name, value in {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test-key",
                            "MODEL_TIMEOUT_S": "5", "MODEL_MAX_RETRIES": "1", **settings}.items():
            monkeypatch.setenv(name, value)
        reset_settings_cache()
        try:
            yield server
        finally:
            reset_settings_cache()
