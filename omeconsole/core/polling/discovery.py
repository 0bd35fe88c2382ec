"""Discovery: walking the listing endpoints (vhosts, their apps, their streams) into a tree.

A listing pass is a queue of small requests the engine drains under its request budget, so a server
with hundreds of applications is listed over several cycles rather than in one burst. Each answer
updates the tree at once (copy-on-write: a tree handed out earlier never changes under its reader)
and reports which nodes vanished, so the engine can mark them ended.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from omeconsole.api.client import OmeClient
from omeconsole.model.paths import NodePath

Tree = dict[str, dict[str, list[str]]]


@dataclass(frozen=True, slots=True)
class ListingOutcome:
    changed: bool
    gone: list[NodePath]
    """Nodes no longer listed: the engine marks them ended."""
    appeared: list[NodePath]
    """Streams newly listed."""
    listed: list[NodePath] = field(default_factory=list)
    """Every node the answer lists: one the engine had marked ended is live again, even if no listing
    pass saw it gone (it vanished and came back between two passes)."""


@dataclass(frozen=True, slots=True)
class ListingJob:
    """List vhosts (no vhost), a vhost's apps (no app), or an app's streams."""

    vhost: str | None = None
    app: str | None = None

    async def fetch(self, client: OmeClient) -> list[str]:
        if self.vhost is None:
            return await client.list_vhosts()
        if self.app is None:
            return await client.list_apps(self.vhost)
        return await client.list_streams(self.vhost, self.app)


def _subtree_paths(vhost: str, apps: dict[str, list[str]], app: str | None = None) -> list[NodePath]:
    gone: list[NodePath] = []
    for name, streams in apps.items():
        if app is not None and name != app:
            continue
        gone.extend(NodePath(vhost, name, s) for s in streams)
        gone.append(NodePath(vhost, name))
    return gone


class ListingWalker:
    def __init__(self) -> None:
        self.tree: Tree = {}
        self.complete_passes = 0
        self.pass_started_at: float | None = None
        self._queue: deque[ListingJob] = deque()

    @property
    def active(self) -> bool:
        return bool(self._queue)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def start_pass(self, now: float) -> None:
        if not self._queue:
            self._queue.append(ListingJob())
            self.pass_started_at = now

    def take(self, count: int) -> list[ListingJob]:
        jobs: list[ListingJob] = []
        while self._queue and len(jobs) < count:
            jobs.append(self._queue.popleft())
        return jobs

    def retry(self, job: ListingJob) -> None:
        """A job that failed for a passing reason goes back to the front of the queue."""
        self._queue.appendleft(job)

    def _finish_if_done(self) -> None:
        if not self._queue:
            self.complete_passes += 1

    def apply(self, job: ListingJob, names: list[str]) -> ListingOutcome:
        """Records one answer: what changed, what vanished, what appeared."""
        gone: list[NodePath] = []
        appeared: list[NodePath] = []
        changed = False
        present: list[NodePath] = []
        if job.vhost is None:
            new_tree = {v: self.tree.get(v, {}) for v in dict.fromkeys(names)}
            for vhost, apps in self.tree.items():
                if vhost not in new_tree:
                    gone.extend(_subtree_paths(vhost, apps))
                    gone.append(NodePath(vhost))
            changed = list(new_tree) != list(self.tree)
            self.tree = new_tree
            self._queue.extend(ListingJob(v) for v in new_tree)
            present = [NodePath(v) for v in new_tree]
        elif job.app is None:
            old_apps = self.tree.get(job.vhost)
            if old_apps is not None:
                new_apps = {a: old_apps.get(a, []) for a in dict.fromkeys(names)}
                for app in old_apps:
                    if app not in new_apps:
                        gone.extend(_subtree_paths(job.vhost, old_apps, app))
                changed = list(new_apps) != list(old_apps)
                self.tree = {**self.tree, job.vhost: new_apps}
                self._queue.extend(ListingJob(job.vhost, a) for a in new_apps)
                present = [NodePath(job.vhost, a) for a in new_apps]
        else:
            listed = self.tree.get(job.vhost)
            if listed is not None and job.app in listed:
                old_streams = listed[job.app]
                new_streams = list(dict.fromkeys(names))
                kept = set(new_streams)
                gone.extend(NodePath(job.vhost, job.app, s) for s in old_streams if s not in kept)
                before = set(old_streams)
                appeared.extend(NodePath(job.vhost, job.app, s) for s in new_streams if s not in before)
                changed = new_streams != old_streams
                present = [NodePath(job.vhost, job.app, s) for s in new_streams]
                if changed:
                    self.tree = {**self.tree, job.vhost: {**listed, job.app: new_streams}}
        self._finish_if_done()
        return ListingOutcome(changed, gone, appeared, present)

    def apply_missing(self, job: ListingJob) -> ListingOutcome:
        """The listed parent itself is gone (404): drop it and everything under it."""
        gone: list[NodePath] = []
        apps = self.tree.get(job.vhost) if job.vhost is not None else None
        if job.vhost is not None and apps is not None:
            if job.app is None:
                gone = [*_subtree_paths(job.vhost, apps), NodePath(job.vhost)]
                self.tree = {v: a for v, a in self.tree.items() if v != job.vhost}
            elif job.app in apps:
                gone = _subtree_paths(job.vhost, apps, job.app)
                self.tree = {**self.tree, job.vhost: {a: s for a, s in apps.items() if a != job.app}}
        self._finish_if_done()
        return ListingOutcome(bool(gone), gone, [])

    def stream_count(self) -> int:
        return sum(len(streams) for apps in self.tree.values() for streams in apps.values())
