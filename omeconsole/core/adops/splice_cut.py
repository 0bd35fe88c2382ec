"""Where a server that writes no marker shows a cue: the LL-HLS segment it cuts at the splice point.

Open source OvenMediaEngine 0.18 to 0.20 answers a cue with 200 and writes no `#EXT-X-CUE-*` or
`#EXT-X-DATERANGE` line; its packager closes the segment at the marker's time instead (the 0.19.0
captures: a cue-out at 00:08:45.331 cut segment 52 at 5.867 s, ending 00:08:46.408, then a 0.133 s
segment; a cue-in at 00:09:00.633 cut segment 56 at 3.133 s, ending 00:09:01.674). The marker's time is
the stream's time plus one keyframe interval, so the cut lands about a keyframe interval after the
request. A cut is a complete segment whose length differs from the playlist's usual one (the median of
its segments), not older than the segment in progress when the request left, and that ends inside a
window after the request: the first such end is the splice. The window is on the server's clock (its
PROGRAM-DATE-TIMEs), moved by the offset each read measures, so a server whose clock differs from the
console's is judged on its own time.
"""

from __future__ import annotations

from collections.abc import Container
from datetime import datetime, timedelta
from statistics import median

from omeconsole.api.hls import MediaPlaylist

CUT_EARLY_S = 1.0
"""A cut may show up to this long before the request's time (the server's and the console's clocks differ)."""
CUT_WINDOW_S = 5.0
"""The latest a cut can end after the request: one keyframe interval, then the next keyframe (GOPs to 2 s)."""
CUT_DEVIATION_S = 0.05
"""A segment this much shorter or longer than the usual one was cut (frame-rate jitter stays far below)."""
CUT_WAIT_S = 8.0
"""How long a send waits to see its cut: the window, then a few reloads (never a marker's 15 s)."""
KEYFRAME_INTERVAL_S = 1.0
"""The keyframe interval assumed when estimating a splice (the servers' and encoders' usual 1 s GOP)."""


def segment_cut(playlist: MediaPlaylist, requested: datetime, *, exclude: Container[object] = (),
                from_msn: int | None = None) -> datetime | None:
    """When the first segment cut after `requested` ends (the splice), or None when the playlist shows none.

    `requested` is on the server's clock (its PROGRAM-DATE-TIMEs; see `server_offset`); `from_msn`, when
    known, is the first segment that was not complete when the request left (a cut is never older);
    `exclude` holds `("cut", iso time)` keys of cuts already matched to an earlier request."""
    durations = [t.duration for t in playlist.segment_times if t.duration is not None and t.duration > 0]
    if len(durations) < 2:
        return None
    usual = median(durations)
    earliest = requested - timedelta(seconds=CUT_EARLY_S)
    latest = requested + timedelta(seconds=CUT_WINDOW_S)
    for segment in playlist.segment_times:
        if segment.wall is None or segment.duration is None or abs(segment.duration - usual) <= CUT_DEVIATION_S:
            continue
        if from_msn is not None and segment.msn < from_msn:
            continue
        end = segment.wall + timedelta(seconds=segment.duration)
        if earliest <= end <= latest and ("cut", end.isoformat()) not in exclude:
            return end
    return None


def server_offset(playlist: MediaPlaylist, read_at: datetime) -> timedelta:
    """The console's clock minus the server's, as far as one read tells: when it was read, less the time of
    its live edge (the end of its last part or segment). Zero when the playlist carries no times. The edge
    lags the read by up to a part, so a splice moved by it is late by at most that."""
    edge: datetime | None = None
    last_part = playlist.last_part
    if last_part is not None and last_part.wall is not None:
        edge = last_part.wall + timedelta(seconds=last_part.duration or 0)
    elif playlist.segment_times and playlist.segment_times[-1].wall is not None:
        last = playlist.segment_times[-1]
        edge = (last.wall or read_at) + timedelta(seconds=last.duration or 0)
    return read_at - edge if edge is not None else timedelta(0)


def estimated_splice(requested: datetime, keyframe_s: float = KEYFRAME_INTERVAL_S) -> datetime:
    """The server's rule when nothing was seen: the first keyframe at least one keyframe interval after the
    request (reference §2.6), estimated as the request plus one interval."""
    return requested + timedelta(seconds=keyframe_s)


def hms(when: datetime) -> str:
    """`00:13:35.378`: a splice time to the millisecond (UTC)."""
    return when.strftime("%H:%M:%S.%f")[:-3]
