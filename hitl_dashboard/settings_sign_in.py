"""Settings of the browser sign-in: OpenID Connect single sign-on, password sign-in, expiry.

A mixin of Settings (same environment, no prefix). Single sign-on is on when OIDC_ISSUER,
OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are all set; some but not all of them is refused, as is
turning password sign-in off with no single sign-on (nobody could sign in)."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from hitl_dashboard.domain.enums import Role

_OIDC_TRIO = ("oidc_issuer", "oidc_client_id", "oidc_client_secret")
_LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
_ROLE_NAMES = sorted(role.value for role in Role)
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{1,39}$")


def _known_grant(grant: str) -> bool:
    """'role', or 'slug:role' for a role held in one workspace (issue 41); admin only bare."""
    slug, _, role = grant.rpartition(":")
    if not slug:
        return role in _ROLE_NAMES
    return bool(_SLUG.match(slug)) and role in _ROLE_NAMES and role != Role.ADMIN.value


class SignInSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    oidc_issuer: str | None = None
    oidc_client_id: str | None = None
    oidc_client_secret: str | None = Field(default=None, repr=False)
    oidc_scopes: str = "openid profile email"
    oidc_roles_claim: str = "groups"
    # JSON: {"provider group": ["role", ...], ...}; parsed by oidc_roles() (a clear error, not pydantic's).
    oidc_role_map: str = "{}"
    oidc_username_claim: str = "preferred_username"
    oidc_provider_name: str = Field(default="single sign-on", max_length=60)  # the sign-in button's label
    password_sign_in: bool = True
    # A browser sign-in ends after this long without a request, and this long after it began.
    sign_in_idle_minutes: float = Field(default=60.0, gt=0)
    sign_in_max_hours: float = Field(default=12.0, gt=0)

    @field_validator("oidc_issuer")
    @classmethod
    def _issuer_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise ValueError("is not an issuer URL; use the provider's issuer, e.g. "
                             "https://keycloak.example.com/realms/acme")
        if parts.scheme == "http" and parts.hostname not in _LOOPBACK_HOSTS:
            raise ValueError("must use https (plain http only for a provider on this machine)")
        return value  # exactly as the provider writes it: ID tokens must name it so (some end in "/")

    @field_validator("oidc_role_map")
    @classmethod
    def _role_map(cls, value: str) -> str:
        parse_role_map(value)
        return value

    @field_validator("oidc_scopes")
    @classmethod
    def _openid_scope(cls, value: str) -> str:
        if "openid" not in value.split():
            raise ValueError("must include the scope openid, e.g. 'openid profile email'")
        return value

    @model_validator(mode="after")
    def _complete_single_sign_on(self) -> SignInSettings:
        given = [name for name in _OIDC_TRIO if getattr(self, name)]
        if given and len(given) < len(_OIDC_TRIO):
            missing = ", ".join(name.upper() for name in _OIDC_TRIO if name not in given)
            raise ValueError(f"{missing}: not set while {', '.join(n.upper() for n in given)} is; single sign-on "
                             "needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together (or none of them)")
        if not self.password_sign_in and not given:
            raise ValueError("PASSWORD_SIGN_IN: false with no single sign-on configured would let nobody sign in; "
                             "set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or PASSWORD_SIGN_IN=true")
        return self

    @property
    def single_sign_on(self) -> bool:
        return all(getattr(self, name) for name in _OIDC_TRIO)

    def oidc_roles(self) -> dict[str, list[str]]:
        return parse_role_map(self.oidc_role_map)


def parse_role_map(text: str) -> dict[str, list[str]]:
    """{"group": ["role", ...]} from JSON; ValueError naming what is wrong (never the whole value)."""
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"is not JSON ({exc.msg} at character {exc.pos}); use e.g. "
                         '{"hitl-security": ["security_reviewer"], "hitl-admins": ["admin"]}') from None
    if not isinstance(data, dict) or not all(
            isinstance(roles, list) and all(isinstance(role, str) for role in roles) for roles in data.values()):
        raise ValueError('must map each group to a list of roles, e.g. {"hitl-security": ["security_reviewer"]}')
    unknown = sorted({role for roles in data.values() for role in roles if not _known_grant(role)})
    if unknown:
        raise ValueError(f"names unknown roles ({', '.join(unknown)}); valid: {', '.join(_ROLE_NAMES)}, each "
                         "optionally in a workspace as 'slug:role' (admin is the instance's: no workspace)")
    return {str(group): sorted(set(roles)) for group, roles in data.items()}
