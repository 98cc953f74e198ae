"""Pydantic request (…Create) and response (…Public) models of the HTTP API."""
