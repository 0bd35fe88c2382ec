"""The names nearest to one a user typed that does not exist (`--select default/app/streem`, a jump, a
config key): so a typo is answered with what was probably meant, never silently with something else.

A jump (`:` and a name) searches the listing on screen, then on a fleet the other servers' listings: a name
the server on screen has is that server's node (an origin and its edges share their streams' names);
one only another server has goes to that server (`Jump.server`); `PROFILE:path` names the server."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

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
    server: str | None = None
    """The fleet's server the node is on when it is another than the one on screen."""


NOT_LISTED = "no node of that name is listed"


@dataclass(frozen=True)
class JumpScope:
    """What a jump searches: the listing of the server on screen, then (on a fleet) each other server's."""

    here: Listing
    others: Mapping[str, Listing] = field(default_factory=dict)
    """By profile, in the fleet's order."""
    current: str | None = None
    """The profile of the server on screen, on a fleet."""


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
    return Jump(None, NOT_LISTED, tuple(nearest_words(wanted, jump_names(listing), 5)))


def scope_names(scope: JumpScope) -> list[str]:
    """What a jump completes on a fleet: the screen's server's names (`jump_names`), every other server's
    paths as `PROFILE:path`, and each name that only one node of one other server has."""
    here = jump_names(scope.here)
    known_here = {path.segments[-1] for path in listed_paths(scope.here)}
    owners: dict[str, set[tuple[str, NodePath]]] = {}
    qualified: list[str] = []
    for profile, listing in scope.others.items():
        for path in listed_paths(listing):
            qualified.append(f"{profile}:{path}")
            owners.setdefault(path.segments[-1], set()).add((profile, path))
    elsewhere = [name for name, found in owners.items() if len(found) == 1 and name not in known_here]
    return [*here, *sorted(elsewhere, key=str.casefold), *qualified]


def resolve_scope_jump(typed: str, scope: JumpScope) -> Jump:
    """The node `typed` names on the screen's server (`resolve_jump`), else on the one other server that
    has it; `PROFILE:path` looks on that server only. Nothing found, or found on several other servers:
    why not, with the nearest names (qualified by their server)."""
    wanted = typed.strip()
    profile, colon, rest = wanted.partition(":")
    if colon and profile == scope.current:
        return resolve_jump(rest, scope.here)
    if colon and profile in scope.others:
        jump = resolve_jump(rest, scope.others[profile])
        return replace(jump, server=profile if jump.path is not None else None,
                       nearest=tuple(f"{profile}:{name}" for name in jump.nearest))
    here = resolve_jump(wanted, scope.here)
    if here.path is not None or here.problem != NOT_LISTED or not scope.others:
        return here
    found = [(name, jump.path) for name, listing in scope.others.items()
             if (jump := resolve_jump(wanted, listing)).path is not None]
    if len(found) == 1:
        return Jump(found[0][1], server=found[0][0])
    if found:
        return Jump(None, f"{len(found)} other servers have it", tuple(f"{name}:{path}" for name, path in found[:5]))
    return Jump(None, f"{NOT_LISTED} on any server", tuple(nearest_words(wanted, scope_names(scope), 5)))
