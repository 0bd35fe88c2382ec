"""A stream's ad operations changed (a read, a send, a sighting): tell the screens, which redraw themselves.

`relay_changes(app, adops)` is called once per session. The core says only "this stream changed";
each screen on the stack gets an `AdOpsChanged` addressed to it (Toolong's small message to the
owner of the data) and decides whether it shows that stream. Outcomes are not relayed: a send's
outcome reaches the UI by one route, its flow's return value.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.message import Message

from omeconsole.core.adops.operations import AdOps
from omeconsole.model.paths import NodePath


class AdOpsChanged(Message, bubble=False):
    """The ad operations of `path` changed: redraw what shows them."""

    def __init__(self, path: NodePath) -> None:
        super().__init__()
        self.path = path


def relay_changes(app: App[Any], adops: AdOps) -> None:
    """From now on, every change of a stream of `adops` reaches every screen of `app` as `AdOpsChanged`."""

    def changed(path: NodePath) -> None:
        for screen in app.screen_stack:
            screen.post_message(AdOpsChanged(path))

    adops.observe(changed)
