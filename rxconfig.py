"""Reflex configuration. Every value comes from the one settings object (environment variables)."""

import reflex as rx

from hitl_dashboard.db.engine import normalize_url
from hitl_dashboard.startup import settings_or_exit

# Bad settings end `reflex run` here with one line per problem, before any build starts.
_settings = settings_or_exit()

config = rx.Config(
    app_name="hitl_dashboard",
    # Reflex's own rx.session()/db tooling sees the same database as our unit of work.
    db_url=normalize_url(_settings.database_url),
    # With Redis, Reflex keeps state there and prod starts several backend workers.
    redis_url=_settings.redis_url,
    # CORS on /api and the websocket's Origin check admit only the public URL (Reflex's default
    # is any origin, with credentials allowed). Same-origin pages are unaffected.
    cors_allowed_origins=_settings.allowed_origins(),
    # The browser's address for the sign-in throttle, through this many trusted reverse proxies.
    trusted_proxy_hops=_settings.trusted_proxy_hops,
    telemetry_enabled=False,
    show_built_with_reflex=False,
    # No public sitemap for an internal review tool; listing it here also silences
    # the "enabled by default" warning.
    disable_plugins=[rx.plugins.SitemapPlugin],
    # Since 0.9 the Radix theme is configured here (App(theme=...) is deprecated).
    plugins=[
        rx.plugins.RadixThemesPlugin(
            # Solid panels: the default translucent ones put a 64 px backdrop blur behind every card,
            # and a browser without a GPU redoes that blur over the whole window each time the
            # transcript moves (about 70 ms a redraw in a CDP trace; see docs/benchmarks-history.md, stop 21).
            theme=rx.theme(accent_color="indigo", gray_color="slate", radius="medium",
                           panel_background="solid"),
        ),
    ],
)
