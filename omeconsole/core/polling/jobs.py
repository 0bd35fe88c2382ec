"""What the engine asks the server, and what comes back: typed jobs and typed outcomes.

`fetch` is the only place a job meets the network. It never raises (cancellation aside): a server
error, a reply the client could not read, and a bug of our own in one job all come back as `Failed`,
so one bad item cannot end the polling loop.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from omeconsole.api.client import Detection, OmeClient
from omeconsole.api.errors import AuthError, OmeError, RequestTimeout, UnreachableError
from omeconsole.api.own_reads import OwnShare
from omeconsole.core.clock import Clock
from omeconsole.core.polling.own_share import read_stats
from omeconsole.model.app_config import AppConfig
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, StreamInfo

log = logging.getLogger("omeconsole.engine")

NOTHING_OWN = OwnShare()
"""A reading with none of the console's reads in it."""
LINK_ERRORS = (UnreachableError, RequestTimeout, AuthError)
"""Errors that say the server as a whole cannot be used right now (not one node's problem)."""


@dataclass(frozen=True, slots=True)
class StatsJob:
    path: NodePath


@dataclass(frozen=True, slots=True)
class InfoJob:
    """A stream's input: source and tracks."""

    path: NodePath


@dataclass(frozen=True, slots=True)
class AppConfigJob:
    """An application's document: its publishers and outputs (where its streams can be watched)."""

    path: NodePath
    """The application's path."""


@dataclass(frozen=True, slots=True)
class ListingJob:
    """List the virtual hosts (no vhost), a vhost's applications (no app), or an application's streams."""

    vhost: str | None = None
    app: str | None = None


@dataclass(frozen=True, slots=True)
class DetectJob:
    """Which edition and statistics API the server has; the link's first step."""


Job = StatsJob | InfoJob | AppConfigJob | ListingJob | DetectJob


@dataclass(frozen=True, slots=True)
class StatsRead:
    job: StatsJob
    stats: NodeStats
    at: float
    own: OwnShare = NOTHING_OWN
    """What of the reading may have been the console's own publisher reads (`api/own_reads.py`): connections
    open while it was taken, bytes the server can have counted, a peak they may have made."""


@dataclass(frozen=True, slots=True)
class InfoRead:
    job: InfoJob
    info: StreamInfo
    at: float


@dataclass(frozen=True, slots=True)
class AppConfigRead:
    job: AppConfigJob
    config: AppConfig | None
    """None: the document does not list the application's publishers."""
    at: float


@dataclass(frozen=True, slots=True)
class Listed:
    job: ListingJob
    names: tuple[str, ...]
    """The names in the server's order, each once (duplicates dropped); any text, addressable or not."""
    at: float


@dataclass(frozen=True, slots=True)
class Detected:
    job: DetectJob
    detection: Detection
    at: float


@dataclass(frozen=True, slots=True)
class Failed:
    job: Job
    error: Exception
    """An OmeError from the client, or anything else raised inside the job (a bug: counted and shown)."""
    at: float

    @property
    def link_down(self) -> bool:
        """The failure is the server's as a whole (unreachable, timed out, refused token)."""
        return isinstance(self.error, LINK_ERRORS)

    @property
    def message(self) -> str:
        if isinstance(self.error, OmeError):
            return self.error.message
        return internal_error_text(self.error)


Outcome = StatsRead | InfoRead | AppConfigRead | Listed | Detected | Failed

_MAX_ERROR_TEXT = 200


def internal_error_text(error: BaseException) -> str:
    """A bug of our own, in words fit for the status line (bounded; the traceback goes to the log)."""
    text = f"internal error: {type(error).__name__}: {error}"
    return text if len(text) <= _MAX_ERROR_TEXT else text[:_MAX_ERROR_TEXT - 1] + "…"


async def fetch(client: OmeClient, job: Job, clock: Clock) -> Outcome:
    """Runs one job. Never raises except for cancellation."""
    try:
        match job:
            case StatsJob(path):
                stats, share = await read_stats(client, path)
                return StatsRead(job, stats, clock.monotonic(), share)
            case InfoJob(NodePath(vhost, str(app), str(stream))):
                return InfoRead(job, await client.stream_info(vhost, app, stream), clock.monotonic())
            case AppConfigJob(NodePath(vhost, str(app), None)):
                return AppConfigRead(job, await client.app_config(vhost, app), clock.monotonic())
            case ListingJob(None, _):
                names = await client.list_vhosts()
            case ListingJob(str(vhost), None):
                names = await client.list_apps(vhost)
            case ListingJob(str(vhost), str(app)):
                names = await client.list_streams(vhost, app)
            case DetectJob():
                return Detected(job, await client.detect(), clock.monotonic())
            case _:
                raise ValueError(f"a job the engine cannot run: {job!r}")
        return Listed(job, tuple(dict.fromkeys(names)), clock.monotonic())
    except asyncio.CancelledError:
        raise
    except Exception as error:  # one job's trouble, whatever it is, stays that job's
        if not isinstance(error, OmeError):
            log.exception("polling job %r failed", job)
        return Failed(job, error, clock.monotonic())
