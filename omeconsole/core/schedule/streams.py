"""The streams a schedule sends to: its path, or what its pattern matches in the listing at this run.

`matches_now` answers `omeconsole schedule list`: every schedule's streams as the listing shows them now,
each level of the listing read once however many schedules ask for it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from omeconsole.api.errors import NotFoundError
from omeconsole.core.schedule.model import PATTERN_CHARS, Schedule
from omeconsole.model.paths import NodePath

MAX_MATCHES = 1000
"""A pattern sends to at most this many streams (the first by name) at one run."""


class Lister(Protocol):
    """What is read of the management API: the listing, level by level (`OmeClient`)."""

    async def list_vhosts(self) -> list[str]: ...

    async def list_apps(self, vhost: str) -> list[str]: ...

    async def list_streams(self, vhost: str, app: str) -> list[str]: ...


async def resolve(client: Lister, schedule: Schedule) -> list[NodePath]:
    """The stream, or every listed stream the pattern matches (sorted); OmeError when the listing fails."""
    if not schedule.is_pattern:
        return [NodePath.parse(schedule.stream)]
    vhost_pattern, app_pattern, stream_pattern = schedule.stream.split("/")
    found: list[NodePath] = []
    for vhost in await _level(vhost_pattern, client.list_vhosts):
        for app in await _level(app_pattern, _apps(client, vhost)):
            names = await client.list_streams(vhost, app)
            found += [NodePath(vhost, app, name) for name in names if fnmatch.fnmatchcase(name, stream_pattern)]
    return sorted(found, key=str)[:MAX_MATCHES]


class _Once:
    """A `Lister` that asks the server for each level once (one `schedule list` reads it for every schedule)."""

    def __init__(self, client: Lister) -> None:
        self._client = client
        self._vhosts: list[str] | None = None
        self._apps: dict[str, list[str]] = {}
        self._streams: dict[tuple[str, str], list[str]] = {}

    async def list_vhosts(self) -> list[str]:
        if self._vhosts is None:
            self._vhosts = await self._client.list_vhosts()
        return self._vhosts

    async def list_apps(self, vhost: str) -> list[str]:
        if vhost not in self._apps:
            self._apps[vhost] = await self._client.list_apps(vhost)
        return self._apps[vhost]

    async def list_streams(self, vhost: str, app: str) -> list[str]:
        if (vhost, app) not in self._streams:
            self._streams[(vhost, app)] = await self._client.list_streams(vhost, app)
        return self._streams[(vhost, app)]


async def matches_now(client: Lister, schedules: Sequence[Schedule]) -> dict[str, list[NodePath]]:
    """Every schedule's streams in the listing now: the pattern's matches, or the stream itself if listed
    (an application or host that does not exist lists nothing). OmeError when the server cannot be read."""
    once = _Once(client)
    found: dict[str, list[NodePath]] = {}
    for schedule in schedules:
        if schedule.is_pattern:
            found[schedule.name] = await _tolerant(once, schedule)
            continue
        vhost, app, stream = schedule.stream.split("/")
        listed = vhost in await once.list_vhosts() and app in await once.list_apps(vhost) \
            and stream in await once.list_streams(vhost, app)
        found[schedule.name] = [NodePath(vhost, app, stream)] if listed else []
    return found


async def _tolerant(once: _Once, schedule: Schedule) -> list[NodePath]:
    """A pattern naming a host or application that does not exist matches nothing (the server's 404)."""
    try:
        return await resolve(once, schedule)
    except NotFoundError:
        return []


def _apps(client: Lister, vhost: str) -> Callable[[], Awaitable[list[str]]]:
    return lambda: client.list_apps(vhost)


async def _level(pattern: str, listing: Callable[[], Awaitable[list[str]]]) -> list[str]:
    if not any(c in PATTERN_CHARS for c in pattern):
        return [pattern]
    return sorted(name for name in await listing() if fnmatch.fnmatchcase(name, pattern))
