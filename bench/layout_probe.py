"""Run `omeconsole` (or the floor) with Textual's layout passes and repaints counted: why the screen redraws.

    .venv/bin/python bench/layout_probe.py OUT [--warm S] [--floor] [console arguments...]

Run it in a terminal (tmux) as the console would be. After `--warm` seconds (default 12: the first
screen is up) it counts, and every 2 s rewrites OUT with: the layout passes of the screen in front and
the widgets that asked for each; every `refresh(layout=True)` with the stack that made it (Textual's
and ours); whole-screen repaints (`render_full_update`) against partial ones; and per widget how often
its content was rendered again (`_render_content`, a cache miss: real work). `--floor` runs
`bench/floor_app.py` instead, for the same counts on the floor. It patches Textual's private methods
(Textual 8.2.8): a measuring tool, not part of the console.
"""

from __future__ import annotations

import collections
import os
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from textual._compositor import Compositor
from textual.screen import Screen
from textual.widget import Widget

counted = {"passes": collections.Counter[str](), "triggers": collections.Counter[str](),
           "updates": collections.Counter[str](), "renders": collections.Counter[str]()}
since: list[float] = []


def _name(widget: Widget) -> str:
    return f"{type(widget).__name__}#{widget.id}" if widget.id else type(widget).__name__


def _stack() -> str:
    frames = [f"{Path(f.filename).name}:{f.lineno}:{f.name}" for f in traceback.extract_stack(limit=16)[:-2]
              if "omeconsole" in f.filename or "textual" in f.filename]
    return " | ".join(frames[-7:])


def install() -> None:
    refresh, refresh_layout = Widget.refresh, Screen._refresh_layout
    render_content = Widget._render_content
    full, partial = Compositor.render_full_update, Compositor.render_partial_update

    def counting_refresh(self: Widget, *regions: Any, repaint: bool = True, layout: bool = False,
                         recompose: bool = False) -> Widget:
        if since and layout and not self._layout_required:
            counted["triggers"][f"{_name(self)} <- {_stack()}"] += 1
        return refresh(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    def counting_layout(self: Screen[Any], size: Any = None, scroll: bool = False) -> None:
        if since and not (scroll and not self._layout_widgets):
            asked = sorted({_name(w) for ws in self._layout_widgets.values() for w in ws}) or ["(resize)"]
            counted["passes"][f"{type(self).__name__}: {', '.join(asked)}"] += 1
        refresh_layout(self, size, scroll)

    def counting_render(self: Widget) -> Any:
        if since:
            counted["renders"][_name(self)] += 1
        return render_content(self)

    def counting_full(self: Compositor, simplify: bool = False) -> Any:
        if since:
            counted["updates"]["whole screen"] += 1
        return full(self, simplify)

    def counting_partial(self: Compositor) -> Any:
        if since:
            counted["updates"]["partial"] += 1
        return partial(self)

    Widget.refresh = counting_refresh  # type: ignore[method-assign]
    Screen._refresh_layout = counting_layout  # type: ignore[method-assign]
    Widget._render_content = counting_render  # type: ignore[method-assign]
    Compositor.render_full_update = counting_full  # type: ignore[method-assign]
    Compositor.render_partial_update = counting_partial  # type: ignore[method-assign]


def report(out: str, warm: float) -> None:
    time.sleep(warm)
    since.append(time.monotonic())
    while True:
        time.sleep(2)
        lines = [f"seconds counted: {time.monotonic() - since[0]:.1f}"]
        for title, key in (("layout passes (who asked)", "passes"), ("compositor updates", "updates"),
                           ("refresh(layout=True), with its stack", "triggers"),
                           ("content rendered again, per widget", "renders")):
            lines.append(f"== {title}")
            lines += [f"{count:6d} {what}" for what, count in counted[key].most_common()]
        Path(out).write_text("\n".join(lines) + "\n")


def main() -> int:
    out, args = sys.argv[1], sys.argv[2:]
    warm = 12.0
    if args[:1] == ["--warm"]:
        warm, args = float(args[1]), args[2:]
    floor = args[:1] == ["--floor"]
    install()
    threading.Thread(target=report, args=(out, warm), daemon=True).start()
    if floor:
        sys.path.insert(0, str(Path(__file__).parent))
        sys.argv = ["floor_app.py", *args[1:]]
        from floor_app import main as run_floor

        return run_floor()
    sys.argv = ["omeconsole", *args]
    sys.path.insert(0, os.getcwd())
    from omeconsole.cli.main import main as console

    return console()


if __name__ == "__main__":
    raise SystemExit(main())
