"""How many calls the console's UI makes to put one poll on screen: the "stats poll" flow of ARCHITECTURE.md.

The real app (tests/support/ui_support's `make_app`) on the dashboard at 160x48, the selected stream in the
detail, against the seeded simulator with both clocks frozen; after a warm-up, one second of console
time is traced with `sys.setprofile` (the simulator runs on its own thread, which is not traced).
Counted: Python function calls whose code lives in `omeconsole/` (split by layer and, for the UI, by
file: calls into `ui/app.py` are the screens calling back into the app), the distinct UI functions,
and the hops (a call into another `omeconsole/ui` file than the caller's), the most frequent of them
by caller and callee (`--pairs N`). Run it against another checkout by putting that checkout first on
the path:

    .venv/bin/python bench/trace_ui_flow.py            # this tree
    .venv/bin/python bench/trace_ui_flow.py --pairs 30  # and the 30 commonest hops, caller → callee
    PYTHONPATH=/tmp/main .venv/bin/python bench/trace_ui_flow.py /tmp/main   # a `git archive` of main
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ARGS = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
PAIRS = int(sys.argv[sys.argv.index("--pairs") + 1]) if "--pairs" in sys.argv else 0
if PAIRS:
    ARGS.remove(str(PAIRS))
ROOT = Path(ARGS[0]).resolve() if ARGS else Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support")]

from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app  # noqa: E402

import omeconsole  # noqa: E402

PACKAGE = str(Path(omeconsole.__file__).resolve().parent)


def layer(filename: str) -> str | None:
    if not filename.startswith(PACKAGE):
        return None
    rest = filename[len(PACKAGE) + 1:]
    return rest.split("/", 1)[0] if "/" in rest else rest


async def trace(steps: int) -> dict[str, Any]:
    calls: Counter[str] = Counter()
    files: Counter[str] = Counter()
    functions: set[str] = set()
    pairs: Counter[str] = Counter()
    hops = 0

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        nonlocal hops
        if event != "call":
            return
        where = layer(frame.f_code.co_filename)
        if where is None:
            return
        calls[where] += 1
        if where == "ui":
            files[frame.f_code.co_filename[len(PACKAGE) + 1:]] += 1
            functions.add(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_qualname}")
            caller = frame.f_back
            if (caller is not None and layer(caller.f_code.co_filename) == "ui"
                    and caller.f_code.co_filename != frame.f_code.co_filename):
                hops += 1
                pairs[f"{Path(caller.f_code.co_filename).name}:{caller.f_code.co_qualname} → "
                      f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_qualname}"] += 1

    with ThreadedSimulator() as simulator, tempfile.TemporaryDirectory() as scratch:
        clock = ParkingClock()
        app = make_app(simulator.api_url, clock, Path(scratch), select="default/app/news")
        async with app.run_test(size=(160, 48)) as pilot:
            driver = Driver(pilot, clock, simulator)
            await driver.warm_up(3)
            sys.setprofile(profile)
            try:
                await driver.step(1.0, times=steps)
            finally:
                sys.setprofile(None)
    return {"steps": steps, "calls": dict(calls), "files": dict(files), "ui_functions": len(functions),
            "ui_hops": hops, "pairs": pairs}


def main() -> None:
    steps = 3
    result = asyncio.run(trace(steps))
    calls = result["calls"]
    print(f"checkout {ROOT} (omeconsole from {PACKAGE})")
    print(f"per poll step (mean of {steps}): " + ", ".join(
        f"{name} {count / steps:.0f}" for name, count in sorted(calls.items(), key=lambda item: -item[1])))
    print(f"omeconsole/ui: {calls.get('ui', 0) / steps:.0f} calls, {result['ui_functions']} distinct functions, "
          f"{result['ui_hops'] / steps:.0f} hops between ui files per step")
    print("ui calls per file per step: " + ", ".join(
        f"{name} {count / steps:.0f}" for name, count in sorted(result["files"].items(), key=lambda item: -item[1])))
    for pair, count in result["pairs"].most_common(PAIRS):
        print(f"  {count / steps:6.1f}  {pair}")


if __name__ == "__main__":
    main()
