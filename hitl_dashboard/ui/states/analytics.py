"""Review analytics page (managers and admins): filters, the figure tables, the conversations
behind a figure, and a CSV of each table. The conversation ids stay on the server (a backend
var); the browser names a row by its key and gets back only what the service lets it read."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.services.analytics.review_analytics import (
    PERIODS,
    AnalyticsFilters,
    conversation_titles,
    review_analytics,
)
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.analytics_view import FigureTable, tables, to_csv

ALL = "all"


class AnalyticsState(AppState):
    period: str = "30"
    team: str = ALL
    role: str = ALL
    figures: list[FigureTable] = []
    since: str = ""
    error: str = ""
    loading: bool = False
    drill_title: str = ""
    drill_rows: list[list[str]] = []  # [id, title, team, status]
    _ids: dict[str, list[int]] = {}

    def _filters(self) -> AnalyticsFilters:
        return AnalyticsFilters(days=int(self.period) if self.period.isdigit() else -1,
                                team=None if self.team == ALL else self.team,
                                role=None if self.role == ALL else self.role)

    @rx.event
    async def load(self):
        self.loading, self.drill_title, self.drill_rows = True, "", []
        yield
        try:
            actor = await self._acting_actor()
            if self.can_read_audit:
                found = await asyncio.to_thread(review_analytics, actor, self._filters())
                self.figures, self._ids = tables(found)
                self.since, self.error = f"{found.since:%Y-%m-%d %H:%M} UTC", ""
        except DomainError as exc:
            self.figures, self._ids, self.error = [], {}, str(exc)
        finally:
            self.loading = False

    @rx.event
    async def set_filter(self, name: str, value: str):
        if name == "period" and str(value) in {str(p) for p in PERIODS}:
            self.period = str(value)
        elif name in ("team", "role"):
            setattr(self, name, str(value or ALL)[:40])
        async for update in self.load():
            yield update

    @rx.event
    async def drill(self, key: str):
        """The conversations behind one figure (a row of a table)."""
        try:
            actor = await self._acting_actor()
        except PermissionDenied:
            return rx.redirect(routes.LOGIN)
        ids = self._ids.get(str(key), [])
        table, _, index = str(key).partition(":")
        figure = next((t for t in self.figures if t.name == table), None)
        row = figure.rows[int(index)] if figure and index.isdigit() and int(index) < len(figure.rows) else None
        self.drill_title = f"{figure.title}: {row.cells[0]}" if figure and row else ""
        try:
            found = await asyncio.to_thread(conversation_titles, actor, ids)
        except DomainError as exc:
            self.drill_rows, self.error = [], str(exc)
            return
        self.drill_rows = [[str(cid), title, team, status] for cid, title, team, status in found]

    @rx.event
    async def download_csv(self, name: str):
        try:
            await self._acting_actor()
        except PermissionDenied:
            return rx.redirect(routes.LOGIN)
        if not self.can_read_audit:
            return rx.toast.error("You need the manager or admin role to download analytics.")
        figure = next((t for t in self.figures if t.name == name), None)
        if figure is None:
            return None
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        return rx.download(data=to_csv(figure, self._ids), filename=f"analytics-{name}-{stamp}.csv",
                           mime_type="text/csv")
