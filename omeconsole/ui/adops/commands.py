"""The ad-ops actions in the command palette (ctrl+p), for the stream selected on the screen underneath.

A command runs what its key runs: the binding with the same id in force on that screen (its own, or
the app's), so the palette and the keys cannot drift, and a remapped key remaps both. Titles name the
stream, which is outside text: the palette shows them as data (`Content`, never markup), and the
search highlights matches on that plain text.

A host makes its provider with `ad_ops_commands(selected)`, where `selected(screen)` gives the
stream controller of that screen's selection (None when it is not a stream).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, ClassVar, NamedTuple

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher
from textual.screen import Screen

from omeconsole.core.adops.controller import StreamController
from omeconsole.core.text import visible
from omeconsole.ui.adops.bindings import AD_BREAK, AD_EVENTS, CUE_IN, CUE_OUT, ID3

SelectedController = Callable[[Screen[Any]], StreamController | None]
_TITLES: dict[str, tuple[str, str]] = {
    CUE_OUT: ("Cue-out: start an ad break on {stream}", "Choose the duration, review, send"),
    CUE_IN: ("Cue-in: end the ad break on {stream}", "Ends the current break now"),
    ID3: ("ID3 metadata to {stream}", "TXXX, TIT2 and other text frames, PRIV"),
    AD_BREAK: ("Ad-break panel of {stream}", "State, countdown and the live playlist"),
    AD_EVENTS: ("Ad events: every event sent (audit log)", "This run and earlier ones, by server"),
}


class Command(NamedTuple):
    title: str
    """Plain text, outside text included (never read as markup)."""
    run: Callable[[], object]
    help: str


def highlighted(matcher: Matcher, title: str) -> Content:
    """The title with the query's matches highlighted, built on the plain text (Matcher.highlight reads
    its candidate as markup, which outside text must never be)."""
    content = Content(title)
    _score, offsets = matcher.fuzzy_search.match(matcher.query, title)
    for offset in offsets:
        if not title[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class AdOpsCommands(Provider):
    selected: ClassVar[SelectedController]

    def commands(self) -> Iterator[Command]:
        controller = type(self).selected(self.screen)
        stream = visible(str(controller.path)) if controller is not None else None
        seen: set[str] = set()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            wanted = _TITLES.get(binding.id or "")
            if (wanted is None or binding.id in seen or not active.enabled
                    or ("{stream}" in wanted[0] and stream is None)):
                continue
            seen.add(binding.id or "")
            title, help_text = wanted
            yield Command(title.format(stream=stream), partial(self.app.run_action, binding.action, active.node),
                          help_text)

    async def discover(self) -> Hits:
        for command in self.commands():
            yield DiscoveryHit(Content(command.title), command.run, text=command.title, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(score, highlighted(matcher, command.title), command.run, text=command.title,
                          help=command.help)


def ad_ops_commands(selected: SelectedController) -> type[Provider]:
    """The palette provider for a host whose screens' selection `selected` turns into a stream controller."""
    return type("AdOpsCommands", (AdOpsCommands,), {"selected": staticmethod(selected)})
