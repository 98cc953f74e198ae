"""The Reflex app: pages, theme, the HTTP API and the in-process agent runner."""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import reflex as rx

from hitl_dashboard.startup import ready_to_serve_or_exit

# Bad settings, or demo credentials outside demo mode: one line and exit, before serving anything
# and before the imports below, which read the settings.
ready_to_serve_or_exit()

from hitl_dashboard import listeners  # noqa: E402
from hitl_dashboard.api.app import DOCS_URL, api  # noqa: E402
from hitl_dashboard.api.browser_protections import BrowserProtections  # noqa: E402
from hitl_dashboard.api.not_found import ApiNotFoundAsJson  # noqa: E402
from hitl_dashboard.api.threads import limit_api_threads  # noqa: E402
from hitl_dashboard.observability.setup import setup  # noqa: E402
from hitl_dashboard.settings import get_settings  # noqa: E402
from hitl_dashboard.ui.components.connection import install_overlay  # noqa: E402
from hitl_dashboard.ui.pages.registry import add_pages  # noqa: E402
from hitl_dashboard.ui.state_manager import use_sweeping_disk_manager  # noqa: E402

setup("web")  # logs (JSON lines in hosted mode) and, with an OTLP endpoint, traces
listeners.install()  # the audit chain's linking and the other SQLAlchemy listeners (the API factory's too)

logger = logging.getLogger(__name__)

RUNNER_RESTART_DELAY_S = 5.0


async def run_agent_runner() -> None:
    """The agent runner loop, inside the web process when RUNNER_IN_WEB is true (the default).

    A lifespan task runs once per backend worker; the runner leases each conversation,
    so several copies are safe.
    """
    if not get_settings().runner_in_web:
        logger.info("agent runner: not started in the web process (RUNNER_IN_WEB=false)")
        return
    try:
        # Imported here so the web app still starts if the runner cannot be imported.
        from hitl_dashboard.services.runner.loop import run_runner_forever
    except Exception:
        logger.exception("agent runner: cannot import hitl_dashboard.services.runner.loop; not started")
        return
    logger.info("agent runner: started in the web process")
    while True:
        try:
            await run_runner_forever()
            logger.warning("agent runner: returned; restarting in %.0f s", RUNNER_RESTART_DELAY_S)
        except Exception:  # CancelledError (shutdown) is a BaseException and passes through
            logger.exception("agent runner: crashed; restarting in %.0f s", RUNNER_RESTART_DELAY_S)
        await asyncio.sleep(RUNNER_RESTART_DELAY_S)


@contextlib.asynccontextmanager
async def run_mcp_gateway() -> AsyncIterator[None]:
    """The MCP gateway's sessions and upstream connections (hitl_dashboard/gateway/http.py), for the
    life of this worker: Reflex runs the API app's routes but not its lifespan."""
    async with api.state.mcp_gateway.lifespan():
        yield


# The Radix theme is set in rxconfig.py (RadixThemesPlugin); App(theme=...) is deprecated in 0.10.
async def install_live_updates() -> None:
    """Runner turns, decisions and claims in this worker push to the linked browsers."""
    from hitl_dashboard.ui.live import install

    await install(app)


# assets/ticking.js: ages and SLA countdowns keep counting in the browser between refreshes;
# assets/keys.js: keyboard shortcuts (? lists them); assets/app.css: visible focus and their styles;
# assets/queue_watch.js: unread review requests in the tab title, opt-in desktop notifications;
# assets/diff_scroll.js: long diff lines, which scroll inside their cell, reachable by keyboard;
# assets/transcript_pages.js: older transcript messages load as the reader scrolls up.
def built_pages_dir() -> Path:
    """Where Reflex's prod build puts the pages the backend serves (reflex.utils.exec.get_frontend_mount)."""
    from reflex import constants
    from reflex.utils import prerequisites

    return prerequisites.get_web_dir() / constants.Dirs.STATIC / rx.config.get_config().frontend_path.strip("/")


class _App(rx.App):
    """rx.App whose outermost ASGI app answers an unmatchable /api path in JSON (api/not_found.py) and
    puts the browser protections (CSP, nosniff, ...: api/browser_protections.py) on every answer."""

    def __call__(self):  # noqa: ANN204 - Reflex's ASGI app
        settings = get_settings()
        return BrowserProtections(
            ApiNotFoundAsJson(super().__call__()), pages_dir=built_pages_dir(), public_url=settings.public_url,
            sign_in_provider=settings.oidc_issuer if settings.single_sign_on else None,
            self_hashed_paths=(DOCS_URL, f"{DOCS_URL}/oauth2-redirect"))


app = _App(
    api_transformer=api,
    head_components=[rx.script(src=f"/{name}.js") for name in ("ticking", "keys", "queue_watch", "diff_scroll",
                                                                     "transcript_pages")],
    stylesheets=["/app.css"],
)
use_sweeping_disk_manager(app)  # the embedded manager's sweep, once a minute (see the module)
install_overlay(app)
add_pages(app)
app.register_lifespan_task(limit_api_threads)
app.register_lifespan_task(install_live_updates)
app.register_lifespan_task(run_agent_runner)
app.register_lifespan_task(run_mcp_gateway)
