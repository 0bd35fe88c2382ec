"""An independent reader of the MPEG-TS packet layer and PSI tables (ISO 13818-1), for the TS tests.

Written from the standard, not from simulator/media/mpegts.py, so that it can catch the muxer's mistakes.
`demux_with_pyav` is the other, independent view: what PyAV's demuxer and H.264 decoder make of the bytes.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass
from typing import Any

import av

Descriptors = list[tuple[int, bytes]]


@dataclass(frozen=True)
class TsPacket:
    pid: int
    start: bool
    cc: int
    has_payload: bool
    adaptation: bytes
    payload: bytes


def read_packets(data: bytes) -> list[TsPacket]:
    assert len(data) % 188 == 0, "a TS segment is a whole number of 188-byte packets"
    packets = []
    for offset in range(0, len(data), 188):
        raw = data[offset : offset + 188]
        assert raw[0] == 0x47, f"sync byte missing at {offset}"
        control = (raw[3] >> 4) & 0x3
        body = raw[4:]
        adaptation = b""
        if control & 0x2:
            adaptation, body = body[1 : 1 + body[0]], body[1 + body[0] :]
        packets.append(TsPacket(((raw[1] & 0x1F) << 8) | raw[2], bool(raw[1] & 0x40), raw[3] & 0x0F,
                                bool(control & 0x1), adaptation, body if control & 0x1 else b""))
    return packets


def read_section(packets: list[TsPacket], pid: int) -> bytes:
    first = next(p for p in packets if p.pid == pid)
    payload = first.payload[1 + first.payload[0] :]
    length = ((payload[1] & 0x0F) << 8) | payload[2]
    return payload[: 3 + length]


def read_descriptors(data: bytes) -> Descriptors:
    found: Descriptors = []
    offset = 0
    while offset < len(data):
        found.append((data[offset], data[offset + 2 : offset + 2 + data[offset + 1]]))
        offset += 2 + data[offset + 1]
    return found


def read_pmt(packets: list[TsPacket]) -> tuple[int, Descriptors, list[tuple[int, int, Descriptors]]]:
    """(PCR PID, program_info descriptors, [(stream_type, PID, ES descriptors)]) of the first PMT."""
    pat = read_section(packets, 0)
    pmt_pid = ((pat[10] & 0x1F) << 8) | pat[11]
    pmt = read_section(packets, pmt_pid)
    assert pmt[0] == 0x02
    pcr_pid = ((pmt[8] & 0x1F) << 8) | pmt[9]
    info_length = ((pmt[10] & 0x0F) << 8) | pmt[11]
    program_info = read_descriptors(pmt[12 : 12 + info_length])
    streams, offset = [], 12 + info_length
    while offset < len(pmt) - 4:
        stream_type, pid = pmt[offset], ((pmt[offset + 1] & 0x1F) << 8) | pmt[offset + 2]
        es_length = ((pmt[offset + 3] & 0x0F) << 8) | pmt[offset + 4]
        streams.append((stream_type, pid, read_descriptors(pmt[offset + 5 : offset + 5 + es_length])))
        offset += 5 + es_length
    return pcr_pid, program_info, streams


def read_pcr(adaptation: bytes) -> int | None:
    if len(adaptation) < 7 or not adaptation[0] & 0x10:
        return None
    return (int.from_bytes(adaptation[1:5], "big") << 1) | (adaptation[5] >> 7)


def assert_continuity(packets: list[TsPacket]) -> None:
    """Every PID's continuity_counter goes up by one per packet with payload (mod 16), throughout."""
    last: dict[int, int] = {}
    for index, packet in enumerate(packets):
        if not packet.has_payload:
            continue
        if packet.pid in last:
            assert packet.cc == (last[packet.pid] + 1) % 16, f"continuity broken on PID {packet.pid:#x} at {index}"
        last[packet.pid] = packet.cc


def crc32_mpeg2(data: bytes) -> int:
    """CRC-32/MPEG-2 from zlib's reflected CRC-32: reflect the input bytes and the result, undo xorout."""
    reflected = bytes(int(f"{byte:08b}"[::-1], 2) for byte in data)
    return int(f"{zlib.crc32(reflected) ^ 0xFFFFFFFF:032b}"[::-1], 2)


@dataclass(frozen=True)
class Pes:
    pid: int
    stream_id: int
    pts: int | None
    payload: bytes


def read_pes(packets: list[TsPacket], pid: int) -> list[Pes]:
    """Reassemble and parse every PES packet of a PID (payload_unit_start_indicator begins one)."""
    chunks: list[bytearray] = []
    for packet in packets:
        if packet.pid != pid or not packet.has_payload:
            continue
        if packet.start:
            chunks.append(bytearray())
        assert chunks, f"PID {pid:#x} continues a PES that never started"
        chunks[-1] += packet.payload
    found = []
    for data in chunks:
        assert data[:3] == b"\x00\x00\x01", "PES start code"
        length = int.from_bytes(data[4:6], "big")
        if length:
            assert len(data) == 6 + length, "bounded PES length matches its bytes"
        header_length = data[8]
        pts = None
        if data[7] & 0x80:
            raw = data[9:14]
            pts = (((raw[0] >> 1) & 0x07) << 30) | (raw[1] << 22) | ((raw[2] >> 1) << 15)
            pts |= (raw[3] << 7) | (raw[4] >> 1)
        found.append(Pes(pid, data[3], pts, bytes(data[9 + header_length :])))
    return found


def demux_with_pyav(data: bytes) -> tuple[list[int | None], list[Any], int]:
    """Video PTS in order, the data-stream (ID3) packets and how many frames decode, as PyAV reads a TS.

    Fails on any packet PyAV marks corrupt.
    """
    with av.open(io.BytesIO(data), format="mpegts") as container:
        video_pts: list[int | None] = []
        tags: list[Any] = []
        decoder = av.CodecContext.create("h264", "r")
        decoded = 0
        for packet in container.demux():
            if not packet.size:
                continue
            assert not packet.is_corrupt
            if packet.stream.type == "video":
                video_pts.append(packet.pts)
                decoded += len(decoder.decode(packet))
            elif packet.stream.type == "data":
                tags.append(packet)
        decoded += len(decoder.decode(None))
    return video_pts, tags, decoded
