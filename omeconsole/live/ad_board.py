"""The ad breaks the console shows outside the ad-break screen: on tree rows, headers and the status line.

One `AdBoard` per session. Every stream controller the console's screens use is taken from here
(`controller(path)`, which is `AdOps.stream(path)`), so the board knows every stream this console
has sent to, watched or followed, and can say in a few characters where a break stands (`AD 0:24`)
and which streams of an application or host are on air, whoever sent the break. It is the session's
one listener of `AdOps` and hands every change on, with whether what a row, header or status line
shows of the stream changed (the app relays it to its screens as one message, `AdOpsChanged`).

Given the session's engine, the board also follows the playlists of the streams on screen
(`core.adops.playlist_watch`) while any screen asks it to (`follow_playlists`): that is how a break the
console did not send reaches the badges.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from omeconsole.core.adops.ad_break import BreakState, BreakView
from omeconsole.core.adops.controller import StreamController
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.adops.playlist_watch import FirstSeen, PlaylistWatch, WatchedScreen, stop
from omeconsole.core.listeners import Listeners, Unsubscribe
from omeconsole.model.paths import NodePath
from omeconsole.model.server import ServerInfo

Listener = Callable[[NodePath, bool], None]
"""`listener(path, shown)`: `shown` says whether what a row, header or status line shows of it changed."""


def countdown(seconds: float) -> str:
    """`0:24`, `12:05`: whole seconds left, rounded up (a break with 0.2 s left still reads 0:01)."""
    whole = max(0, int(seconds + 0.999))
    return f"{whole // 60:d}:{whole % 60:02d}"


@dataclass(frozen=True)
class AdBadge:
    """A break's state in a few characters: `AD 0:24` on air, `AD sending`, `AD ?` (outcome unknown)."""

    state: BreakState
    text: str
    sent_here: bool = True
    """False for a break seen in the playlist that this console did not send."""

    @property
    def on_air(self) -> bool:
        return self.state is BreakState.ON_AIR

    @property
    def labelled(self) -> str:
        """The badge with its origin when someone else sent it: `AD 0:24 · not sent here`."""
        return self.text if self.sent_here else f"{self.text} · not sent here"


def badge_of(view: BreakView) -> AdBadge | None:
    """None while nothing is going on (idle, or a break that ended)."""
    state = view.state
    if state is BreakState.ON_AIR:
        left = f" {countdown(view.remaining_s)}" if view.remaining_s is not None else " on air"
        return AdBadge(state, f"AD{left}", view.origin != "playlist")
    words = {BreakState.SENT: "AD sending", BreakState.SCHEDULED: "AD soon", BreakState.UNKNOWN: "AD ?",
             BreakState.FAILED: "AD failed"}
    return AdBadge(state, words[state], view.origin != "playlist") if state in words else None


def writes_markers(server: ServerInfo | None) -> bool | None:
    """Whether the server writes ad markers into its playlists (`ServerInfo.markers`): Enterprise does;
    open source 0.18-0.20 only cuts a segment at a cue and 0.21+ refuses cues; None: not known (yet)."""
    if server is None or server.markers.writing == "unknown":
        return None
    return server.markers.writes_tags


class AdBoard:
    def __init__(self, adops: AdOps, engine: WatchedScreen | None = None,
                 server: Callable[[], ServerInfo | None] = lambda: None, *, verify: bool = True) -> None:
        """`engine`: the session's polling engine, whose screen and budget the playlists are followed
        by (None: only the console's own sends and open ad-break screens are known); `server`: what
        detection found (for whether the server writes ad markers at all)."""
        self.adops = adops
        self._known: dict[NodePath, StreamController] = {}
        self._listeners: Listeners[[NodePath, bool]] = Listeners("ad board")
        self._followers = 0
        self._shown: dict[NodePath, tuple[object, ...]] = {}
        self._server = server
        self.watch = None if engine is None else PlaylistWatch(
            engine, adops.publisher_url, self.controller, self._known.get, self._with_break, self._changed,
            adops.clock, markers_written=self.markers_written, verify=verify, own=adops.client.own_reads)
        self._following: asyncio.Task[None] | None = None
        adops.add_listener(self._changed)

    def markers_written(self) -> bool | None:
        """Whether this server writes ad markers (False: breaks sent by others cannot be seen on it)."""
        return writes_markers(self._server())

    def unseeable(self) -> str | None:
        """Why breaks sent by others cannot be seen on this server, or None when they can (or it is not known)."""
        server = self._server()
        if server is None or writes_markers(server) is not False:
            return None
        if server.markers.writing == "refused":
            return "this server refuses cue events: it has no ad breaks to show"
        return "ad breaks sent by others cannot be seen: this server writes no ad markers into playlists"

    @property
    def first_seen(self) -> tuple[FirstSeen, ...]:
        """Breaks seen in playlists that this console did not send, oldest first."""
        return self.watch.first_seen if self.watch is not None else ()

    def _with_break(self) -> list[NodePath]:
        return [path for path, _ in self.active()]

    def controller(self, path: NodePath) -> StreamController:
        """The stream's controller (the one send path); from now on its break is shown everywhere."""
        found = self._known.get(path)
        if found is None:
            found = self._known[path] = self.adops.stream(path)
        return found

    def break_view(self, path: NodePath) -> BreakView | None:
        """The stream's break as its model says now; None for a stream this board has no controller of."""
        controller = self._known.get(path)
        return None if controller is None else controller.view()

    def badge(self, path: NodePath) -> AdBadge | None:
        controller = self._known.get(path)
        return None if controller is None else badge_of(controller.view())

    def active(self, under: NodePath | None = None) -> list[tuple[NodePath, AdBadge]]:
        """Streams (under `under`, or all) with a break going on, on-air ones first, then by path."""
        found = [(path, badge) for path, controller in self._known.items()
                 if (under is None or _within(path, under)) and (badge := badge_of(controller.view())) is not None]
        return sorted(found, key=lambda item: (not item[1].on_air, str(item[0])))

    def add_listener(self, listener: Listener) -> Unsubscribe:
        """`listener(path, shown)` at every change of a stream's ad operations (a read, a send, a sighting)."""
        return self._listeners.add(listener)

    def follow_playlists(self) -> Unsubscribe:
        """The playlists of the streams on screen are followed until every caller has called what this
        returns (a screen that cannot be seen stops asking)."""
        self._followers += 1
        if self.watch is not None and self._following is None:
            self._following = asyncio.get_running_loop().create_task(self.watch.run(), name="playlist watch")
        asked = True

        def unfollow() -> None:
            nonlocal asked
            if not asked:
                return
            asked = False
            self._followers -= 1
            if not self._followers and self._following is not None:
                self._following.cancel()
                self._following = None

        return unfollow

    async def aclose(self) -> None:
        """Stop following playlists (the session ends)."""
        task, self._following = self._following, None
        await stop(task)

    def _shown_of(self, controller: StreamController) -> tuple[object, ...]:
        """What a row, header or status line shows of a stream's break: state, origin, splice, problem."""
        view = controller.view()
        path = controller.path
        problem = self.watch.problem(path) if self.watch is not None else None
        seen = self.watch.seen(path) if self.watch is not None else None
        return (view.state, view.origin, view.splice_wall, view.planned_s, view.in_flight, view.message,
                controller.playlist_problem, problem, seen.ignored if seen is not None else ())

    def _changed(self, path: NodePath) -> None:
        controller = self._known.get(path)
        changed_shown = True
        if controller is not None:
            if self.watch is not None:
                self.watch.noted(controller)
            shown = self._shown_of(controller)
            changed_shown = self._shown.get(path) != shown  # False: a read that changed nothing a row shows
            self._shown[path] = shown
        self._listeners.tell(path, changed_shown)


def _within(path: NodePath, ancestor: NodePath) -> bool:
    node: NodePath | None = path
    while node is not None:
        if node == ancestor:
            return True
        node = node.parent
    return False
