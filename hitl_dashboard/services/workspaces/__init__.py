"""Workspaces (issue 41): create, rename, archive; members and their roles. Who sees what is
answered by the Actor (domain/permissions.py) and applied by every query through db/rows.in_workspaces."""
