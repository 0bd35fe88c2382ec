"""`y` on a stream: a small list of its path and playback URLs; Enter sends the chosen one to the terminal's
clipboard (OSC 52), Esc cancels. Nothing leaves without that key press.

The console cannot know whether the terminal honoured OSC 52 (many ask first, some ignore it; in the
browser, `omeconsole serve`'s page passes it to the browser's clipboard), so the notice says the text was
sent, and shows it whole, to be selected by hand where the terminal did not take it. The texts are the
console's own (`core/playback`: the percent-encoded path and URLs), never raw server text.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from omeconsole.core.text import visible
from omeconsole.ui.actions import bindings
from omeconsole.ui.widgets.keyed_lists import KeyedOptionList

SENT = "sent to the terminal's clipboard (OSC 52): "


class CopyPicker(ModalScreen[None]):
    BINDINGS = bindings("cancel_prompt")

    def __init__(self, choices: list[tuple[str, str]]) -> None:
        """`choices`: (what, text) pairs, the text exactly what is sent."""
        super().__init__()
        self._choices = choices

    def compose(self) -> ComposeResult:
        width = max(len(what) for what, _ in self._choices)
        with Vertical(classes="prompt") as box:
            box.border_title = "copy"
            yield KeyedOptionList(*(Option(Text(f"{visible(what).ljust(width)}  {visible(text)}"),
                                           id=str(index))
                                    for index, (what, text) in enumerate(self._choices)), id="copy-choices")
            yield Label("Enter sends it to the terminal's clipboard · Esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#copy-choices", OptionList).focus()

    @on(OptionList.OptionSelected, "#copy-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        _what, text = self._choices[int(event.option.id or 0)]
        self.app.copy_to_clipboard(text)
        self.app.notify(SENT + visible(text), title="copy", markup=False)
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
