"""The `ome-simulator` command: says which extra to install when the simulator's dependencies are missing.

A console-only install (`pip install omeconsole`) carries the simulator's code but not its dependencies
(numpy, threefive, uvicorn's httptools); its command then says how to get them instead of a traceback.
"""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from simulator.http.cli import main as run
    except ModuleNotFoundError as error:
        print(f"ome-simulator: its dependencies are not installed ({error.name} is missing): "
              "pip install 'omeconsole[simulator]'", file=sys.stderr)
        return 2
    return run()
