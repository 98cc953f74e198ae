"""Pages for managers and admins (audit, users) and the new-conversation page."""

from __future__ import annotations

import reflex as rx


def add_manager_pages(app: rx.App) -> None:
    """Filled in by the audit/admin work; registered from pages/registry.py."""
