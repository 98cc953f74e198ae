"""The audit chain's status and the managers' charts, over a window of days."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, date, timedelta
from typing import Any

import reflex as rx

from hitl_dashboard.domain.errors import InvalidInput, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.audit import audit_stats
from hitl_dashboard.services.audit.audit_heads import status_against_newest_head
from hitl_dashboard.services.audit.audit_verification import VerificationStatus, verify_now
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import role_label

log = logging.getLogger(__name__)
ACTIONS = ("approve", "revise", "abort", "skip")
BREACHES = ("escalated", "expired")
WINDOWS = ("7", "30", "90")


def _pivot(rows: list[audit_stats.DayCount], keys: tuple[str, ...], first: date, days: int) -> list[dict[str, Any]]:
    """One point per calendar day of the window (empty days are zeros), one field per key."""
    points = {(first + timedelta(days=i)).isoformat(): {k: 0 for k in keys} for i in range(days)}
    for row in rows:
        if row.day in points and row.key in keys:
            points[row.day][row.key] += row.count
    return [{"day": day[5:], **counts} for day, counts in points.items()]


# (unit, hours in one unit): the largest unit in which the slowest role's median is at least 2 of them,
# so a team that decides in minutes sees minutes, not bars of 0.0 hours.
MEDIAN_UNITS = (("hours", 1.0), ("minutes", 1 / 60), ("seconds", 1 / 3600))


def _bar_value(value: float) -> float:
    """One decimal from 1 up; below 1, two significant digits: decisions made within 50 ms (a bot over
    the API) must not read 0.0 and draw no bar at all beside roles that took seconds."""
    return round(value, 1) if value >= 1 else float(f"{value:.2g}")


def _median_unit(medians: list[audit_stats.RoleMedian]) -> tuple[str, float]:
    slowest = max((m.median_hours for m in medians), default=0.0)
    return next(((unit, size) for unit, size in MEDIAN_UNITS if slowest >= 2 * size), MEDIAN_UNITS[-1])


def chart_data(actor: Actor, days: int) -> dict[str, Any]:
    since = audit_stats.window_start(days)
    charts = audit_stats.charts(actor, since=since)
    first = since.date()
    unit, size = _median_unit(charts.medians)
    return {
        "decisions": _pivot(charts.decisions, ACTIONS, first, days),
        "median_unit": unit,
        # Not "role": recharts copies each row's keys that are SVG attributes onto the bar's <path>,
        # and role="Security reviewer" is an ARIA role no reader knows (axe: aria-roles, critical).
        "medians": [{"reviewer": role_label(m.role), "median": _bar_value(m.median_hours / size),
                     "decisions": m.decisions} for m in charts.medians],
        "breaches": _pivot(charts.breaches, BREACHES, first, days),
        "tokens": _pivot(charts.tokens, ("tokens",), first, days),
    }


def _chain_text(v: VerificationStatus) -> tuple[str, str]:
    if v.verified_at is None:
        return "unverified", f"Audit chain not verified yet ({v.newest_seq:,} events)"
    when = f"{v.verified_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
    if not v.ok:
        return "broken", f"BROKEN at event {v.first_bad_seq}: {v.problem} (found {when})"
    text = f"Audit chain verified up to event {v.verified_seq:,} ({'full check, ' if v.full else ''}{when})"
    if v.unverified:
        text += f"; {v.unverified:,} newer not verified yet"
    return "ok", text


def chain_status(actor: Actor) -> tuple[str, str, str, str]:
    """(chain state, chain text, anchor state, anchor text), as remembered: nothing is re-hashed.
    The chain: unverified | ok (up to the event the last verification reached) | broken. The anchor
    is the newest head published to the anchor file: off (no file sink) | none (nothing published
    yet) | unverified (the chain is not verified up to it) | ok | broken | unchecked (the last
    verification found the chain broken)."""
    status = status_against_newest_head(actor)
    chain_state = _chain_text(status.chain)
    anchor = status.anchor
    if status.anchor_file is None:
        return (*chain_state, "off", "")
    if anchor is None:
        return (*chain_state, "unchecked", "Published head not compared: the chain itself is broken")
    if not anchor.ok:
        return (*chain_state, "broken", f"Does not match the published head: {anchor.problem}")
    if anchor.newest is None:
        return (*chain_state, "none", "No head published yet")
    published = f"the head published at {anchor.newest.at[:19].replace('T', ' ')} UTC (seq {anchor.newest.seq})"
    if status.chain.verified_at is None or anchor.newest.seq > status.chain.verified_seq:
        # The head's hash is the stored one, but the events up to it were not re-hashed: "matches"
        # beside "not verified yet" would claim a check that was not made.
        return (*chain_state, "unverified", f"Compared with {published} once the chain is verified up to it")
    return (*chain_state, "ok", f"Matches {published}")


def verify_and_status(actor: Actor) -> tuple[str, str, str, str]:
    """"Verify now": the events after the last verified one, then the status as chain_status. Events
    committed while it verified may carry a newer published head: one more pass takes them too."""
    verify_now(actor)
    status = chain_status(actor)
    if status[0] == "ok" and status[2] == "unverified":
        verify_now(actor)
        status = chain_status(actor)
    return status


class AuditInsightsState(AppState):
    window: str = "30"
    decisions: list[dict[str, Any]] = []
    medians: list[dict[str, Any]] = []
    median_unit: str = "hours"
    breaches: list[dict[str, Any]] = []
    tokens: list[dict[str, Any]] = []
    charts_loaded: bool = False
    chain: str = "checking"  # checking | unverified | ok | broken | error
    chain_text: str = "Reading the audit chain's status…"
    verifying: bool = False
    anchor: str = "off"  # off | checking | none | unverified | ok | broken | unchecked | error; see chain_status
    anchor_text: str = ""

    @rx.event
    async def load(self):
        try:
            actor = await self._acting_actor()
        except PermissionDenied:
            return
        if not self.can_read_audit:
            return
        self.chain, self.chain_text = "checking", "Reading the audit chain's status…"
        self.anchor, self.anchor_text = "checking", "Comparing with the published head…"
        yield
        await self._charts(actor)
        yield
        # The remembered verification, not a new one: a walk over the whole chain on every load
        # took 40-54 s at a million events. "Verify now" (verify) goes on from there.
        await self._chain(chain_status, actor)

    @rx.event
    async def verify(self):
        if self.verifying:
            return
        try:
            actor = await self._acting_actor()
        except PermissionDenied:
            return
        if not self.can_read_audit:
            return
        self.verifying = True
        yield
        try:
            await self._chain(verify_and_status, actor)
        finally:
            self.verifying = False

    async def _chain(self, read, actor: Actor) -> None:
        try:
            self.chain, self.chain_text, self.anchor, self.anchor_text = await asyncio.to_thread(read, actor)
        except InvalidInput as exc:  # a damaged anchor file: say which line
            self.chain, self.chain_text = "error", "Could not verify the audit chain"
            self.anchor, self.anchor_text = "error", str(exc)
        except Exception:  # noqa: BLE001 - a failed check must read as "not verified", never as fine
            log.exception("verifying the audit chain failed")
            self.chain, self.chain_text = "error", "Could not verify the audit chain; see the server log"
            self.anchor, self.anchor_text = "error", "Could not compare with the published head"

    async def _charts(self, actor: Actor) -> None:
        data = await asyncio.to_thread(chart_data, actor, int(self.window))
        self.decisions, self.medians, self.median_unit, self.breaches, self.tokens = (
            data["decisions"], data["medians"], data["median_unit"], data["breaches"], data["tokens"])
        self.charts_loaded = True

    @rx.event
    async def set_window(self, value: str | list[str]):
        value = value if isinstance(value, str) else (value[0] if value else "")
        self.window = value if value in WINDOWS else "30"
        try:
            await self._charts(await self._acting_actor())
        except PermissionDenied:
            return
