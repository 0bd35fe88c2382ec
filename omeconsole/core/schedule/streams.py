"""The streams a schedule sends to: its path, or what its pattern matches in the listing at this run."""

from __future__ import annotations

import fnmatch
from collections.abc import Awaitable, Callable

from omeconsole.api.client import OmeClient
from omeconsole.core.schedule.model import PATTERN_CHARS, Schedule
from omeconsole.model.paths import NodePath

MAX_MATCHES = 1000
"""A pattern sends to at most this many streams (the first by name) at one run."""


async def resolve(client: OmeClient, schedule: Schedule) -> list[NodePath]:
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


def _apps(client: OmeClient, vhost: str) -> Callable[[], Awaitable[list[str]]]:
    return lambda: client.list_apps(vhost)


async def _level(pattern: str, listing: Callable[[], Awaitable[list[str]]]) -> list[str]:
    if not any(c in PATTERN_CHARS for c in pattern):
        return [pattern]
    return sorted(name for name in await listing() if fnmatch.fnmatchcase(name, pattern))
