"""The product's roles from an identity provider's claim (single sign-on).

The mapping names provider groups (or any claim values) and the roles each grants. Roles come
only from the mapping: a value nobody mapped grants nothing, and the roles are computed afresh at
every sign-in, so a group removed at the provider removes its role at the next one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def claim_values(claim: object) -> list[str]:
    """A claim as a list of strings: providers send a list, a single string, or a space- or
    comma-separated string (some map groups into one attribute). Anything else counts as none."""
    if isinstance(claim, str):
        return [part for part in claim.replace(",", " ").split() if part]
    if isinstance(claim, list | tuple):
        return [item for item in claim if isinstance(item, str) and item]
    return []


def roles_from_claim(claim: object, role_map: Mapping[str, Iterable[str]]) -> list[str]:
    """The sorted grants the claim's values map to (no duplicates): "admin", "role" or "slug:role"."""
    roles: set[str] = set()
    for value in claim_values(claim):
        roles.update(role_map.get(value, ()))
    return sorted(roles)


INSTANCE_GRANTS = frozenset({"admin"})


def split_grants(grants: Iterable[str], default_slug: str) -> tuple[list[str], dict[str, list[str]]]:
    """(the instance's roles, {workspace slug: roles there}) of mapped grants (issue 41): "slug:role"
    is a role in that workspace; a bare review or manager role is one in `default_slug` (maps written
    before workspaces keep their meaning); "admin" is the instance admin."""
    instance: set[str] = set()
    held: dict[str, set[str]] = {}
    for grant in grants:
        slug, _, role = grant.rpartition(":")
        if not slug and role in INSTANCE_GRANTS:
            instance.add(role)
        else:
            held.setdefault(slug or default_slug, set()).add(role)
    return sorted(instance), {slug: sorted(roles) for slug, roles in sorted(held.items())}
