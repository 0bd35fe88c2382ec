"""The command palette (ctrl+p): connect, switch profile, theme, export, pause, refresh.

Commands are built from the app's current state each time the palette opens (the profiles in the
config file, the themes registered), so the list is never stale.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from omeconsole.ui.app import ConsoleApp

Command = tuple[str, Callable[[], object], str]


class ConsoleCommands(Provider):
    @property
    def console(self) -> ConsoleApp:
        return cast("ConsoleApp", self.app)

    def commands(self) -> list[Command]:
        console = self.console
        found: list[Command] = [
            ("Connect to a server…", console.action_connect, "Enter a management API address and token"),
            ("Export the selected node's history", console.action_export, "Write CSV and JSON, show the path"),
            ("Pause / resume polling", console.action_pause, "Stop polling; the data's age keeps counting"),
            ("Refresh now", console.action_refresh, "Poll the selected node and the listing at once"),
        ]
        for profile in console.profile_names():
            found.append((f"Switch profile: {profile}", partial(console.switch_profile, profile),
                          "Connect with this profile from the config file"))
        for theme in sorted(console.available_themes):
            found.append((f"Theme: {theme}", partial(console.set_theme, theme), "Change the colours"))
        return found

    async def discover(self) -> Hits:
        for title, callback, help_text in self.commands():
            if title.startswith("Theme: ") and not title.startswith("Theme: ome-"):
                continue
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self.commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
