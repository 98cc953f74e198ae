"""Live transcript in real browsers: an agent message streamed at 16 chunks/s to N Chromium pages
watching one conversation, the real app served in prod mode (scripts/serve.sh, as `make run`).

    .venv/bin/python bench/live_transcript.py --quick        # 1 and 5 pages
    .venv/bin/python bench/live_transcript.py                # 1, 5, 10, 20 and 50 pages
    .venv/bin/python bench/live_transcript.py --pages 20 --variants new
    .venv/bin/python bench/live_transcript.py --light-watchers --pages 20 50 --real-pages 1
    .venv/bin/python bench/live_transcript.py --light-watchers --pages 20 50 --real-pages 2 --baseline-commit fcae9cc

--light-watchers: on 2 cores, N Chromium renderers beside the server queue for the CPU (20 pages need
~12 s of Chromium CPU per 10-s decision cycle), so the all-Chromium figure measures the renderers, not the
app; in a deployment each watcher's browser has its own machine. In this mode a count N is --real-pages
Chromium pages (measured as above) plus N minus those light watchers (bench/_light_watchers.py): Reflex
clients over the websocket that sign in and open the conversation as a tab does, so the server registers
them as watchers and sends each of them every delta and stream frame. For them "shown" is the update's
arrival: stored -> frame received, and last chunk -> frame received. This checkout only, unless
--baseline-commit REV is given: then that commit runs first, the same way, in the same run (its Reflex
states must be this checkout's, which the light watchers speak).

Figures, per page and message, on the machine's one clock:
  (a) message stored -> visible: the message's created_at (taken when the runner or the decision
      stores it) to the MutationObserver in the page seeing its `.message` row.
  (b) last chunk -> on screen: the message's full text first on screen, in the typing card or as
      the stored message. The runner stores the message right after the model's last chunk, so
      created_at stands for "last chunk produced" (it is a few ms after it: (b) is a little short).
  backlog: pages whose full text showed more than 200 ms late; Chromium's CPU over the stream.
Targets (issue 12): p95 (a) <= 100 ms with 20 pages (and the figure for 50); (b) <= 200 ms.
Baseline, measured in the same run: the code before this change (commit BASELINE, exported with
git archive and served the same way), which streamed through the big ConversationFeed."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._light_watchers import LightWatchers, recorded_boot, reflex_names  # noqa: E402
from bench._support import ROOT, free_port, p95, wait_until_answers  # noqa: E402
from tests.e2e.app_process import proc_stats  # noqa: E402
from tests.e2e.app_process import stop as stop_group  # noqa: E402

BASELINE = "c43f3c7"  # the commit before streamed text got its own updates
CHUNK_DELAY_MS = 62  # 16 chunks a second
PASSWORD = "bench-password"
TARGET_VISIBLE_MS, TARGET_LAST_CHUNK_MS = 100.0, 200.0
# Before any page script: when each update carrying the messages list arrives (and its newest seq),
# to split stored->visible into server+network and the browser's own work.
HOOK_SOCKET = """(() => {
  const Native = window.WebSocket;
  window.__arrivals = {};
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        if (typeof event.data !== 'string' || !event.data.includes('messages_rx_state_')) return;
        const seqs = [...event.data.matchAll(/"seq":(\\d+)/g)].map(m => +m[1]);
        const seq = Math.max(...seqs);
        if (seqs.length && !(seq in window.__arrivals)) window.__arrivals[seq] = Date.now();
      });
    }
  };
})();"""
OBSERVE = """() => {
  const rec = {seqs: {}, streams: []};
  window.__bench = rec;
  let last = '';
  const check = () => {
    const now = Date.now();
    for (const m of document.querySelectorAll('.message')) {
      const seq = m.dataset.seq;
      if (!(seq in rec.seqs)) rec.seqs[seq] = now;
    }
    const parts = [...document.querySelectorAll('.streaming-text')].map(e => e.textContent);
    const key = parts.map(p => p.length).join(',');
    if (key !== last) { last = key; rec.streams.push([now, parts.map(p => [p.length, p.slice(0, 40)])]); }
  };
  check();
  new MutationObserver(check).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


@contextlib.contextmanager
def baseline_tree(commit: str = BASELINE) -> Iterator[Path]:
    """The baseline commit's files in a temporary folder, sharing this checkout's .venv and .tools."""
    with tempfile.TemporaryDirectory(prefix="hitl-bench-baseline-") as tmp:
        tree = Path(tmp) / "app"
        tree.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        for name in (".venv", ".tools"):
            (tree / name).symlink_to((ROOT / name).resolve())
        yield tree


@contextlib.contextmanager
def served(tree: Path, database_url: str, workdir: Path,
           extra_env: dict[str, str] | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """The app at `tree` in prod mode; embedded (one worker, disk state manager) unless `extra_env`
    names a REDIS_URL."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "PORT": str(port), "BIND_HOST": "127.0.0.1",
           "REFLEX_STATES_WORKDIR": str(workdir / "states"), "SCRIPTED_CHUNK_DELAY_MS": str(CHUNK_DELAY_MS),
           "WORKER_POLL_SECONDS": "0.2", "SIGN_IN_ADDRESS_LIMIT": "100000/minute",
           "DEPLOY_LOG_PATH": str(workdir / "deploys.jsonl"), "AUDIT_ANCHOR_FILE": str(workdir / "anchor.jsonl")}
    env.pop("REDIS_URL", None)  # the embedded default: one worker, runner in the web process
    env.update(extra_env or {})
    log = (workdir / "server.log").open("wb")
    server = subprocess.Popen([str(tree / "scripts" / "serve.sh")], cwd=tree, env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answers(server, f"{base}/ping", 900, lambda: (workdir / "server.log").read_text()[-2000:])
        yield base, server
    finally:
        stop_group(server)
        log.close()
        if os.environ.get("BENCH_SERVER_LOG"):  # keep the app's log to look into a run
            shutil.copy(workdir / "server.log", os.environ["BENCH_SERVER_LOG"])


def _processes() -> dict[int, tuple[int, str, float]]:
    """pid -> (parent pid, command name, CPU seconds so far), from /proc (no psutil here)."""
    ticks = os.sysconf("SC_CLK_TCK")
    return {pid: (int(fields[1]), name, (int(fields[11]) + int(fields[12])) / ticks)
            for pid, name, fields in proc_stats()}


def descendants(root: int, table: dict[int, tuple[int, str, float]]) -> set[int]:
    found, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, (ppid, _, _) in table.items() if ppid == parent and pid not in found]
        found.update(children)
        frontier.extend(children)
    return found


def cpu_seconds(server_pid: int) -> tuple[float, float]:
    """CPU seconds used so far by this process's Chromium and by the served app."""
    table = _processes()
    chromium = sum(table[pid][2] for pid in descendants(os.getpid(), table) if "chrom" in table[pid][1].lower())
    server = sum(table[pid][2] for pid in descendants(server_pid, table))
    return chromium, server


def light_cpu_seconds(light: LightWatchers | None) -> float:
    """CPU seconds used so far by the light watchers' process (0 without it)."""
    if light is None:
        return 0.0
    return _processes().get(light.process.pid, (0, "", 0.0))[2]


class Conversation:
    """One code conversation on the served app's database, driven by decisions from the CLI."""

    def __init__(self, database_url: str):
        from hitl_dashboard.db.engine import get_engine

        self.url, self.engine = database_url, get_engine(database_url)
        self.reviewer = self._user("security_reviewer")
        starter = self._user("product_reviewer")
        self.id = self._start(starter)

    def _user(self, role: str) -> str:
        from hitl_dashboard.db.uow import UnitOfWork
        from hitl_dashboard.services.auth.users import insert_user

        name = f"bench-{role.split('_')[0]}-{os.getpid()}"
        with UnitOfWork(self.engine) as uow:
            insert_user(uow, username=name, password=PASSWORD, roles=[role])
            uow.commit()
        return name

    def _start(self, username: str) -> int:
        from sqlmodel import select

        from hitl_dashboard.db.models import User
        from hitl_dashboard.db.uow import UnitOfWork
        from hitl_dashboard.services.auth.users import actor_of
        from hitl_dashboard.services.conversations.conversations import StartCommand, add_conversation

        with UnitOfWork(self.engine) as uow:
            user = uow.session.exec(select(User).where(User.username == username)).one()
            conversation = add_conversation(uow.session, actor_of(user), StartCommand(
                task="Add retry with backoff to the ledger client", task_type="code"))
            uow.commit()
            return conversation.id

    def open_review(self) -> int | None:
        from sqlmodel import select

        from hitl_dashboard.db.models import ReviewRequest
        from hitl_dashboard.db.uow import UnitOfWork

        with UnitOfWork(self.engine) as uow:
            review = uow.session.exec(select(ReviewRequest.id).where(
                ReviewRequest.conversation_id == self.id, ReviewRequest.status.in_(["pending", "claimed"]))).first()
            return review

    def messages(self) -> list[tuple[int, str, float]]:
        """(seq, content, created_at in ms since the epoch), in order."""
        from sqlmodel import select

        from hitl_dashboard.db.models import Message
        from hitl_dashboard.db.uow import UnitOfWork

        with UnitOfWork(self.engine) as uow:
            rows = uow.session.exec(select(Message).where(Message.conversation_id == self.id)
                                    .order_by(Message.seq)).all()
            return [(m.seq, m.content, _ms(m.created_at)) for m in rows]

    def wait_paused(self, timeout: float = 180) -> int:
        deadline = time.monotonic() + timeout
        while (review := self.open_review()) is None:
            if time.monotonic() > deadline:
                raise RuntimeError("the conversation never paused for review")
            time.sleep(0.2)
        return review

    def api_token(self) -> str:
        from sqlmodel import select

        from hitl_dashboard.db.models import User
        from hitl_dashboard.db.uow import UnitOfWork
        from hitl_dashboard.services.auth.tokens import issue_token

        with UnitOfWork(self.engine) as uow:
            user = uow.session.exec(select(User).where(User.username == self.reviewer)).one()
            _row, token = issue_token(uow, user_id=user.id, name="bench")
            uow.commit()
            return token

    def revise(self, base: str) -> None:
        """Over the app's HTTP API, as a reviewer's client would: the app pushes the change at once."""
        import httpx

        review = self.wait_paused()
        self._token = getattr(self, "_token", None) or self.api_token()
        response = httpx.post(f"{base}/api/reviews/{review}/decision", timeout=60,
                              headers={"Authorization": f"Bearer {self._token}"},
                              json={"action": "revise", "instructions": "add a timeout"})
        response.raise_for_status()


def _ms(moment) -> float:
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp() * 1000


def open_pages(browser, base: str, conversation: Conversation, count: int, on_socket=None):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(HOOK_SOCKET)
    first = context.new_page()
    if on_socket is not None:
        first.on("websocket", on_socket)
    first.goto(base + "/login")
    first.fill("#username", conversation.reviewer)
    first.fill("#password", PASSWORD)
    first.click("#sign-in")
    first.wait_for_url("**/queue*", timeout=60_000)
    pages = [first] + [context.new_page() for _ in range(count - 1)]
    for page in pages:
        page.goto(f"{base}/conversations/{conversation.id}", timeout=120_000)
    for page in pages:
        page.wait_for_selector(".message", timeout=120_000)
        page.evaluate(OBSERVE)
    return context, pages


def cycle(conversation: Conversation, pages, base: str, server_pid: int, catch_up_s: float,
          light: LightWatchers | None = None) -> dict:
    """One decision: the decision message, then the coder's streamed reply; both measured in every page
    (and in every light watcher)."""
    known = {seq for seq, _, _ in conversation.messages()}
    chromium_before, server_before = cpu_seconds(server_pid)
    light_before = light_cpu_seconds(light)
    conversation.revise(base)
    conversation.wait_paused()
    chromium_after, server_after = cpu_seconds(server_pid)
    # CPU seconds, not shares of the wall time: on a busy machine the wall time stretches, the work does not.
    chromium_cpu = (chromium_after - chromium_before) / len(pages)
    server_cpu = server_after - server_before
    light_cpu = light_cpu_seconds(light) - light_before
    new = [m for m in conversation.messages() if m[0] not in known]
    deadline = time.monotonic() + catch_up_s  # a page still behind by then counts its messages as missing
    result = score(page_records(pages, new, deadline), new)
    result.update(chromium_cpu=chromium_cpu, server_cpu=server_cpu, messages=len(new))
    if light is not None:
        result["light"] = score(light_records(light, new, deadline), new)
        result["light_cpu"] = light_cpu
    return result


def page_records(pages, new: list[tuple[int, str, float]], deadline: float) -> list[dict]:
    records = []
    for page in pages:
        while True:  # every page shows every new message (or we say it did not)
            record = page.evaluate("({...window.__bench, arrivals: window.__arrivals})")
            if all(str(seq) in record["seqs"] for seq, _, _ in new) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        page.evaluate("window.__bench.streams = []")
        records.append(record)
    return records


def light_records(light: LightWatchers, new: list[tuple[int, str, float]], deadline: float) -> list[dict]:
    while light.lacking([seq for seq, _, _ in new]) and time.monotonic() < deadline:
        time.sleep(0.2)
    return light.collect()


def score(records: list[dict], new: list[tuple[int, str, float]]) -> dict:
    """Per record (a page, or a light watcher: then "shown" is the update's arrival) and new message:
    stored -> shown, and the full text's first showing (streamed or stored) -> its latency."""
    visible, last_chunk, arrived, missing, behind = [], [], [], 0, 0
    for record in records:
        for seq, content, created in new:
            shown = record["seqs"].get(str(seq))
            if shown is None:
                missing += 1
                continue
            visible.append(shown - created)
            if str(seq) in record.get("arrivals", {}):
                arrived.append(record["arrivals"][str(seq)] - created)
            streamed = [at for at, parts in record["streams"]
                        if any(length >= len(content) and content.startswith(head) for length, head in parts)]
            full = min([shown, *streamed])
            last_chunk.append(full - created)
            behind += full - created > TARGET_LAST_CHUNK_MS
    return {"visible": visible, "last_chunk": last_chunk, "arrived": arrived, "missing": missing, "behind": behind}


def run_variant(tree: Path, page_counts: list[int], cycles: int, catch_up_s: float,
                real_pages: int | None = None) -> dict[int, dict]:
    """`real_pages` set: each count is that many Chromium pages and the rest light watchers."""
    from playwright.sync_api import sync_playwright

    from bench._support import temporary_database

    with tempfile.TemporaryDirectory(prefix="hitl-bench-live-") as tmp, temporary_database("sqlite") as url:
        # Started before the app: its runner takes the conversation up as it starts, while Chromium starts.
        conversation = Conversation(url)
        with served(tree, url, Path(tmp)) as (base, server), sync_playwright() as playwright:
            if real_pages is None:
                results = measure(playwright, base, server, conversation, page_counts, cycles, catch_up_s)
            else:
                results = measure_light(playwright, base, server, conversation, page_counts, cycles, catch_up_s,
                                        real_pages)
    return results


def launch(playwright):
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", args=[
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-renderer-backgrounding",
        "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows"])


def measure(playwright, base: str, server: subprocess.Popen, conversation: Conversation, page_counts: list[int],
            cycles: int, catch_up_s: float) -> dict[int, dict]:
    results: dict[int, dict] = {}
    browser = launch(playwright)
    conversation.wait_paused()
    for count in page_counts:
        opened = time.monotonic()
        try:
            context, pages = open_pages(browser, base, conversation, count)
        except Exception as exc:  # noqa: BLE001 - say where the machine stops, then go on
            results[count] = {"error": f"could not open {count} pages: {str(exc).splitlines()[0]}"}
            continue
        print(f"    {count} pages open in {time.monotonic() - opened:.0f} s", flush=True)
        merged: dict = {"visible": [], "last_chunk": [], "arrived": [], "missing": 0, "behind": 0,
                        "chromium_cpu": [], "server_cpu": [], "messages": 0}
        for _ in range(cycles):
            one = cycle(conversation, pages, base, server.pid, catch_up_s)
            for key in ("visible", "last_chunk", "arrived"):
                merged[key] += one[key]
            for key in ("missing", "behind", "messages"):
                merged[key] += one[key]
            merged["chromium_cpu"].append(one["chromium_cpu"])
            merged["server_cpu"].append(one["server_cpu"])
        merged["pages"] = count
        results[count] = merged
        context.close()
    browser.close()
    return results


def boot_recorder(conversation_id: int) -> tuple:
    """A websocket listener for the first real page, and the dict it fills with the boot event that
    page sends when it opens the conversation: the light watchers send the same one."""
    recorded: dict = {}
    route = f"/conversations/{conversation_id}"

    def on_socket(socket) -> None:
        def on_sent(frame) -> None:
            boot = recorded_boot(frame) if isinstance(frame, str) else None
            if boot and boot["event"].get("router_data", {}).get("pathname") == route:
                recorded.setdefault("boot", boot)

        socket.on("framesent", on_sent)

    return on_socket, recorded


def measure_light(playwright, base: str, server: subprocess.Popen, conversation: Conversation,
                  counts: list[int], cycles: int, catch_up_s: float, real_pages: int) -> dict[int, dict]:
    """Per count N: `real_pages` Chromium pages measured as in `measure`, and N - real_pages light
    watchers (bench/_light_watchers.py) that cost the server what a tab costs but not the machine's CPU."""
    results: dict[int, dict] = {}
    browser = launch(playwright)
    names = reflex_names()
    conversation.wait_paused()
    for count in counts:
        pages_count = min(real_pages, count)
        opened = time.monotonic()
        on_socket, recorded = boot_recorder(conversation.id)
        context, pages = open_pages(browser, base, conversation, pages_count, on_socket)
        light = None
        if count > pages_count:
            try:
                light = LightWatchers(base, recorded["boot"], names, (conversation.reviewer, PASSWORD),
                                      count - pages_count)
            except (KeyError, RuntimeError) as exc:
                results[count] = {"error": f"could not open {count - pages_count} light watchers: {exc!r}"}
                context.close()
                continue
        print(f"    {pages_count} pages + {count - pages_count} light watchers open in "
              f"{time.monotonic() - opened:.0f} s", flush=True)
        one_by_one = [cycle(conversation, pages, base, server.pid, catch_up_s, light) for _ in range(cycles)]
        results[count] = merge_light(one_by_one, pages_count, count - pages_count)
        if light is not None:
            light.close()
        context.close()
    browser.close()
    return results


def merge_light(cycles: list[dict], pages: int, light: int) -> dict:
    merged: dict = {"pages": pages, "light_watchers": light, "messages": sum(c["messages"] for c in cycles)}
    for key in ("chromium_cpu", "server_cpu", "light_cpu"):
        merged[key] = [c.get(key, 0.0) for c in cycles]
    for prefix, part in (("", lambda c: c), ("light_", lambda c: c.get("light", {}))):
        for key in ("visible", "last_chunk", "arrived"):
            merged[prefix + key] = [value for c in cycles for value in part(c).get(key, [])]
        for key in ("missing", "behind"):
            merged[prefix + key] = sum(part(c).get(key, 0) for c in cycles)
    return merged


def _spread(values: list[float]) -> str:
    return f"p50 {statistics.median(values):5.0f} p95 {p95(values):5.0f}" if values else "p50     - p95     -"


def summary_light(result: dict) -> str:
    if "error" in result:
        return result["error"]
    return (f"real pages: stored->visible {_spread(result['visible'])} ms, last chunk->screen "
            f"{_spread(result['last_chunk'])} ms, missing {result['missing']} | light watchers: stored->arrived "
            f"{_spread(result['light_visible'])} ms, last chunk->arrived {_spread(result['light_last_chunk'])} ms, "
            f"missing {result['light_missing']} | CPU per decision: app {statistics.mean(result['server_cpu']):.2f} s, "
            f"light watchers {statistics.mean(result['light_cpu']):.2f} s, Chromium "
            f"{statistics.mean(result['chromium_cpu']):.2f} s a page ({result['messages']} messages)")


def summary(result: dict) -> str:
    if "error" in result:
        return result["error"]
    visible, last = result["visible"], result["last_chunk"]
    if not visible:
        return f"nothing became visible ({result['missing']} missing)"
    return (f"stored->visible p50 {statistics.median(visible):6.0f} ms p95 {p95(visible):6.0f} ms | "
            f"last chunk->screen p50 {statistics.median(last):6.0f} ms p95 {p95(last):6.0f} ms max "
            f"{max(last):6.0f} ms | update arrived p50 {statistics.median(result['arrived'] or [0]):5.0f} ms | "
            f">200 ms {result['behind']}/{len(last)}, missing {result['missing']} | "
            f"CPU per decision: Chromium {statistics.mean(result['chromium_cpu']):.2f} s a page, app "
            f"{statistics.mean(result['server_cpu']):.2f} s ({result['messages']} messages x {result['pages']} pages)")


def machine_line() -> str:
    return (f"machine: {os.cpu_count()} CPUs, load {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
            f"(1/5/15 min); Chromium {shutil.which('chromium') or '/usr/bin/chromium'}; "
            f"{CHUNK_DELAY_MS} ms between chunks")


def main_light(args: argparse.Namespace) -> None:
    """Light-watcher mode: this checkout, and with --baseline-commit that commit first (its states must
    be this checkout's: the light watchers speak this checkout's state names)."""
    if args.real_pages < 1:
        raise SystemExit("--real-pages must be at least 1: the light watchers replay a real page's boot event")
    counts = args.pages or ([5] if args.quick else [5, 10, 20, 50])
    cycles = args.cycles or (1 if args.quick else 2)
    print(machine_line() + f"; light watchers beside {args.real_pages} Chromium page(s)", flush=True)
    variants = ["baseline", "new"] if args.baseline_commit else ["new"]
    runs: dict[str, dict[int, dict]] = {}
    for variant in variants:
        with contextlib.ExitStack() as stack:
            tree = stack.enter_context(baseline_tree(args.baseline_commit)) if variant == "baseline" else ROOT
            runs[variant] = run_variant(tree, counts, cycles, 30 if args.quick else 90, real_pages=args.real_pages)
        for count in counts:
            print(f"  {variant:8} {count:3} watching: {summary_light(runs[variant][count])}", flush=True)
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results = runs["new"]
    for count in counts:
        result = results[count]
        if not result.get("light_visible") and not result.get("visible"):
            continue
        line = (f"live transcript, {count} watching ({result['pages']} Chromium + {result['light_watchers']} light): "
                f"real pages stored->visible p95 {p95(result['visible'] or [0]):.0f} ms (target <= "
                f"{TARGET_VISIBLE_MS:.0f}), last chunk->screen p95 {p95(result['last_chunk'] or [0]):.0f} ms "
                f"(target <= {TARGET_LAST_CHUNK_MS:.0f}); light watchers stored->arrived p95 "
                f"{p95(result['light_visible'] or [0]):.0f} ms, last chunk->arrived p95 "
                f"{p95(result['light_last_chunk'] or [0]):.0f} ms")
        old = runs.get("baseline", {}).get(count, {})
        if old.get("server_cpu") and result.get("server_cpu"):
            line += (f"; app CPU per decision {statistics.mean(result['server_cpu']):.2f} s, baseline "
                     f"{args.baseline_commit} {statistics.mean(old['server_cpu']):.2f} s")
        print(line)
    print(json.dumps({c: {k: r[k] for k in r if k in ("error", "missing", "behind", "light_missing", "light_behind")}
                      for c, r in results.items()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1 and 5 pages (baseline: 1), one decision each")
    parser.add_argument("--pages", type=int, nargs="*", help="page counts (default 1 5 10 20 50)")
    parser.add_argument("--cycles", type=int, help="decisions (each: a decision and a streamed reply) per count")
    parser.add_argument("--variants", nargs="*", default=["baseline", "new"], choices=["baseline", "new"])
    parser.add_argument("--light-watchers", action="store_true",
                        help="each count N: --real-pages Chromium pages, N minus those light watchers (this checkout)")
    parser.add_argument("--real-pages", type=int, default=1, help="with --light-watchers: Chromium pages (>= 1)")
    parser.add_argument("--baseline-commit", default=None,
                        help=f"the baseline's commit (default {BASELINE}); with --light-watchers, also runs it first")
    args = parser.parse_args()
    if args.light_watchers:
        main_light(args)
        return
    counts = args.pages or ([1, 5] if args.quick else [1, 5, 10, 20, 50])
    cycles = args.cycles or (1 if args.quick else 2)
    print(f"machine: {os.cpu_count()} CPUs, load {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"(1/5/15 min); Chromium {shutil.which('chromium') or '/usr/bin/chromium'}; "
          f"{CHUNK_DELAY_MS} ms between chunks", flush=True)
    results: dict[str, dict[int, dict]] = {}
    baseline = args.baseline_commit or BASELINE
    for variant in args.variants:
        print(f"  {variant}: serving {'commit ' + baseline if variant == 'baseline' else 'this checkout'}", flush=True)
        with contextlib.ExitStack() as stack:
            tree = stack.enter_context(baseline_tree(baseline)) if variant == "baseline" else ROOT
            # Quick: the baseline with one page only; with five it falls minutes behind, which takes minutes.
            mine = [1] if args.quick and variant == "baseline" and not args.pages else counts
            results[variant] = run_variant(tree, mine, cycles, 30 if args.quick else 90)
        for count in mine:
            print(f"  {variant:8} {count:3} pages: {summary(results[variant][count])}", flush=True)
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for count in counts:
        new = results.get("new", {}).get(count, {})
        if not new.get("visible"):
            continue
        visible, last = p95(new["visible"]), p95(new["last_chunk"])
        line = (f"live transcript, {count} pages: stored->visible p95 {visible:.0f} ms (target <= "
                f"{TARGET_VISIBLE_MS:.0f}), last chunk->screen p95 {last:.0f} ms "
                f"(target <= {TARGET_LAST_CHUNK_MS:.0f})")
        old = results.get("baseline", {}).get(count, {})
        if old.get("visible"):
            line += (f"; baseline {p95(old['visible']):.0f} / {p95(old['last_chunk']):.0f} ms: "
                     f"{p95(old['visible']) / max(visible, 1):.1f}x / {p95(old['last_chunk']) / max(last, 1):.1f}x")
        print(line)
    print(json.dumps({v: {c: {k: r[k] for k in r if k in ("error", "missing", "behind")} for c, r in res.items()}
                      for v, res in results.items()}))


if __name__ == "__main__":
    main()
