"""Run by tests/test_ui_gc_tuning.py in a process of its own (what it changes is process-wide): prints one
JSON line with what drawing left to the cycle collector before and after the console's tuning, whether
Textual's strips still divide and crop as before, and what a real `ConsoleApp.run_async` set."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import tempfile
from pathlib import Path

from pydantic import SecretStr
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Static

from omeconsole.core.clock import SystemClock
from omeconsole.core.config import Settings
from omeconsole.core.session import connector
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.themes import BUILTIN_THEME_DIR


class Readings(App[None]):
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


async def console_run_settings() -> dict[str, object]:
    """A real console run in a terminal (headless), quit as soon as it is up."""
    async def quit_at_once(pilot: object) -> None:
        await app.screen.wait_for_refresh()
        app.exit()

    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(api_url="http://127.0.0.1:9", token=SecretStr("t"), theme="ome-dark")
        app = ConsoleApp(settings, connector(SystemClock(), audit_path=Path(scratch) / "audit.jsonl"), SystemClock(),
                         theme_dirs=[BUILTIN_THEME_DIR], export_dir=Path(scratch), record_history=False)
        await app.run_async(headless=True, size=(100, 30), auto_pilot=quit_at_once)  # type: ignore[arg-type]
    return {"middle_every": gc.get_threshold()[1]}


def main() -> None:
    strip = Strip([Segment("hello "), Segment("world", Style(italic=True)), Segment("!")])
    before = {"left": asyncio.run(strips_left_to_the_collector()), "cuts": cuts_of(strip), "crops": crops_of(strip),
              "middle_every": gc.get_threshold()[1]}
    run = asyncio.run(console_run_settings())
    fresh = Strip([Segment("hello "), Segment("world", Style(italic=True)), Segment("!")])
    after = {"left": asyncio.run(strips_left_to_the_collector()), "cuts": cuts_of(fresh), "crops": crops_of(fresh),
             **run}
    json.dump({"before": before, "after": after}, sys.stdout)


if __name__ == "__main__":
    main()
