"""Single sign-on through an OpenID Connect provider (authorization code flow with PKCE)."""
