"""Why a single sign-on was refused: a reason code for the audit trail and a sentence for the person."""

from __future__ import annotations

from hitl_dashboard.domain.errors import PermissionDenied

# reason -> what the sign-in page tells the person (never the provider's raw answer or a trace).
MESSAGES = {
    "provider_error": "The identity provider did not sign you in",
    "missing_state": "The sign-in link is incomplete. Start again from the sign-in page",
    "unknown_state": "This sign-in is unknown or has expired. Start again from the sign-in page",
    "replayed_state": "This sign-in was already used. Start again from the sign-in page",
    "expired_state": "This sign-in took too long. Start again from the sign-in page",
    "other_browser": "This sign-in was started in another browser. Start again from the sign-in page",
    "provider_unreachable": "The identity provider could not be reached. Try again in a moment",
    "code_refused": "The identity provider refused to complete the sign-in. Start again from the sign-in page",
    "invalid_id_token": "The identity provider's answer could not be verified, so you were not signed in",
    "wrong_issuer": "The sign-in came from another identity provider than the one this app trusts",
    "wrong_audience": "The sign-in was issued for another application, not this one",
    "expired_id_token": "The identity provider's answer has expired. Start again from the sign-in page",
    "wrong_nonce": "The identity provider's answer does not belong to this sign-in",
    "no_role": "Your account has no role in this app. Ask an administrator to add you to one of its groups",
    "disabled": "Your account is disabled here. Ask an administrator",
    "not_configured": "Single sign-on is not turned on here",
}


class SsoRefused(PermissionDenied):
    def __init__(self, reason: str, detail: str = ""):
        self.reason = reason if reason in MESSAGES else "invalid_id_token"
        # The detail (e.g. the provider's error code) is ours to cut and is shown as text only.
        self.detail = detail[:200]
        super().__init__(MESSAGES[self.reason] + (f" ({self.detail})" if self.detail else "") + ".")
