"""The Prometheus exporter: the console's polling run headless, its readings as metric families.

`selection` (which streams get series of their own), `collector` (the families), `http` (the `/metrics`
and `/alerts` endpoints with content negotiation), `service` (engine, alerts, webhooks and the listener
run together). No Textual.
"""
