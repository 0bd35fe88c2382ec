"""The selected stream's picture in the stream view, and a line that says whether it is alive.

Drawn with the best method the terminal has: Sixel or Kitty graphics where the terminal said so when the
console started (live/terminal_graphics.py), half blocks everywhere else, the browser included; the panel's
title says which ("picture · sixel"), so an operator knows whether the pixels are the server's or a
two-pixels-a-cell approximation. Only pixels reach it: the image given to the drawing library is built here from the
decoded RGB bytes (core/thumbnails/decode.py), so nothing else of the server's file is ever written out.
The caption says "frozen 0:12" once the picture has not changed for the configured time, "black" (or
"uniform") when it is one flat colour, and why there is no picture when there is none.
"""

from __future__ import annotations

from PIL import Image as PILImage
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static
from textual_image.widget import HalfcellImage

from omeconsole.core.text import visible
from omeconsole.core.thumbnails.decode import Picture
from omeconsole.core.thumbnails.watch import Verdict
from omeconsole.live.terminal_graphics import GraphicsMethod, known_method
from omeconsole.ui.widgets.kitty_picture import KittyPicture
from omeconsole.ui.widgets.sixel_picture import SixelPicture

_WIDGETS: dict[GraphicsMethod, type[Widget]] = {
    "sixel": SixelPicture, "kitty": KittyPicture, "half blocks": HalfcellImage}
NOTE_LIMIT = 160


def clock_text(seconds: float) -> str:
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def caption(verdict: Verdict | None, note: str) -> Text:
    """The line under the picture."""
    if note:
        return Text(visible(note, NOTE_LIMIT), style="italic")
    if verdict is None:
        return Text("")
    if verdict.look == "frozen":
        return Text(f"frozen {clock_text(verdict.unchanged_s)}", style="bold")
    if verdict.look in ("black", "uniform"):
        return Text(verdict.look, style="bold")
    return Text("picture live")


class ThumbnailView(Vertical):
    DEFAULT_CSS = """
    ThumbnailView { height: auto; max-height: 14; width: 100%; border: round $border; border-title-color: $text-muted; }
    ThumbnailView #thumbnail-picture { width: 36; height: 10; }
    ThumbnailView #thumbnail-caption { height: 1; width: 1fr; padding: 0 1; }
    ThumbnailView.-alarm #thumbnail-caption { color: $warning; }
    ThumbnailView.-blank #thumbnail-picture { display: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.method: GraphicsMethod = known_method()

    def compose(self) -> ComposeResult:
        yield _WIDGETS[self.method](id="thumbnail-picture")
        yield Static(id="thumbnail-caption")

    def on_mount(self) -> None:
        self.border_title = f"picture · {self.method}"
        self.set_class(True, "-blank")

    def show(self, picture: Picture | None, verdict: Verdict | None, note: str) -> None:
        """The latest picture (None: none yet), how it looks, and why it is missing or old ("" when it is not)."""
        alarm = verdict is not None and verdict.look != "moving"
        self.set_class(alarm, "-alarm")
        self.set_class(picture is None, "-blank")
        if picture is not None:
            image = PILImage.frombytes("RGB", (picture.width, picture.height), picture.rgb)
            self.query_one("#thumbnail-picture").image = image  # type: ignore[attr-defined]
        self.query_one("#thumbnail-caption", Static).update(caption(verdict, note))

    @property
    def caption_text(self) -> str:
        return str(self.query_one("#thumbnail-caption", Static).render())
