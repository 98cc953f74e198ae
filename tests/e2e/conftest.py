"""End-to-end fixtures: the real app started by scripts/serve.sh (prod mode, one port) on a
temporary SQLite database, and Debian's Chromium for Playwright."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.app_process import (
    ROOT,
    SERVE,
    RunningApp,
    free_port,
    migrate,
    stop,
    wait_until_serving,
    web_dir,
)
from tests.support.oidc_provider import OidcProvider, running_provider
from tests.support.openai_stub import OpenAIStub

# Debian's headless shell (package chromium-headless-shell, scripts/browser.sh): the same Blink as
# /usr/bin/chromium without the browser's UI layer; the suite spends about a fifth less CPU in it.
# E2E_CHROMIUM=/usr/bin/chromium runs the suite in the full browser.
CHROMIUM = Path(os.environ.get("E2E_CHROMIUM", "/usr/lib/chromium/chromium-headless-shell"))
FULL_CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT_DIR = ROOT / "docs" / "screenshots"


# The shared app's model key: conversations routed to the OpenAI stub send it; it must show nowhere.
OPENAI_KEY = "sk-e2e-5f0c2a7d9e41-must-not-leak"
HERE = Path(__file__).parent
# A fixture of these scopes is set up again whenever its module's tests are split up: an app of a
# test's own (test_hosted_live, test_reconnect) would start twice, or one worker would empty the
# Redis database the other's app is using.
SHARED_BY_A_MODULE = {"module", "class", "package"}


def _is_e2e(item: pytest.Item) -> bool:
    return HERE in Path(str(item.fspath)).parents


def _starts_its_own_app(fixturedef: pytest.FixtureDef) -> bool:
    """A module-scoped fixture that does not build on the worker's app (`app_server`) serves one of its
    own (or holds a Redis database). One that does only makes data in the worker's app: when its
    module's tests are split up, each worker makes that data again in its own app, which is correct
    and cheaper than one worker running the whole module (test_phone_sweep: 160 s)."""
    return fixturedef.scope in SHARED_BY_A_MODULE and "app_server" not in fixturedef.argnames


def pytest_itemcollected(item: pytest.Item) -> None:
    """Keep the tests of a module whose module-scoped fixture starts an app of its own on one
    pytest-xdist worker (`--dist loadgroup`, scripts/test.sh), found from the fixtures themselves: a
    new test file needs no configuration. Every other browser test is a work unit of its own."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None or not _is_e2e(item):
        return
    if any(_starts_its_own_app(defs[-1]) for defs in info.name2fixturedefs.values() if defs):
        item.add_marker(pytest.mark.xdist_group(f"e2e-{Path(str(item.fspath)).stem}"))


@pytest.hookimpl(trylast=True)  # as before: after pytest's own `-m` selection in this hook
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the browser tests `e2e`. Their order (last, the slow ones first, then the modules with
    an app of their own) is tests/support/ordering.py's. Each worker builds its apps in web folders
    of its own (app_process.web_dir), so no test depends on which app was built last."""
    for item in items:
        if _is_e2e(item):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session", autouse=True)
def apps_build_in_this_workers_web_dir() -> Iterator[None]:
    """An app a test starts from this process (scripts/serve.sh with this environment) builds its
    frontend in this worker's "own" web folder, not in the checkout's .web or another worker's."""
    previous = os.environ.get("REFLEX_WEB_WORKDIR")
    os.environ["REFLEX_WEB_WORKDIR"] = str(web_dir("own"))
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("REFLEX_WEB_WORKDIR", None)
        else:
            os.environ["REFLEX_WEB_WORKDIR"] = previous


@pytest.fixture(scope="session")
def openai_stub() -> Iterator[OpenAIStub]:
    """A real OpenAI-protocol endpoint for the app: conversations that route an agent to the
    "openai" provider reach it; every other agent keeps the scripted offline model."""
    with OpenAIStub() as stub:
        yield stub


@pytest.fixture(autouse=True)
def _own_openai_replies(request: pytest.FixtureRequest) -> Iterator[None]:
    """The shared stub's queue starts and ends each test empty: replies a failed test queued but
    never had asked for would otherwise answer the next test's conversation (one failure failing
    another)."""
    stub = request.getfixturevalue("openai_stub") if "openai_stub" in request.fixturenames else None
    if stub is not None:
        stub.forget_replies()
    yield
    if stub is not None:
        stub.forget_replies()


@pytest.fixture(autouse=True)
def _contexts_closed(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every browser context a test opened on the shared browser is closed when it ends, whatever the
    outcome: a test that opens its own (browser.new_page, browser.new_context) need not, and a failure
    halfway leaves no page behind to keep its websocket and the app's state for it. Set up before the
    test's other fixtures, so torn down after them: pytest-playwright's own page and context are closed
    by then, as it closes them."""
    yield
    if "browser" in request.fixturenames:
        for context in list(request.getfixturevalue("browser").contexts):
            context.close()


@pytest.fixture(scope="session")
def oidc_provider() -> Iterator[OidcProvider]:
    """A real OpenID Connect provider on 127.0.0.1: the shared app offers single sign-on through it
    (beside passwords), so its browser tests need no app of their own."""
    with running_provider() as provider:
        yield provider


@pytest.fixture(scope="session")
def app_server(tmp_path_factory: pytest.TempPathFactory, openai_stub: OpenAIStub,
               oidc_provider: OidcProvider) -> Iterator[RunningApp]:
    workdir = tmp_path_factory.mktemp("e2e-app")
    database_url = f"sqlite:///{workdir / 'e2e.db'}"
    migrate(database_url)
    port = free_port()
    app = RunningApp(f"http://127.0.0.1:{port}", database_url, workdir / "server.log")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PORT": str(port),
        "BIND_HOST": "127.0.0.1",
        # Reflex clears its disk-state folder on start: keep ours apart from a running `make run`.
        "REFLEX_STATES_WORKDIR": str(workdir / "states"),
        # Its own build (with its port): tests may start other apps meanwhile (app_process.web_dir).
        "REFLEX_WEB_WORKDIR": str(web_dir("shared")),
        # Agents "type" visibly (word by word), so tests can watch a message stream in.
        "SCRIPTED_CHUNK_DELAY_MS": "8",
        "OPENAI_BASE_URL": openai_stub.base_url,
        # Tests read what the deploy tool really ran from here (outside the database).
        "DEPLOY_LOG_PATH": str(workdir / "deploys.jsonl"),
        # Its own published audit heads: the worker's file (tests/conftest.py) takes the heads of every
        # other database this worker touches, and the audit page would read those as a rewritten trail.
        "AUDIT_ANCHOR_FILE": str(workdir / "audit-heads.jsonl"),
        "OPENAI_API_KEY": OPENAI_KEY,  # test_secrets_stay_out.py looks for it everywhere
        # Every browser here signs in from 127.0.0.1: the per-address count must not end the suite.
        # The per-account limit keeps its default (tests/e2e/test_sign_in.py meets it).
        "SIGN_IN_ADDRESS_LIMIT": "10000/minute",
        **oidc_provider.settings(),  # tests/e2e/test_single_sign_on.py
        # The address the browsers use: the provider sends them back to PUBLIC_URL, and the sign-in's
        # cookies belong to the host they were set on (localhost and 127.0.0.1 are two sites to them).
        "PUBLIC_URL": app.base_url,
        # The one stdio MCP server a team saved from the browser or the API may run (issue 45): the
        # test server, logging to this app's folder (tests/e2e/test_team_editor.py).
        "MCP_STDIO_COMMANDS": json.dumps({"test-deploys": app.mcp_command_line()}),
    }
    env.pop("REDIS_URL", None)  # embedded default: one worker, state on disk
    with app.log_path.open("wb") as log:
        process = subprocess.Popen(
            [str(SERVE)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_until_serving(process, app)
        yield app
    finally:
        stop(process)


@pytest.fixture(scope="session")
def base_url(app_server: RunningApp) -> str:
    return app_server.base_url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/browser.sh (make test does)")
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture
def full_browser(playwright, browser_type_launch_args: dict) -> Iterator:
    """The full Chromium, for what the headless shell lacks: it reports Notification.permission as
    "denied" whatever was granted, so desktop notifications are tested here."""
    if not FULL_CHROMIUM.exists():
        pytest.fail(f"{FULL_CHROMIUM} is missing: run scripts/browser.sh (make test does)")
    browser = playwright.chromium.launch(**{**browser_type_launch_args, "executable_path": str(FULL_CHROMIUM)})
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """Reduced motion: Radix's open and close animations are skipped (a reviewer can ask for the
    same), so Playwright's wait for a stable element does not wait out each one."""
    return {**browser_context_args, "reduced_motion": "reduce"}


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """docs/screenshots when UPDATE_SCREENSHOTS=1, else a temporary folder (keeps the tree clean)."""
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        return SCREENSHOT_DIR
    return tmp_path_factory.mktemp("screenshots")
