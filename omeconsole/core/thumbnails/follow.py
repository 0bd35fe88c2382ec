"""Following one stream's thumbnail: read it from the publisher, decode it safely, say how it looks.

The read goes through the stream's publisher reader (api/publisher.py `PublisherReader.thumbnail`); it is
not entered in the ledger of own connections, since the thumbnail publisher counts none for a reader.
The formats are tried in the order the thumbnail publisher serves them until one answers; that one is
kept. A stream whose server publishes no thumbnail (404 for every format) is asked again only every
`ABSENT_RETRY_S`. The caller asks at most once a second (`MIN_INTERVAL_S`): the server makes a new picture
at its image encode's frame rate, one per second in the documented profile, so reading faster would only
read the same picture again.
"""

from __future__ import annotations

from dataclasses import dataclass

from omeconsole.api.publisher import THUMBNAIL_FORMATS, PlaylistUnreadable, PublisherReader
from omeconsole.core.clock import Clock
from omeconsole.core.thumbnails.decode import Decoder, Picture, ThumbnailRefused
from omeconsole.core.thumbnails.watch import PictureWatch, Verdict

MIN_INTERVAL_S = 1.0
ABSENT_RETRY_S = 10.0
READ_DEADLINE_S = 3.0


@dataclass(frozen=True)
class ThumbnailState:
    picture: Picture | None
    """The latest picture decoded (kept while a later read fails, with `note` saying so)."""
    verdict: Verdict | None
    note: str
    """Why there is no (new) picture, in plain words; "" when the latest read gave one."""


class ThumbnailFollower:
    def __init__(self, reader: PublisherReader, clock: Clock, *, frozen_after_s: float,
                 decoder: Decoder | None = None) -> None:
        self._reader = reader
        self._clock = clock
        self._decoder = decoder or Decoder()
        self._watch = PictureWatch(frozen_after_s)
        self._format: str | None = None
        self._absent = False
        self._asked_at: float | None = None
        self.state = ThumbnailState(None, None, "waiting for the first picture")

    def due(self) -> bool:
        """Whether a read is due now (at most one a second; every ABSENT_RETRY_S when none is published)."""
        if self._asked_at is None:
            return True
        gap = ABSENT_RETRY_S if self._absent else MIN_INTERVAL_S
        return self._clock.monotonic() - self._asked_at >= gap

    async def refresh(self) -> ThumbnailState:
        self._asked_at = self._clock.monotonic()
        try:
            body = await self._read()
        except PlaylistUnreadable as error:
            return self._keep(f"thumbnail not read: {error}")
        if body is None:
            self._absent = True
            self.state = ThumbnailState(None, None, "no thumbnail: the server publishes none for this stream")
            return self.state
        self._absent = False
        try:
            picture = await self._decoder.decode(body)
        except ThumbnailRefused as error:
            return self._keep(f"thumbnail refused: {error}")
        verdict = self._watch.observe(picture, self._clock.monotonic())
        self.state = ThumbnailState(picture, verdict, "")
        return self.state

    async def _read(self) -> bytes | None:
        formats = (self._format,) if self._format is not None else THUMBNAIL_FORMATS
        for image_format in formats:
            body = await self._reader.thumbnail(image_format, deadline=READ_DEADLINE_S)
            if body is not None:
                self._format = image_format
                return body
        self._format = None  # the profile may have changed: try every format next time
        return None

    def _keep(self, note: str) -> ThumbnailState:
        self.state = ThumbnailState(self.state.picture, self.state.verdict, note)
        return self.state

    async def aclose(self) -> None:
        self._decoder.close()
        await self._reader.aclose()
