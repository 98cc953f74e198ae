"""Teams as data: the team file format (pydantic models, no AutoGen), loading and the catalogue.

agents/ turns a definition into an AutoGen team; services ask the catalogue about a team's
agents, producers, sign-off chain and SLAs. Nothing about a particular team lives in Python code:
the built-in teams are the YAML files next to this module."""
