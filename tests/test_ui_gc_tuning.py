"""The console's garbage collection (`ui/gc_tuning.py`): what it draws is freed as soon as it is replaced,
never left for the cycle collector, whose full collections were the console's longest stalls. Checked in
a process of its own (`gc_tuning_probe.py`): the tuning is process-wide and a real run applies it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from omeconsole.ui.gc_tuning import MIDDLE_EVERY

PROBE = Path(__file__).with_name("gc_tuning_probe.py")


def test_a_console_in_a_terminal_leaves_nothing_it_draws_to_the_cycle_collector() -> None:
    result = subprocess.run([sys.executable, str(PROBE)], capture_output=True, text=True, timeout=120,
                            cwd=PROBE.parent)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    before, after = found["before"], found["after"]
    # Textual as it comes: every redrawn line's old strip held itself and waited for a full collection.
    assert before["left"] >= 30, before
    assert before["middle_every"] == 10
    # Once a console has run in a terminal: the strips go as soon as they are replaced ...
    assert after["left"] == 0, after
    assert after["middle_every"] == MIDDLE_EVERY
    # ... and strips divide and crop exactly as before.
    assert (after["cuts"], after["crops"]) == (before["cuts"], before["crops"])
