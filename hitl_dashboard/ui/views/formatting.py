"""Human-friendly times: ages and SLA countdowns."""

from __future__ import annotations

from datetime import UTC, datetime

ROLE_LABELS = {
    "security_reviewer": "Security",
    "product_reviewer": "Product",
    "final_approver": "Final sign-off",
    "manager": "Manager",
    "workspace_admin": "Workspace admin",
    "admin": "Admin",
}


def span(seconds: float) -> str:
    seconds = abs(int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        hours, minutes = divmod(seconds // 60, 60)
        return f"{hours} h {minutes} min" if minutes and hours < 10 else f"{hours} h"
    return f"{seconds // 86400} d {seconds % 86400 // 3600} h"


def age(moment: datetime, now: datetime | None = None) -> str:
    return span(((now or datetime.now(UTC)) - moment).total_seconds()) + " ago"


def countdown(due: datetime, now: datetime | None = None) -> tuple[str, str]:
    """('due in 3 h', 'ok'|'soon'|'overdue'); 'soon' is the last quarter of a day."""
    left = (due - (now or datetime.now(UTC))).total_seconds()
    if left < 0:
        return f"overdue by {span(left)}", "overdue"
    return f"due in {span(left)}", "soon" if left < 6 * 3600 else "ok"


def epoch_ms(moment: datetime) -> int:
    """Milliseconds since the epoch, for the browser's clock (ages and countdowns tick there between
    refreshes: assets/ticking.js). SQLite gives back naive datetimes; they were stored in UTC."""
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp() * 1000)


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def role_label(role: str) -> str:
    return ROLE_LABELS.get(role, role)
