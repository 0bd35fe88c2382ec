"""Set-up for the ad-ops UI tests: a host app shaped as the console's screens use ad ops, and what a user sees.

`StreamScreen` stands in for any console screen that shows a stream: it carries `ADOPS_BINDINGS` and
runs the flows from its actions in a worker, opens the ad-break and events screens with everything in
their constructors, and offers the ad-ops palette commands, exactly as the ad-ops contract asks of
the console's screens. `AdOpsHost` is an App around one `Rig` (what a session gives those screens)
with that screen in front. `toasts(app)` and `rendered(widget)` read what the terminal shows.

`HostsTransport` resolves made-up host names to the real loopback servers (as /etc/hosts would), so a
console can talk to `ome.example:8081` while the simulator listens on a free port: what it shows
(server, playlist URL, the request line) is the same on every run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.segment import Segment
from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from omeconsole.api.client import OmeClient
from omeconsole.api.http import Cap, HttpTransport, Method, Reply, Timeouts
from omeconsole.api.publisher import PublisherReader
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.controller import StreamController
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.context import ServerContext
from omeconsole.core.session import Session
from omeconsole.model.paths import NodePath
from omeconsole.model.server import LinkState, ServerInfo
from omeconsole.ui.adops import ADOPS_BINDINGS, cue_in_flow, cue_out_flow, id3_flow, relay_changes
from omeconsole.ui.commands import action_commands
from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.screens.ad_break import AdBreakScreen
from omeconsole.ui.screens.ad_events import AdEventsScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR, load_themes
from omeconsole.ui.widgets.status_bar import StatusLine

THEMES = load_themes([BUILTIN_THEME_DIR]).themes
CONNECTED = LinkState(status="connected", message="connected", server=ServerInfo(
    edition="enterprise", version="0.17.1", git_version="v0.17.1", stats_api="v2", events_supported=True))


TOASTS_STAY_S = 3600.0
"""A toast's timeout is real time: on a loaded machine a test could outrun it; in tests they stay."""


@dataclass
class Rig:
    """What a console session hands the ad-ops screens."""

    adops: AdOps
    settings: Settings
    clock: Clock

    @classmethod
    def of(cls, session: Session) -> Rig:
        return cls(session.adops, session.settings, session.clock)

    @property
    def context(self) -> ServerContext:
        return self.adops.context

    @property
    def audit(self) -> AuditLog:
        return self.adops.audit

    def status_line(self, path: NodePath | None) -> StatusLine:
        """The console's status line for `path` (connected; these tests do not poll)."""
        return StatusLine(connection=CONNECTED, selected=str(path) if path is not None else "", paused=False,
                          interval=self.settings.interval,
                          data_age=0.4, sort="name", filter="")

    def ad_break(self, path: NodePath) -> AdBreakScreen:
        return AdBreakScreen(self.adops.stream(path), self.clock, self.context, settings=self.settings,
                             status_line=lambda: self.status_line(path))

    def events(self) -> AdEventsScreen:
        return AdEventsScreen(self.audit, self.context, self.clock, status_line=lambda: self.status_line(None))

    async def aclose(self) -> None:
        await self.adops.aclose()
        await self.adops.client.aclose()


class StreamScreen(Screen[None]):
    """A screen showing one stream, with the ad-ops keys, as the console's screens have them."""

    BINDINGS = ADOPS_BINDINGS

    def __init__(self, rig: Rig, path: NodePath) -> None:
        super().__init__()
        self.rig = rig
        self.selected = path

    @property
    def controller(self) -> StreamController:
        return self.rig.adops.stream(self.selected)

    def compose(self) -> ComposeResult:
        yield Static(f"stream screen: {self.selected}", markup=False)
        yield Footer()

    @work(group="adops", exit_on_error=False)
    async def action_cue_out(self) -> None:
        outcome = await cue_out_flow(self.app, self.controller, self.rig.settings)
        if outcome is not None and outcome.status == "accepted":
            self.action_ad_break()

    @work(group="adops", exit_on_error=False)
    async def action_cue_in(self) -> None:
        await cue_in_flow(self.app, self.controller, self.rig.settings)

    @work(group="adops", exit_on_error=False)
    async def action_id3(self) -> None:
        await id3_flow(self.app, self.controller, self.rig.settings)

    def action_ad_break(self) -> None:
        self.app.push_screen(self.rig.ad_break(self.selected))

    def action_ad_events(self) -> None:
        self.app.push_screen(self.rig.events())


class AdOpsHost(PaletteApp[None]):
    """An app around one rig: `first(rig)` is the screen in front (a `StreamScreen` by default)."""

    NOTIFICATION_TIMEOUT = TOASTS_STAY_S

    def __init__(self, rig: Rig, path: NodePath, *, theme: str = "ome-dark",
                 first: Callable[[Rig], Screen[Any]] | None = None) -> None:
        super().__init__()
        self.rig = rig
        self.path = path
        self._theme_name = theme
        self._first = first

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from action_commands(screen)  # the console's palette: the keys in force, by name

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self._theme_name
        relay_changes(self, lambda changed: self.rig.adops.add_listener(lambda path: changed(path, True)))
        self.push_screen(StreamScreen(self.rig, self.path) if self._first is None else self._first(self.rig))

    async def on_unmount(self) -> None:
        await self.rig.aclose()


class HostsTransport:
    """The console's transport with made-up host names resolved to real loopback servers."""

    def __init__(self, hosts: Mapping[str, str], **options: Any) -> None:
        self._hosts = dict(hosts)
        self._inner = HttpTransport(**options)

    async def request(self, method: Method, url: str, *, cap: Cap, headers: Mapping[str, str] | None = None,
                      body: bytes | None = None, timeouts: Timeouts | None = None) -> Reply:
        for name, real in self._hosts.items():
            if url.startswith(name):
                url = real + url[len(name):]
                break
        return await self._inner.request(method, url, cap=cap, headers=headers, body=body, timeouts=timeouts)

    async def aclose(self) -> None:
        await self._inner.aclose()


def named_rig(api_url: str, publisher_url: str, token: str, clock: Clock, audit: Path, settings: Settings, *,
              name: str = "http://ome.example:8081", publisher: str = "http://publisher.example:3333",
              profile: str | None = "prod", read_only: bool = False) -> Rig:
    """A rig whose server is called `name` and whose publisher `publisher`, reaching the real ones."""
    hosts = {name: api_url, publisher: publisher_url}
    client = OmeClient(name, token, transport=HostsTransport(hosts))
    context = ServerContext(api_url=client.api_url, profile=profile, read_only=read_only)

    def reader(path: NodePath) -> PublisherReader:
        assert path.app is not None and path.stream is not None
        return PublisherReader(publisher, path.app, path.stream, timeout=60.0,
                               transport=HostsTransport(hosts, follow_redirects=True))

    return Rig(AdOps(client, AuditLog(audit), clock, context, publisher_url=publisher, reader=reader), settings, clock)


def rendered(widget: Widget) -> list[list[Segment]]:
    """The widget's lines as the terminal gets them: segments of text and style."""
    return [list(strip) for strip in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))]


def text_of(widget: Widget) -> str:
    return "\n".join("".join(segment.text for segment in line) for line in rendered(widget))


async def sends_done(app: App[Any]) -> None:
    """Until every flow the keys started (worker group "adops") has finished."""
    sends = [w for w in app.workers if w.group == "adops"]
    if sends:  # an empty list would mean "every worker", an engine's included, which never ends
        await app.workers.wait_for_complete(sends)


def toasts(app: App[Any]) -> list[str]:
    """Every notification on screen: its title, a new line, its message, as the toast draws them."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]
