"""GET /api/conversations/{id}/revisions/{rid}/findings: bandit's and ruff's findings on a revision."""

from __future__ import annotations

from fastapi import APIRouter

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, NOT_FOUND
from hitl_dashboard.api.schemas.common import IdPath
from hitl_dashboard.api.schemas.findings import RevisionFindingsPublic
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.findings.queries import revision_findings

router = APIRouter(prefix="/conversations/{conversation_id}", tags=["transcripts"],
                   responses={**COMMON_RESPONSES, **NOT_FOUND}, route_class=StrictJsonRoute)


@router.get("/revisions/{revision_id}/findings", response_model=RevisionFindingsPublic)
def findings(conversation_id: IdPath, revision_id: IdPath, actor: CurrentActor) -> RevisionFindingsPublic:
    """The analysis status of the revision's text (pending, analysed, or not analysed and why) and
    its findings by line. Analysis happens after the revision is stored: poll while pending."""
    return RevisionFindingsPublic.model_validate(revision_findings(actor, conversation_id, revision_id).as_dict())
