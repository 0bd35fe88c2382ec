"""Who a server's publisher connections are: viewers (people playing the stream) and everything else.

The server counts every outbound session alike (reference §1.2: `file, hlsv3, llhls, ovt, push, srt,
thumbnail, webrtc`), but only four of them are someone playing the stream. The console calls those
**viewers** on every surface (tree, headers, fleet, `stats`, exports, history, alerts) and shows the
others under their own names:

| protocol | what it is | shown as |
|---|---|---|
| `llhls` | LL-HLS playback | viewers |
| `hlsv3` | HLS v3 (MPEG-TS) playback | viewers |
| `webrtc` | WebRTC playback | viewers |
| `srt` | SRT playback | viewers |
| `ovt` | another server (an edge) pulling the stream over OVT | relays |
| `push` | a push to another server or service (RTMP, SRT, MPEG-TS push) | pushes |
| `file` | a recording | recordings |
| `thumbnail` | a thumbnail reader | thumbnails |

A protocol this list does not know (a newer server's) is not counted as viewers: it shows only where
connections are listed per protocol, under the server's own name (shown as outside text).
"""

from __future__ import annotations

from collections.abc import Mapping

PLAYBACK: tuple[str, ...] = ("llhls", "hlsv3", "webrtc", "srt")
"""The publisher protocols whose connections are people playing the stream."""

RELAY = "ovt"
"""The protocol edges pull streams from their origin with (OvenMediaEngine's OVT)."""

NOT_VIEWERS: tuple[tuple[str, str], ...] = (("ovt", "relays"), ("push", "pushes"), ("file", "recordings"),
                                            ("thumbnail", "thumbnails"))
"""The other publisher protocols, in the order they are shown, each with the word it is shown as."""

_NOT_VIEWER_WORDS = dict(NOT_VIEWERS)


def viewers(connections_out: Mapping[str, int] | None) -> int | None:
    """Playback sessions: the sum of the four playback protocols' counts (None when the server gave no
    per-protocol counts; a protocol missing from the map counts 0)."""
    if connections_out is None:
        return None
    return sum(connections_out.get(name, 0) for name in PLAYBACK)


def others(connections_out: Mapping[str, int] | None) -> tuple[tuple[str, int], ...]:
    """The known connections that are not viewers, as (word, count) in the order shown, zero counts left
    out: `(("relays", 16), ("recordings", 1))`."""
    if not connections_out:
        return ()
    return tuple((word, count) for name, word in NOT_VIEWERS if (count := connections_out.get(name, 0)))


def word(protocol: str) -> str:
    """What a protocol's connections are called: "viewers" for playback, else its own word."""
    return "viewers" if protocol in PLAYBACK else _NOT_VIEWER_WORDS.get(protocol, protocol)


def others_counts(connections_out: Mapping[str, int] | None) -> dict[str, int | None]:
    """Every not-viewer word with its count, zeros included (all None when the counts are unknown):
    `{"relays": 16, "pushes": 0, "recordings": 1, "thumbnails": 0}` (what JSON output carries)."""
    return {word: None if connections_out is None else connections_out.get(name, 0) for name, word in NOT_VIEWERS}


def others_text(connections_out: Mapping[str, int] | None, *, skip: tuple[str, ...] = ()) -> str:
    """`16 relays · 1 recording` (empty when there are none), leaving out the words in `skip`."""
    return " · ".join(count_text(count, name) for name, count in others(connections_out) if name not in skip)


def count_text(count: int, plural: str) -> str:
    """`1 recording`, `2 pushes`, `1,204 viewers`."""
    return f"{count:,} {_singular(plural) if count == 1 else plural}"


def _singular(plural: str) -> str:
    return plural[:-2] if plural.endswith("shes") else plural[:-1] if plural.endswith("s") else plural
