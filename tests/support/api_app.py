"""The real app's backend (as scripts/serve.sh starts it, prod mode, without the frontend) for the
HTTP API tests, on SQLite and on PostgreSQL, plus helpers to make users with tokens in its database.

Registered from tests/conftest.py (pytest_plugins), so each app starts once per session."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.tokens import issue_token
from hitl_dashboard.services.auth.users import insert_user
from tests.conftest import create_pg_database, drop_pg_database, require_pg
from tests.e2e.app_process import ROOT, SERVE, RunningApp, free_port, migrate, stop, wait_until_serving

# High enough that no test but the rate-limit one ever meets a limit (schemathesis sends hundreds).
UNLIMITED = "100000/minute"


@dataclass(frozen=True)
class ApiApp:
    running: RunningApp
    backend: str  # sqlite | postgresql

    @property
    def base_url(self) -> str:
        return self.running.base_url

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=30)

    def user(self, roles: list[str], name: str | None = None) -> tuple[str, str]:
        """A new user with these roles and an API token: (username, token)."""
        username = f"{name or roles[0].split('_')[0]}-{uuid.uuid4().hex[:8]}"
        # The app's own database, not this process's: hence a unit of work on its engine, and the
        # steps that the use cases run inside theirs.
        with UnitOfWork(self.running.engine) as uow:
            user = insert_user(uow, username=username, password="pw-" + username, roles=roles)
            _, token = issue_token(uow, user_id=user.id, name="tests")
            uow.commit()
        return username, token

    def token(self, roles: list[str], name: str | None = None) -> str:
        return self.user(roles, name)[1]


def start_app(tmp_path_factory: pytest.TempPathFactory, backend: str, **settings: str) -> Iterator[ApiApp]:
    """Migrate a fresh database, serve the app on a free port, stop it (and drop the database) after."""
    workdir = tmp_path_factory.mktemp(f"api-{backend}")
    pg_name = None
    if backend == "postgresql":
        require_pg()
        pg_name = create_pg_database()
        database_url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{pg_name}"
    else:
        database_url = f"sqlite:///{workdir / 'api.db'}"
    migrate(database_url)
    port = free_port()
    running = RunningApp(f"http://127.0.0.1:{port}", database_url, workdir / "server.log")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PORT": str(port),
        "BIND_HOST": "127.0.0.1",
        "REFLEX_STATES_WORKDIR": str(workdir / "states"),
        "DEPLOY_LOG_PATH": str(workdir / "deploys.jsonl"),
        "AUDIT_ANCHOR_FILE": str(workdir / "audit-heads.jsonl"),
        "SCRIPTED_DELAY_MS": "0",
        "WORKER_POLL_SECONDS": "0.1",
        "API_RATE_LIMIT": UNLIMITED,
        "API_ADDRESS_RATE_LIMIT": UNLIMITED,
        # The tests add webhooks from this process, so the server must not trust a cached "nobody
        # subscribed" (its bound is tested in tests/test_webhooks.py, with a moved clock).
        "WEBHOOK_CACHE_SECONDS": "0",
        # An external approval's long poll answers "still pending" within 2 s here, inside any
        # client's request timeout (the fuzzer's is 20 s); its own bound is tested in-process.
        "EXTERNAL_MAX_WAIT_S": "2",
        **settings,
    }
    for name in ("REDIS_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL_PROVIDER"):
        env.pop(name, None)  # one worker, in-memory rate limits, the offline scripted model
    process = _spawn(env, running.log_path)
    try:
        wait_until_serving(process, running)
        yield ApiApp(running, backend)
    finally:
        stop(process)
        running.engine.dispose()
        if pg_name:
            drop_pg_database(pg_name)


def _spawn(env: dict[str, str], log_path: Path) -> subprocess.Popen:
    """scripts/serve.sh --backend-only: the environment `make run` serves in (and PUBLIC_URL's
    default), the HTTP API, /ping and the in-web runner in about 10 s, where building the frontend
    took a minute or more per app; the checkout's .web stays for the e2e apps (their port baked in)."""
    with log_path.open("wb") as log:
        return subprocess.Popen([str(SERVE), "--backend-only"], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def api_app(request, tmp_path_factory) -> Iterator[ApiApp]:
    yield from start_app(tmp_path_factory, request.param)
