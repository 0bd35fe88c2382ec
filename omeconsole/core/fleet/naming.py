"""A node of a fleet: `PROFILE:vhost/app/stream` on one server, `vhost/app/stream` on every server.

The form is `core/history/target.Target`'s (one parser for the history store and the fleet): the
profile is what comes before the first `:` unless that holds a `/`, and a virtual host with a `:` in
its name is written after an empty profile (`:my:vhost/app`). Names are server data: print a
`Target` through `core.text.visible`, never raw.
"""

from __future__ import annotations

from collections.abc import Sequence

from omeconsole.core.history.target import Target

__all__ = ["Target", "UnknownServer", "bare_profile", "servers_of"]


class UnknownServer(ValueError):
    """A `PROFILE:` that is not one of the fleet's servers."""


def servers_of(target: Target, profiles: Sequence[str]) -> tuple[str, ...]:
    """The servers `target` names among `profiles`: its own, or every one when it names none."""
    if target.profile is None:
        return tuple(profiles)
    if target.profile not in profiles:
        raise UnknownServer(f"{target.profile!r} is not a server of this fleet (servers: {', '.join(profiles)})")
    return (target.profile,)


def bare_profile(text: str) -> str | None:
    """`PROFILE:` with nothing after it (a server as a whole, e.g. to list its virtual hosts): the profile;
    None for anything else."""
    profile, colon, rest = text.partition(":")
    if colon and not rest.strip() and "/" not in profile and profile.strip():
        return profile.strip()
    return None
