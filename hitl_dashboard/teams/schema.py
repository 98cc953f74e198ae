"""The JSON Schema of a team file, published at docs/team.schema.json and served by the API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hitl_dashboard.teams.model import TeamDefinition

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "team.schema.json"
SCHEMA_ID = "https://hitl-dashboard.local/team.schema.json"


def team_json_schema() -> dict[str, Any]:
    schema = TeamDefinition.model_json_schema(mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "HITL Dashboard team", **{k: v for k, v in schema.items() if k != "title"}}


def schema_text() -> str:
    return json.dumps(team_json_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":  # python -m hitl_dashboard.teams.schema: rewrite the published file
    SCHEMA_PATH.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
