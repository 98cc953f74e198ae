"""An agent that runs outside the product: a plain script using hitl_dashboard.client, started by
tests/e2e/test_external_approvals.py as its own process (HITL_URL and HITL_TOKEN in its environment).

    python tests/support/external_caller.py REQUEST_ID

It asks to deploy billing 2.4.1 (2 replicas), waits, and runs with the arguments the reviewers
approved. One JSON line per event on stdout: {"ran": {...}}, {"result": "..."} or {"denied": "..."}
(exit 3). It fails if importing the client loaded any module of the server."""

from __future__ import annotations

import json
import sys

from hitl_dashboard.client import ApprovalDenied, require_approval

SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["service", "version"],
    "properties": {"service": {"type": "string"}, "version": {"type": "string", "pattern": r"^\d+\.\d+\.\d+$"},
                   "replicas": {"type": "integer", "minimum": 1, "maximum": 5}},
}


@require_approval(team="ops", title="Deploy billing 2.4.1", request_id=sys.argv[1], args_schema=SCHEMA,
                  link="https://ci.example.com/runs/7?step=deploy",
                  context="Nightly release of **billing**. <img src=x onerror=\"document.title='pwned'\">")
def deploy(service: str, version: str, replicas: int = 1) -> str:
    print(json.dumps({"ran": {"service": service, "version": version, "replicas": replicas}}), flush=True)
    return f"deployed {service} {version} x{replicas}"


def main() -> int:
    server = [m for m in sys.modules if m.startswith("hitl_dashboard.") and not m.startswith("hitl_dashboard.client")]
    if server:
        print(json.dumps({"error": f"the client loaded server modules: {sorted(server)}"}), flush=True)
        return 2
    try:
        result = deploy(service="billing", version="2.4.1", replicas=2)
    except ApprovalDenied as exc:
        print(json.dumps({"denied": exc.reason}), flush=True)
        return 3
    print(json.dumps({"result": result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
