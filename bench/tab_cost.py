"""What each open tab costs the server: CPU per watching tab per decision cycle (conversation page),
CPU per open queue tab per queue change, and memory per idle signed-in tab (embedded disk state
manager, and the Redis one).

    .venv/bin/python bench/tab_cost.py --quick             # 50 tabs; memory 200 tabs; baseline BASELINE
    .venv/bin/python bench/tab_cost.py                     # 50 and 200 tabs; memory 1,000 tabs
    .venv/bin/python bench/tab_cost.py --parts memory --memory-tabs 1000 --managers disk redis --no-baseline
    .venv/bin/python bench/tab_cost.py --no-baseline --managers disk --parts memory conversation --memory-tabs 200

The real app in prod mode (bench/live_transcript.served, SQLite), with one real Chromium page on the
conversation beside N protocol-level tabs (bench/_light_watchers.py: signed in, hydrated, watching,
polling the queue summary as a tab does). Each figure is a difference against the same server with
the real page alone, in the same run, divided by N:
  conversation: app CPU per decision cycle (a REVISE over the API, the decision message, the coder's
    streamed reply, the pause), (CPU(N tabs) - CPU(0)) / N.            target <= 5 ms
  queue: N tabs on the reviewer's queue page; claim and release alternate over the API, each change
    waited for until every tab received it; (CPU(N) - CPU(0)) / N / changes.   target <= 2 ms
  memory: N idle tabs on the conversation page: the web tier's RSS and the state manager's bytes
    (the disk manager's files; with Redis the MEMORY USAGE of every key of its own Redis database),
    (with N - with 0) / N.                          target <= 50 KB a tab, 1,000 tabs < 100 MB
    Also printed: the websocket extensions the server accepted (the tabs offer permessage-deflate as
    Chromium does; a compression context per socket is memory per tab), and what a tab received: frames,
    KB, the largest frame, and the KB the same frames would take with permessage-deflate.
Web servers (issue 44): --servers granian uvicorn (default both) serves each variant with each, one after the
other, the same code (bench/_web_servers.py: uvicorn as shipped, gunicorn + hitl_dashboard/web_worker.py's worker,
wsproto without permessage-deflate; granian as before issue 44), and prints them side by side. Within a server,
memory is measured first, before any other tabs opened and closed on it.
Baseline: BASELINE, or --baseline-commit REV, runs first, the same way, in the same run (its states must speak this
checkout's state names, which the light watchers use). CPU is CPU seconds of the server's processes
(/proc), not wall time: a busy machine stretches the wall time, not the work."""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._light_watchers import LightWatchers, recorded_boot, reflex_names  # noqa: E402
from bench._support import ROOT  # noqa: E402
from bench._web_servers import SERVERS, server_env, serving  # noqa: E402
from bench.live_transcript import (  # noqa: E402
    HOOK_SOCKET,
    OBSERVE,
    PASSWORD,
    Conversation,
    baseline_tree,
    cpu_seconds,
    cycle,
    descendants,
    launch,
    machine_line,
    served,
)

# main before the pushed queue summary (issue 33). 33ea0c1, main before the first part of issue 33,
# no longer starts on a database this checkout migrates (it does not know 0019_reviewer_edits).
BASELINE = "84054a6"
TARGET_CONVERSATION_MS, TARGET_QUEUE_MS, TARGET_IDLE_KB, TARGET_THOUSAND_MB = 5.0, 2.0, 50.0, 100.0
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379")


class RealPage:
    """One Chromium page, signed in as the reviewer, on the conversation; it records the boot events of
    the queue page and of the conversation page for the light watchers to replay."""

    def __init__(self, browser, base: str, conversation: Conversation):
        self.boots: dict[str, dict] = {}
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.context.add_init_script(HOOK_SOCKET)
        self.page = self.context.new_page()
        self.page.on("websocket", self._on_socket)
        self.page.goto(base + "/login")
        self.page.fill("#username", conversation.reviewer)
        self.page.fill("#password", PASSWORD)
        self.page.click("#sign-in")
        self.page.wait_for_url("**/queue*", timeout=60_000)
        self.page.goto(base + "/queue", timeout=120_000)  # a full load: a boot event for the queue page
        self.page.wait_for_selector("#queue-table, #queue-empty", timeout=120_000)
        self.page.goto(f"{base}/conversations/{conversation.id}", timeout=120_000)
        self.page.wait_for_selector(".message", timeout=120_000)
        self.page.evaluate(OBSERVE)
        # How often the served version's tabs poll the queue summary (the baseline's: every 10 s;
        # pushed since issue 33, no attribute): the light tabs do the same.
        self.poll_ms = int(self.page.get_attribute("#queue-watch", "data-poll-ms") or 0)

    def _on_socket(self, socket) -> None:
        def on_sent(frame) -> None:
            boot = recorded_boot(frame) if isinstance(frame, str) else None
            if boot:
                self.boots.setdefault(boot["event"].get("router_data", {}).get("pathname", ""), boot)

        socket.on("framesent", on_sent)

    def boot(self, pathname_start: str) -> dict:
        return next(boot for path, boot in self.boots.items() if path.startswith(pathname_start))


@contextlib.contextmanager
def light_tabs(base: str, real: RealPage, conversation: Conversation, count: int, page: str):
    """`count` light tabs on the page (None for 0), closed afterwards. RuntimeError: they did not open."""
    if not count:
        yield None
        return
    boot = real.boot("/conversations/" if page == "conversation" else "/queue")
    names = {**reflex_names(), "poll_ms": real.poll_ms}
    watchers = LightWatchers(base, boot, names, (conversation.reviewer, PASSWORD), count, page)
    try:
        yield watchers
    finally:
        watchers.close()


def conversation_cost(base, server, real: RealPage, conversation: Conversation, counts: list[int],
                      cycles: int) -> dict[int, float]:
    """App CPU seconds per decision cycle, per count of light watchers (0 = the real page alone)."""
    cpu: dict[int, float] = {}
    for count in [0, *counts]:
        try:
            with light_tabs(base, real, conversation, count, "conversation") as watchers:
                cycle(conversation, [real.page], base, server.pid, 30, watchers)  # warm: not counted
                frames = watchers.received() if watchers else 0
                cpu[count] = statistics.mean(
                    cycle(conversation, [real.page], base, server.pid, 60, watchers)["server_cpu"]
                    for _ in range(cycles))
                frames = (watchers.received() - frames) / count / cycles if watchers else 0
        except RuntimeError as exc:  # the machine could not open them: say so, go on
            print(f"      conversation page, {count} light tabs: {exc}", flush=True)
            continue
        print(f"      conversation page, {count} light tabs: app CPU {cpu[count]:.3f} s per decision cycle, "
              f"{frames:.0f} frames per tab per cycle", flush=True)
    return cpu


def queue_cost(base, server, real: RealPage, conversation: Conversation, counts: list[int],
               changes: int) -> dict[int, float]:
    """App CPU seconds per queue change (a claim or a release over the API), per count of queue tabs."""
    import httpx

    headers = {"Authorization": f"Bearer {conversation.api_token()}"}
    cpu: dict[int, float] = {}
    with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
        for count in [0, *counts]:
            try:
                with light_tabs(base, real, conversation, count, "queue") as watchers:
                    cpu[count] = _queue_changes(server, conversation, client, watchers, count, changes)
            except RuntimeError as exc:  # the machine could not open them (or they fell behind): say so
                print(f"      queue page, {count} light tabs: {exc}", flush=True)
                continue
            print(f"      queue page, {count} light tabs: app CPU {cpu[count] * 1000:.1f} ms per queue change",
                  flush=True)
    return cpu


def _queue_changes(server, conversation: Conversation, client, watchers: LightWatchers | None, count: int,
                   changes: int) -> float:
    review = conversation.wait_paused()
    before = cpu_seconds(server.pid)[1]
    for change in range(changes):
        action, status = ("claim", "claimed") if change % 2 == 0 else ("release", "pending")
        if watchers is not None:
            watchers.forget_frames()
        client.post(f"/api/reviews/{review}/{action}").raise_for_status()
        deadline = time.monotonic() + 60
        while watchers is not None and watchers.frames_with(f'"{status}"') < count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"queue tabs did not all see the {action} within 60 s")
            time.sleep(0.05)
    spent = (cpu_seconds(server.pid)[1] - before) / changes
    if changes % 2:  # leave the review unclaimed, as found
        client.post(f"/api/reviews/{review}/release").raise_for_status()
    return spent


def rss_bytes(server_pid: int) -> int:
    total = 0
    for pid in descendants(server_pid, _table()):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


def _table():
    from bench.live_transcript import _processes

    return _processes()


def state_bytes(workdir: Path, redis_url: str | None) -> int:
    if redis_url is None:
        return sum(path.stat().st_size for path in (workdir / "states").rglob("*") if path.is_file())
    import redis

    client = redis.Redis.from_url(redis_url)
    return sum(client.memory_usage(key) or 0 for key in client.scan_iter(count=1000))


def idle_memory(base, server, real: RealPage, conversation: Conversation, count: int, workdir: Path,
                redis_url: str | None) -> dict[str, float]:
    """Web tier RSS and state bytes with `count` idle tabs on the conversation page, against none."""
    def settled() -> tuple[int, int]:
        time.sleep(3)  # the disk manager writes states 2 s after their change (its debounce)
        return rss_bytes(server.pid), state_bytes(workdir, redis_url)

    rss_before, state_before = settled()
    try:
        with light_tabs(base, real, conversation, count, "conversation") as watchers:
            rss_after, state_after = settled()
            wire = watchers.wire()
    except RuntimeError as exc:  # the machine could not open them: say so, go on
        print(f"      {count} idle tabs: {exc}", flush=True)
        return {}
    # The tabs offer permessage-deflate as Chromium does; what the server accepted, and what a tab
    # received (the frames a server keeps per socket in its write buffer are at most the largest).
    print(f"      websocket: extensions the server accepted: {', '.join(wire['extensions']) or 'none'}; "
          f"a tab received {wire['frames'] / count:.0f} frames, {wire['chars'] / count / 1024:.1f} KB "
          f"(largest frame {wire['largest'] / 1024:.1f} KB; {wire['deflated'] / count / 1024:.1f} KB with "
          f"permessage-deflate)", flush=True)
    return {"rss": (rss_after - rss_before) / count, "state": (state_after - state_before) / count,
            "wire": wire}


def free_redis_database() -> str:
    """A Redis database of the shared server that holds no key (this bench's own, emptied after)."""
    import redis

    for index in (15, 10, 9):  # the tests empty 7, 8 and 11-14
        url = f"{REDIS}/{index}"
        if not redis.Redis.from_url(url).dbsize():
            return url
    raise SystemExit("no empty Redis database among 9, 10 and 15 for the Redis state manager's figures")


def run_variant(tree: Path, args: argparse.Namespace, server: str) -> dict:
    from playwright.sync_api import sync_playwright

    from bench._support import temporary_database

    results: dict = {}
    for manager in args.managers:
        redis_url = free_redis_database() if manager == "redis" else None
        extra = {**server_env(server, tree, 1), **({"REDIS_URL": redis_url} if redis_url else {})}
        with tempfile.TemporaryDirectory(prefix="hitl-bench-tabs-") as tmp, temporary_database("sqlite") as url:
            conversation = Conversation(url)
            try:
                with served(tree, url, Path(tmp), extra) as (base, served_process), \
                        sync_playwright() as playwright:
                    browser = launch(playwright)
                    conversation.wait_paused()
                    real = RealPage(browser, base, conversation)
                    print(f"      {server}: served by {serving(served_process.pid)}; load {_load()}", flush=True)
                    # Memory first, on a server no other tabs have been on (their freed memory would be
                    # reused by the idle tabs and hide part of their cost).
                    if "memory" in args.parts:
                        memory = idle_memory(base, served_process, real, conversation, args.memory_tabs, Path(tmp),
                                             redis_url)
                        if memory:
                            results[f"memory_{manager}"] = memory
                            print(f"      {args.memory_tabs} idle tabs, {manager} state manager: web tier RSS "
                                  f"{memory['rss'] / 1024:.1f} KB, state {memory['state'] / 1024:.1f} KB a tab; "
                                  f"load {_load()}", flush=True)
                    if manager == "disk" and "conversation" in args.parts:
                        results["conversation"] = conversation_cost(base, served_process, real, conversation,
                                                                    args.tabs, args.cycles)
                    if manager == "disk" and "queue" in args.parts:
                        results["queue"] = queue_cost(base, served_process, real, conversation, args.tabs,
                                                      args.changes)
                    browser.close()
            finally:
                if redis_url:
                    import redis

                    redis.Redis.from_url(redis_url).flushdb()  # this bench's own database only
    return results


def per_tab(cpu: dict[int, float], count: int) -> float:
    return (cpu[count] - cpu[0]) / count if count in cpu and 0 in cpu else float("nan")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(runs: dict[tuple[str, str], dict], args: argparse.Namespace) -> None:
    """One line per measure and run (baseline / this checkout, each web server), then the web servers side
    by side for this checkout."""
    def label(variant: str, server: str) -> str:
        code = f"baseline {args.baseline_commit}" if variant == "baseline" else "this checkout"
        return f"{code}, {server}"

    for (variant, server), run in runs.items():
        for count in args.tabs:
            if "conversation" in run:
                print(f"[{label(variant, server)}] conversation page, {count} tabs: app CPU per watching tab per "
                      f"decision cycle {per_tab(run['conversation'], count) * 1000:.1f} ms "
                      f"(target <= {TARGET_CONVERSATION_MS:.0f} ms)")
            if "queue" in run:
                print(f"[{label(variant, server)}] queue page, {count} tabs: app CPU per open queue tab per queue "
                      f"change {per_tab(run['queue'], count) * 1000:.2f} ms (target <= {TARGET_QUEUE_MS:.0f} ms)")
        if "conversation" in run and 0 in run["conversation"]:
            print(f"[{label(variant, server)}] app CPU per decision cycle, the real page alone: "
                  f"{run['conversation'][0]:.3f} s")
        for manager in args.managers:
            mine = run.get(f"memory_{manager}")
            if mine:
                print(f"[{label(variant, server)}] idle tab, {manager} state manager ({args.memory_tabs} tabs): web "
                      f"tier RSS {mine['rss'] / 1024:.1f} KB, state {mine['state'] / 1024:.1f} KB a tab; 1,000 tabs: "
                      f"{(mine['rss'] + (mine['state'] if manager == 'redis' else 0)) * 1000 / 2**20:.1f} MB "
                      f"(target <= {TARGET_IDLE_KB:.0f} KB a tab, 1,000 tabs < {TARGET_THOUSAND_MB:.0f} MB)")
    servers = [server for variant, server in runs if variant == "new"]
    if len(servers) < 2:
        return
    rows: list[tuple[str, list[str]]] = []
    for manager in args.managers:
        rows.append((f"web tier RSS per idle tab, {manager} manager, {args.memory_tabs} tabs (KB)",
                     [f"{runs['new', s][f'memory_{manager}']['rss'] / 1024:.1f}"
                      if f"memory_{manager}" in runs["new", s] else "-" for s in servers]))
    for count in args.tabs:
        rows.append((f"app CPU per watching tab per decision cycle, {count} tabs (ms)",
                     [f"{per_tab(runs['new', s]['conversation'], count) * 1000:.2f}"
                      if "conversation" in runs["new", s] else "-" for s in servers]))
    rows.append(("app CPU per decision cycle, the real page alone (s)",
                 [f"{runs['new', s]['conversation'][0]:.3f}" if 0 in runs["new", s].get("conversation", {})
                  else "-" for s in servers]))
    print("\nweb servers side by side (this checkout):")
    width = max(len(name) for name, _ in rows)
    print(f"  {'':<{width}}  " + "  ".join(f"{s:>10}" for s in servers))
    for name, values in rows:
        print(f"  {name:<{width}}  " + "  ".join(f"{v:>10}" for v in values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="50 tabs, 1 cycle, 6 queue changes, 200 idle tabs")
    parser.add_argument("--tabs", type=int, nargs="*", help="light tab counts for CPU (default 50 200)")
    parser.add_argument("--cycles", type=int, help="decision cycles measured per count (default 2)")
    parser.add_argument("--changes", type=int, help="queue changes per count (default 10)")
    parser.add_argument("--memory-tabs", type=int, help="idle tabs for memory (default 1000)")
    parser.add_argument("--parts", nargs="*", default=["conversation", "queue", "memory"],
                        choices=["conversation", "queue", "memory"])
    parser.add_argument("--managers", nargs="*", default=["disk", "redis"], choices=["disk", "redis"])
    parser.add_argument("--baseline-commit", default=BASELINE,
                        help=f"run this commit first, the same way (default {BASELINE})")
    parser.add_argument("--no-baseline", action="store_true", help="this checkout only")
    parser.add_argument("--variants", nargs="*", default=["baseline", "new"], choices=["baseline", "new"])
    parser.add_argument("--servers", nargs="*", default=list(SERVERS), choices=SERVERS,
                        help="web servers to serve each variant with, one after the other (bench/_web_servers.py; "
                             "default both)")
    args = parser.parse_args()
    if args.no_baseline:
        args.baseline_commit = None
    args.tabs = args.tabs or ([50] if args.quick else [50, 200])
    args.cycles = args.cycles or (1 if args.quick else 2)
    args.changes = args.changes or (6 if args.quick else 10)
    args.memory_tabs = args.memory_tabs or (200 if args.quick else 1000)
    print(machine_line() + "; 1 Chromium page beside the light tabs", flush=True)
    runs: dict[tuple[str, str], dict] = {}
    for variant in [v for v in args.variants if args.baseline_commit or v == "new"]:
        with contextlib.ExitStack() as stack:
            tree = stack.enter_context(baseline_tree(args.baseline_commit)) if variant == "baseline" else ROOT
            for server in args.servers:
                print(f"  {variant}: {'commit ' + args.baseline_commit if variant == 'baseline' else 'this checkout'}"
                      f", {server}; load {_load()}", flush=True)
                runs[variant, server] = run_variant(tree, args, server)
    print(f"load after: {_load()}")
    report(runs, args)


if __name__ == "__main__":
    main()
