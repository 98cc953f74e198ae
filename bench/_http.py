"""A lean HTTP/1.1 keep-alive client for load generators: one connection, h11 for the protocol.

Why not httpx here: the load generator runs on the same 2 cores as the server it measures, and
every millisecond of client CPU is taken from the server. httpx (one AsyncClient per reviewer)
cost about 8 ms of CPU per request in bench/decisions_api.py; this costs a small fraction of that,
so the figures are the server's. Not a general client: no redirects, no TLS, no chunked uploads."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import h11


class TransportError(Exception):
    """The connection failed or closed mid-exchange; the caller may retry (same Idempotency-Key)."""


@dataclass
class Response:
    status_code: int
    body: bytes

    def json(self):
        return json.loads(self.body)


class Connection:
    """One keep-alive connection to host:port; requests on it go one at a time."""

    def __init__(self, host: str, port: int, timeout: float = 120.0):
        self.host, self.port, self.timeout = host, port, timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._conn: h11.Connection | None = None

    async def _open(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        self._conn = h11.Connection(h11.CLIENT)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._reader = self._writer = self._conn = None

    async def post(self, path: str, headers: dict[str, str], body: dict | None = None) -> Response:
        return await self.request("POST", path, headers, body)

    async def request(self, method: str, path: str, headers: dict[str, str], body: dict | None = None) -> Response:
        try:
            return await asyncio.wait_for(self._exchange(method, path, headers, body), self.timeout)
        except (TimeoutError, OSError, h11.ProtocolError, asyncio.IncompleteReadError) as exc:
            await self.close()
            raise TransportError(type(exc).__name__) from exc

    async def _exchange(self, method: str, path: str, headers: dict[str, str], body: dict | None) -> Response:
        if self._conn is None or self._conn.our_state is not h11.IDLE:
            await self.close()
            await self._open()
        payload = json.dumps(body).encode() if body is not None else b""
        head = [("Host", f"{self.host}:{self.port}"), ("Content-Length", str(len(payload)))]
        if body is not None:
            head.append(("Content-Type", "application/json"))
        head += list(headers.items())
        conn = self._conn
        self._writer.write(conn.send(h11.Request(method=method, target=path, headers=head))
                           + conn.send(h11.Data(data=payload)) + conn.send(h11.EndOfMessage()))
        status, chunks = 0, []
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await self._reader.read(65536)
                if not data:
                    raise asyncio.IncompleteReadError(b"", None)
                conn.receive_data(data)
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise asyncio.IncompleteReadError(b"", None)
        if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()
        else:  # the server closes after this answer
            await self.close()
        return Response(status, b"".join(chunks))
