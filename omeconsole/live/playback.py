"""A stream's playback URLs as a live session gives them: the profile's publisher URL (or the API's host on
the default port, said so) and the stream information the engine read (`core/playback`)."""

from __future__ import annotations

from dataclasses import dataclass

from omeconsole.core.playback import PlaybackUrl, encoded_path, playback_urls
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath


@dataclass(frozen=True, slots=True)
class Playback:
    path: NodePath
    publisher: str
    configured: bool
    """The publisher URL is the profile's (`publisher_url`), not the API's host on port 3333."""
    urls: tuple[PlaybackUrl, ...]

    def choices(self) -> list[tuple[str, str]]:
        """(what, text) the copy key offers: the stream's path, then each URL."""
        return [("path", encoded_path(self.path)),
                *((url.label + (" (assumed)" if url.assumed else ""), url.url) for url in self.urls)]


def playback_of(live: LiveSession, path: NodePath | None) -> Playback | None:
    """The stream's playback (None for anything but a stream)."""
    if path is None or path.level != "stream":
        return None
    settings = live.settings
    publisher = settings.publisher_base()
    info = live.engine.node(path).info
    return Playback(path, publisher, bool(settings.publisher_url), tuple(playback_urls(publisher, path, info)))
