"""Answers for /api paths no route serves. Reflex's app is mounted on the same FastAPI app at
"", so without this an unknown /api path (or a wrong method) would get the frontend's answer:
an HTML 404, or a 405 that lists the frontend's methods instead of the endpoint's."""

from __future__ import annotations

import re
from functools import lru_cache

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

# QUERY (the HTTP QUERY method draft) too: schemathesis sends it; without a route here it got
# whatever answer the frontend mount gives, or a plain 404 on a backend-only server.
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY"]


def add_api_fallback(api: FastAPI, prefix: str) -> None:
    @lru_cache(maxsize=1)
    def documented() -> list[tuple[re.Pattern, list[str]]]:
        # The OpenAPI document is the public list of paths and their methods.
        found = []
        for template, operations in api.openapi()["paths"].items():
            pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            found.append((re.compile(pattern + "$"), sorted(m.upper() for m in operations)))
        return found

    @api.api_route(prefix + "/{path:path}", methods=METHODS, include_in_schema=False)
    def api_fallback(request: Request, path: str) -> JSONResponse:
        allowed = next((methods for pattern, methods in documented() if pattern.match(request.url.path)), None)
        if allowed:
            return JSONResponse({"detail": "Method Not Allowed"}, status_code=405,
                                headers={"Allow": ", ".join(allowed)})
        return JSONResponse({"detail": f"no API endpoint at {request.url.path}"}, status_code=404)
