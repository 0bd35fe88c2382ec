"""How many calls a cue-out takes from the key to its DATERANGE seen in the playlist: the "cue-out" flow of
ARCHITECTURE.md (the stats-poll flow is bench/trace_ui_flow.py).

The real app (tests/support/ui_support's `make_app`) on the dashboard at 160x48 with `default/app/news` selected,
against the seeded simulator with both clocks frozen. Traced with `sys.setprofile` from the `o` key, through
the dialog (Enter: the default duration), the confirmation (`y`), the POST, and the playlist reads, until the
screen says the marker was seen. Only calls on the cue-out's own path are counted: a call into `omeconsole/`
that is, or is called from, ad-ops code (`ui/adops/`, `core/adops/`, `ui/adops_seam.py`, `live/ad_board.py`)
— the polling engine's stats reads in the same seconds are left out. Counted by layer, distinct functions,
and hops (a call from one `omeconsole/ui` file into another). The simulator runs on its own thread (not
traced). `--pairs N` lists the N commonest hops, caller → callee, and the N ui functions called most.
Against another checkout:

    .venv/bin/python bench/trace_cue_out.py
    .venv/bin/python bench/trace_cue_out.py --pairs 20
    git archive 5047c83 | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before .venv/bin/python bench/trace_cue_out.py /tmp/before
"""

from __future__ import annotations

import asyncio
import inspect
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
AD_OPS = ("ui/adops/", "core/adops/", "ui/adops_seam.py", "ui/ad_board.py", "live/ad_board.py",
          "ui/screens/ad_break.py", "ui/screens/ad_events.py", "core/ad_ops.py", "core/confirm.py")
"""Where ad-ops code lives, in this checkout or the ones before (core/ad_ops.py, core/confirm.py; ui/ad_board.py
and the ad-ops screens under ui/adops/ before they moved to live/ and ui/screens/)."""
STACK_DEPTH = 40
RESUMABLE = inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE
SEEN_WORDS = ("seen in playlist", "seen after")


def relative(filename: str) -> str | None:
    return filename[len(PACKAGE) + 1:] if filename.startswith(PACKAGE) else None


def on_ad_ops_path(frame: FrameType) -> bool:
    node: FrameType | None = frame
    for _ in range(STACK_DEPTH):
        if node is None:
            return False
        where = relative(node.f_code.co_filename)
        if where is not None and where.startswith(AD_OPS):
            return True
        node = node.f_back
    return False


def screen_text(app: Any) -> str:
    """Every toast and Static on screen, as plain text."""
    parts = [str(toast.render()) for toast in app.screen.query("Toast")]
    for static in app.screen.query("Static"):  # `content` now, `renderable` in older checkouts
        parts.append(str(getattr(static, "content", None) or getattr(static, "renderable", "")))
    return "\n".join(parts)


async def trace(max_steps: int) -> dict[str, Any]:
    calls: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    core_asked: Counter[str] = Counter()
    resumed: dict[int, FrameType] = {}
    pairs: Counter[str] = Counter()
    hops = 0

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        nonlocal hops
        if event != "call":
            return
        if frame.f_code.co_flags & RESUMABLE:  # a coroutine or generator: its first run is the call, not each resume
            if resumed.get(id(frame)) is frame:
                return
            resumed[id(frame)] = frame  # held, so that its id is not reused during the trace
        where = relative(frame.f_code.co_filename)
        if where is None or not on_ad_ops_path(frame):
            return
        calls[where.split("/", 1)[0] if "/" in where else where] += 1
        functions[f"{where}:{frame.f_code.co_qualname}"] += 1
        name = frame.f_code.co_name
        if where.startswith("core/") and (name.startswith("plan_") or name in ("send", "send_cue", "cue_out")):
            core_asked[f"{where}:{frame.f_code.co_qualname}"] += 1
        caller = frame.f_back
        caller_at = relative(caller.f_code.co_filename) if caller is not None else None
        if where.startswith("ui/") and caller_at is not None and caller_at.startswith("ui/") and caller_at != where:
            hops += 1
            assert caller is not None
            pairs[f"{caller_at}:{caller.f_code.co_qualname} → {where}:{frame.f_code.co_qualname}"] += 1

    with ThreadedSimulator() as simulator, tempfile.TemporaryDirectory() as scratch:
        clock = ParkingClock()
        app = make_app(simulator.api_url, clock, Path(scratch), select="default/app/news",
                       publisher_url=simulator.running.publisher_url)
        async with app.run_test(size=(160, 48), notifications=True) as pilot:
            driver = Driver(pilot, clock, simulator)
            await driver.warm_up(3)
            steps = 0
            sys.setprofile(profile)
            try:
                await pilot.press("o")
                await pilot.press("enter")  # the dialog's default duration
                await pilot.press("y")  # the confirmation
                while steps < max_steps:
                    sys.setprofile(None)
                    seen = any(words in screen_text(app) for words in SEEN_WORDS)
                    sys.setprofile(profile)
                    if seen:
                        break
                    await driver.step(0.5)
                    steps += 1
            finally:
                sys.setprofile(None)
            simulator.advance(20)  # blocked playlist reloads end before the simulator stops
    return {"calls": dict(calls), "functions": len(functions), "hops": hops, "steps": steps, "asked": dict(core_asked),
            "seen": steps < max_steps, "pairs": pairs, "ui_functions": Counter(
                {name: count for name, count in functions.items() if name.startswith("ui/")})}


def main() -> None:
    result = asyncio.run(trace(max_steps=40))
    calls = result["calls"]
    print(f"checkout {ROOT} (omeconsole from {PACKAGE})")
    print(f"seen on screen: {result['seen']} after {result['steps']} half-second steps of the console clock")
    print(f"calls on the cue-out's path: {sum(calls.values())} (" + ", ".join(
        f"{name} {count}" for name, count in sorted(calls.items(), key=lambda item: -item[1])) + ")")
    print(f"distinct functions: {result['functions']}; hops between omeconsole/ui files: {result['hops']}")
    asked = result["asked"].items()
    print("plans and sends asked of the core: " + ", ".join(f"{name} {count}" for name, count in asked))
    for pair, count in result["pairs"].most_common(PAIRS):
        print(f"  {count:4d}  {pair}")
    if PAIRS:
        print("the commonest ui functions on the path:")
    for name, count in result["ui_functions"].most_common(PAIRS):
        print(f"  {count:4d}  {name}")


if __name__ == "__main__":
    main()
