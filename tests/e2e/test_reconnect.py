"""The server restarts (a deploy) while a reviewer has a conversation open: the page says it is
reconnecting (no error toast), its decision buttons are disabled while it may be stale, and once the
server is back it shows what happened meanwhile, with no reload. An app of its own: it is stopped
and started again in the test."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.services.auth.users import actor_of
from hitl_dashboard.services.reviews.decide import record_decision
from tests.e2e.app_process import ROOT, SERVE, RunningApp, free_port, migrate, stop, wait_until_serving
from tests.e2e.support import make_user, sign_in, waiting_for_security_review


class RestartableApp:
    def __init__(self, workdir: Path):
        self.workdir = workdir
        database_url = f"sqlite:///{workdir / 'app.db'}"
        migrate(database_url)
        self.app = RunningApp(f"http://127.0.0.1:{free_port()}", database_url, workdir / "server.log")
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        env = {**os.environ, "DATABASE_URL": self.app.database_url, "PORT": self.app.base_url.rsplit(":", 1)[1],
               "BIND_HOST": "127.0.0.1", "REFLEX_STATES_WORKDIR": str(self.workdir / "states"),
               "DEPLOY_LOG_PATH": str(self.workdir / "deploys.jsonl"),
               "AUDIT_ANCHOR_FILE": str(self.workdir / "audit-heads.jsonl"),
               "SIGN_IN_ADDRESS_LIMIT": "10000/minute"}
        env.pop("REDIS_URL", None)
        with self.app.log_path.open("ab") as log:
            self.process = subprocess.Popen([str(SERVE)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        wait_until_serving(self.process, self.app)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None


@pytest.fixture(scope="module")
def restartable(tmp_path_factory) -> Iterator[RestartableApp]:
    server = RestartableApp(tmp_path_factory.mktemp("restart"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def revise_while_down(app: RunningApp, username: str, review_id: int, instructions: str) -> None:
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == username)).one()
        record_decision(uow, actor_of(user), review_id, DecisionInput(Action.REVISE, instructions=instructions))
        uow.commit()


@pytest.mark.timeout(900)  # the app starts twice (each start builds the frontend)
def test_a_restart_reconnects_the_open_page_without_a_reload(restartable: RestartableApp, page: Page) -> None:
    app = restartable.app
    reviewer = make_user(app, "security_reviewer", prefix="sec")
    colleague = make_user(app, "security_reviewer", prefix="sec2")
    waiting = waiting_for_security_review(app, "Validate the webhook signatures", timeout=60)
    cid, review = waiting.cid, waiting.review

    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app, reviewer)
    page.goto(f"{app.base_url}/conversations/{cid}")
    approve = page.locator(f".review-card[data-review-id='{review.id}'] .decide-approve")
    expect(approve).to_be_enabled()
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    restartable.stop()
    expect(page.locator("#reconnecting")).to_be_visible(timeout=20_000)
    expect(approve).to_be_disabled()  # nobody decides on what may be stale
    # Meanwhile a colleague sends the work back (another worker, the CLI...).
    revise_while_down(app, colleague, review.id, "check the timestamp too")

    restartable.start()
    expect(page.locator("#reconnecting")).to_have_count(0, timeout=60_000)
    expect(page.locator(f".message[data-source='{colleague}']")).to_contain_text("check the timestamp too",
                                                                               timeout=30_000)
    expect(page.locator(f".review-card[data-review-id='{review.id}']")).to_have_count(0)  # decided meanwhile
    # The runner resumed after the restart: the coder's revision arrives live on the same page.
    expect(page.locator(".message[data-source='coder']")).to_have_count(2, timeout=60_000)
    assert page.evaluate("window.__sameDocument === true")
    expect(page.get_by_text("Cannot connect to server")).to_have_count(0)
