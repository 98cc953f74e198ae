"""Browser sign-in over HTTP (Reflex cannot set an HttpOnly cookie from a State): the password form,
single sign-on's start and callback, sign-out and sign-out everywhere.

Each answers with a redirect (303) that the browser follows as a full page load, so the page's new
websocket carries the new cookie in its handshake (ui/states/app_state.py reads it from there).
Failures go back to /login with a code the page words (ui/states/login.py), or, for single sign-on,
to a plain page that says what went wrong."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from hitl_dashboard.api.browser_auth import (
    SIGN_IN_COOKIE,
    SSO_STATE_COOKIE,
    SSO_STATE_PATH,
    CrossSiteRequest,
    check_csrf,
    check_same_site,
    clear_cookie,
    set_cookie,
    sign_in_token,
)
from hitl_dashboard.api.deps import client_address
from hitl_dashboard.api.rate_limits import get_rate_limiter
from hitl_dashboard.api.sign_in_page import problem_page
from hitl_dashboard.domain.errors import PermissionDenied, TooManyAttempts
from hitl_dashboard.domain.return_paths import safe_return_path
from hitl_dashboard.services.auth import browser_sign_ins
from hitl_dashboard.services.auth.sign_ins import sign_in
from hitl_dashboard.services.auth.sso.flow import ATTEMPT_LIFETIME, begin_single_sign_on, finish_single_sign_on
from hitl_dashboard.services.auth.sso.refusals import SsoRefused
from hitl_dashboard.settings import get_settings

router = APIRouter(prefix="/auth", include_in_schema=False)
LOGIN_PATH = "/login"
FORM_FIELD_CHARS = 1024  # a longer name or password is refused by the sign-in anyway


def _to(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


def _to_login(**params: str) -> RedirectResponse:
    return _to(LOGIN_PATH + ("?" + urlencode({k: v for k, v in params.items() if v}) if any(params.values())
                             else ""))


def _cross_site(reason: CrossSiteRequest) -> Response:
    return problem_page("Request refused", f"This request did not come from this site's pages ({reason}), so "
                        "nothing was changed. Go back to the app and try again there.", 403)


def _signed_in(request: Request, token: str, return_to: str) -> RedirectResponse:
    response = _to(safe_return_path(return_to) or "/")
    set_cookie(response, request, SIGN_IN_COOKIE, token, max_age=int(get_settings().sign_in_max_hours * 3600))
    return response


@router.post("/sign-in")
def password_sign_in(request: Request, username: Annotated[str, Form(max_length=FORM_FIELD_CHARS)] = "",
                     password: Annotated[str, Form(max_length=FORM_FIELD_CHARS)] = "",
                     next: Annotated[str, Form(max_length=2000)] = "") -> Response:
    try:
        check_same_site(request)  # no sign-in cookie yet; a foreign page must not sign you in as someone
    except CrossSiteRequest as reason:
        return _cross_site(reason)
    return_to = safe_return_path(next)
    if not get_settings().password_sign_in:
        return _to_login(error="password_off", next=return_to)
    try:
        token = sign_in(username, password, address=client_address(request))
    except TooManyAttempts as exc:
        return _to_login(error="throttled", retry=str(exc.retry_after_s), next=return_to)
    except PermissionDenied:
        return _to_login(error="bad_credentials", next=return_to)
    return _signed_in(request, token, return_to)


@router.post("/sign-out")
def sign_out(request: Request, csrf: Annotated[str, Form(max_length=200)] = "") -> Response:
    token = sign_in_token(request)
    if token:
        try:
            check_csrf(request, csrf)
        except CrossSiteRequest as reason:
            return _cross_site(reason)
        browser_sign_ins.sign_out(token)
    response = _to_login(notice="signed_out")
    clear_cookie(response, request, SIGN_IN_COOKIE)
    return response


@router.post("/sign-out-everywhere")
def sign_out_everywhere(request: Request, csrf: Annotated[str, Form(max_length=200)] = "") -> Response:
    try:
        check_csrf(request, csrf)
        browser_sign_ins.sign_out_everywhere(sign_in_token(request), address=client_address(request))
    except CrossSiteRequest as reason:
        return _cross_site(reason)
    except PermissionDenied:
        return _to_login(notice="expired")  # this sign-in had already ended: nothing left to end here
    response = _to_login(notice="signed_out_everywhere")
    clear_cookie(response, request, SIGN_IN_COOKIE)
    return response


@router.get("/sso/start")
def sso_start(request: Request, next: str = "") -> Response:
    if not get_settings().single_sign_on:
        return problem_page("Single sign-on is off", "Single sign-on is not turned on here.", 404)
    get_rate_limiter().check_address(client_address(request))  # each start stores a row: bounded per address
    try:
        started = begin_single_sign_on(next[:2000])
    except SsoRefused as refused:
        return problem_page("Sign-in failed", str(refused), 502)
    response = _to(started.authorization_url)
    set_cookie(response, request, SSO_STATE_COOKIE, started.state, max_age=int(ATTEMPT_LIFETIME.total_seconds()),
               path=SSO_STATE_PATH)
    return response


@router.get("/sso/callback")
def sso_callback(request: Request, state: str = "", code: str = "", error: str = "") -> Response:
    try:
        done = finish_single_sign_on(state=state, code=code, error=error[:100],
                                     browser_state=request.cookies.get(SSO_STATE_COOKIE, ""),
                                     address=client_address(request))
    except SsoRefused as refused:
        status = 502 if refused.reason == "provider_unreachable" else 403
        response: Response = problem_page("Sign-in refused", str(refused), status)
    else:
        response = _signed_in(request, done.token, done.return_to)
    clear_cookie(response, request, SSO_STATE_COOKIE, path=SSO_STATE_PATH)
    return response
