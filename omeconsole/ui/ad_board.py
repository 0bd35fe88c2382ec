"""The ad breaks the console shows outside the ad-break screen: on tree rows, headers and the status line.

One `AdBoard` per session. Every stream controller the console's screens use is taken from here
(`controller(path)`, which is `AdOps.stream(path)`), so the board knows every stream this console
has sent to or watched, and can say in a few characters where a break stands (`AD 0:24`) and which
streams of an application or host are on air. It is the session's one observer of `AdOps` and
hands its news on to screens that listen (and stop listening when they go).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from omeconsole.core.adops.ad_break import BreakState, BreakView
from omeconsole.core.adops.controller import StreamController
from omeconsole.core.adops.operations import AdOps
from omeconsole.model.paths import NodePath

Listener = Callable[[NodePath], None]


def countdown(seconds: float) -> str:
    """`0:24`, `12:05`: whole seconds left, rounded up (a break with 0.2 s left still reads 0:01)."""
    whole = max(0, int(seconds + 0.999))
    return f"{whole // 60:d}:{whole % 60:02d}"


@dataclass(frozen=True)
class AdBadge:
    """A break's state in a few characters: `AD 0:24` on air, `AD sending`, `AD ?` (outcome unknown)."""

    state: BreakState
    text: str

    @property
    def on_air(self) -> bool:
        return self.state is BreakState.ON_AIR


def badge_of(view: BreakView) -> AdBadge | None:
    """None while nothing is going on (idle, or a break that ended)."""
    state = view.state
    if state is BreakState.ON_AIR:
        left = f" {countdown(view.remaining_s)}" if view.remaining_s is not None else " on air"
        return AdBadge(state, f"AD{left}")
    words = {BreakState.SENT: "AD sending", BreakState.SCHEDULED: "AD soon", BreakState.UNKNOWN: "AD ?",
             BreakState.FAILED: "AD failed"}
    return AdBadge(state, words[state]) if state in words else None


class AdBoard:
    def __init__(self, adops: AdOps) -> None:
        self.adops = adops
        self._known: dict[NodePath, StreamController] = {}
        self._listeners: list[Listener] = []
        adops.observe(self._changed)

    def controller(self, path: NodePath) -> StreamController:
        """The stream's controller (the one send path); from now on its break is shown everywhere."""
        found = self._known.get(path)
        if found is None:
            found = self._known[path] = self.adops.stream(path)
        return found

    def badge(self, path: NodePath) -> AdBadge | None:
        controller = self._known.get(path)
        return None if controller is None else badge_of(controller.view())

    def active(self, under: NodePath | None = None) -> list[tuple[NodePath, AdBadge]]:
        """Streams (under `under`, or all) with a break going on, on-air ones first, then by path."""
        found = [(path, badge) for path, controller in self._known.items()
                 if (under is None or _within(path, under)) and (badge := badge_of(controller.view())) is not None]
        return sorted(found, key=lambda item: (not item[1].on_air, str(item[0])))

    def listen(self, listener: Listener) -> Callable[[], None]:
        """`listener(path)` whenever a stream's ad operations changed; call what this returns to stop."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self, path: NodePath) -> None:
        for listener in list(self._listeners):
            listener(path)


def _within(path: NodePath, ancestor: NodePath) -> bool:
    node: NodePath | None = path
    while node is not None:
        if node == ancestor:
            return True
        node = node.parent
    return False
