"""Everything the HTTP API adds to the FastAPI app: routers, error mapping, body size limit, strict JSON."""

from __future__ import annotations

from fastapi import FastAPI

from hitl_dashboard.api.errors import install_error_handlers
from hitl_dashboard.api.fallback import add_api_fallback
from hitl_dashboard.api.routes import (
    ag_ui,
    audit,
    conversations,
    exports,
    external_approvals,
    findings,
    forks,
    questions,
    reviews,
    rules,
    slack,
    teams,
    transcripts,
    workspaces,
)
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.api.too_large import JsonTooLarge
from hitl_dashboard.settings import get_settings


def mount_api(api: FastAPI, prefix: str) -> None:
    # FastAPI's own per-router body limit (413, for declared and for streamed bodies alike);
    # scoped to these routers, so Reflex's routes mounted on the same app keep theirs.
    max_body_size = get_settings().api_max_body_bytes
    for module in (conversations, forks, transcripts, ag_ui, findings, exports, reviews, questions, audit, teams,
                   slack, external_approvals, workspaces, rules):
        if module.router.route_class is not StrictJsonRoute:  # or its bodies would be read leniently
            raise TypeError(f"{module.__name__}.router must be made with route_class=StrictJsonRoute")
        api.include_router(module.router, prefix=prefix, max_body_size=max_body_size)
    add_api_fallback(api, prefix)  # last: only what no route above serves
    install_error_handlers(api)
    api.add_middleware(JsonTooLarge)  # the body limit's 413 as JSON, as documented
