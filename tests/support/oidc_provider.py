"""A real OpenID Connect provider for the tests: oidc-provider-mock (authlib's server, signed ID
tokens, discovery, JWKS) on 127.0.0.1, in a thread of the test process, on a free port.

Users are set over its HTTP API with the claims the test wants (groups and names); "signing in"
at the provider is posting its authorization form with the user's subject, as its page does."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

import flask
import httpx
import oidc_provider_mock
import werkzeug.serving
from joserfc import jwt
from joserfc.jwk import RSAKey

CLIENT_ID = "hitl-dashboard"
CLIENT_SECRET = "test-client-secret-0123456789"
ROLES_CLAIM = "groups"
ROLE_MAP = '{"hitl-security": ["security_reviewer"], "hitl-product": ["product_reviewer"], "hitl-admins": ["admin"]}'


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

    def signed(self, claims: dict[str, object]) -> str:
        """An ID token with these claims, signed with this provider's own key (it publishes the public
        half at its jwks_uri): for the claims it would never issue itself (wrong issuer or audience,
        expired). The mock keeps its key per app, reachable only from a request's context."""
        with self.app.test_request_context("/"):
            self.app.preprocess_request()
            private = flask.g.oidc_provider_mock_storage.jwk.as_dict(is_private=True)
        key = RSAKey.import_key(private)
        return jwt.encode({"alg": "RS256", "kid": private["kid"]}, claims, key)

    def deny(self, authorization_url: str) -> str:
        response = self.http.post(authorization_url, data={"action": "deny"})
        assert response.status_code == 302, response.text[:500]
        return response.headers["location"]


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
