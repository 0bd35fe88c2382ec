"""Alerts: rules from the config, evaluated on an injected clock against what the polling engine read.

`rules` (the `[[alerts]]` tables), `scope` (which nodes a rule watches), `source` (the narrow view of the
polling engine the rules read), `conditions` (what each kind measures), `state` (pending / firing /
resolved with hysteresis), `evaluator` (the whole pass, its listeners), `audit_feed` (sends and
confirmations from the audit log), `payload` and `webhooks` (delivery to `[[webhooks]]`). No Textual.
"""
