"""An application's document (`GET /v1/vhosts/{vhost}/apps/{app}`) to the console's `AppConfig`.

The open source server echoes its configuration for the application (capture api/20): keys are the XML's
element names (`publishers`, `outputProfiles.outputProfile[]`, `encodes.images[]`), values the XML's strings
("true", "4"). The reply is hostile input: it is read under a cap of its own (`APP_DOCUMENT_BYTES`), only
the keys the playback URLs need are looked at, every list is bounded, and a name that is not a short string
is left out. A reply that is not an object is a ProtocolError; a document without `publishers` is one whose
publishers are unknown (`None`), not one without publishers.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from omeconsole.api.errors import ProtocolError
from omeconsole.model.app_config import AppConfig, ImageOutput

APP_DOCUMENT_BYTES = 256 * 1024
"""The most an application's document may be (the captured one is 995 bytes)."""
MAX_PUBLISHERS = 32
MAX_PROFILES = 32
MAX_ENTRIES = 64
"""Encodes or playlists looked at per output profile."""
MAX_NAME_CHARS = 255
IMAGE_FORMATS = {"jpeg": "jpg", "jpg": "jpg", "png": "png", "webp": "webp"}
"""An image encode's codec to the thumbnail's file extension."""
_NOT_PUBLISHERS = frozenset({"appworkercount", "streamworkercount", "delaybuffertimems"})
"""Settings that sit beside the publishers in `publishers`."""


def app_config_from_wire(raw: object, what: str) -> AppConfig | None:
    """The application's publishers and outputs; None when the document does not list its publishers."""
    if not isinstance(raw, dict):
        raise ProtocolError(f"{what}: the application's document is not a JSON object")
    publishers = raw.get("publishers")
    if not isinstance(publishers, dict):
        return None
    names = [key.lower() for key, value in list(publishers.items())[:MAX_PUBLISHERS]
             if _name(key) and isinstance(value, dict) and key.lower() not in _NOT_PUBLISHERS]
    llhls, hls = publishers.get("llhls"), publishers.get("hls")
    ts_playlists: list[str] = []
    images: list[ImageOutput] = []
    for profile in _profiles(raw.get("outputProfiles")):
        for playlist in _list(profile.get("playlists")):
            options = playlist.get("options")
            file_name = playlist.get("fileName")
            if _name(file_name) and isinstance(options, dict) and _true(options.get("enableTsPackaging")):
                ts_playlists.append(file_name)
        encodes = profile.get("encodes")
        formats = [IMAGE_FORMATS.get(str(image.get("codec", "")).lower())
                   for image in _list(encodes.get("images") if isinstance(encodes, dict) else None)]
        template = profile.get("outputStreamName")
        known = tuple(dict.fromkeys(f for f in formats if f is not None))
        if known and _name(template):
            images.append(ImageOutput(template, known))
    dynamic = raw.get("dynamic")
    return AppConfig(
        publishers=frozenset(names), ts_playlists=tuple(dict.fromkeys(ts_playlists)), image_outputs=tuple(images),
        llhls_default_playlist=not (isinstance(llhls, dict) and _false(llhls.get("createDefaultPlaylist"))),
        hls_default_playlist=not (isinstance(hls, dict) and _false(hls.get("createDefaultPlaylist"))),
        dynamic=dynamic if isinstance(dynamic, bool) else None)


def _profiles(output_profiles: object) -> list[dict[str, Any]]:
    if not isinstance(output_profiles, dict):
        return []
    return _list(output_profiles.get("outputProfile"))[:MAX_PROFILES]


def _list(value: object) -> list[dict[str, Any]]:
    """The objects of a list (the first MAX_ENTRIES of it); anything else is no entries."""
    return [item for item in value[:MAX_ENTRIES] if isinstance(item, dict)] if isinstance(value, list) else []


def _name(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and 0 < len(value) <= MAX_NAME_CHARS


def _true(value: object) -> bool:
    """The XML's "true" (any case), or a JSON true."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _false(value: object) -> bool:
    return value is False or (isinstance(value, str) and value.strip().lower() == "false")
