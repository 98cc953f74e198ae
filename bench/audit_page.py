"""Audit page at 1M events (quick mode: 200k), on SQLite and PostgreSQL. Target: page load p95 <= 200 ms.

    .venv/bin/python bench/audit_page.py [--quick] [--events N] [--backends sqlite,postgresql]

Measures, each against a baseline in the same run:
- the page's server-side load: the service calls the audit page makes when it opens (first page of
  events with the action filter menu, and the chain status), against the old load (the same page
  with SELECT DISTINCT for the menu, and the whole chain verified, as every load did before);
- the filter menu alone: the loose index scan against SELECT DISTINCT action;
- "Verify now" after 100 new events (incremental), against the old full verification;
- over real HTTP (granian, the production server): GET /api/audit (first page) and
  GET /api/audit/verify (incremental), against GET /api/audit/verify?full=true.
Charts are not part of this bench: they read messages and decisions, not audit events."""

from __future__ import annotations

import argparse
import os
import platform
import time

from _audit_seed import manager, old_full_verification, seed, serving

from bench._support import p95, timed_ms
from bench._support import temporary_database as database

TARGET_MS = 200.0


def run(kind: str, events: int, repeat: int, baseline_repeat: int) -> list[tuple]:
    import httpx
    from sqlmodel import select

    from hitl_dashboard.db.audit import append_audit
    from hitl_dashboard.db.models import AuditEvent
    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.services.audit import audit_queries
    from hitl_dashboard.services.audit.audit_verification import verify_now
    from hitl_dashboard.services.transactions import reading
    from hitl_dashboard.ui.states.audit import ANY, FILTERS, _page
    from hitl_dashboard.ui.states.audit_insights import chain_status

    rows = []
    with database(kind):
        dave, token = manager()
        started = time.perf_counter()
        newest = seed(events)
        print(f"[{kind}] seeded {newest:,} events with a valid chain in {time.perf_counter() - started:.1f} s",
              flush=True)
        filters = {name: ANY if name in ("role", "action") else "" for name in FILTERS}

        def load_page():
            _page(dave, filters, None)
            chain_status(dave)

        def old_menu():
            with reading() as uow:
                return sorted(a for a in uow.session.exec(select(AuditEvent.action).distinct()) if a)

        old_verify: list[float] = []

        def old_load_page():
            with reading() as uow:  # the old audit_page: ORM page + DISTINCT, then the whole chain
                list(uow.session.exec(select(AuditEvent).order_by(AuditEvent.seq.desc()).limit(51)))
            old_menu()
            started = time.perf_counter()
            old_full_verification()  # also the old /api/audit/verify and `audit verify`
            old_verify.append((time.perf_counter() - started) * 1000)

        assert audit_queries.known_actions(dave) == old_menu()
        started = time.perf_counter()
        first = verify_now(dave)  # the first verification reads everything once
        assert first.ok and first.last_seq == newest, first
        print(f"[{kind}] first verification (whole chain, new reader): {time.perf_counter() - started:.1f} s",
              flush=True)

        page = timed_ms(load_page, repeat, warmup=0)
        menu = timed_ms(lambda: audit_queries.known_actions(dave), repeat, warmup=0)
        old_menu_times = timed_ms(old_menu, max(3, repeat // 4), warmup=0)

        def verify_after_100():
            with UnitOfWork() as uow:
                for i in range(100):
                    append_audit(uow.session, actor="bench", action="bench.note", details={"i": i})
                uow.commit()
            started = time.perf_counter()
            assert verify_now(dave).checked == 100
            return (time.perf_counter() - started) * 1000

        incremental = [verify_after_100() for _ in range(max(5, repeat // 4))]
        old_page = timed_ms(old_load_page, baseline_repeat, warmup=0)
        rows += [
            (kind, "audit page load (service calls)", p95(page), TARGET_MS, p95(old_page), "old load: full verify"),
            (kind, "action filter menu", p95(menu), None, p95(old_menu_times), "SELECT DISTINCT"),
            (kind, "Verify now after 100 new events", p95(incremental), None, p95(old_verify), "old full verify"),
        ]
        with serving() as (base, _process):
            client = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=600)
            assert client.get("/api/audit/verify").json()["ok"]
            listing = timed_ms(lambda: client.get("/api/audit", params={"limit": 50}).raise_for_status(), repeat,
                               warmup=0)
            verify_http = timed_ms(lambda: client.get("/api/audit/verify").raise_for_status(), repeat, warmup=0)
            full_http = timed_ms(lambda: client.get("/api/audit/verify", params={"full": "true"}).raise_for_status(),
                                 baseline_repeat, warmup=0)
        rows += [
            (kind, "HTTP GET /api/audit (first page)", p95(listing), TARGET_MS, None, ""),
            (kind, "HTTP GET /api/audit/verify", p95(verify_http), TARGET_MS, p95(full_http), "?full=true"),
        ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200k events instead of 1M")
    parser.add_argument("--events", type=int, help="events to seed (default 1M, or 200k with --quick)")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    events = args.events or (200_000 if args.quick else 1_000_000)
    repeat, baseline_repeat = (40, 2) if args.quick else (100, 3)
    rows = []
    for kind in args.backends.split(","):
        rows += run(kind, events, repeat, baseline_repeat)
    print(f"\naudit page, {events:,} events{' (quick mode)' if args.quick else ''}; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'backend':<11}{'measure (p95)':<36}{'figure':>11}{'target':>10}{'baseline':>12}  ratio")
    for kind, name, figure, target, baseline, what in rows:
        target_text = f"{target:.0f} ms" if target else "-"
        base_text = f"{baseline:.1f} ms" if baseline is not None else "-"
        ratio = f"{baseline / figure:,.1f}x ({what})" if baseline is not None else ""
        ok = "" if target is None else (" ok" if figure <= target else " MISSED")
        print(f"{kind:<11}{name:<36}{figure:>8.1f} ms{target_text:>10}{base_text:>12}  {ratio}{ok}")


if __name__ == "__main__":
    main()
