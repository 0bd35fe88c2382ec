"""The management API: wire models (shared with the simulator) and the HTTP client."""
