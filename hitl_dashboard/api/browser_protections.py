"""Browser protections on every HTTP answer (issue 45): a Content-Security-Policy the app works under,
framing refused, no MIME sniffing, no referrer to other sites.

Wrapped around the outermost ASGI app (hitl_dashboard.py), so pages, /api, /auth and the built assets
all carry them. Agent and caller text is rendered as markdown without raw HTML, and its images as links
(ui/components/markdown_images.py); the policy is the second wall: nothing on a page loads from, or
sends to, a host other than the app's own."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# The policy, one directive a line, with why. script-src, connect-src and form-action get the sources
# of this deployment added by content_security_policy() (below).
POLICY: tuple[tuple[str, str], ...] = (
    # Anything not named below (fonts, manifests, workers, media, frames): only from the app itself.
    ("default-src", "'self'"),
    # The built bundle and assets/*.js from the app; the built pages' few inline scripts (theme,
    # React Router's boot) by their sha256, read from the build. Never 'unsafe-inline': an injected
    # <script> or on* attribute does not run. 'unsafe-eval': Reflex 0.10.1 runs every rx.call_script
    # (copy buttons, downloads, the sign-out form, forgetting edits; sent by the browser or the server)
    # through eval() in its event loop (state.js applyEvent); only code already running can reach it.
    ("script-src", "'self' 'unsafe-eval'"),
    # 'unsafe-inline': Emotion (Reflex's styles) and Radix write <style> elements and style attributes
    # at run time, with no nonce to give them. Styles cannot run code; they could only restyle a page.
    ("style-src", "'self' 'unsafe-inline'"),
    # Only the app's own images, and data:/blob: ones the page makes itself (icons, charts, exports).
    # Never a caller's or an agent's host: an image there would tell it who opened the review and when.
    ("img-src", "'self' data: blob:"),
    # Radix and the code editor embed some fonts as data: URLs.
    ("font-src", "'self' data:"),
    # fetch and the websocket to the app only ('self' covers ws/wss of the same host in CSP3; the
    # public URL's ws/wss origin is added for browsers that read it narrowly).
    ("connect-src", "'self'"),
    # No plugins (<object>, <embed>): nothing a browser plugin could run.
    ("object-src", "'none'"),
    # An injected <base href> cannot move the page's relative links and scripts to another host.
    ("base-uri", "'self'"),
    # Forms post only to the app, and the single sign-on form's redirect goes to the provider's origin
    # (added from OIDC_ISSUER): Chromium checks form-action along the redirect too.
    ("form-action", "'self'"),
    # No site may show the app in a frame (clickjacking a reviewer into Approve).
    ("frame-ancestors", "'none'"),
)

STATIC_HEADERS: tuple[tuple[str, str], ...] = (
    ("X-Content-Type-Options", "nosniff"),  # an upload or text answer is never run as script or style
    ("X-Frame-Options", "DENY"),  # frame-ancestors for browsers that predate CSP2
    # same-origin, not no-referrer: with no-referrer Chromium sends "Origin: null" on the app's own form
    # posts (Fetch spec), and the sign-in's cross-site check (api/browser_auth.py) would refuse them.
    # Other sites still get no referrer at all: a link in a review does not reveal the review's URL.
    ("Referrer-Policy", "same-origin"),
)

_INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)[^>]*>(.*?)</script\s*>", re.S | re.I)


def inline_script_hashes(html: str) -> set[str]:
    """The CSP sources ('sha256-...') of the inline scripts in an HTML page of our own making."""
    return {"'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
            for body in _INLINE_SCRIPT.findall(html) if body}


def content_security_policy(*, script_hashes: Iterable[str] = (), public_url: str = "",
                            sign_in_provider: str | None = None) -> str:
    extra = {"script-src": sorted(script_hashes), "connect-src": [_websocket_origin(public_url)],
             "form-action": [_origin(sign_in_provider)]}
    return "; ".join(" ".join([name, sources, *filter(None, extra.get(name, []))]) for name, sources in POLICY)


def _origin(url: str | None) -> str:
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else ""


def _websocket_origin(public_url: str) -> str:
    origin = _origin(public_url)
    return origin.replace("http", "ws", 1) if origin else ""


class BrowserProtections:
    """ASGI middleware: every HTTP answer gets the headers (a header the answer set itself is kept).

    `pages_dir`: the built frontend, whose inline scripts are hashed on the first request (the build
    is finished by then; none in backend-only mode). `self_hashed_paths`: FastAPI's own HTML pages
    (/api/docs): built from the app's constants, not from request data; their inline scripts are hashed
    from the answer itself."""

    def __init__(self, app: Any, *, pages_dir: Path | None, public_url: str, sign_in_provider: str | None,
                 self_hashed_paths: Iterable[str] = ()) -> None:
        self.app = app
        self._pages_dir = pages_dir
        self._policy = lambda hashes: content_security_policy(script_hashes=hashes, public_url=public_url,
                                                              sign_in_provider=sign_in_provider)
        self._self_hashed = frozenset(self_hashed_paths)
        self._headers: list[tuple[bytes, bytes]] | None = None

    def _page_headers(self) -> list[tuple[bytes, bytes]]:
        if self._headers is None:  # once per worker; a race only computes the same list twice
            hashes: set[str] = set()
            if self._pages_dir is not None and self._pages_dir.is_dir():
                for page in sorted(self._pages_dir.rglob("*.html")):
                    hashes |= inline_script_hashes(page.read_text(encoding="utf-8", errors="replace"))
            self._headers = _encoded(self._policy(hashes))
        return self._headers

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("path") in self._self_hashed:
            await self._hashed_from_body(scope, receive, send)
            return
        headers = self._page_headers()

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": _merged(message.get("headers", []), headers)}
            await send(message)

        await self.app(scope, receive, sending)

    async def _hashed_from_body(self, scope: dict, receive: Any, send: Any) -> None:
        start: dict = {}
        body: list[bytes] = []

        async def collecting(message: dict) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            content = b"".join(body)
            headers = _encoded(self._policy(inline_script_hashes(content.decode("utf-8", errors="replace"))))
            await send({**start, "headers": _merged(start.get("headers", []), headers)})
            await send({"type": "http.response.body", "body": content})

        await self.app(scope, receive, collecting)


def _encoded(policy: str) -> list[tuple[bytes, bytes]]:
    return [(b"content-security-policy", policy.encode())] + [
        (name.lower().encode(), value.encode()) for name, value in STATIC_HEADERS]


def _merged(own: list, ours: list[tuple[bytes, bytes]]) -> list:
    present = {bytes(name).lower() for name, _ in own}
    return [*own, *(header for header in ours if header[0] not in present)]
