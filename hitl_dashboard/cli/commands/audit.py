"""CLI subcommands for the audit trail: `audit verify [--anchor [PATH]]`, `audit export [--format F]`.
A broken chain, or one that lacks a published head, exits 6."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from hitl_dashboard.cli.output import emit
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.services.audit import audit
from hitl_dashboard.services.audit.audit_heads import read_heads, verify_anchored

CHAIN_BROKEN = 6


def register(sub: Any) -> None:
    commands = group(sub, "audit", "audit trail")
    p = leaf(commands, "verify", "check the whole hash chain from event 1 (and, with --anchor, the published "
             "heads); the page's Verify now only checks the events after the last verified one",
             handler="audit verify")
    p.add_argument("--anchor", nargs="?", const="", metavar="PATH",
                   help="a file of published heads (JSON lines); without PATH, the configured AUDIT_ANCHOR_FILE")
    p = leaf(commands, "export", "the whole trail in constant memory", handler="audit export")
    p.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")


@command("audit verify")
def _audit_verify(args) -> int:
    if args.anchor is None:
        report = audit.verify(None)  # always the full check, from event 1
        data: dict[str, Any] = {"ok": report.ok, "checked": report.checked, "first_bad_seq": report.first_bad_seq,
                                "problem": report.problem}
        emit(args, data, f"audit chain OK ({report.checked} events)" if report.ok
             else f"audit chain BROKEN at event {report.first_bad_seq}: {report.problem}")
        return 0 if report.ok else CHAIN_BROKEN
    path = _anchor_path(args.anchor)
    heads = list(read_heads(path))  # every published head is checked, not only the newest
    chain, anchor = verify_anchored(None, heads)
    ok = chain.ok and anchor is not None and anchor.ok
    # No anchor report exactly when the chain itself is broken (verify_anchored).
    data = {
        "ok": ok, "checked": chain.checked,
        "first_bad_seq": chain.first_bad_seq if anchor is None else anchor.first_bad_seq,
        "problem": chain.problem if anchor is None else anchor.problem,
        "anchor": {"file": str(path), **dataclasses.asdict(anchor)} if anchor is not None else None}
    if anchor is None:
        text = f"audit chain BROKEN at event {chain.first_bad_seq}: {chain.problem}"
    elif not anchor.ok:
        text = f"audit chain BROKEN against the heads published in {path}: {anchor.problem}"
    elif anchor.newest is None:
        text = f"audit chain OK ({chain.checked} events); no head was published in {path} yet"
    else:
        text = (f"audit chain OK ({chain.checked} events) and it holds all {anchor.heads} heads published in "
                f"{path} (newest: seq {anchor.newest.seq} at {anchor.newest.at})")
    emit(args, data, text)
    return 0 if ok else CHAIN_BROKEN


def _anchor_path(given: str) -> Path:
    if given:
        return Path(given)
    from hitl_dashboard.settings import get_settings

    configured = get_settings().anchor_file()
    if configured is None:
        raise InvalidInput("no anchor file is configured (AUDIT_ANCHOR_SINKS has no \"file\"): "
                           "pass --anchor PATH", "anchor")
    return configured


@command("audit export")
def _audit_export(args) -> int:
    for chunk in audit.export_lines(None, args.format):
        sys.stdout.write(chunk)
    return 0
