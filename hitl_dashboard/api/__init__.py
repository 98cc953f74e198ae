"""HTTP API served beside the Reflex app (mounted with rx.App(api_transformer=...))."""
