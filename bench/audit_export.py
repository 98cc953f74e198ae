"""Audit export over real HTTP at 1M events (quick mode: 200k), on SQLite and PostgreSQL.
Target: >= 50k rows/s, in constant memory.

    .venv/bin/python bench/audit_export.py [--quick] [--events N] [--backends sqlite,postgresql]

The API is served by granian (the server Reflex runs in production) in a process of its own; the
client streams GET /api/audit/export and counts the lines. Baseline in the same run: the old export
(one chunk per event, each moved through Starlette's thread pool), kept callable at /bench/old-export,
over its first 200k rows (50k in quick mode: it is slow, and rows/s is steady). The new export's
figure is the median of 3 runs. Memory: the server's peak RSS (VmHWM of the granian processes)
after exporting a tenth of the trail and after the whole trail."""

from __future__ import annotations

import argparse
import os
import platform
import time

from _audit_seed import manager, seed, serving, tree_peak_rss_mb

from bench._support import temporary_database as database

TARGET_ROWS_S = 50_000


def median_export(client, fmt: str, runs: int = 3) -> tuple[int, float]:
    """(lines, median rows/s) of `runs` exports: the machine may be busy with other work."""
    results = sorted((export(client, "/api/audit/export", fmt) for _ in range(runs)), key=lambda r: r[1])
    return results[len(results) // 2]


def export(client, path: str, fmt: str, **params) -> tuple[int, float]:
    """(lines, rows/s) of one streamed export."""
    started = time.perf_counter()
    lines = 0
    with client.stream("GET", path, params={"format": fmt, **params}) as response:
        response.raise_for_status()
        for chunk in response.iter_raw(1 << 20):
            lines += chunk.count(b"\n")
    rows = lines - (1 if fmt == "csv" else 0)
    return rows, rows / (time.perf_counter() - started)


def run(kind: str, events: int, old_rows: int) -> list[tuple]:
    import httpx

    with database(kind):
        _dave, token = manager()
        small = seed(events // 10)
        print(f"[{kind}] seeded {small:,} events", flush=True)
        with serving() as (base, process):
            client = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=3600)
            idle = tree_peak_rss_mb(process.pid)
            rows, _ = export(client, "/api/audit/export", "jsonl")
            assert rows == small, (rows, small)
            rss_small = tree_peak_rss_mb(process.pid)
            started = time.perf_counter()
            total = seed(events - small)
            print(f"[{kind}] seeded up to {total:,} events in {time.perf_counter() - started:.1f} s", flush=True)
            rows, jsonl = median_export(client, "jsonl")
            assert rows == total, (rows, total)
            rss_large = tree_peak_rss_mb(process.pid)
            rows, csv_rate = median_export(client, "csv")
            assert rows == total, (rows, total)
            rss_csv = tree_peak_rss_mb(process.pid)
            print(f"[{kind}] new export: jsonl {jsonl:,.0f} rows/s, csv {csv_rate:,.0f} rows/s; "
                  f"now the old one over {old_rows:,} rows", flush=True)
            _, old_jsonl = export(client, "/bench/old-export", "jsonl", limit=old_rows)
            _, old_csv = export(client, "/bench/old-export", "csv", limit=old_rows)
    return [
        (kind, f"export JSONL over HTTP, {total:,} rows", jsonl, old_jsonl),
        (kind, f"export CSV over HTTP, {total:,} rows", csv_rate, old_csv),
        (kind, "server peak RSS", (idle, rss_small, rss_large, rss_csv), total),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200k events instead of 1M")
    parser.add_argument("--events", type=int, help="events to seed (default 1M, or 200k with --quick)")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    events = args.events or (200_000 if args.quick else 1_000_000)
    old_rows = min(events, 50_000 if args.quick else 200_000)
    rows = []
    for kind in args.backends.split(","):
        rows += run(kind, events, old_rows)
    print(f"\naudit export, {events:,} events{' (quick mode)' if args.quick else ''}; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'backend':<11}{'measure':<38}{'figure':>16}{'target':>14}{'baseline':>16}  ratio")
    for kind, name, figure, baseline in rows:
        if name == "server peak RSS":
            idle, small, large, after_csv = figure
            print(f"{kind:<11}{'server peak RSS growth, 10% -> 100%':<38}{large - small:>13.1f} MB"
                  f"{'constant':>14}{'':>16}  idle {idle:.0f} MB, after {baseline // 10:,} rows {small:.0f} MB, "
                  f"after {baseline:,} {large:.0f} MB, after CSV {after_csv:.0f} MB")
            continue
        ok = "ok" if figure >= TARGET_ROWS_S else "MISSED"
        print(f"{kind:<11}{name:<38}{figure:>10,.0f} rows/s{'>= 50,000':>14}{baseline:>9,.0f} rows/s  "
              f"{figure / baseline:.1f}x (old: one chunk per row) {ok}")


if __name__ == "__main__":
    main()
