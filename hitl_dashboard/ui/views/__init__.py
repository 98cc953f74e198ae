"""Plain-data views for the pages: services in, display-ready dataclasses out (no Reflex here)."""
