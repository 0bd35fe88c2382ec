"""The command line's own publisher reads leave no audience behind: two real processes on free ports.

`cue-out --wait-confirm` reads the stream's playlist before the send (the plan's rules) and then until the
marker shows; each read is on a connection closed after it, so once it exits the server counts nobody. The
server did count its bytes and the peak its reads made; the command wrote its reads to the journal the
console's processes share (beside the audit log), so a later `stats` takes them off too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_adops_cli_wait import _run, simulator

__all__ = ["simulator"]

UNWATCHED = "default/app/backup"
"""The demo's stream that nobody watches."""


def test_cue_out_wait_confirm_on_an_unwatched_stream_leaves_no_viewer_and_no_bytes_out(
        simulator: tuple[str, str], tmp_path: Path) -> None:
    sent = _run(simulator, tmp_path, "cue-out", UNWATCHED, "--duration", "30", "--wait-confirm")
    assert sent.returncode == 0, sent.stderr
    assert "seen in the playlist" in sent.stdout + sent.stderr, (sent.stdout, sent.stderr)
    watched = _run(simulator, tmp_path, "stats", UNWATCHED, "--watch", "--count", "3", "--interval", "1", "--json")
    assert watched.returncode == 0, watched.stderr
    readings = [json.loads(line) for line in watched.stdout.splitlines()]
    assert [reading["viewers"] for reading in readings] == [0, 0, 0]
    assert all(reading["stats"]["connections_out"]["llhls"] == 0 for reading in readings)
    assert readings[-1]["rate_out_bps"] == 0.0  # nothing reads it any more: no byte goes out
    last = readings[-1]
    assert (last["stats"]["total_bytes_out"], last["stats"]["max_total_connections"]) == (0, 0)
    assert last["own_bytes_out"] > 0 and last["own_peak"] >= 1  # what the server counted: the command's reads
    text = _run(simulator, tmp_path, "stats", UNWATCHED)
    assert "viewers           0 now" in text.stdout and "bytes in / out" in text.stdout
    assert re.search(r"bytes in / out    \S+ \S+ / 0 B", text.stdout), text.stdout
    assert re.search(r"peak 0 at", text.stdout), text.stdout
    assert re.search(r"this console      taken off as this console's own playlist reads: \d+ bytes out, "
                     r"\d+ of the peak", text.stdout), text.stdout
