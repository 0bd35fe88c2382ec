"""`GET /{app}/{stream}/thumb.{jpg,png,webp}` on the publisher port: the thumbnail publisher's reply.

As the real server's thumbnail publisher answers (its interceptor matches `.+thumb\\.(jpg|png|webp)$`,
GET only): the latest picture of the stream's image encode for that format, `Content-Type` image/jpeg,
image/png or image/webp, its bytes counted as the stream's bytes out; 404 when the stream does not exist,
is not live, or its application runs no thumbnail publisher or its output profile has no image encode of that
format (the default configuration has neither). The headers and CORS are the publisher's (reply.py), without
Cache-Control: the same URL names a new picture every second.
"""

from __future__ import annotations

import re

from simulator.http.hls_requests import HttpError
from simulator.media.thumbnail import CONTENT_TYPES, encoded
from simulator.world.topology import Stream
from simulator.world.world import World

_THUMB_FILE = re.compile(r"thumb\.(jpg|png|webp)")
FRAME_MS = 1000
"""The image encode's frame rate: one picture per second (the documented profile's `<Framerate>1`)."""


def thumbnail_format(file: str) -> str | None:
    """`jpg`, `png` or `webp` when `file` names a thumbnail."""
    match = _THUMB_FILE.fullmatch(file)
    return match.group(1) if match else None


def thumbnail(world: World, stream: Stream, image_format: str) -> tuple[bytes, bytes]:
    """The body and content type of the stream's thumbnail now; HttpError 404 without that image encode."""
    app = world.find_app(stream.vhost, stream.app)
    if app is None or image_format not in app.thumbnails or "thumbnail" not in app.publishers:
        raise HttpError(404, "no image encode of that format")
    now = world.clock.now_ms()
    state = world.pictures.state(stream.vhost, stream.app, stream.name, now)
    second = max(0, state.frame_ms - stream.created_ms) // FRAME_MS
    identity = f"{stream.vhost}/{stream.app}/{stream.name}@{stream.created_ms}"
    return encoded(identity, second, state.kind, image_format), CONTENT_TYPES[image_format].encode()
