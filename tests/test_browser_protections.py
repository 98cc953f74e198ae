"""The browser protections' wrapper (api/browser_protections.py), without a browser: every HTTP answer
gets the headers, an answer's own header is kept, inline scripts are allowed by hash only (the built
pages' from the build, /api/docs' from its own answer), and the deployment's sources are added."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from starlette.applications import Starlette
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from hitl_dashboard.api.browser_protections import (
    BrowserProtections,
    content_security_policy,
    inline_script_hashes,
)

BOOT = "window.boot = 1;"
DOCS_SCRIPT = "const ui = SwaggerUIBundle({})"


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _app() -> Starlette:
    async def page(request):  # noqa: ANN001, ANN202
        return HTMLResponse("<html><body>page</body></html>")

    async def docs(request):  # noqa: ANN001, ANN202
        return HTMLResponse(f'<html><script src="/x.js"></script><script>{DOCS_SCRIPT}</script></html>')

    async def framed(request):  # noqa: ANN001, ANN202
        return JSONResponse({}, headers={"X-Frame-Options": "SAMEORIGIN"})

    return Starlette(routes=[Route("/page", page), Route("/api/docs", docs), Route("/api/framed", framed)])


def _directives(policy: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in policy.split("; ")}


def test_inline_scripts_are_hashed_and_external_ones_are_not() -> None:
    html = (f'<script>{BOOT}</script><script type="module" async="">import "/a.js";</script>'
            '<script src="/b.js"></script>')
    assert inline_script_hashes(html) == {_sha(BOOT), _sha('import "/a.js";')}


def test_the_policy_names_the_deployments_sources() -> None:
    policy = _directives(content_security_policy(script_hashes=[_sha(BOOT)], public_url="https://hitl.example.com",
                                                 sign_in_provider="https://id.example.com/realms/acme"))
    assert policy["script-src"] == ["'self'", "'unsafe-eval'", _sha(BOOT)]
    assert policy["connect-src"] == ["'self'", "wss://hitl.example.com"]
    assert policy["form-action"] == ["'self'", "https://id.example.com"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]
    assert policy["img-src"] == ["'self'", "data:", "blob:"]
    plain = _directives(content_security_policy())  # no single sign-on, no public URL: nothing added
    assert plain["form-action"] == ["'self'"] and plain["connect-src"] == ["'self'"]


def test_every_answer_gets_the_headers_and_keeps_its_own(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(f"<html><script>{BOOT}</script></html>")
    client = TestClient(BrowserProtections(_app(), pages_dir=tmp_path, public_url="http://testserver",
                                           sign_in_provider=None, self_hashed_paths=["/api/docs"]))
    page = client.get("/page")
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "same-origin"
    assert page.headers["x-frame-options"] == "DENY"
    assert _directives(page.headers["content-security-policy"])["script-src"] == ["'self'", "'unsafe-eval'",
                                                                                  _sha(BOOT)]
    docs = client.get("/api/docs")  # its own inline script, hashed from the answer, not the build's
    assert docs.text.endswith("</html>")
    assert _directives(docs.headers["content-security-policy"])["script-src"] == ["'self'", "'unsafe-eval'",
                                                                                  _sha(DOCS_SCRIPT)]
    framed = client.get("/api/framed")
    assert framed.headers.get_list("x-frame-options") == ["SAMEORIGIN"]  # the answer's own, not doubled
    assert framed.headers["x-content-type-options"] == "nosniff"
    missing = client.get("/nowhere")  # the router's own 404 too
    assert missing.status_code == 404 and missing.headers["x-content-type-options"] == "nosniff"


def test_no_build_no_hashes(tmp_path: Path) -> None:
    client = TestClient(BrowserProtections(_app(), pages_dir=tmp_path / "absent", public_url="",
                                           sign_in_provider=None))
    assert _directives(client.get("/page").headers["content-security-policy"])["script-src"] == [
        "'self'", "'unsafe-eval'"]
