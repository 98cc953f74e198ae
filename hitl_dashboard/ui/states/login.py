"""The sign-in page's state: what to show (which ways to sign in, why the browser is here) and
where a sign-in returns. Signing in itself is an HTTP form post (api/routes/sign_in.py)."""

from __future__ import annotations

from urllib.parse import urlencode

import reflex as rx

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.return_paths import safe_return_path
from hitl_dashboard.services.auth.sign_in_throttle import THROTTLED_MESSAGE
from hitl_dashboard.services.auth.sign_ins import PASSWORD_OFF
from hitl_dashboard.services.auth.users import WRONG_CREDENTIALS
from hitl_dashboard.settings import get_settings
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState

SSO_START = "/auth/sso/start"
# The sign-in routes send the browser back here with a code; the page words it (never a text from the URL).
ERRORS = {"bad_credentials": WRONG_CREDENTIALS, "password_off": PASSWORD_OFF}
NOTICES = {
    "signed_out": "You are signed out.",
    "signed_out_everywhere": "You are signed out in every browser and on every device.",
    "expired": "Your sign-in has ended (unused for too long, too old, or signed out elsewhere). Please sign in again.",
    "upgraded": "This app was upgraded and now keeps your sign-in in a safer place, so you were signed out once. "
                "Please sign in again.",
}
MAX_RETRY_S = 24 * 3600


def error_text(code: str, retry: str) -> str:
    if code == "throttled":
        seconds = int(retry) if retry.isdigit() and int(retry) <= MAX_RETRY_S else 60
        return THROTTLED_MESSAGE.format(seconds=seconds)
    return ERRORS.get(code, "")


class LoginState(AppState):
    error: str = ""
    notice: str = ""
    return_to: str = ""
    password_enabled: bool = True
    sso_enabled: bool = False
    sso_label: str = ""

    @rx.var
    def sso_href(self) -> str:
        return SSO_START + (f"?{urlencode({'next': self.return_to})}" if self.return_to else "")

    @rx.event
    async def prepare(self):
        """on_load: read why the browser is here; a browser that is signed in goes on at once."""
        query = self.router.url.query_parameters
        self.error = error_text(query.get("error", ""), query.get("retry", ""))
        self.notice = NOTICES.get(query.get("notice", ""), "")
        if self.old_local_sign_in:  # opened /login directly in a browser from before the upgrade
            self.old_local_sign_in, self.notice = "", NOTICES["upgraded"]
        self.return_to = safe_return_path(query.get("next", ""))
        settings = get_settings()
        self.password_enabled, self.sso_enabled = settings.password_sign_in, settings.single_sign_on
        self.sso_label = settings.oidc_provider_name
        try:
            await self._signed_in_actor()
        except PermissionDenied:
            return
        return rx.redirect(self.return_to or (routes.QUEUE if self.review_roles else routes.CONVERSATIONS))
