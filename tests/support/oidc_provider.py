"""A real OpenID Connect provider for the tests: oidc-provider-mock (authlib's server, signed ID
tokens, discovery, JWKS) on 127.0.0.1, in a thread of the test process, on a free port.

Users are set over its HTTP API with the claims the test wants (groups and names); "signing in"
at the provider is posting its authorization form with the user's subject, as its page does."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import flask
import httpx
import oidc_provider_mock
import werkzeug.serving
from joserfc import jwt
from joserfc.jwk import RSAKey

CLIENT_ID = "hitl-dashboard"
CLIENT_SECRET = "test-client-secret-0123456789"
ROLES_CLAIM = "groups"
# Bare roles are held in the workspace `default`; "slug:role" in that workspace (issue 41).
ROLE_MAP = ('{"hitl-security": ["security_reviewer"], "hitl-product": ["product_reviewer"], "hitl-admins": ["admin"], '
            '"pay-security": ["payments:security_reviewer"], '
            '"mkt-leads": ["marketing:manager", "marketing:workspace_admin"], "gone-team": ["nowhere:manager"]}')


@dataclass(frozen=True)
class OidcProvider:
    issuer: str
    app: flask.Flask
    http: httpx.Client  # one client: making one loads the CA bundle, tenths of a second on a busy machine

    def settings(self) -> dict[str, str]:
        """The app's environment for single sign-on through this provider."""
        return {"OIDC_ISSUER": self.issuer, "OIDC_CLIENT_ID": CLIENT_ID, "OIDC_CLIENT_SECRET": CLIENT_SECRET,
                "OIDC_ROLES_CLAIM": ROLES_CLAIM, "OIDC_ROLE_MAP": ROLE_MAP, "OIDC_PROVIDER_NAME": "Test IdP"}

    def set_user(self, subject: str, **claims: object) -> None:
        response = self.http.put(f"{self.issuer}/users/{subject}", json=claims)
        response.raise_for_status()

    def approve(self, authorization_url: str, subject: str) -> str:
        """Signs `subject` in at the provider's authorization page; returns where it sends the browser
        (the app's callback with code and state)."""
        response = self.http.post(authorization_url, data={"sub": subject})
        assert response.status_code == 302, response.text[:500]
        return response.headers["location"]

    def own_key(self) -> RSAKey:
        """The key the mock signs with (it publishes the public half at its jwks_uri); the mock keeps
        it per app, reachable only from a request's context."""
        with self.app.test_request_context("/"):
            self.app.preprocess_request()
            return RSAKey.import_key(flask.g.oidc_provider_mock_storage.jwk.as_dict(is_private=True))

    @contextmanager
    def issuing(self, claims: Callable[[dict[str, Any]], dict[str, Any]], key: RSAKey | None = None,
                publish: bool = False) -> Iterator[None]:
        """Its token endpoint answers with an ID token of `claims(genuine claims)` signed with `key`
        (its own by default): tokens it would never issue itself, from the provider's real endpoint.
        publish: its jwks_uri then lists `key` only (the provider rotated its keys)."""
        key = key or self.own_key()
        original = self.app.wsgi_app

        def wsgi(environ: dict, start_response: Callable) -> Iterable[bytes]:
            path = environ.get("PATH_INFO", "")
            if publish and path == "/jwks":
                return _json_answer(start_response, {"keys": [key.as_dict(is_private=False)]})
            if path != "/oauth2/token":
                return original(environ, start_response)
            answered: dict[str, Any] = {}
            body = b"".join(original(environ, lambda status, headers, *_: answered.update(status=status)))
            if not answered["status"].startswith("200"):
                start_response(answered["status"], [("Content-Type", "application/json")])
                return [body]
            token = json.loads(body)
            genuine = jwt.decode(token["id_token"], self.own_key()).claims
            token["id_token"] = jwt.encode({"alg": "RS256", "kid": key.kid}, claims(genuine), key)
            return _json_answer(start_response, token)

        self.app.wsgi_app = wsgi  # type: ignore[method-assign]
        try:
            yield
        finally:
            self.app.wsgi_app = original  # type: ignore[method-assign]

    @contextmanager
    def failing(self, path: str, status: str = "503 Service Unavailable") -> Iterator[None]:
        """Its endpoint at `path` answers `status` (an outage), the others as usual."""
        original = self.app.wsgi_app

        def wsgi(environ: dict, start_response: Callable) -> Iterable[bytes]:
            if environ.get("PATH_INFO") != path:
                return original(environ, start_response)
            start_response(status, [("Content-Type", "text/plain")])
            return [b"down for maintenance"]

        self.app.wsgi_app = wsgi  # type: ignore[method-assign]
        try:
            yield
        finally:
            self.app.wsgi_app = original  # type: ignore[method-assign]

    def deny(self, authorization_url: str) -> str:
        response = self.http.post(authorization_url, data={"action": "deny"})
        assert response.status_code == 302, response.text[:500]
        return response.headers["location"]


def new_key(kid: str | None = None) -> RSAKey:
    """A signing key of nobody's provider (or of this one after it rotated), under `kid` or one of its own."""
    return RSAKey.generate_key(2048, parameters={"kid": kid or f"key-{uuid.uuid4().hex[:8]}"})


def _json_answer(start_response: Callable, data: dict[str, Any]) -> list[bytes]:
    body = json.dumps(data).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                              ("Cache-Control", "no-store")])
    return [body]


class _QuietHandler(werkzeug.serving.WSGIRequestHandler):
    def log_request(self, *args: object, **kwargs: object) -> None:  # one line per request is noise here
        pass


@contextmanager
def running_provider(token_lifetime: timedelta = timedelta(hours=1)) -> Iterator[OidcProvider]:
    app = oidc_provider_mock.app(require_nonce=True, access_token_max_age=token_lifetime)
    server = werkzeug.serving.make_server("127.0.0.1", 0, app, threaded=True, request_handler=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        with httpx.Client(timeout=10) as http:
            yield OidcProvider(f"http://127.0.0.1:{server.server_port}", app, http)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
