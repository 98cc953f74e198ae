"""The web tier's worker: uvicorn's h11 worker under gunicorn, as Reflex 0.10.1 serves prod when granian is not
pinned (`gunicorn --preload --worker-class uvicorn.workers.UvicornH11Worker`; scripts/common.sh's
`web_server_env` swaps in this class and sets the worker count), with three changes:
- websockets by wsproto, without permessage-deflate: uvicorn accepts a browser's deflate offer by default, and a
  compression context per socket measured about 100 KB of memory a tab for the tab's whole life (issue 33);
- no rewriting of the peer address or scheme from X-Forwarded-* headers: the app reads them itself, from as
  many proxies as TRUSTED_PROXY_HOPS says, as it did under granian (hitl_dashboard/api/deps.py).
Why not granian: memory per idle tab, 141 KB here against 246 KB under granian, whose websocket keeps a
128 KiB read buffer per socket with no setting for it (bench/tab_cost.py, issue 44, docs/benchmarks.md)."""

from __future__ import annotations

from typing import Any

from uvicorn.workers import UvicornH11Worker


class WebWorker(UvicornH11Worker):
    CONFIG_KWARGS: dict[str, Any] = {
        **UvicornH11Worker.CONFIG_KWARGS, "ws": "wsproto", "ws_per_message_deflate": False, "proxy_headers": False,
    }
