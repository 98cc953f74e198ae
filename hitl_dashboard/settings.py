"""One validated settings object, read from the environment (prefix-free names)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEMO_SECRET = "demo-secret-change-me"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    database_url: str = Field(default=f"sqlite:///{PROJECT_ROOT / 'hitl.db'}")
    redis_url: str | None = None
    secret_key: str = DEMO_SECRET
    # Demo mode allows the default secret and the seeded demo users; hosted mode refuses them.
    demo_mode: bool = True
    public_url: str = "http://localhost:3000"

    # Models: "scripted" (offline, default) or "openai" (any OpenAI-compatible endpoint).
    model_provider: str = "scripted"
    openai_base_url: str | None = None
    openai_api_key: str | None = None
    openai_model: str = "gpt-4o-mini"
    model_timeout_s: float = 60.0
    model_max_retries: int = 3
    model_retry_base_s: float = 0.5
    # Stream tokens from the model (live typing in the dashboard); off = one reply per call.
    model_stream: bool = True
    # Slows the scripted model down; tests and demos use it to watch a turn in flight.
    scripted_delay_ms: float = 0.0
    # Pause between streamed words of the scripted model, so a demo shows agents "typing".
    scripted_chunk_delay_ms: float = 0.0

    # Runner
    lease_seconds: float = 30.0
    worker_poll_seconds: float = 0.5
    runner_in_web: bool = True
    # Conversations one runner process works on at once (their model calls overlap).
    runner_concurrency: int = 8
    # A run that crashes unexpectedly is retried after base * 2^(n-1) s (capped); after
    # runner_max_crashes crashes in a row the conversation fails (an admin can retry it).
    runner_crash_backoff_s: float = 1.0
    runner_crash_backoff_max_s: float = 300.0
    runner_max_crashes: int = 8

    # Review SLA in hours per role; escalation goes to the backup role.
    sla_hours_security_reviewer: float = 24.0
    sla_hours_product_reviewer: float = 24.0
    sla_hours_final_approver: float = 48.0
    sla_hours_admin: float = 24.0

    max_text_chars: int = 20_000

    # HTTP API. Limits use the `limits` notation ("120/minute", "10/second;500/hour").
    api_rate_limit: str = "120/minute"  # per API token
    api_address_rate_limit: str = "600/minute"  # per client address, with or without a token
    api_max_body_bytes: int = 256 * 1024

    # Webhooks: delivery timeout, attempts before giving up, exponential backoff between attempts.
    webhook_timeout_s: float = 10.0
    webhook_max_attempts: int = 8
    webhook_retry_base_s: float = 30.0
    webhook_retry_max_s: float = 3600.0

    @field_validator("api_rate_limit", "api_address_rate_limit")
    @classmethod
    def _valid_rate_limit(cls, value: str) -> str:
        from limits import parse_many

        parse_many(value)  # raises ValueError with the offending text
        return value

    @model_validator(mode="after")
    def _refuse_default_secret_when_hosted(self) -> "Settings":
        if not self.demo_mode and self.secret_key == DEMO_SECRET:
            raise ValueError(
                "SECRET_KEY is the demo default; set a real secret (or DEMO_MODE=true for a demo)."
            )
        return self

    def sla_hours(self) -> dict[str, float]:
        return {
            "security_reviewer": self.sla_hours_security_reviewer,
            "product_reviewer": self.sla_hours_product_reviewer,
            "final_approver": self.sla_hours_final_approver,
            "admin": self.sla_hours_admin,
        }


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def reset_settings_cache() -> None:
    get_settings.cache_clear()
