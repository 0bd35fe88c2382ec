"""CMAF / fragmented MP4 for LL-HLS: one init segment per track, one moof+mdat per part, and the
ID3 of the part as `emsg` version 1 boxes before its moof (AOM "Carriage of ID3 Timed Metadata in
CMAF"). A full segment is its parts one after the other. Each track is its own file (OME layout:
video and audio chunklists), with track_ID 1 in every file.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

from simulator.media.asset import Asset
from simulator.media.model import AUDIO_TIMESCALE, VIDEO_TIMESCALE, Id3Placement, MediaSample, TrackKind

EMSG_SCHEME = "https://aomedia.org/emsg/ID3"
EMSG_TIMESCALE = 1000
EMSG_VALUE = "OvenMediaEngine"
TRACK_ID = 1
_MATRIX = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
_KEY_FLAGS = 0x02000000
"""sample_depends_on = 2 (an independent sample)."""
_DELTA_FLAGS = 0x01010000
"""sample_depends_on = 1 and sample_is_non_sync_sample."""


def box(kind: bytes, *payload: bytes) -> bytes:
    body = b"".join(payload)
    return struct.pack(">I", 8 + len(body)) + kind + body


def full_box(kind: bytes, version: int, flags: int, *payload: bytes) -> bytes:
    return box(kind, struct.pack(">I", (version << 24) | flags), *payload)


def timescale(track: TrackKind) -> int:
    return VIDEO_TIMESCALE if track == "video" else AUDIO_TIMESCALE


def init_segment(asset: Asset, track: TrackKind) -> bytes:
    """ftyp + moov for one track (empty sample tables, mvex/trex for fragments)."""
    ftyp = box(b"ftyp", b"iso6", struct.pack(">I", 0), b"iso6cmfcmp41aid3")
    mvhd = full_box(b"mvhd", 0, 0, struct.pack(">IIII", 0, 0, 1000, 0), struct.pack(">IH", 0x10000, 0x100),
                    bytes(10), _MATRIX, bytes(24), struct.pack(">I", TRACK_ID + 1))
    mvex = box(b"mvex", full_box(b"trex", 0, 0, struct.pack(">5I", TRACK_ID, 1, 0, 0, 0)))
    return ftyp + box(b"moov", mvhd, _trak(asset, track), mvex)


def _trak(asset: Asset, track: TrackKind) -> bytes:
    video = track == "video"
    width, height = (asset.width, asset.height) if video else (0, 0)
    tkhd = full_box(b"tkhd", 0, 3, struct.pack(">IIIII", 0, 0, TRACK_ID, 0, 0), bytes(8),
                    struct.pack(">hhhH", 0, 0, 0 if video else 0x100, 0), _MATRIX,
                    struct.pack(">II", width << 16, height << 16))
    mdhd = full_box(b"mdhd", 0, 0, struct.pack(">IIII", 0, 0, timescale(track), 0), struct.pack(">HH", 0x55C4, 0))
    handler, name = (b"vide", b"VideoHandler\x00") if video else (b"soun", b"SoundHandler\x00")
    hdlr = full_box(b"hdlr", 0, 0, bytes(4), handler, bytes(12), name)
    header = full_box(b"vmhd", 0, 1, bytes(8)) if video else full_box(b"smhd", 0, 0, bytes(4))
    dinf = box(b"dinf", full_box(b"dref", 0, 0, struct.pack(">I", 1), full_box(b"url ", 0, 1)))
    entry = _avc1(asset) if video else _mp4a(asset)
    stbl = box(b"stbl", full_box(b"stsd", 0, 0, struct.pack(">I", 1), entry),
               full_box(b"stts", 0, 0, bytes(4)), full_box(b"stsc", 0, 0, bytes(4)),
               full_box(b"stsz", 0, 0, bytes(8)), full_box(b"stco", 0, 0, bytes(4)))
    return box(b"trak", tkhd, box(b"mdia", mdhd, hdlr, box(b"minf", header, dinf, stbl)))


def _avc1(asset: Asset) -> bytes:
    avcc = box(b"avcC", bytes([1, asset.sps[1], asset.sps[2], asset.sps[3], 0xFF, 0xE1]),
               struct.pack(">H", len(asset.sps)), asset.sps, b"\x01", struct.pack(">H", len(asset.pps)), asset.pps)
    return box(b"avc1", bytes(6), struct.pack(">H", 1), bytes(16), struct.pack(">HH", asset.width, asset.height),
               struct.pack(">II", 0x480000, 0x480000), bytes(4), struct.pack(">H", 1), bytes(32),
               struct.pack(">Hh", 0x18, -1), avcc)


def _descriptor(tag: int, payload: bytes) -> bytes:
    return bytes([tag, len(payload)]) + payload


def _mp4a(asset: Asset) -> bytes:
    decoder_config = _descriptor(4, bytes([0x40, 0x15]) + bytes(3) + struct.pack(">II", 128_000, 64_000)
                                 + _descriptor(5, asset.audio_specific_config))
    es = _descriptor(3, struct.pack(">HB", TRACK_ID, 0) + decoder_config + _descriptor(6, b"\x02"))
    return box(b"mp4a", bytes(6), struct.pack(">H", 1), bytes(8), struct.pack(">HH", asset.channels, 16),
               bytes(4), struct.pack(">I", AUDIO_TIMESCALE << 16), full_box(b"esds", 0, 0, es))


def emsg(placement: Id3Placement) -> bytes:
    """One emsg v1 carrying the placement's ID3 tag, timed in milliseconds: the real server's emsg takes
    the data track's timescale, 1000 (captures/ome-0.19.0 `markers/id3_emsg_part.json`), whatever the
    media track's."""
    presentation = placement.media_time * EMSG_TIMESCALE // VIDEO_TIMESCALE
    return full_box(b"emsg", 1, 0, struct.pack(">IQII", EMSG_TIMESCALE, presentation, 0xFFFFFFFF,
                                               placement.event_seq),
                    EMSG_SCHEME.encode() + b"\x00", EMSG_VALUE.encode() + b"\x00", placement.tag)


def fragment(sequence: int, samples: Sequence[MediaSample], id3: Iterable[Id3Placement], track: TrackKind) -> bytes:
    """emsg boxes, then moof + mdat for the samples of one part."""
    if not samples:
        raise ValueError("a fragment needs at least one sample")
    entries = b"".join(
        struct.pack(">III", s.duration, len(s.data), _KEY_FLAGS if s.keyframe else _DELTA_FLAGS) for s in samples
    )
    mfhd = full_box(b"mfhd", 0, 0, struct.pack(">I", sequence))
    tfhd = full_box(b"tfhd", 0, 0x020000, struct.pack(">I", TRACK_ID))
    tfdt = full_box(b"tfdt", 1, 0, struct.pack(">Q", samples[0].decode_time))
    trun_size = 8 + 4 + 8 + len(entries)
    moof_size = 8 + len(mfhd) + 8 + len(tfhd) + len(tfdt) + trun_size
    trun = full_box(b"trun", 0, 0x000701, struct.pack(">Ii", len(samples), moof_size + 8), entries)
    moof = box(b"moof", mfhd, box(b"traf", tfhd, tfdt, trun))
    mdat = box(b"mdat", *(s.data for s in samples))
    boxes = [emsg(p) for p in id3 if track in p.tracks]
    return b"".join(boxes) + moof + mdat
