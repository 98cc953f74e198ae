"""The pure rules of signing in and their settings: which deep links are followed, which roles a
provider's groups grant, and which single sign-on configurations are refused at start-up."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.errors import ConfigurationError
from hitl_dashboard.domain.return_paths import safe_return_path
from hitl_dashboard.domain.sign_in_roles import roles_from_claim
from hitl_dashboard.settings import get_settings, reset_settings_cache

ROLE_MAP = {"sec": ["security_reviewer"], "ops": ["final_approver", "security_reviewer"], "boss": ["admin"]}
SSO = {"OIDC_ISSUER": "https://idp.example/realms/acme", "OIDC_CLIENT_ID": "hitl", "OIDC_CLIENT_SECRET": "s3cret-value"}


@pytest.mark.parametrize("path", ["/queue", "/conversations/42?tab=diff#message-3", "/audit?user=a%2Fb"])
def test_paths_of_this_site_are_followed(path: str) -> None:
    assert safe_return_path(path) == path


@pytest.mark.parametrize("path", [
    "", "queue", "//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example", "https://evil.example/",
    "javascript:alert(1)", "/queue\nSet-Cookie: a=b", "/queue\x00", "/\tevil", " //evil.example", "/login?next=/x",
    "/auth/sso/start", "/" + "a" * 2001,
])
def test_anything_that_could_leave_the_site_or_loop_is_dropped(path: str) -> None:
    assert safe_return_path(path) == ""


@pytest.mark.parametrize(("claim", "roles"), [
    (["sec", "unknown"], ["security_reviewer"]),
    (["ops", "sec"], ["final_approver", "security_reviewer"]),
    ("sec boss", ["admin", "security_reviewer"]),
    ("sec,boss", ["admin", "security_reviewer"]),
    ([], []), (None, []), (42, []), ([{"nested": "sec"}], []),
])
def test_roles_come_only_from_mapped_values(claim: object, roles: list[str]) -> None:
    assert roles_from_claim(claim, ROLE_MAP) == roles


def _settings_problems(monkeypatch: pytest.MonkeyPatch, **env: str) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    reset_settings_cache()
    try:
        with pytest.raises(ConfigurationError) as refused:
            get_settings()
    finally:
        reset_settings_cache()
    return str(refused.value)


@pytest.mark.parametrize(("env", "says"), [
    ({"OIDC_ISSUER": SSO["OIDC_ISSUER"]}, "OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: not set while OIDC_ISSUER is"),
    ({"OIDC_CLIENT_SECRET": "s3cret-value"}, "OIDC_ISSUER, OIDC_CLIENT_ID: not set"),
    ({**SSO, "OIDC_ISSUER": "http://idp.example"}, "OIDC_ISSUER: must use https"),
    ({**SSO, "OIDC_ISSUER": "idp.example"}, "OIDC_ISSUER: is not an issuer URL"),
    ({**SSO, "OIDC_ROLE_MAP": "{sec: [admin]}"}, "OIDC_ROLE_MAP: is not JSON"),
    ({**SSO, "OIDC_ROLE_MAP": '{"sec": "admin"}'}, "OIDC_ROLE_MAP: must map each group to a list of roles"),
    ({**SSO, "OIDC_ROLE_MAP": '{"sec": ["root"]}'}, "OIDC_ROLE_MAP: names unknown roles (root)"),
    ({**SSO, "OIDC_SCOPES": "profile email"}, "OIDC_SCOPES: must include the scope openid"),
    ({"PASSWORD_SIGN_IN": "false"}, "PASSWORD_SIGN_IN: false with no single sign-on configured"),
    ({"SIGN_IN_IDLE_MINUTES": "0"}, "SIGN_IN_IDLE_MINUTES"),
])
def test_half_or_wrongly_configured_sign_in_is_refused(monkeypatch, env: dict[str, str], says: str) -> None:
    problems = _settings_problems(monkeypatch, **env)
    assert says in problems
    assert "s3cret-value" not in problems


def test_a_complete_configuration_turns_single_sign_on_on(monkeypatch) -> None:
    for name, value in {**SSO, "OIDC_ISSUER": "https://idp.example/realms/acme/", "PASSWORD_SIGN_IN": "false",
                        "OIDC_ROLE_MAP": '{"sec": ["security_reviewer", "security_reviewer"]}'}.items():
        monkeypatch.setenv(name, value)
    reset_settings_cache()
    try:
        settings = get_settings()
        assert settings.single_sign_on and not settings.password_sign_in
        assert settings.oidc_issuer == "https://idp.example/realms/acme/"  # exactly: tokens must name it so
        assert settings.oidc_roles() == {"sec": ["security_reviewer"]}
    finally:
        reset_settings_cache()
