"""The server's tree as the console lists it: vhost -> app -> AppStreams(live, ended), copy-on-write.

Each listing answer changes only its own part: a root answer the set of vhosts, a vhost answer its
apps, an app answer that app's `AppStreams`, which is replaced only when its streams changed, so a
reader can compare apps with `is`. Work is per app: an unchanged answer costs one tuple compare, a
changed one a set of that app's streams; nothing walks all 10,000 streams of a large server.

Streams gone from an app's listing stay in its `ended` tuple (with the time they went and the time
they were last seen) for `keep` seconds; listed again, they are live again. Names are data: any text
is listed, including names the API cannot address (those are never asked about).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from omeconsole.core.polling.jobs import ListingJob
from omeconsole.model.nodes import AppStreams, Listing
from omeconsole.model.paths import NodePath, addressable_name

ROOT = ListingJob()
_NO_STREAMS = AppStreams(())


@dataclass(frozen=True, slots=True)
class ListingChange:
    changed: bool = False
    """Some AppStreams (or the vhost or app sets) were replaced: the tree must be redrawn."""
    gone: tuple[NodePath, ...] = ()
    """Nodes no longer listed: streams, and vhosts or apps with everything under them."""
    back: tuple[NodePath, ...] = ()
    """Streams listed again (they had ended)."""


@dataclass(frozen=True, slots=True)
class Ended:
    at: float
    """Console time the stream was first seen gone."""
    last_seen: float | None
    """Console time of the last listing that still had it."""


class ListingBook:
    def __init__(self) -> None:
        self._tree: dict[str, dict[str, AppStreams]] = {}
        self._attempted: dict[ListingJob, float] = {}
        self._listed: dict[ListingJob, float] = {}
        self._ended: dict[tuple[str, str], dict[str, Ended]] = {}
        self._next_expiry = math.inf
        self._jobs: list[ListingJob] | None = None
        """The listings worth asking for, worked out again only when the vhosts or apps change."""

    def listing(self) -> Listing:
        return self._tree

    # -- what is due ----------------------------------------------------------------------------

    def jobs(self) -> list[ListingJob]:
        """Every listing worth asking for: the root, each addressable vhost's apps, each addressable
        app's streams. Do not modify the list."""
        if self._jobs is None:
            jobs = [ROOT]
            for vhost, apps in self._tree.items():
                if addressable_name(vhost):
                    jobs.append(ListingJob(vhost))
                    jobs.extend(ListingJob(vhost, app) for app in apps if addressable_name(app))
            self._jobs = jobs
        return self._jobs

    def attempted_at(self, job: ListingJob) -> float:
        return self._attempted.get(job, -math.inf)

    def sent(self, job: ListingJob, now: float) -> None:
        self._attempted[job] = now

    def make_due(self, job: ListingJob) -> None:
        """Asked for again at the next chance (the link came back, a poll found a node gone, `r`)."""
        self._attempted.pop(job, None)

    def complete(self) -> bool:
        """Every listing has been answered at least once."""
        return all(job in self._listed for job in self.jobs())

    # -- answers --------------------------------------------------------------------------------

    def apply(self, job: ListingJob, names: tuple[str, ...], now: float) -> ListingChange:
        before = self._listed.get(job)
        self._listed[job] = now
        if job.vhost is None:
            return self._vhosts(names)
        if job.app is None:
            return self._apps(job.vhost, names)
        return self._streams(job.vhost, job.app, names, now, before)

    def missing(self, job: ListingJob, now: float) -> ListingChange:
        """The listed parent itself is gone (404): it goes, with everything under it."""
        self._listed[job] = now
        if job.vhost is None or job.vhost not in self._tree:
            return ListingChange()
        if job.app is None:
            return self._vhosts(tuple(v for v in self._tree if v != job.vhost))
        return self._apps(job.vhost, tuple(a for a in self._tree[job.vhost] if a != job.app))

    def _vhosts(self, names: tuple[str, ...]) -> ListingChange:
        old = self._tree
        if tuple(old) == names:
            return ListingChange()
        self._tree = {vhost: old.get(vhost, {}) for vhost in names}
        self._jobs = None
        gone = tuple(NodePath(vhost) for vhost in old if vhost not in self._tree)
        for path in gone:
            self._drop_under(path.vhost, None)
        return ListingChange(True, gone)

    def _apps(self, vhost: str, names: tuple[str, ...]) -> ListingChange:
        old = self._tree.get(vhost)
        if old is None or tuple(old) == names:
            return ListingChange()
        apps = {app: old.get(app, _NO_STREAMS) for app in names}
        self._tree = {**self._tree, vhost: apps}
        self._jobs = None
        gone = tuple(NodePath(vhost, app) for app in old if app not in apps)
        for path in gone:
            self._drop_under(vhost, path.app)
        return ListingChange(True, gone)

    def _streams(self, vhost: str, app: str, names: tuple[str, ...], now: float,
                 before: float | None) -> ListingChange:
        """`before`: when this app's streams were last listed (the last time a stream now gone was seen)."""
        apps = self._tree.get(vhost)
        old = apps.get(app) if apps is not None else None
        if apps is None or old is None or old.live == names:
            return ListingChange()
        listed = set(names)
        ended = dict(self._ended.get((vhost, app), {}))
        back = tuple(NodePath(vhost, app, name) for name in ended if name in listed)
        for path in back:
            del ended[path.stream or ""]
        gone = tuple(NodePath(vhost, app, name) for name in old.live if name not in listed)
        for path in gone:
            ended[path.stream or ""] = Ended(now, before)
            self._next_expiry = min(self._next_expiry, now)
        self._set_app(vhost, app, AppStreams(names, tuple(ended)), ended)
        return ListingChange(True, gone, back)

    # -- ended streams --------------------------------------------------------------------------

    def ended(self, path: NodePath) -> Ended | None:
        if path.app is None or path.stream is None:
            return None
        return self._ended.get((path.vhost, path.app), {}).get(path.stream)

    def expire(self, now: float, keep: float) -> tuple[NodePath, ...]:
        """Ended streams older than `keep` leave the listing; returns them."""
        if now < self._next_expiry + keep:
            return ()
        expired: list[NodePath] = []
        next_expiry = math.inf
        for (vhost, app), ended in list(self._ended.items()):
            old = [name for name, entry in ended.items() if now - entry.at > keep]
            if old:
                kept = {name: entry for name, entry in ended.items() if name not in old}
                live = self._tree.get(vhost, {}).get(app)
                if live is not None:
                    self._set_app(vhost, app, AppStreams(live.live, tuple(kept)), kept)
                expired.extend(NodePath(vhost, app, name) for name in old)
                ended = kept
            next_expiry = min([next_expiry, *(entry.at for entry in ended.values())])
        self._next_expiry = next_expiry
        return tuple(expired)

    def _set_app(self, vhost: str, app: str, streams: AppStreams, ended: dict[str, Ended]) -> None:
        self._tree = {**self._tree, vhost: {**self._tree[vhost], app: streams}}
        if ended:
            self._ended[(vhost, app)] = ended
        else:
            self._ended.pop((vhost, app), None)

    def _drop_under(self, vhost: str, app: str | None) -> None:
        """Forget the listing times and ended streams of a vhost or app that is gone."""
        for key in [k for k in self._ended if k[0] == vhost and (app is None or k[1] == app)]:
            del self._ended[key]
        for record in (self._attempted, self._listed):
            for job in [j for j in record if j.vhost == vhost and (app is None or j.app == app)]:
                del record[job]
