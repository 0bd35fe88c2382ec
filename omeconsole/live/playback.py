"""A stream's playback URLs as a live session gives them: the profile's publisher URL (or the API's host on
the default port, said so), the stream information and the application's configuration the engine read
(`core/playback`), and what the console could not read, in words."""

from __future__ import annotations

from dataclasses import dataclass

from omeconsole.core.playback import PlaybackUrl, encoded_path, playback_urls
from omeconsole.live.session import LiveSession
from omeconsole.model.app_config import AppConfigView
from omeconsole.model.paths import NodePath

NOT_READ_YET = "the application's configuration is not read yet: which publishers run is assumed"
NOT_LISTED = "the application's document does not list its publishers: which publishers run is assumed"


@dataclass(frozen=True, slots=True)
class Playback:
    path: NodePath
    publisher: str
    configured: bool
    """The publisher URL is the profile's (`publisher_url`), not the API's host on port 3333."""
    urls: tuple[PlaybackUrl, ...]
    unconfirmed: str | None = None
    """Why the URLs do not follow the application's configuration (not read yet, or could not be: server
    text, shown through text.visible); None when they do."""

    def choices(self) -> list[tuple[str, str]]:
        """(what, text) the copy key offers: the stream's path, then each URL."""
        return [("path", encoded_path(self.path)), *((url.described, url.url) for url in self.urls)]


def playback_of(live: LiveSession, path: NodePath | None) -> Playback | None:
    """The stream's playback (None for anything but a stream)."""
    if path is None or path.level != "stream":
        return None
    settings = live.settings
    publisher = settings.publisher_base()
    info = live.engine.node(path).info
    document = live.engine.app_config(NodePath(path.vhost, path.app))
    app = document.config if document is not None else None
    return Playback(path, publisher, bool(settings.publisher_url),
                    tuple(playback_urls(publisher, path, info, app)), unconfirmed(document))


def unconfirmed(document: AppConfigView | None) -> str | None:
    """Why the URLs do not follow the application's configuration (None: they do)."""
    if document is None or (document.config is None and document.read_at is None and document.error is None):
        return NOT_READ_YET
    if document.error is not None and document.config is None:
        return f"the application's configuration could not be read ({document.error}): which publishers run is assumed"
    if document.config is None:
        return NOT_LISTED
    return None
