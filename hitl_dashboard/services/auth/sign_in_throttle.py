"""Throttling of failed sign-ins, per account and per client address (the `limits` library).

Every attempt is counted when it starts, before its password is checked, and refused (no
password checked) when the account or the address has used up a tier. The right password
clears the account's count, so in effect the account counts failures. The account key is the
normalised name whether or not the user exists, so the answer never tells which names exist.

The storage is the one the API limiter uses (settings.rate_limit_storage_uri): Redis when
configured, so every web worker sees the same counts. If that storage is unreachable,
sign-in stays possible (argon2 still slows guessing) and the log says so loudly."""

from __future__ import annotations

import hashlib
import logging
import math
import time
from functools import lru_cache

from limits import parse, parse_many
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter

from hitl_dashboard.domain.errors import TooManyAttempts
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)
_ACCOUNT, _ADDRESS, _AUDITED = "sign_in_fail_account", "sign_in_fail_address", "sign_in_throttle_audited"
# A throttled attacker could otherwise write an audit row per attempt; one per minute per key pair says enough.
_AUDIT_THROTTLED_EVERY = parse("1/minute")
_WARN_EVERY_S = 60.0


# The sign-in page words a refusal it learns of by its code (ui/states/login.py) the same way.
THROTTLED_MESSAGE = ("Too many failed sign-ins for this account or from this address. "
                     "Try again in about {seconds} seconds.")


def _key(text: str) -> str:
    # Fixed length, no separators: any attempted name (however long or odd) is a safe storage key.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class SignInThrottle:
    def __init__(self, storage_uri: str, account_limits: str, address_limits: str):
        self._strategy = MovingWindowRateLimiter(storage_from_string(storage_uri))
        self._limits = {_ACCOUNT: parse_many(account_limits), _ADDRESS: parse_many(address_limits)}
        self._last_warning = 0.0

    def _keys(self, username: str, address: str) -> dict[str, str]:
        return {_ACCOUNT: _key(username), _ADDRESS: _key(address)}

    def begin_attempt(self, username: str, address: str) -> None:
        """Counts the attempt, or raises TooManyAttempts when the account or the address has used
        up a tier. Counting first (one atomic hit per tier) means parallel attempts cannot slip
        past the count while their passwords are being checked."""
        keys = self._keys(username, address)
        try:
            allowed = all(self._strategy.hit(item, scope, key)
                          for scope, key in keys.items() for item in self._limits[scope])
            if allowed:
                return
            seconds = max(1, math.ceil(max(
                self._strategy.get_window_stats(item, scope, key).reset_time - time.time()
                for scope, key in keys.items() for item in self._limits[scope]
                if not self._strategy.test(item, scope, key))))
        except Exception:  # noqa: BLE001 - storage unreachable: fail open, loudly
            self._warn_unavailable()
            return
        raise TooManyAttempts(THROTTLED_MESSAGE.format(seconds=seconds), retry_after_s=seconds)

    def record_success(self, username: str) -> None:
        """The right password proves the owner: their account's failure count starts again.
        The address keeps its count, so one valid account cannot launder guesses at others."""
        try:
            for item in self._limits[_ACCOUNT]:
                self._strategy.clear(item, _ACCOUNT, _key(username))
        except Exception:  # noqa: BLE001
            self._warn_unavailable()

    def should_audit_throttled(self, username: str, address: str) -> bool:
        try:
            return self._strategy.hit(_AUDIT_THROTTLED_EVERY, _AUDITED, _key(username), _key(address))
        except Exception:  # noqa: BLE001
            return True

    def _warn_unavailable(self) -> None:
        now = time.monotonic()
        if now - self._last_warning > _WARN_EVERY_S:
            self._last_warning = now
            log.exception("sign-in throttle storage unavailable; failed sign-ins are not throttled until it is back")


@lru_cache(maxsize=1)
def get_sign_in_throttle() -> SignInThrottle:
    settings = get_settings()
    return SignInThrottle(settings.rate_limit_storage_uri(), settings.sign_in_account_limit,
                          settings.sign_in_address_limit)
