"""Ended streams from the history store, in the tree: a stream that ended stays browsable under its
application's "ended" group long after the engine forgot it, and after a restart.

The engine keeps a stream it saw end for a while (`ended_keep_seconds`); the store keeps every recorded
stream for its retention. `RecordedEnded` reads the server's ended streams from the store in a worker
thread (at start, then every `REREAD_S`) and adds those the server no longer lists to their application's
`ended` names in the listing the tree shows, and says each one's life in one line ("ended 3 h 02 min
ago — peak 812 viewers, 14.16 GiB out, 1 h 52 min live"). Only applications the server still lists get
them (an application that is gone is not polled; its streams stay on the ended streams screen, H).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from omeconsole.core.clock import Clock
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.history.summary import StreamSummary
from omeconsole.live.session import LiveSession
from omeconsole.model.nodes import AppStreams, Listing
from omeconsole.model.paths import NodePath

REREAD_S = 60.0
"""How often the store is read again (streams that ended meanwhile join their group)."""


@dataclass(frozen=True)
class EndedSource:
    path: Path
    settings: HistorySettings
    server: str
    """host:port, as the store names the server."""


def read_ended(source: EndedSource) -> list[StreamSummary]:
    """In a worker thread: the server's ended streams, last ended first (a store that cannot be read: none)."""
    from omeconsole.core.history.database import HistoryError
    from omeconsole.core.history.reader import HistoryReader

    try:
        with HistoryReader(source.path, source.settings) as reader:
            found = reader.summaries(source.server, ended=True)
    except HistoryError:
        return []
    return sorted(found, key=lambda summary: summary.ended_at or 0.0, reverse=True)


class RecordedEnded:
    """The recorded ended streams of one server, merged into its listing (see the module docstring)."""

    def __init__(self, source: EndedSource, clock: Clock) -> None:
        self.source = source
        self._clock = clock
        self._by_app: dict[tuple[str, str], dict[str, StreamSummary]] = {}
        self._merged_from: tuple[Listing, int] | None = None
        self._merged: Listing = {}
        self._apps: dict[tuple[str, str], tuple[AppStreams, int, AppStreams]] = {}
        """Per application: the engine's streams, the store version and what they became (kept while both are)."""
        self._version = 0
        self.loaded = asyncio.Event()
        """Set once the store has been read."""

    async def load(self) -> None:
        """Reads the store (in a worker thread); a store that cannot be read holds nothing."""
        summaries = await asyncio.to_thread(read_ended, self.source)
        by_app: dict[tuple[str, str], dict[str, StreamSummary]] = {}
        for summary in summaries:
            path = summary.path
            if path.stream is not None:
                by_app.setdefault((path.vhost, path.app or ""), {})[path.stream] = summary
        self._by_app = by_app
        self._version += 1
        self.loaded.set()

    def merged(self, listing: Listing) -> Listing:
        """`listing` with the recorded ended streams added to their applications; the same object as last time
        while neither changed, and each application's `AppStreams` kept when nothing was added to it."""
        if self._merged_from is not None and self._merged_from[0] is listing and self._merged_from[1] == self._version:
            return self._merged
        merged: dict[str, Mapping[str, AppStreams]] = {}
        for vhost, apps in listing.items():
            added = {app: self._app(vhost, app, streams) for app, streams in apps.items()}
            same = all(added[app] is streams for app, streams in apps.items())
            merged[vhost] = apps if same else added
        self._merged_from, self._merged = (listing, self._version), merged
        return merged

    def _app(self, vhost: str, app: str, streams: AppStreams) -> AppStreams:
        kept = self._apps.get((vhost, app))
        if kept is not None and kept[0] is streams and kept[1] == self._version:
            return kept[2]
        result = _with_recorded(streams, self._by_app.get((vhost, app)))
        if result is streams:
            self._apps.pop((vhost, app), None)
        else:
            self._apps[(vhost, app)] = (streams, self._version, result)
        return result

    def note(self, path: NodePath) -> str | None:
        """An ended stream's recorded life in one line (None: not recorded as ended)."""
        summary = self._by_app.get((path.vhost, path.app or ""), {}).get(path.stream or "")
        return None if summary is None else summary.describe(self._clock.wall().timestamp())


def recorded_ended(live: LiveSession) -> RecordedEnded | None:
    """The recorded ended streams of a live session's server (None: the console records no history)."""
    past = live.past
    return None if past is None else RecordedEnded(EndedSource(past.path, past.settings, past.server), live.clock)


def _with_recorded(streams: AppStreams, recorded: Mapping[str, StreamSummary] | None) -> AppStreams:
    if not recorded:
        return streams
    known = set(streams.live) | set(streams.ended)
    extra = tuple(name for name in recorded if name not in known)
    return AppStreams(streams.live, streams.ended + extra) if extra else streams
