"""A node as the operator names it: `vhost/app/stream`, or `PROFILE:vhost/app/stream` for a fleet.

Everything before the first `:` is the profile, unless it holds a `/` (then there is no profile and
the `:` is part of a name). A virtual host whose name has a `:` in it is written with an empty
profile in front: `:my:vhost/app/stream`.
"""

from __future__ import annotations

from dataclasses import dataclass

from omeconsole.model.paths import NodePath


@dataclass(frozen=True, slots=True)
class Target:
    profile: str | None
    path: NodePath

    @classmethod
    def parse(cls, text: str) -> Target:
        """ValueError, naming the form, for anything that is not [PROFILE:]vhost[/app[/stream]]."""
        profile: str | None = None
        rest = text.strip()
        prefix, colon, after = rest.partition(":")
        if colon and "/" not in prefix:
            profile, rest = (prefix.strip() or None), after
        try:
            path = NodePath.parse(rest)
        except ValueError:
            raise ValueError(f"not a node of the form [PROFILE:]vhost[/app[/stream]]: {text!r}") from None
        return cls(profile, path)

    def __str__(self) -> str:
        """The form `parse` reads back (raw server text: show it through the display rules, never raw)."""
        if self.profile:
            return f"{self.profile}:{self.path}"
        return f":{self.path}" if ":" in self.path.vhost else str(self.path)
