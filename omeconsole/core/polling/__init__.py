"""Polling the statistics: plan under a budget, keep what was read, follow the link (no Textual)."""
