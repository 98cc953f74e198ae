"""Checks that a light watcher (bench/_light_watchers.py) is a watcher as a tab is: the app's backend runs
in this process (uvicorn in a thread, no frontend), so the server's own watchers set of the conversation
feed (services/live/streams) can be read and compared with the light watchers' tab tokens; then one
decision, and every stored message must reach every light watcher.

    scripts/common.sh's reflex_env, then: .venv/bin/python bench/_check_light_watchers.py

Without a page the boot event is built rather than recorded: no `hashes` (the hydrate then sends every
default) and no `state_schema` (the server then skips the schema check); nothing else differs."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _light_watchers as light  # noqa: E402
from bench._support import ROOT, free_port, temporary_database  # noqa: E402
from bench.live_transcript import CHUNK_DELAY_MS, PASSWORD, Conversation  # noqa: E402

WATCHERS = 3


def serve_in_thread(port: int):
    import reflex.utils.prerequisites
    import uvicorn

    os.chdir(ROOT)
    app, _module = reflex.utils.prerequisites.get_and_validate_app()
    server = uvicorn.Server(uvicorn.Config(app=app(), host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.2)
    return server


def built_boot(conversation_id: int) -> dict:
    from reflex.state import State

    route = f"/conversations/{conversation_id}"
    return {"event": {"name": f"{State.get_full_name()}.hydrate_and_load", "payload": {},
                      "router_data": {"pathname": route, "asPath": route, "query": {"cid": str(conversation_id)}}}}


def server_watchers(feed: str) -> set[str]:
    from hitl_dashboard.services.live import streams

    return set().union(*(store._watchers.get(feed, set()) for store in streams._stores.values()))


def tab_token(watcher: light.LightWatcher) -> str:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(watcher.socket.url).query)["token"][0]


def main() -> None:
    from hitl_dashboard.settings import reset_settings_cache

    with tempfile.TemporaryDirectory(prefix="hitl-check-light-") as tmp, temporary_database("sqlite") as url:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        # PUBLIC_URL as scripts/serve.sh sets it, but for the address the sign-in posts from: the
        # sign-in form is refused (403) from an origin that is not the app's own.
        os.environ.update(PUBLIC_URL=base, REFLEX_STATES_WORKDIR=f"{tmp}/states",
                          SCRIPTED_CHUNK_DELAY_MS=str(CHUNK_DELAY_MS), WORKER_POLL_SECONDS="0.2",
                          SIGN_IN_ADDRESS_LIMIT="100000/minute")
        os.environ.pop("REDIS_URL", None)
        reset_settings_cache()  # the app in this process reads them
        conversation = Conversation(url)
        server = serve_in_thread(port)
        names, boot = light.reflex_names(), built_boot(conversation.id)
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, daemon=True).start()

        def run(coroutine):
            return asyncio.run_coroutine_threadsafe(coroutine, loop).result()

        conversation.wait_paused()
        cookie = light.sign_in(base, conversation.reviewer, PASSWORD)
        watchers = run(light.open_watchers(base, boot, names, cookie, WATCHERS))
        tokens, registered = {tab_token(w) for w in watchers}, server_watchers(f"conv-{conversation.id}")
        print(f"server's watchers of conv-{conversation.id}: {sorted(registered)}")
        print(f"light watchers' tab tokens: {sorted(tokens)} -> all registered: {tokens <= registered}")
        known = {seq for seq, _, _ in conversation.messages()}
        conversation.revise(base)
        conversation.wait_paused()
        time.sleep(2)  # the last refresh's way to the sockets
        stored = [seq for seq, _, _ in conversation.messages()]
        ok = tokens <= registered
        for watcher in watchers:
            record = watcher.collect()
            received = sorted(int(seq) for seq in record["seqs"])
            ok &= received == stored
            print(f"received seqs {received} (database {stored}, new {sorted(set(stored) - known)}), "
                  f"{len(record['streams'])} stream frames")
        server.should_exit = True
        time.sleep(1)
    print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
