"""The Prometheus exporter: the console's polling run headless, its readings as metric families.

A package over `core`, beside the UI (import-linter: the core never imports it, it imports neither the
UI nor the command line). `selection` (which streams get series of their own), `collector` (the
families), `http` (`/metrics` through prometheus_client's own exposition, `/alerts`), `asgi` (the small
ASGI helpers it needs), `service` (engine, alerts, webhooks and the listener run together). No Textual.
"""
