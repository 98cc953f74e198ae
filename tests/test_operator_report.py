"""The demo's operator report is stored whole and exported whole (issue 28): it was cut mid-word
("... (deployment de DONE") in the transcript and in the Markdown export."""

from __future__ import annotations

import re

from hitl_dashboard.services.conversations.demo import DEMO_TASKS
from hitl_dashboard.services.conversations.transcript_export import export_conversation
from hitl_dashboard.services.conversations.transcript_markdown import to_markdown
from tests.support import flow
from tests.test_tools_approval import deploys


def test_the_demo_operator_report_is_stored_and_exported_complete(db_url) -> None:
    flow.make_people()
    task = next(task for kind, task in DEMO_TASKS if kind == "ops")
    cid = flow.start(task, task_type="ops")
    flow.work()
    # An edited call makes the tool's result line long: that is when the report was cut.
    flow.decide_as("alice", flow.only_open_review(cid).id, "approve", reason="change window open",
                   edited_args={"service": "billing-api", "version": "2.4.2", "environment": "production"})
    flow.work()
    [deployed] = deploys()

    report = flow.messages(cid)[-1]
    assert report.source == "operator"
    result = f"Result: Deployed billing-api 2.4.2 to production (deployment {deployed['deployment_id']})."
    assert report.content == ("Deployment report: deploy_to_prod succeeded with the approved arguments "
                              "(service=billing-api, version=2.4.2, environment=production).\n"
                              f"{result}\nDONE")
    exported = to_markdown(export_conversation(None, cid))
    assert result + "\nDONE" in exported
    assert not re.search(r"more characters\]", exported)
