"""Reflex states: one small state per page or feature, all on the shared AppState."""
