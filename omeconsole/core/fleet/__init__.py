"""Several servers as one: a fleet's settings, its sessions under one request budget, its views.

- `settings.py` — `[fleets.NAME]` in the config: the profiles of a fleet, each with its own settings.
- `budget.py` — `FleetBudget`, the one request budget of a fleet's engines, divided by what each uses.
- `fleet.py` — `Fleet`: one session per server (the console's connector), run and stopped together.
- `health.py` — `ServerHealth`: reachable, edition and version, latency, errors per minute.
- `views.py` — pure: a node across the servers (who ingests, viewers per server and protocol, sums).
- `naming.py` — `PROFILE:vhost/app/stream`: which servers a name means.

Nothing here imports anything heavy at package import: import the modules you need.
"""
