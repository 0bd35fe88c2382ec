"""Today's engine listing (vhost -> app -> live names) and the app's ended streams, as a `Listing`.

A bridge until the polling engine hands out a `Listing` itself. It keeps the contract the tree relies
on: an application's `AppStreams` is the same object for as long as its streams and ended streams are
the same (the engine replaces an app's list only when it changed), and an unchanged listing is the
same object, so the tree re-arranges only what moved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from omeconsole.model.nodes import AppStreams, Listing
from omeconsole.model.paths import NodePath

EngineTree = Mapping[str, Mapping[str, Sequence[str]]]


class ListingAdapter:
    def __init__(self) -> None:
        self._apps: dict[tuple[str, str], tuple[Sequence[str], tuple[str, ...], AppStreams]] = {}
        self._tree: EngineTree | None = None
        self._ended: tuple[NodePath, ...] = ()
        self._listing: Listing = {}

    def listing(self, tree: EngineTree, ended: Iterable[NodePath]) -> Listing:
        """The listing of `tree` plus the `ended` streams (kept on with their history)."""
        ended_now = tuple(ended)
        if tree is self._tree and ended_now == self._ended:
            return self._listing
        ended_by_app: dict[tuple[str, str], list[str]] = {}
        for path in ended_now:
            if path.stream is not None:
                ended_by_app.setdefault((path.vhost, path.app or ""), []).append(path.stream)
        listing: dict[str, dict[str, AppStreams]] = {}
        apps: dict[tuple[str, str], tuple[Sequence[str], tuple[str, ...], AppStreams]] = {}
        for vhost, names_by_app in tree.items():
            listing[vhost] = {}
            for app, live in names_by_app.items():
                listing[vhost][app] = self._streams(apps, (vhost, app), live, ended_by_app.pop((vhost, app), []))
        for (vhost, app), names in ended_by_app.items():  # the application itself is gone too
            listing.setdefault(vhost, {})[app] = self._streams(apps, (vhost, app), (), names)
        self._apps, self._tree, self._ended, self._listing = apps, tree, ended_now, listing
        return listing

    def _streams(self, apps: dict[tuple[str, str], tuple[Sequence[str], tuple[str, ...], AppStreams]],
                 key: tuple[str, str], live: Sequence[str], ended: list[str]) -> AppStreams:
        ended_names = tuple(sorted(ended))
        cached = self._apps.get(key)
        if cached is not None and cached[0] is live and cached[1] == ended_names:
            streams = cached[2]
        else:
            streams = AppStreams(tuple(live), ended_names)
        apps[key] = (live, ended_names, streams)
        return streams
