"""One validated settings object, read from the environment (prefix-free names)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, ValidationError, field_validator, model_validator
from pydantic_settings import SettingsConfigDict

from hitl_dashboard.domain.errors import ConfigurationError
from hitl_dashboard.settings_mcp import McpSettings
from hitl_dashboard.settings_problems import describe
from hitl_dashboard.settings_sign_in import SignInSettings
from hitl_dashboard.settings_web_teams import WebTeamSettings

PROJECT_ROOT = Path(__file__).resolve().parent.parent
ANCHOR_SINKS = ("file", "log", "webhook")


def _split(names: str) -> list[str]:
    return [n.strip().lower() for n in names.split(",") if n.strip()]
_LOOPBACK_NAMES = ("localhost", "127.0.0.1")


# settings_sign_in.py; what a team saved from the web may run: settings_mcp.py, settings_web_teams.py
class Settings(SignInSettings, McpSettings, WebTeamSettings):
    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    database_url: str = Field(default=f"sqlite:///{PROJECT_ROOT / 'hitl.db'}")
    # PostgreSQL connection pools (db/pool_plan.py): each web worker has one; unset sizes are derived
    # from the worker count and the server's max_connections, read at start-up.
    web_workers: int = Field(default=1, ge=1, validation_alias=AliasChoices("granian_workers", "web_workers"))
    db_pool_size: int | None = Field(default=None, ge=1)
    db_max_overflow: int | None = Field(default=None, ge=0)
    db_reserved_connections: int = Field(default=10, ge=0)  # for runner processes, the CLI, migrations
    redis_url: str | None = None
    # Demo mode allows the seeded demo users (known password); hosted mode refuses to run with them.
    demo_mode: bool = True
    public_url: str = "http://localhost:3000"

    # Models: "scripted" (offline, default) or "openai" (any OpenAI-compatible endpoint).
    model_provider: Literal["scripted", "openai"] = "scripted"
    openai_base_url: str | None = None
    openai_api_key: str | None = None
    openai_model: str = "gpt-4o-mini"
    model_timeout_s: float = Field(default=60.0, gt=0)
    model_max_retries: int = Field(default=3, ge=0)
    model_retry_base_s: float = Field(default=0.5, ge=0)
    # Stream tokens from the model (live typing in the dashboard); off = one reply per call.
    model_stream: bool = True
    # Slows the scripted model down; tests and demos use it to watch a turn in flight.
    scripted_delay_ms: float = 0.0
    # Pause between streamed words of the scripted model: by default a readable pace, so a newcomer
    # watches the agents type. Tests and benchmarks set 0 (tests/conftest.py, bench/_support.py).
    scripted_chunk_delay_ms: float = Field(default=30.0, ge=0)

    # Team files (docs/teams.md) read at start-up next to the built-in ones; a name may not repeat.
    teams_dir: Path | None = None

    # Runner
    lease_seconds: float = Field(default=30.0, gt=0)
    worker_poll_seconds: float = Field(default=0.5, gt=0)
    runner_in_web: bool = True
    # Conversations one runner process works on at once (their model calls overlap).
    runner_concurrency: int = Field(default=8, ge=1)
    # A run that crashes unexpectedly is retried after base * 2^(n-1) s (capped); after
    # runner_max_crashes crashes in a row the conversation fails (an admin can retry it).
    runner_crash_backoff_s: float = Field(default=1.0, gt=0)
    runner_crash_backoff_max_s: float = Field(default=300.0, gt=0)
    runner_max_crashes: int = Field(default=8, ge=1)

    # Review SLA in hours per role; escalation goes to the backup role.
    sla_hours_security_reviewer: float = 24.0
    sla_hours_product_reviewer: float = 24.0
    sla_hours_final_approver: float = 48.0
    sla_hours_admin: float = 24.0

    # HTTP API. Limits use the `limits` notation ("120/minute", "10/second;500/hour").
    api_rate_limit: str = "120/minute"  # per API token
    api_address_rate_limit: str = "600/minute"  # per client address, with or without a token
    api_max_body_bytes: int = Field(default=256 * 1024, ge=1)
    # Threads that run the API's synchronous endpoints in each web worker (api/threads.py). Unset: 6,
    # or the worker's connection pool (pool + overflow) if that is smaller.
    api_threads: int | None = Field(default=None, ge=1, le=200)

    # Sign-in attempts, counted per account (all addresses; the right password clears it) and per
    # client address (an office behind one NAT shares it). Several tiers
    # make the wait grow: 5 failures on an account cost a minute, 10 cost 15 minutes, 20 an hour.
    sign_in_account_limit: str = "5/minute;10/15 minutes;20/hour"
    sign_in_address_limit: str = "30/minute;100/15 minutes;300/hour"
    # Reverse proxies in front of the app whose X-Forwarded-For entries are trusted for the browser's
    # address (Reflex's trusted_proxy_hops). 0 = the peer address; behind one proxy set 1, or every
    # user shares the proxy's address and its sign-in count.
    trusted_proxy_hops: int = Field(default=0, ge=0)

    # Webhooks: delivery timeout, attempts before giving up, exponential backoff between attempts.
    webhook_timeout_s: float = Field(default=10.0, gt=0)
    webhook_max_attempts: int = Field(default=8, ge=1)
    webhook_retry_base_s: float = 30.0
    webhook_retry_max_s: float = 3600.0
    # How long a process trusts its cached list of subscribed events (services/webhooks/webhook_cache.py):
    # a webhook added in another process gets events from this many seconds after its commit on. 0: no cache.
    webhook_cache_seconds: float = Field(default=2.0, ge=0)
    # Slack buttons (docs/slack.md): the app's signing secret; unset, POST /api/slack/interactions
    # refuses every request. The message update goes to the request's response_url, which must be
    # https://hooks.slack.com/...; tests allow a stub on 127.0.0.1 with SLACK_ALLOW_LOOPBACK_RESPONSE_URL.
    slack_signing_secret: str | None = Field(default=None, repr=False)
    slack_allow_loopback_response_url: bool = False
    # GET /api/conversations/{id}/ag-ui: how often an open stream looks for new rows.
    ag_ui_poll_seconds: float = Field(default=0.5, gt=0, le=60)

    # External approval requests (docs/external-approvals.md). A callback URL whose host resolves to a
    # private, loopback or link-local address is refused unless this allows it (the server would
    # otherwise post into its own network for anyone holding an approvals token).
    external_callback_allow_private: bool = False
    # The longest a caller's long poll for an outcome waits before answering "still pending".
    external_max_wait_s: float = Field(default=60.0, gt=0, le=600)

    # Audit anchors: every committed head of the audit chain (seq, hash) is published outside the
    # database, so cutting events off the tail is detected (docs/audit.md). Sinks, comma-separated:
    # "file" (JSON lines appended to audit_anchor_file), "log" (logger hitl_dashboard.audit.anchor),
    # "webhook" (event audit.head to the webhooks subscribed to it); empty publishes nowhere.
    audit_anchor_sinks: str = "file"
    # Empty: beside the SQLite database file (hitl.db -> hitl.db-audit-heads.jsonl), or
    # audit-heads-<database name>.jsonl in the project folder for a server database.
    audit_anchor_file: str = ""

    # Observability (docs/operations.md). Logs: "auto" is JSON lines in hosted mode, plain text in
    # demo mode; messages are cut at log_max_chars and credentials masked.
    log_format: Literal["auto", "json", "plain"] = "auto"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_max_chars: int = Field(default=2000, ge=200)
    # GET /metrics: with a token, only `Authorization: Bearer <token>`; without one, in hosted mode
    # only clients from these networks (the peer address, or X-Forwarded-For per trusted_proxy_hops).
    # Demo mode without a token serves anyone.
    metrics_token: str | None = Field(default=None, repr=False)
    metrics_allow_networks: str = "127.0.0.0/8,::1/128"

    # The simulated deploy_to_prod tool appends each deploy here (JSON lines), so tests and demos
    # can count real deploys outside the database; empty writes nowhere.
    deploy_log_path: str = ""

    # Static analysis of agents' Python code (docs/findings.md): per analyser run, and the largest
    # file analysed. ANALYSIS_BANDIT_COMMAND replaces `python -m bandit` (tests point it at a hang).
    analysis_timeout_s: float = Field(default=20.0, gt=0)
    analysis_max_bytes: int = Field(default=256 * 1024, ge=1)
    analysis_bandit_command: str = ""

    # Validators raise ValueError with the whole line after the variable name: the problem and
    # what to do, never the value (settings_problems.describe adds the name).
    @field_validator("api_rate_limit", "api_address_rate_limit", "sign_in_account_limit", "sign_in_address_limit")
    @classmethod
    def _valid_rate_limit(cls, value: str) -> str:
        from limits import parse_many

        try:
            parse_many(value)
        except ValueError:
            raise ValueError("is not a rate limit; use the `limits` notation, e.g. 120/minute "
                             "or 10/second;500/hour") from None
        return value

    @field_validator("database_url")
    @classmethod
    def _valid_database_url(cls, value: str) -> str:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            backend = make_url(value).get_backend_name()
        except (ArgumentError, ValueError):
            backend = None
        if backend not in ("sqlite", "postgresql", "postgres"):
            raise ValueError("is not a SQLite or PostgreSQL URL; use e.g. sqlite:///path/to/hitl.db "
                             "or postgresql://user@host:5432/hitl")
        return value

    @field_validator("redis_url")
    @classmethod
    def _valid_redis_url(cls, value: str | None) -> str | None:
        if value and urlsplit(value).scheme not in ("redis", "rediss", "unix"):
            raise ValueError("is not a Redis URL; use e.g. redis://host:6379/0 (or unset it to run without Redis)")
        return value or None

    @field_validator("metrics_allow_networks")
    @classmethod
    def _valid_networks(cls, value: str) -> str:
        import ipaddress

        try:
            for part in _split(value):
                ipaddress.ip_network(part, strict=False)
        except ValueError:
            raise ValueError("a comma-separated list of networks such as 10.0.0.0/8,127.0.0.1/32") from None
        return value

    @field_validator("metrics_token")
    @classmethod
    def _long_enough_token(cls, value: str | None) -> str | None:
        if value is not None and len(value.strip()) < 16:
            raise ValueError("use at least 16 characters, e.g. from "
                             "python -c 'import secrets; print(secrets.token_urlsafe())'")
        return value.strip() if value else None

    @field_validator("slack_signing_secret")
    @classmethod
    def _slack_secret_shape(cls, value: str | None) -> str | None:
        # Slack's signing secrets are 32 hex characters; a short one is a paste error, not a secret.
        if value is not None and value.strip() and len(value.strip()) < 16:
            raise ValueError("is too short for a Slack signing secret; copy it from your Slack app's "
                             "Basic Information page (or unset it to turn Slack buttons off)")
        return value.strip() if value and value.strip() else None

    @field_validator("public_url", "openai_base_url")
    @classmethod
    def _valid_http_url(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError("is not an http(s) URL; use e.g. https://host or http://127.0.0.1:8000/v1")
        return value

    @field_validator("audit_anchor_sinks")
    @classmethod
    def _known_anchor_sinks(cls, value: str) -> str:
        unknown = sorted(set(_split(value)) - set(ANCHOR_SINKS))
        if unknown:
            raise ValueError(f"names an unknown sink ({', '.join(unknown)}); use some of "
                             f"{', '.join(ANCHOR_SINKS)}")
        return value

    @model_validator(mode="after")
    def _openai_needs_an_endpoint(self) -> Settings:
        if self.model_provider == "openai" and not (self.openai_api_key or self.openai_base_url):
            raise ValueError("OPENAI_API_KEY: is not set while MODEL_PROVIDER is openai; set OPENAI_API_KEY "
                             "(or OPENAI_BASE_URL for a local endpoint that needs no key)")
        return self

    @model_validator(mode="after")
    def _gateway_sessions(self) -> Settings:
        # A stateful MCP session lives in one web process's memory, so it needs every request of the
        # session to reach that process. Several processes serve the deployment when WEB_WORKERS is
        # above 1, and whenever Redis is configured: scripts/common.sh then starts 2 x CPUs + 1 workers
        # unless WEB_WORKERS says otherwise, and Redis is what lets several web containers behind a proxy
        # share the UI state (compose.yaml: two containers of the default count each).
        if self.mcp_gateway_sessions is None:
            several = self.web_workers > 1 or self.redis_url is not None
            self.mcp_gateway_sessions = "stateless" if several else "stateful"
        return self

    def anchor_sinks(self) -> frozenset[str]:
        return frozenset(_split(self.audit_anchor_sinks))

    def anchor_file(self) -> Path | None:
        """The file of published heads, or None when the file sink is off."""
        if "file" not in self.anchor_sinks():
            return None
        if self.audit_anchor_file:
            return Path(self.audit_anchor_file)
        from sqlalchemy.engine import make_url

        url = make_url(self.database_url)
        if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
            return Path(f"{url.database}-audit-heads.jsonl")
        return PROJECT_ROOT / f"audit-heads-{url.database or 'db'}.jsonl"

    def rate_limit_storage_uri(self) -> str:
        """Where the `limits` counters live: Redis shares them between web workers; memory is per process."""
        return self.redis_url or "memory://"

    def allowed_origins(self) -> list[str]:
        """Origins allowed by CORS and the websocket: the public URL only. A loopback public URL
        also admits its other loopback spelling (localhost / 127.0.0.1), which is the same server."""
        parts = urlsplit(self.public_url)
        origin = f"{parts.scheme}://{parts.netloc}"
        host, port = parts.hostname or "", f":{parts.port}" if parts.port else ""
        if host not in _LOOPBACK_NAMES:
            return [origin]
        return [origin] + [f"{parts.scheme}://{name}{port}" for name in _LOOPBACK_NAMES if name != host]

    def metrics_networks(self) -> list:
        import ipaddress

        return [ipaddress.ip_network(part, strict=False) for part in _split(self.metrics_allow_networks)]

    def sla_hours(self) -> dict[str, float]:
        return {
            "security_reviewer": self.sla_hours_security_reviewer,
            "product_reviewer": self.sla_hours_product_reviewer,
            "final_approver": self.sla_hours_final_approver,
            "admin": self.sla_hours_admin,
        }


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The one place settings are built. Raises ConfigurationError, one line per problem."""
    try:
        return Settings()
    except ValidationError as exc:
        # `from None`: pydantic's text (with the input values) must not reach a traceback either.
        raise ConfigurationError(describe(exc)) from None


def reset_settings_cache() -> None:
    get_settings.cache_clear()
