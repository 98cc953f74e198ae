"""A real OTLP/HTTP trace receiver on 127.0.0.1 for the tests: POST /v1/traces with a protobuf
ExportTraceServiceRequest (what opentelemetry-exporter-otlp-proto-http sends), decoded with
opentelemetry-proto into plain span records. Threads wait on a condition, never on sleeps."""

from __future__ import annotations

import gzip
import threading
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def _value(v) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


def _attributes(items) -> dict[str, Any]:
    return {a.key: _value(a.value) for a in items}


@dataclass
class SpanRecord:
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    resource: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    status_code: int = 0

    @property
    def process(self) -> str:
        return str(self.resource.get("hitl.process", ""))


class OtlpReceiver:
    def __init__(self) -> None:
        self.spans: list[SpanRecord] = []
        self.requests = 0
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                encoding = self.headers.get("Content-Encoding", "")
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding == "deflate":
                    body = zlib.decompress(body)
                if self.path != "/v1/traces" or self.headers.get("Content-Type") != "application/x-protobuf":
                    self.send_response(404)
                    self.end_headers()
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver._add(request)
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _add(self, request: ExportTraceServiceRequest) -> None:
        found = []
        for resource_spans in request.resource_spans:
            resource = _attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for s in scope_spans.spans:
                    found.append(SpanRecord(
                        name=s.name, trace_id=s.trace_id.hex(), span_id=s.span_id.hex(),
                        parent_span_id=s.parent_span_id.hex(), attributes=_attributes(s.attributes),
                        resource=resource, events=[(e.name, _attributes(e.attributes)) for e in s.events],
                        links=[link.trace_id.hex() for link in s.links], status_code=s.status.code,
                    ))
        with self._changed:
            self.spans.extend(found)
            self.requests += 1
            self._changed.notify_all()

    def wait_for(self, predicate, timeout: float = 60.0, what: str = "spans") -> list[SpanRecord]:
        """Wait until predicate(spans) is truthy; returns a copy of the spans then."""
        with self._changed:
            if not self._changed.wait_for(lambda: predicate(list(self.spans)), timeout=timeout):
                names = sorted({(s.process, s.name) for s in self.spans})
                raise AssertionError(f"timed out waiting for {what}; received {len(self.spans)} spans: {names}")
            return list(self.spans)
