"""Polling the statistics: plan under a budget, keep what was read, follow the link (no Textual).

- `engine`: the façade (`PollingEngine`) and its loop;
- `planner`: which requests are due, a pure function of time, budget, screen and store;
- `jobs`: the typed jobs and outcomes, and the one place they meet the network;
- `store`, `listing`, `history`, `rates`: what is known per node, the server's tree with its ended
  streams, bounded history rings, rates from byte totals;
- `link`: the link's state machine; `budget`: the token bucket and the one back-off.
"""
