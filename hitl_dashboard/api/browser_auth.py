"""The browser's sign-in over HTTP: its cookie, and the checks that keep other sites out.

The sign-in token lives only in an HttpOnly cookie (scripts on the page cannot read it), SameSite=Lax,
Secure when the app is served over https. A request that changes something and authenticates with
that cookie must come from this site: its Origin (or Sec-Fetch-Site) says so, and it carries the
sign-in's CSRF token (a form field `csrf` or the header X-CSRF-Token). SameSite=Lax alone would
still let a sibling subdomain, or an older browser, post with the cookie."""

from __future__ import annotations

from fastapi import Request, Response

from hitl_dashboard.services.auth.browser_sign_ins import SIGN_IN_COOKIE, csrf_matches
from hitl_dashboard.settings import get_settings

SSO_STATE_COOKIE = "hitl_sso_state"
SSO_STATE_PATH = "/auth/sso"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_SAME_SITE_FETCH = frozenset({"same-origin", "none"})  # "none": typed in the address bar, a bookmark


class CrossSiteRequest(Exception):
    """Refused: the request did not come from this site's pages."""


def served_over_https(request: Request) -> bool:
    """PUBLIC_URL https, or this request's scheme: the peer's, or behind TRUSTED_PROXY_HOPS proxies
    the X-Forwarded-Proto the outermost trusted proxy set (a client's own value is never read)."""
    settings = get_settings()
    if settings.public_url.startswith("https://"):
        return True
    hops = settings.trusted_proxy_hops
    if hops:
        forwarded = [p.strip().lower() for p in request.headers.get("x-forwarded-proto", "").split(",") if p.strip()]
        if len(forwarded) >= hops:
            return forwarded[-hops] == "https"
    return request.url.scheme == "https"


def set_cookie(response: Response, request: Request, name: str, value: str, *, max_age: int, path: str = "/") -> None:
    response.set_cookie(name, value, max_age=max_age, path=path, httponly=True, samesite="lax",
                        secure=served_over_https(request))


def clear_cookie(response: Response, request: Request, name: str, path: str = "/") -> None:
    response.delete_cookie(name, path=path, httponly=True, samesite="lax", secure=served_over_https(request))


def sign_in_token(request: Request) -> str:
    return request.cookies.get(SIGN_IN_COOKIE, "")


def check_same_site(request: Request) -> None:
    """Raises CrossSiteRequest unless the browser says the request comes from our own pages. A
    client that sends neither header (curl, a script) is not a browser that a foreign page drives."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in _SAME_SITE_FETCH:
        raise CrossSiteRequest(f"a {fetch_site} request")
    origin = request.headers.get("origin")
    if origin is not None and origin not in get_settings().allowed_origins():
        raise CrossSiteRequest("another origin")


def check_csrf(request: Request, submitted: str) -> None:
    """For a state-changing request authenticated by the sign-in cookie: same site, and the CSRF
    token of that very sign-in."""
    check_same_site(request)
    if not csrf_matches(sign_in_token(request), submitted or request.headers.get(CSRF_HEADER, "")):
        raise CrossSiteRequest("no valid CSRF token")
