"""Rate limits per API token and per client address (the `limits` library).

Storage is Redis when REDIS_URL is set, so several web workers share one count; otherwise
memory (one worker, the embedded default). If Redis is down the API stays up, unlimited,
and says so in the log: a limiter outage should not become an API outage."""

from __future__ import annotations

import logging
import math
import time
from functools import lru_cache

from fastapi import HTTPException, status
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter

from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)
_WARN_EVERY_S = 60.0


class RateLimiter:
    def __init__(self, storage_uri: str, token_limits: str, address_limits: str):
        self._strategy = MovingWindowRateLimiter(storage_from_string(storage_uri))
        self._token_limits = parse_many(token_limits)
        self._address_limits = parse_many(address_limits)
        self._last_warning = 0.0

    def check_address(self, address: str) -> None:
        self._check("address", address, self._address_limits)

    def check_token(self, token_key: str) -> None:
        self._check("token", token_key, self._token_limits)

    def _check(self, scope: str, key: str, items: list[RateLimitItem]) -> None:
        for item in items:
            try:
                allowed = self._strategy.hit(item, scope, key)
                # Read only when refused (0.0 is never used).
                reset_at = 0.0 if allowed else self._strategy.get_window_stats(item, scope, key).reset_time
            except Exception:  # noqa: BLE001 - storage unreachable: fail open, loudly
                self._warn_unavailable()
                return
            if not allowed:
                retry_after = max(1, math.ceil(reset_at - time.time()))
                raise HTTPException(
                    status.HTTP_429_TOO_MANY_REQUESTS,
                    detail=f"rate limit of {item} per {scope} exceeded; retry in {retry_after} s",
                    headers={"Retry-After": str(retry_after)},
                )

    def _warn_unavailable(self) -> None:
        now = time.monotonic()
        if now - self._last_warning > _WARN_EVERY_S:
            self._last_warning = now
            log.exception("rate limit storage unavailable; requests are not limited until it is back")


@lru_cache(maxsize=1)
def get_rate_limiter() -> RateLimiter:
    settings = get_settings()
    return RateLimiter(settings.rate_limit_storage_uri(), settings.api_rate_limit, settings.api_address_rate_limit)
