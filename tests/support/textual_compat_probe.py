"""Run by tests/sim/test_gc_policy.py in a process of its own (what the policy changes is process-wide): prints
one JSON line with how Textual's strips divide and crop before and after a console's tuning
(`gc_policy.console`), what drawing then leaves to the cycle collector, and what `--debug` says."""

from __future__ import annotations

import asyncio
import gc
import json
import sys

from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.strip import Strip
from textual.widgets import Static

from omeconsole.cli import gc_policy
from omeconsole.ui.palette import PaletteApp


class Readings(PaletteApp[None]):
    def compose(self) -> ComposeResult:
        for row in range(8):
            yield Static(id=f"row{row}")


async def strips_left_to_the_collector() -> int:
    """Strips that only the cycle collector could free after 30 redraws of eight changing lines."""
    app = Readings()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable is kept in gc.garbage to count
        try:
            for reading in range(30):
                for row, widget in enumerate(app.query(Static)):
                    widget.update(f"stream {row}: {reading * 1000 + row} b/s")
                await app.screen.wait_for_refresh()
                await pilot.pause()
            gc.collect()
            return sum(isinstance(found, Strip) for found in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()


def drawn(strip: Strip) -> tuple[int, list[tuple[str, str]]]:
    return strip.cell_length, [(segment.text, str(segment.style)) for segment in strip]


def cuts_of(strip: Strip) -> list[object]:
    return [drawn(part) for part in [*strip.divide([strip.cell_length]), *strip.divide([3, 7, strip.cell_length, 99])]]


def crops_of(strip: Strip) -> list[object]:
    spans = [(0, strip.cell_length), (-2, strip.cell_length), (0, strip.cell_length + 4), (2, 9), (0, 5)]
    return [drawn(strip.crop_extend(start, end, Style(bold=True))) for start, end in spans]


def sample() -> Strip:
    return Strip([Segment("hello "), Segment("world", Style(italic=True)), Segment("!")])


def main() -> None:
    before = {"cuts": cuts_of(sample()), "crops": crops_of(sample()), "middle_every": gc.get_threshold()[1]}
    said: list[str] = []
    gc_policy.console(debug=True, say=said.append)
    gc.unfreeze()
    after = {"cuts": cuts_of(sample()), "crops": crops_of(sample()), "middle_every": gc.get_threshold()[1],
             "left": asyncio.run(strips_left_to_the_collector()), "said": said}
    json.dump({"before": before, "after": after}, sys.stdout)


if __name__ == "__main__":
    main()
