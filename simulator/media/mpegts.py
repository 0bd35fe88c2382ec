"""One HLSv3 segment as an MPEG-TS byte string (ISO/IEC 13818-1), written from the standard's rules.

Layout of every segment: PAT, PMT, then PES packets in decode-time order (video first at equal
times): H.264 on PID 0x100 (Annex B with an access unit delimiter, SPS and PPS before each keyframe,
PCR in the first packet of every frame), AAC in ADTS on PID 0x101 (a few frames per PES), and the
segment's ID3 tags on PID 0x102 (stream_type 0x15, PES stream_id 0xBD, data_alignment_indicator,
PTS = the event's media time), declared with the metadata_pointer_descriptor (program_info) and the
metadata_descriptor (ES info).

Continuity counters are continuous across the segments of a stream without any state: every media
PID ends each segment with a packet count that is a multiple of 16 (the last PES of the PID is spread
over a few more packets, padded by adaptation-field stuffing), so each segment starts them at 0; the
PAT and PMT, one packet per segment, count `msn % 16`. A segment is therefore a pure function of its
Segment and samples, and can be built on demand in any order.

PTS/DTS are the media times of model.py (90 kHz; audio converted from 48 kHz), modulo 2**33, so the
TS and the fMP4 of LL-HLS share one timeline and an ID3 PTS equals Id3Placement.media_time.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from simulator.media.model import AUDIO_TIMESCALE, VIDEO_TIMESCALE, MediaSample, Segment

TS_CONTENT_TYPE = "video/mp2t"
PACKET_SIZE = 188
PAT_PID = 0x0000
PMT_PID = 0x1000
VIDEO_PID = 0x0100
AUDIO_PID = 0x0101
ID3_PID = 0x0102
PROGRAM_NUMBER = 1
STREAM_TYPE_H264 = 0x1B
STREAM_TYPE_ADTS_AAC = 0x0F
STREAM_TYPE_METADATA_IN_PES = 0x15
MAX_ID3_TAG_BYTES = 0xFFFF - 8
"""A bounded PES length counts the 3 flag bytes and the 5-byte PTS too."""
AUDIO_PES_BYTES = 2930
"""Most ADTS bytes per audio PES (FFmpeg's default PES payload size): about 0.3 s at 64 kbit/s."""
PCR_LEAD = 9_000
"""Each frame's PCR is 100 ms before its decode time, so the frame arrives before it is due (clamped
at 0 at the stream start)."""

_TIMESTAMP_WRAP = 1 << 33
_PAYLOAD_SIZE = PACKET_SIZE - 4
_ACCESS_UNIT_DELIMITER = b"\x00\x00\x00\x01\x09\xf0"
_START_CODE = b"\x00\x00\x00\x01"
_NAL_AUD, _NAL_SPS, _NAL_PPS = 9, 7, 8
_ID3_FORMAT = b"\xff\xff" + b"ID3 " + b"\xff" + b"ID3 "
_ADTS_SAMPLE_RATES = (96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350)


def package_ts_segment(
    segment: Segment,
    video_samples: Sequence[MediaSample],
    audio_samples: Sequence[MediaSample],
    *,
    sps: bytes,
    pps: bytes,
    audio_config: bytes | None,
) -> bytes:
    """The `.ts` bytes of one segment.

    video_samples: AVCC access units (90 kHz) in decode order; those with decode_time in
    [segment.start, segment.end) are used, so a superset may be passed. The first should be a keyframe.
    audio_samples: raw AAC frames (48 kHz); those starting in the same interval are used.
    sps, pps: the H.264 parameter-set NAL units (no start code, no length), e.g. from
    `parameter_sets_from_avcc`. audio_config: the AAC AudioSpecificConfig, or None for a stream without
    audio (then no audio PID is declared; keep it the same for every segment of a stream).
    segment.id3 becomes one ID3 PES per placement, PTS = placement.media_time.
    Raises ValueError for a segment without video, malformed samples or an oversized ID3 tag.
    """
    video = [s for s in video_samples if segment.start <= s.decode_time < segment.end]
    if not video:
        raise ValueError(f"segment {segment.msn} has no video sample in [{segment.start}, {segment.end})")
    if audio_config is None and audio_samples:
        raise ValueError("audio samples given without an AudioSpecificConfig")
    adts = _AdtsWriter(audio_config) if audio_config is not None else None

    units: list[_PesUnit] = []
    for sample in video:
        pcr = max(sample.decode_time - PCR_LEAD, 0)
        payload = _annex_b_access_unit(sample, sps, pps)
        pes = _pes(0xE0, sample.decode_time, payload, bounded=False)
        units.append(_PesUnit(sample.decode_time, 0, VIDEO_PID, pes, pcr, sample.keyframe))
    if adts is not None:
        for pts, payload in _audio_groups(segment, audio_samples, adts):
            units.append(_PesUnit(pts, 1, AUDIO_PID, _pes(0xC0, pts, payload), None, False))
    first_video = video[0].decode_time
    for placement in segment.id3:
        if len(placement.tag) > MAX_ID3_TAG_BYTES:
            raise ValueError(f"ID3 tag of event {placement.event_seq} is {len(placement.tag)} bytes; "
                             f"the TS carries at most {MAX_ID3_TAG_BYTES}")
        pes = _pes(0xBD, placement.media_time, placement.tag)
        units.append(_PesUnit(max(placement.media_time, first_video), 2, ID3_PID, pes, None, False))
    units.sort(key=lambda unit: (unit.order_time, unit.priority))

    out = bytearray()
    out += _section_packet(PAT_PID, segment.msn % 16, _pat_section())
    out += _section_packet(PMT_PID, segment.msn % 16, _pmt_section(with_audio=adts is not None))
    extra = _padding_per_last_unit(units)
    counters: dict[int, int] = {}
    for index, unit in enumerate(units):
        cc = counters.get(unit.pid, 0)
        for packet in _packetize(unit, extra.get(index, 0), cc):
            out += packet
            cc = (cc + 1) & 0x0F
        counters[unit.pid] = cc
    return bytes(out)


def parameter_sets_from_avcc(record: bytes) -> tuple[bytes, bytes]:
    """The first SPS and PPS NAL units of an AVCDecoderConfigurationRecord (the `avcC` box payload)."""
    try:
        if record[0] != 1:
            raise ValueError("avcC configurationVersion is not 1")
        offset = 6
        sps_list: list[bytes] = []
        for _ in range(record[5] & 0x1F):
            (size,) = struct.unpack_from(">H", record, offset)
            sps_list.append(record[offset + 2 : offset + 2 + size])
            offset += 2 + size
        pps_list: list[bytes] = []
        for _ in range(record[offset]):
            (size,) = struct.unpack_from(">H", record, offset + 1)
            pps_list.append(record[offset + 3 : offset + 3 + size])
            offset += 2 + size
    except (IndexError, struct.error) as error:
        raise ValueError("truncated avcC record") from error
    if not sps_list or not pps_list or not sps_list[0] or not pps_list[0]:
        raise ValueError("avcC record without SPS or PPS")
    return sps_list[0], pps_list[0]


def _audio_groups(
    segment: Segment, samples: Sequence[MediaSample], adts: _AdtsWriter
) -> Iterator[tuple[int, bytes]]:
    """(PTS, ADTS frames) per audio PES: consecutive frames up to AUDIO_PES_BYTES, as FFmpeg groups
    them, because one small AAC frame per PES would cost more in headers and stuffing than in audio."""
    group = bytearray()
    group_pts = 0
    for sample in samples:
        pts = sample.decode_time * VIDEO_TIMESCALE // AUDIO_TIMESCALE
        if not segment.start <= pts < segment.end:
            continue
        frame = adts.frame(sample.data)
        if group and len(group) + len(frame) > AUDIO_PES_BYTES:
            yield group_pts, bytes(group)
            group.clear()
        if not group:
            group_pts = pts
        group += frame
    if group:
        yield group_pts, bytes(group)


@dataclass(frozen=True)
class _PesUnit:
    order_time: int
    priority: int
    pid: int
    pes: bytes
    pcr: int | None
    random_access: bool

    def first_payload_capacity(self) -> int:
        if self.pcr is not None:
            return _PAYLOAD_SIZE - 8
        return _PAYLOAD_SIZE - 2 if self.random_access else _PAYLOAD_SIZE

    def packet_count(self, extra_packets: int = 0) -> int:
        """Packets used when the last `extra_packets` bytes go one per packet (see `_packetize`)."""
        rest = max(len(self.pes) - extra_packets - self.first_payload_capacity(), 0)
        return 1 + -(-rest // _PAYLOAD_SIZE) + extra_packets


def _padding_per_last_unit(units: Sequence[_PesUnit]) -> dict[int, int]:
    """Extra packets for the last PES of each PID so that the PID's packet count is a multiple of 16.

    Moving one more byte into a packet of its own adds 0 or 1 packet, so some count below 64 works.
    """
    before_last: dict[int, int] = {}
    last: dict[int, int] = {}
    for index, unit in enumerate(units):
        if unit.pid in last:
            before_last[unit.pid] = before_last.get(unit.pid, 0) + units[last[unit.pid]].packet_count()
        last[unit.pid] = index
    extra: dict[int, int] = {}
    for pid, index in last.items():
        unit = units[index]
        for candidate in range(min(64, len(unit.pes))):
            if (before_last.get(pid, 0) + unit.packet_count(candidate)) % 16 == 0:
                extra[index] = candidate
                break
        else:
            raise ValueError(f"cannot align the continuity counter of PID {pid:#x}")
    return extra


def _packetize(unit: _PesUnit, extra_packets: int, cc: int) -> Iterator[bytes]:
    """The PES in 188-byte packets; its last `extra_packets` bytes go one per packet (see module doc)."""
    data = memoryview(unit.pes)
    if len(data) <= extra_packets:
        raise ValueError("PES too short to pad the continuity counter")
    body_end = len(data) - extra_packets
    first = unit.first_payload_capacity()
    chunk = data[: min(first, body_end)]
    yield _packet(unit.pid, cc, chunk, start=True, pcr=unit.pcr, random_access=unit.random_access)
    offset = len(chunk)
    while offset < len(data):
        size = _PAYLOAD_SIZE if offset < body_end else 1
        chunk = data[offset : min(offset + size, body_end) if offset < body_end else offset + 1]
        cc = (cc + 1) & 0x0F
        yield _packet(unit.pid, cc, chunk, start=False, pcr=None, random_access=False)
        offset += len(chunk)


def _packet(pid: int, cc: int, payload: memoryview | bytes, *, start: bool, pcr: int | None,
            random_access: bool) -> bytes:
    header = bytes((0x47, (0x40 if start else 0) | (pid >> 8), pid & 0xFF))
    flags = (0x40 if random_access else 0) | (0x10 if pcr is not None else 0)
    if not flags and len(payload) == _PAYLOAD_SIZE:
        return header + bytes((0x10 | cc,)) + payload
    field_length = _PAYLOAD_SIZE - len(payload) - 1
    if field_length == 0:
        adaptation = b"\x00"
    else:
        pcr_bytes = _pcr_bytes(pcr) if pcr is not None else b""
        stuffing = field_length - 1 - len(pcr_bytes)
        if stuffing < 0:
            raise AssertionError("payload overflows the packet")
        adaptation = bytes((field_length, flags)) + pcr_bytes + b"\xff" * stuffing
    return header + bytes((0x30 | cc,)) + adaptation + payload


def _pcr_bytes(pcr: int) -> bytes:
    base = pcr % _TIMESTAMP_WRAP
    return struct.pack(">IH", base >> 1, ((base & 1) << 15) | 0x7E00)


def _pes(stream_id: int, pts: int, payload: bytes, *, bounded: bool = True) -> bytes:
    """A PES packet with a PTS only (no B-frames, so DTS = PTS) and data_alignment_indicator set."""
    header = bytes((0x84, 0x80, 5)) + _timestamp(0b0010, pts)
    length = len(header) + len(payload)
    if bounded and length > 0xFFFF:
        raise ValueError(f"PES payload of {len(payload)} bytes does not fit a bounded PES")
    start = b"\x00\x00\x01" + bytes((stream_id,)) + struct.pack(">H", length if bounded else 0)
    return start + header + payload


def _timestamp(prefix: int, value: int) -> bytes:
    ts = value % _TIMESTAMP_WRAP
    return bytes((
        (prefix << 4) | ((ts >> 29) & 0x0E) | 1,
        (ts >> 22) & 0xFF,
        ((ts >> 14) & 0xFE) | 1,
        (ts >> 7) & 0xFF,
        ((ts << 1) & 0xFE) | 1,
    ))


def _annex_b_access_unit(sample: MediaSample, sps: bytes, pps: bytes) -> bytes:
    nal_units = list(_avcc_nal_units(sample.data))
    types = {nal[0] & 0x1F for nal in nal_units}
    out = bytearray(_ACCESS_UNIT_DELIMITER)
    if sample.keyframe and _NAL_SPS not in types:
        out += _START_CODE + sps + _START_CODE + pps
    for nal in nal_units:
        if nal[0] & 0x1F != _NAL_AUD:
            out += _START_CODE + nal
    return bytes(out)


def _avcc_nal_units(data: bytes) -> Iterator[bytes]:
    offset = 0
    while offset < len(data):
        if offset + 4 > len(data):
            raise ValueError("malformed AVCC sample: truncated NAL length")
        (size,) = struct.unpack_from(">I", data, offset)
        if size == 0 or offset + 4 + size > len(data):
            raise ValueError(f"malformed AVCC sample: NAL length {size} at offset {offset}")
        yield data[offset + 4 : offset + 4 + size]
        offset += 4 + size


class _AdtsWriter:
    """Prefixes raw AAC frames with the 7-byte ADTS header derived from the AudioSpecificConfig."""

    def __init__(self, audio_specific_config: bytes) -> None:
        if len(audio_specific_config) < 2:
            raise ValueError("AudioSpecificConfig is shorter than 2 bytes")
        bits = int.from_bytes(audio_specific_config[:2], "big")
        object_type, rate_index, channels = bits >> 11, (bits >> 7) & 0x0F, (bits >> 3) & 0x0F
        if not 1 <= object_type <= 4:
            raise ValueError(f"ADTS cannot carry AAC object type {object_type}")
        if rate_index >= len(_ADTS_SAMPLE_RATES):
            raise ValueError(f"unsupported sampling frequency index {rate_index}")
        if not 1 <= channels <= 7:
            raise ValueError(f"unsupported channel configuration {channels}")
        self._fixed = ((object_type - 1) << 12) | (rate_index << 8) | (channels << 4)

    def frame(self, raw: bytes) -> bytes:
        length = len(raw) + 7
        if length >= 1 << 13:
            raise ValueError(f"AAC frame of {len(raw)} bytes is too large for ADTS")
        fields = (self._fixed << 26) | (length << 13) | (0x7FF << 2)
        return b"\xff\xf1" + fields.to_bytes(5, "big") + raw


def _pat_section() -> bytes:
    program = struct.pack(">HH", PROGRAM_NUMBER, 0xE000 | PMT_PID)
    return _section(0x00, PROGRAM_NUMBER, program)


def _pmt_section(*, with_audio: bool) -> bytes:
    pointer = b"\x25\x0f" + _ID3_FORMAT + b"\x00\x1f" + struct.pack(">H", PROGRAM_NUMBER)
    body = bytearray(struct.pack(">HH", 0xE000 | VIDEO_PID, 0xF000 | len(pointer)) + pointer)
    body += _es_entry(STREAM_TYPE_H264, VIDEO_PID, b"")
    if with_audio:
        body += _es_entry(STREAM_TYPE_ADTS_AAC, AUDIO_PID, b"")
    body += _es_entry(STREAM_TYPE_METADATA_IN_PES, ID3_PID, b"\x26\x0d" + _ID3_FORMAT + b"\x00\x0f")
    return _section(0x02, PROGRAM_NUMBER, bytes(body))


def _es_entry(stream_type: int, pid: int, descriptors: bytes) -> bytes:
    return struct.pack(">BHH", stream_type, 0xE000 | pid, 0xF000 | len(descriptors)) + descriptors


def _section(table_id: int, table_id_extension: int, body: bytes) -> bytes:
    """A long-form PSI section (version 0, current, section 0 of 0) with its CRC_32."""
    length = 5 + len(body) + 4
    head = struct.pack(">BHHBBB", table_id, 0xB000 | length, table_id_extension, 0xC1, 0, 0)
    return head + body + struct.pack(">I", _crc32_mpeg2(head + body))


def _section_packet(pid: int, cc: int, section: bytes) -> bytes:
    payload = b"\x00" + section
    header = bytes((0x47, 0x40 | (pid >> 8), pid & 0xFF, 0x10 | cc))
    return header + payload + b"\xff" * (_PAYLOAD_SIZE - len(payload))


def _crc32_mpeg2(data: bytes) -> int:
    """CRC-32/MPEG-2 (poly 0x04C11DB7, no reflection, init 0xFFFFFFFF, no final xor)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC_TABLE[((crc >> 24) ^ byte) & 0xFF] ^ ((crc << 8) & 0xFFFFFFFF)
    return crc


def _crc_table() -> tuple[int, ...]:
    table = []
    for index in range(256):
        crc = index << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
        table.append(crc & 0xFFFFFFFF)
    return tuple(table)


_CRC_TABLE = _crc_table()
