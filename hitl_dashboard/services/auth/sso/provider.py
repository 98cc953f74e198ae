"""The OpenID Connect provider, through authlib: discovery, the authorization URL (PKCE S256),
the code exchange, and the ID token's signature and claims (issuer, audience, expiry, nonce).

Blocking (authlib's httpx client); callers run it in a worker thread. Every failure is an SsoRefused with a reason."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx2  # authlib's httpx client is built on it (openai's dependency too)

# authlib ships no type hints (no py.typed marker): these three stay untyped.
from authlib.integrations.httpx_client import OAuth2Client  # type: ignore[import-untyped]
from authlib.oauth2.rfc6749.errors import OAuth2Error  # type: ignore[import-untyped]
from authlib.oidc.core import CodeIDToken  # type: ignore[import-untyped]
from joserfc import jwt
from joserfc.errors import ExpiredTokenError, InvalidClaimError, InvalidKeyIdError, JoseError, MissingClaimError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

from hitl_dashboard.services.auth.sso.refusals import SsoRefused
from hitl_dashboard.settings import get_settings

HTTP_TIMEOUT_S = 10.0
METADATA_TTL_S = 600.0
CLOCK_LEEWAY_S = 60  # clocks of the provider and this server may differ a little
CALLBACK_PATH = "/auth/sso/callback"


@dataclass(frozen=True)
class Provider:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    algorithms: tuple[str, ...]


_cache: dict[str, tuple[float, Provider]] = {}
_keys: dict[str, dict] = {}
# One HTTP client per configuration, kept: making one loads the CA bundle (tenths of a second on a
# busy machine), which every sign-in would otherwise pay twice. httpx clients are thread-safe; the
# token authlib remembers on the client after a code exchange is never sent (withhold_token) nor read.
_clients: dict[tuple[str, ...], OAuth2Client] = {}
_lock = threading.Lock()


def redirect_uri() -> str:
    return get_settings().public_url.rstrip("/") + CALLBACK_PATH


def discover() -> Provider:
    """The provider's metadata, fetched from its discovery document and kept for ten minutes. The
    document must name the configured issuer exactly (OpenID Connect Discovery, section 4.3)."""
    settings = get_settings()
    issuer = settings.oidc_issuer
    if not settings.single_sign_on or not issuer:
        raise SsoRefused("not_configured")
    with _lock:
        cached = _cache.get(issuer)
        if cached and time.monotonic() - cached[0] < METADATA_TTL_S:
            return cached[1]
    document = _get_json(issuer.rstrip("/") + "/.well-known/openid-configuration")
    if document.get("issuer") != issuer:
        raise SsoRefused("wrong_issuer", "the discovery document names another issuer")
    try:
        provider = Provider(
            issuer=document["issuer"], authorization_endpoint=document["authorization_endpoint"],
            token_endpoint=document["token_endpoint"], jwks_uri=document["jwks_uri"],
            algorithms=tuple(document.get("id_token_signing_alg_values_supported") or ("RS256",)),
        )
    except (KeyError, TypeError):
        raise SsoRefused("provider_unreachable", "its discovery document is incomplete") from None
    with _lock:
        _cache[issuer] = (time.monotonic(), provider)
    return provider


def forget_provider() -> None:
    """Drop the cached metadata, keys and clients (settings changed, or a test points elsewhere)."""
    with _lock:
        _cache.clear()
        _keys.clear()
        clients = list(_clients.values())
        _clients.clear()
    for client in clients:
        client.close()


def _client() -> OAuth2Client:
    settings = get_settings()
    key = (settings.oidc_client_id or "", settings.oidc_client_secret or "", settings.oidc_scopes, redirect_uri())
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = OAuth2Client(
                client_id=key[0], client_secret=key[1], scope=key[2], redirect_uri=key[3],
                code_challenge_method="S256", timeout=HTTP_TIMEOUT_S, follow_redirects=False)
    return client


def authorization_url(provider: Provider, *, state: str, nonce: str, code_verifier: str) -> str:
    url, _ = _client().create_authorization_url(provider.authorization_endpoint, state=state, nonce=nonce,
                                                code_verifier=code_verifier)
    return url


def exchange_code(provider: Provider, *, code: str, code_verifier: str) -> dict[str, Any]:
    """The token endpoint's answer for this code (with the PKCE verifier): must hold an id_token."""
    try:
        token = dict(_client().fetch_token(provider.token_endpoint, grant_type="authorization_code", code=code,
                                           code_verifier=code_verifier))
    except OAuth2Error as exc:
        raise SsoRefused("code_refused", str(exc.error or "")) from None
    except httpx2.HTTPError:
        raise SsoRefused("provider_unreachable") from None
    except ValueError:  # not JSON
        raise SsoRefused("code_refused", "the token endpoint's answer is not JSON") from None
    if not isinstance(token.get("id_token"), str):
        raise SsoRefused("invalid_id_token", "the provider sent no ID token")
    return token


def verified_claims(provider: Provider, token: dict[str, Any], *, nonce: str) -> dict[str, Any]:
    """The ID token's claims once its signature (the provider's published keys) and its claims
    (iss, aud, exp, iat, nonce, azp, at_hash; authlib's CodeIDToken rules) check out."""
    settings = get_settings()
    registry = JWSRegistry(algorithms=list(provider.algorithms))
    try:
        try:
            decoded = jwt.decode(token["id_token"], _key_set(provider), registry=registry)
        except InvalidKeyIdError:  # the provider rotated its keys since we fetched them
            decoded = jwt.decode(token["id_token"], _key_set(provider, refresh=True), registry=registry)
    except JoseError:
        raise SsoRefused("invalid_id_token", "bad signature or format") from None
    options = {"iss": {"essential": True, "value": settings.oidc_issuer},
               "aud": {"essential": True, "value": settings.oidc_client_id},
               "exp": {"essential": True}}
    params = {"nonce": nonce, "client_id": settings.oidc_client_id}
    if isinstance(token.get("access_token"), str):
        params["access_token"] = token["access_token"]
    claims = CodeIDToken(decoded.claims, decoded.header, options, params)
    try:
        claims.validate(leeway=CLOCK_LEEWAY_S)
    except ExpiredTokenError:
        raise SsoRefused("expired_id_token") from None
    except (InvalidClaimError, MissingClaimError) as exc:
        raise SsoRefused(_claim_reason(exc.claim)) from None
    except JoseError:
        raise SsoRefused("invalid_id_token") from None
    return dict(claims)


def _claim_reason(claim: str) -> str:
    return {"iss": "wrong_issuer", "aud": "wrong_audience", "azp": "wrong_audience", "exp": "expired_id_token",
            "nonce": "wrong_nonce"}.get(claim, "invalid_id_token")


def _key_set(provider: Provider, refresh: bool = False) -> KeySet:
    with _lock:
        keys = None if refresh else _keys.get(provider.jwks_uri)
    if keys is None:
        keys = _get_json(provider.jwks_uri)
        with _lock:
            _keys[provider.jwks_uri] = keys
    try:
        return KeySet.import_key_set(keys)  # type: ignore[arg-type]
    except (JoseError, ValueError, TypeError, KeyError):
        raise SsoRefused("invalid_id_token", "the provider's keys are unreadable") from None


def _get_json(url: str) -> dict[str, Any]:
    try:
        response = _client().request("GET", url, withhold_token=True)
        response.raise_for_status()
        data = response.json()
    except (httpx2.HTTPError, ValueError):
        raise SsoRefused("provider_unreachable") from None
    if not isinstance(data, dict):
        raise SsoRefused("provider_unreachable", "an unexpected answer")
    return data
