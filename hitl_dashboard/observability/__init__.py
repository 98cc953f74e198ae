"""Observability: Prometheus metrics, structured logs and OpenTelemetry traces.

Framework-free plumbing that any layer may call (one-line hooks): it imports nothing else of
hitl_dashboard but the settings, so services, agents and the app module can all use it."""
