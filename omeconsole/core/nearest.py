"""The names nearest to one a user typed that does not exist (`--select default/app/streem`, a jump, a
config key): so a typo is answered with what was probably meant, never silently with something else."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from omeconsole.model.nodes import Listing
from omeconsole.model.paths import NodePath


def nearest_words(wanted: str, known: Iterable[str], count: int = 3) -> list[str]:
    """Up to `count` of `known` that read most like `wanted`, closest first (none when nothing is close)."""
    return difflib.get_close_matches(wanted, list(known), n=count, cutoff=0.6)


def listed_paths(listing: Listing) -> list[NodePath]:
    """Every host, application and live stream of a listing."""
    paths: list[NodePath] = []
    for vhost, apps in listing.items():
        paths.append(NodePath(vhost))
        for app, streams in apps.items():
            paths.append(NodePath(vhost, app))
            paths.extend(NodePath(vhost, app, stream) for stream in streams.live)
    return paths


def nearest_paths(wanted: NodePath, listing: Listing, count: int = 3) -> list[NodePath]:
    """The listed nodes of `wanted`'s level whose paths read most like it."""
    same_level = {str(path): path for path in listed_paths(listing) if path.level == wanted.level}
    return [same_level[name] for name in nearest_words(str(wanted), same_level, count)]
