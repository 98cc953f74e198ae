"""Long conversations in a real browser (issue 33): a short conversation (10 messages) and a long one
(500 agent messages of about 1.5 KB, a 3,000-line file in two revisions that differ every 30 lines:
issue 44's large diff, tests/support/long_conversation.spread_revisions) opened in Chromium at
1400 px on the real app served in prod mode (scripts/serve.sh), side by side in one run.

    .venv/bin/python bench/long_conversation.py --quick      # this checkout, 1 sample each
    .venv/bin/python bench/long_conversation.py              # 3 samples each, and the baseline commit
    .venv/bin/python bench/long_conversation.py --baseline-commit 33ea0c1 --samples 2

Per page open, the median of the samples:
  approve_ms  navigation start -> the Approve button present and enabled (polled every frame);
  ws_kb       bytes received over the websocket until then, plus what arrives in the next second;
  heap_mb     the JS heap after a garbage collection, once the page settled (CDP Performance metrics);
  nodes       DOM nodes then (same source).
Targets: approve_ms of the long one <= 1,500 ms and <= 2x the short one's, in the same run.
The conversations are seeded straight in the database (tests/support/long_conversation.py) after
the scripted team's first turn, so their first review is open when the page is opened."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import ROOT  # noqa: E402
from bench.live_transcript import PASSWORD, baseline_tree, served  # noqa: E402

# The main of stop 46, before issue 44 sent a file's diff as hunks (both whole texts went to every tab).
# This checkout migrates and seeds the database, so a baseline must know its newest migration (0022 here);
# older baselines' figures: docs/benchmarks-history.md.
BASELINE = "ee37691"
TARGET_MS, TARGET_RATIO = 1500.0, 2.0
SIZES = {"short": 10, "long": 500}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
APPROVE_ENABLED = """() => { const b = document.querySelector('.decide-approve');
  return b && !b.disabled && b.getBoundingClientRect().width > 0 && performance.now(); }"""


def seed(database_url: str) -> tuple[str, dict[str, int]]:
    """A reviewer, and one conversation per size, each waiting for its security review."""
    from sqlmodel import select

    from hitl_dashboard.db.engine import get_engine
    from hitl_dashboard.db.models import Message, ReviewRequest, User
    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.services.auth.users import actor_of, insert_user
    from hitl_dashboard.services.conversations.conversations import StartCommand, add_conversation
    from tests.support.long_conversation import grow

    engine = get_engine(database_url)
    with UnitOfWork(engine) as uow:
        insert_user(uow, username="bench-reviewer", password=PASSWORD, roles=["security_reviewer"])
        insert_user(uow, username="bench-starter", password=PASSWORD, roles=["product_reviewer"])
        uow.commit()
        starter = uow.session.exec(select(User).where(User.username == "bench-starter")).one()
        ids = {size: add_conversation(uow.session, actor_of(starter), StartCommand(
            task=f"Add retry with backoff to the ledger tables ({size})", task_type="code")).id for size in SIZES}
        uow.commit()
    deadline = time.monotonic() + 600
    for size, cid in ids.items():
        while True:  # the served app's runner does the first turn (condition, not a fixed wait)
            with UnitOfWork(engine) as uow:
                if uow.session.exec(select(ReviewRequest).where(ReviewRequest.conversation_id == cid)).first():
                    stored = len(list(uow.session.exec(select(Message.id).where(Message.conversation_id == cid))))
                    break
            if time.monotonic() > deadline:
                raise SystemExit(f"conversation {cid} got no review within 600 s")
            time.sleep(0.5)
        grow(engine, cid, max(1, SIZES[size] - stored), with_file=size == "long", spread=True)
    return "bench-reviewer", ids


def measure(browser, base: str, reviewer: str, cid: int) -> dict[str, float]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(base + "/login")
    page.fill("#username", reviewer)
    page.fill("#password", PASSWORD)
    page.click("#sign-in")
    page.wait_for_url("**/queue*", timeout=60_000)
    page.goto(base + "/")  # leave the queue page: its socket and feed are not part of the figure
    received = [0]
    page.on("websocket", lambda ws: ws.on("framereceived", lambda data: received.__setitem__(
        0, received[0] + len(data if isinstance(data, bytes) else data.encode()))))
    page.goto(f"{base}/conversations/{cid}", wait_until="commit")
    approve_ms = page.wait_for_function(APPROVE_ENABLED, polling="raf", timeout=120_000).json_value()
    settled, last = time.monotonic(), received[0]
    while time.monotonic() - settled < 1.0:  # until a second passes with nothing more arriving
        page.wait_for_timeout(100)
        if received[0] != last:
            settled, last = time.monotonic(), received[0]
    cdp = context.new_cdp_session(page)
    cdp.send("HeapProfiler.collectGarbage")
    cdp.send("Performance.enable")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    context.close()
    return {"approve_ms": approve_ms, "ws_kb": received[0] / 1024,
            "heap_mb": metrics["JSHeapUsedSize"] / 2**20, "nodes": metrics["Nodes"]}


def run(tree: Path, samples: int) -> dict[str, dict[str, float]]:
    from playwright.sync_api import sync_playwright

    from bench._support import use_database
    from hitl_dashboard.db.migrations import upgrade_to_head

    with tempfile.TemporaryDirectory(prefix="hitl-bench-long-") as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        use_database(url, AUDIT_ANCHOR_FILE=f"{tmp}/anchor.jsonl", DEPLOY_LOG_PATH=f"{tmp}/deploys.jsonl")
        upgrade_to_head()
        with served(tree, url, Path(tmp)) as (base, _server), sync_playwright() as pw:
            reviewer, ids = seed(url)
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            measure(browser, base, reviewer, ids["short"])  # warm-up: the app's first page compile
            results = {}
            for size, cid in ids.items():
                runs = [measure(browser, base, reviewer, cid) for _ in range(samples)]
                results[size] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            browser.close()
        return results


def report(label: str, results: dict[str, dict[str, float]]) -> None:
    short, long = results["short"], results["long"]
    print(f"\n{label}")
    print(f"  {'':22}{'10 messages':>14}{'500 + 3,000 lines':>20}{'ratio':>8}")
    for key, unit in (("approve_ms", "ms"), ("ws_kb", "KB"), ("heap_mb", "MB"), ("nodes", "")):
        print(f"  {key + ' (' + unit + ')' if unit else key:22}{short[key]:>14,.0f}{long[key]:>20,.0f}"
              f"{long[key] / short[key]:>8.1f}")
    met = long["approve_ms"] <= TARGET_MS and long["approve_ms"] <= TARGET_RATIO * short["approve_ms"]
    print(f"  Approve enabled: {long['approve_ms']:,.0f} ms (target <= {TARGET_MS:,.0f} ms and <= {TARGET_RATIO}x "
          f"the short one): {'met' if met else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="this checkout only, 1 sample")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--baseline-commit", default=None, help=f"also serve this commit (full default: {BASELINE})")
    parser.add_argument("--isolated", action="store_true",
                        help="serve this checkout's HEAD from a copy (its own .web: tests may use this one's)")
    args = parser.parse_args()
    samples = 1 if args.quick else args.samples
    baseline = args.baseline_commit or (None if args.quick else BASELINE)
    if baseline:
        with baseline_tree(baseline) as tree:
            report(f"baseline {baseline}", run(tree, samples))
    if args.isolated:
        with baseline_tree("HEAD") as tree:
            report("this checkout (HEAD)", run(tree, samples))
    else:
        report("this checkout", run(ROOT, samples))


if __name__ == "__main__":
    main()
