"""The simulated world: topology, counters, traffic, clock and scenarios. No HTTP here."""
