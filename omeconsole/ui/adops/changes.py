"""A stream's ad operations changed (a read, a send, a sighting): tell the screens, which redraw themselves.

`relay_changes(app, subscribe)` is called once per session with its ad board's `add_listener`: the one
route of ad-ops news to the screens. The board says only "this stream changed" (and whether a row's
badge did); each screen on the stack gets an `AdOpsChanged` addressed to it (Toolong's small message to
the owner of the data) and decides whether it shows that stream. Outcomes are not relayed: a send's
outcome reaches the UI by one route, its flow's return value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.message import Message

from omeconsole.core.listeners import Unsubscribe
from omeconsole.model.paths import NodePath

Subscribe = Callable[[Callable[[NodePath, bool], None]], Unsubscribe]


class AdOpsChanged(Message, bubble=False):
    """The ad operations of `path` changed: redraw what shows them."""

    def __init__(self, path: NodePath, shown: bool = True) -> None:
        super().__init__()
        self.path = path
        self.shown = shown
        """What a row, header or status line shows of the stream's break changed (its badge)."""


def relay_changes(app: App[Any], subscribe: Subscribe) -> Unsubscribe:
    """From now on, every change `subscribe` hears of reaches every screen of `app` as `AdOpsChanged`."""

    def changed(path: NodePath, shown: bool) -> None:
        for screen in app.screen_stack:
            screen.post_message(AdOpsChanged(path, shown))

    return subscribe(changed)
