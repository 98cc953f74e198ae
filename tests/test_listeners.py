"""Start-up registers the SQLAlchemy listeners, explicitly and once (hitl_dashboard/listeners.py):
importing every module of services/ (and db/, observability/) registers none of ours, writing an
audit event before the start-up is refused, and install() registers each listener exactly once however
often it is called. In a fresh interpreter: this test process has installed them long ago."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = """
import importlib, json, pkgutil
from sqlalchemy.orm import Session

import hitl_dashboard.db, hitl_dashboard.observability, hitl_dashboard.services

for package in (hitl_dashboard.db, hitl_dashboard.observability, hitl_dashboard.services):
    for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(found.name)


def ours():
    found = []
    for name in Session.dispatch._event_names:
        for listener in getattr(Session.dispatch, name)._clslevel.get(Session, ()):
            if getattr(listener, "__module__", "").startswith("hitl_dashboard"):
                found.append(f"{name} {listener.__module__}.{listener.__qualname__}")
    from hitl_dashboard.db.audit import written_observers
    found += [f"audit_written {o.__module__}.{o.__qualname__}" for o in written_observers()]
    return found


from hitl_dashboard.db.audit import append_audit

after_imports = ours()
try:
    append_audit(None, actor="x", action="y")
    refused = None
except RuntimeError as exc:
    refused = str(exc)

from hitl_dashboard import listeners

listeners.install()
once = ours()
listeners.install()
print(json.dumps({"after_imports": after_imports, "refused": refused, "once": once, "twice": ours()}))
"""


def test_imports_register_nothing_and_install_registers_each_listener_once() -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            check=True)
    found = json.loads(result.stdout.splitlines()[-1])

    assert found["after_imports"] == []
    assert "hitl_dashboard.listeners.install()" in found["refused"]
    assert found["twice"] == found["once"]
    assert len(set(found["once"])) == len(found["once"])
    assert {
        "before_commit hitl_dashboard.db.audit._before_commit",
        "after_commit hitl_dashboard.observability.on_commit._after_commit",
        "after_commit hitl_dashboard.services.audit.audit_anchor._after_commit",
        "before_commit hitl_dashboard.services.webhooks.audit_head_webhook._before_commit",
        "after_commit hitl_dashboard.services.webhooks.webhook_cache._after_commit",
        "audit_written hitl_dashboard.services.observability.audit_metrics._written",
        "audit_written hitl_dashboard.services.observability.audit_traces._written",
    } <= set(found["once"])
    # The audit chain links before the anchor's webhook reads the head it sets.
    assert found["once"].index("before_commit hitl_dashboard.db.audit._before_commit") < found["once"].index(
        "before_commit hitl_dashboard.services.webhooks.audit_head_webhook._before_commit")
