"""The shared base state. Access checks (who is signed in, which roles) will live here."""

import reflex as rx


class AppState(rx.State):
    """Base for every page and feature state; holds nothing page-specific."""
