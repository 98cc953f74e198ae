"""Two reviewers watch one conversation. What one tab does alone (typing a revision, its queue
summary's refresh) sends nothing at all to the other tab; what the server stores (the decision and
the coder's new turn) reaches the other tab as updates of the conversation feed, with the queue
summary of its role set in the same frame when the change moved it (pushed since issue 33), and
the other tab's own summary refresh answers with its queue summary alone.

Before the feeds left Reflex's shared states, every event of a linked tab was fanned out to each
other linked tab as a `modify_state` of its whole state, with the root state's router data in the
frame: the server's work grew with the square of the watchers, and this test saw those frames."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, record_frames, sign_in, state_deltas, waiting_for_security_review

# Deltas a watching tab may get: the feeds the server pushes (one frame a refresh pass for all of
# them: ui/fanout.py Outbox), and its own summary refresh's answers.
PUSHED = {"conversation_feed", "stream_feed", "queue_summary"}
# The watching tab's own events: its summary refresh, and its transcript's history, which only that
# tab's events write (the transcript's restart when it mounts, pages it asks for); on a busy machine
# the mount's restart is answered after the watch below has begun.
OWN = {"queue_summary", "transcript_history"}


def _short(state_name: str) -> str:
    return state_name.rsplit(".", 1)[-1].rsplit("____", 1)[-1]


def test_one_tabs_own_events_send_nothing_to_another_watching_tab(app_server: RunningApp, browser: Browser):
    typist = make_user(app_server, "security_reviewer", prefix="iso")
    watcher = make_user(app_server, "security_reviewer", prefix="iso2")
    cid = waiting_for_security_review(app_server, "Add input validation to the signup form").cid
    pages, frames, contexts = [], [], []
    try:
        _watch_and_type(app_server, browser, cid, (typist, watcher), pages, frames, contexts)
    finally:
        for context in contexts:
            context.close()


def _watch_and_type(app_server: RunningApp, browser: Browser, cid: int, names, pages, frames, contexts) -> None:
    for name in names:
        contexts.append(browser.new_context(viewport={"width": 1280, "height": 800}))
        page = contexts[-1].new_page()
        frames.append(record_frames(page))
        sign_in(page, app_server, name)
        page.goto(f"{app_server.base_url}/conversations/{cid}")
        expect(page.locator(".message")).to_have_count(3)
        pages.append(page)
    typing, watching = pages
    quiet_from = len(frames[1])
    # The watching tab's own summary refresh (the script's, when the tab becomes visible), in the window:
    # its answer once carried the whole signed-in user again (AppState re-assigned on every check), and
    # this test failed only when the timer happened to fire while it watched.
    watching.evaluate("document.getElementById('queue-watch-refresh').click()")

    # One event per keystroke, then the queue summary's refresh, all from the typist's tab.
    box = typing.locator("[id^='decision-instructions-']")
    box.press_sequentially("add type hints", delay=30)
    typing.evaluate("document.getElementById('queue-watch-refresh').click()")
    expect(box).to_have_value("add type hints")
    # The tab sends its events one after another: the revise below is handled after all of them.
    typing.click(".decide-revise")
    expect(watching.locator(".message")).to_have_count(5, timeout=30_000)
    expect(watching.locator(".message").last).to_contain_text("type hints")

    deltas = state_deltas(frames[1][quiet_from:])
    foreign = [sorted(_short(name) for name in delta) for delta in deltas
               if not {_short(name) for name in delta} <= PUSHED | OWN]
    assert foreign == [], f"the watching tab received updates caused by the other tab: {foreign}"
    pushed = [delta for delta in deltas if any(_short(name) == "conversation_feed" for name in delta)]
    assert pushed and all(set(map(_short, delta)) <= {"conversation_feed", "queue_summary"} for delta in pushed)
