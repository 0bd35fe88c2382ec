"""The names nearest to one a user typed that does not exist (`--select default/app/streem`, a jump, a
config key): so a typo is answered with what was probably meant, never silently with something else."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Jump:
    """What a jump (`:` and a name) found: the node, or why not and the names nearest to what was typed."""

    path: NodePath | None
    problem: str = ""
    nearest: tuple[str, ...] = ()


def jump_names(listing: Listing) -> list[str]:
    """What a jump completes: every listed path, and each host, application and stream name that names one
    node only (so `news` reaches `default/app/news`)."""
    paths = listed_paths(listing)
    owners: dict[str, list[NodePath]] = {}
    for path in paths:
        owners.setdefault(path.segments[-1], []).append(path)
    unique = [name for name, found in owners.items() if len(found) == 1 and name != str(found[0])]
    return [*(str(path) for path in paths), *sorted(unique, key=str.casefold)]


def resolve_jump(typed: str, listing: Listing) -> Jump:
    """The node `typed` names: a listed path, a name only one node has, or the one node whose path contains
    it (any case); otherwise why not, with the nearest names."""
    wanted = typed.strip().strip("/")
    paths = listed_paths(listing)
    if not wanted:
        return Jump(None, "type a host, application or stream name")
    by_text = {str(path): path for path in paths}
    if wanted in by_text:
        return Jump(by_text[wanted])
    named = [path for path in paths if path.segments[-1] == wanted]
    if len(named) == 1:
        return Jump(named[0])
    lowered = wanted.casefold()
    containing = [path for path in paths if lowered in str(path).casefold()]
    if len(containing) == 1:
        return Jump(containing[0])
    if len(named) > 1 or len(containing) > 1:
        choices = named or containing
        return Jump(None, f"{len(choices)} nodes match", tuple(str(path) for path in choices[:5]))
    return Jump(None, "no node of that name is listed", tuple(nearest_words(wanted, jump_names(listing), 5)))
