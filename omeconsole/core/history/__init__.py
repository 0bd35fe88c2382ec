"""History that outlives the stream and the console: an embedded SQLite store of every sample taken.

- `settings`: the `[history]` table (where the database lives, retention tiers, size cap).
- `database`: opening the file (0600 in a 0700 directory, WAL) and its versioned schema.
- `ingest`: one batch of observations into the raw table, every tier and the per-stream summaries.
- `writer`: the writer thread with its bounded queue, so the event loop never waits on the disk.
- `retention`: tiers pruned by age, the whole file held under its size cap.
- `reader`: samples and points of a node over a range, at a resolution fit for a window; summaries.
- `engine_source`: the adapter that turns the polling engine's updates into observations.
- `recorder`: the headless polling of every listed node, recording only (`omeconsole record`).
- `replay`: what the console showed at a moment of the past, from the store only.

Nothing here is imported at the console's start: `omeconsole.core.config` imports `settings` only.
"""
