"""What a screen asks the app to open: screens never import the screens they open (or each other), they
post one of these and the app builds the screen (`ui/screen_routes.py`). A replay's app answers `OpenNode`
with its own node screen, so a screen opens the right kind without knowing which kinds exist.

The messages bubble from the screen that posts them to the app; each carries what the opened screen is
built from (the poster's `LiveSession`: in a fleet, the server the operator is on)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from textual.message import Message

from omeconsole.core.adops.controller import StreamController
from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.nearest import Jump, JumpScope
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.widgets.status_bar import StatusLine


@dataclass
class OpenNode(Message):
    """The node view of `path` (Enter on a row, a child, an alert)."""

    live: LiveSession
    path: NodePath
    instead: bool = False
    """Replace the screen that asks (the alerts list gives way to the node it names)."""


@dataclass
class OpenAlerts(Message):
    """The alerts list (A): the session's rules, or every server's (`evaluators`, a fleet's)."""

    live: LiveSession
    evaluators: Sequence[AlertEvaluator] = field(default_factory=tuple)


@dataclass
class OpenSchedules(Message):
    """The schedules screen (S)."""

    live: LiveSession


@dataclass
class OpenAdBreak(Message):
    """A stream's ad-break panel (a, and after an accepted cue-out)."""

    live: LiveSession
    controller: StreamController


@dataclass
class OpenAdEvents(Message):
    """The list of every event sent (E); `status_line`: the asking screen's, for its node's age and break."""

    live: LiveSession
    status_line: Callable[[], StatusLine]


@dataclass
class AskJump(Message):
    """The jump prompt (:) over what `scope` gives (this server's listing, a fleet's other servers too);
    `answer` gets the chosen node and its server (None: nothing chosen)."""

    scope: Callable[[], JumpScope]
    answer: Callable[[Jump | None], None]


@dataclass
class AskCopy(Message):
    """The copy picker (y): (what, text) pairs, the text built by the console (an encoded path or URL)."""

    choices: list[tuple[str, str]]


@dataclass
class ShowExported(Message):
    """What an export (e) wrote, with its files."""

    what: str
    paths: list[Path]
