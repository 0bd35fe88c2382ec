"""Rates from byte totals: bytes over time on one consistent clock, over a window of several seconds.

A server moves its byte counters in steps (the simulator once per tick; the real server per counter
update) and stamps `lastUpdatedTime` on every update, including each viewer it serves, so a rate taken
as Δbytes / ΔlastUpdatedTime jumps (a playlist fetch between two polls gave 2-2.7x the real rate).

Here a rate is Δbytes * 8 / Δt between the newest reading and the newest one at least RATE_WINDOW_S
older (until a node has that much history, the oldest it has), with both readings' times taken from
ONE clock:
- the server's ingress clock, `lastRecvTime`: stamped by the server on each ingress byte it counts,
  the very events that move its counters (in the simulator, at each tick; on a real server, with
  every packet), and by nothing a client does: a fetch, a send or a panel opening never moves it. So
  a window on this clock holds whole counter steps whatever the console's polling phase (no aliasing
  of one step more or less), and one step (MIN_SERVER_SPAN_S) is already an honest window;
- otherwise the console's own clock (when each reply arrived): when the server gives no usable
  stamp, or when it stood still or went back (ingest stopped; the server's clock was set back). A
  window then needs at least MIN_RATE_SPAN_S, two counter steps, and a step more or less in it moves
  the figure by a fraction only.
`Sample.window_s` and `Sample.window_clock` say which window a figure covers.

No honest rate is None, never a made-up number: the first readings, a new `createdTime` (the object
restarted: the window starts again, a gap in the chart), an invalid or absurd total or one below an
earlier one (left out, never poisoning later rates).

The server's own `avg`/`max` throughput is compared with ours: beyond RATE_TOLERANCE the sample says
so (`Sample.disagree`), and the screen can show that the two do not agree instead of trusting either.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from datetime import datetime
from typing import Literal, NamedTuple

from omeconsole.model.readings import NodeStats, Sample

RATE_WINDOW_S = 5.0
"""The window a rate averages over once a node has that much history."""
MIN_RATE_SPAN_S = 2.0
"""The shortest window worth a rate on the console's clock: two of the server's one-second counter steps."""
MIN_SERVER_SPAN_S = 1.0
"""The shortest window worth a rate on the server's ingress clock: one whole counter step."""
MAX_PLAUSIBLE_BPS = 400e9
"""Faster than any single server link: such a "rate" is a counter glitch, not traffic."""
MAX_COUNTER = 2**63 - 1
"""The server's counters are 64-bit; anything larger (or negative) is not a byte count."""
RATE_TOLERANCE = 0.2
"""How far the server's own throughput may be from ours before the sample says they disagree."""
DISAGREE_FLOOR_BPS = 8_000.0
"""Differences under 1 kB/s are not worth a word, whatever their ratio."""
MAX_READS = 64
"""Readings a window keeps at most (a node polled faster than the window needs)."""
GLITCH_S = 10.0
"""Byte totals only grow: a total below an earlier one (same createdTime) is a glitch and left out, unless
the totals stay below for this long, which is taken as counters restarted without a new createdTime."""
MAX_CLOCK_RATIO = 10.0
"""The server's ingress clock is not believed if it moved more than this many times the console's
elapsed time (plus 10 s): a stamp from another century, a clock set forward by hours."""
_DISAGREE = {(False, False): frozenset(), (True, False): frozenset({"in"}), (False, True): frozenset({"out"}),
             (True, True): frozenset({"in", "out"})}
"""Sample.disagree by (in, out): four shared sets, not a new one per reading the engine keeps."""

WindowClock = Literal["server", "console"]


class _Read(NamedTuple):
    at: float
    """Console time the reply arrived."""
    server_at: float | None
    """The server's ingress clock (lastRecvTime) in seconds, if usable."""
    created: datetime | None
    bytes_in: int | None
    bytes_out: int | None
    avg_in: int | None
    avg_out: int | None


def _seconds(stamp: datetime | None) -> float | None:
    if stamp is None:
        return None
    try:
        seconds = stamp.timestamp()
    except (OverflowError, ValueError, OSError):  # a date no clock can hold: no stamp
        return None
    return seconds if seconds >= 0 else None


def _bytes_in(read: _Read) -> int | None:
    return read.bytes_in


def _bytes_out(read: _Read) -> int | None:
    return read.bytes_out


def _avg_in(read: _Read) -> int | None:
    return read.avg_in


def _avg_out(read: _Read) -> int | None:
    return read.avg_out


Field = Callable[[_Read], int | None]


def _counter(value: int | None) -> int | None:
    return value if value is not None and 0 <= value <= MAX_COUNTER else None


class RateWindow:
    """The recent readings of one node, and the rates they give. One per polled node (and per CLI watch)."""

    __slots__ = ("_back_since", "_reads")

    def __init__(self) -> None:
        self._reads: deque[_Read] = deque(maxlen=MAX_READS)
        self._back_since: float | None = None

    def sample(self, stats: NodeStats, at: float) -> Sample:
        """Takes a new reading (arrived at console time `at`) and returns it with its rates."""
        read = _Read(at, _seconds(stats.last_recv), stats.created, _counter(stats.total_bytes_in),
                     _counter(stats.total_bytes_out), _counter(stats.avg_throughput_in_bps),
                     _counter(stats.avg_throughput_out_bps))
        reads = self._reads
        if reads and reads[-1].created != read.created:
            reads.clear()  # the object restarted: totals are not comparable across it
        back = _went_back(reads, read)
        if not back:
            self._back_since = None
        elif self._back_since is not None and at - self._back_since >= GLITCH_S:
            reads.clear()  # below for long enough: the counters restarted without saying so
            self._back_since = None
        else:
            self._back_since = self._back_since if self._back_since is not None else at
            read = read._replace(bytes_in=None if _bytes_in in back else read.bytes_in,
                                 bytes_out=None if _bytes_out in back else read.bytes_out)
        reads.append(read)
        while len(reads) >= 2 and reads[1].at <= at - RATE_WINDOW_S:
            reads.popleft()  # keep exactly one reading older than the window: the rate's anchor
        rate_in = _rate(reads, _bytes_in)
        rate_out = _rate(reads, _bytes_out)
        window = rate_in if rate_in is not None else rate_out
        disagree = _DISAGREE[(_disagrees(reads, rate_in, _avg_in, _counter(stats.max_throughput_in_bps)),
                              _disagrees(reads, rate_out, _avg_out, _counter(stats.max_throughput_out_bps)))]
        return Sample(at=at, rate_in_bps=None if rate_in is None else rate_in.bps,
                      rate_out_bps=None if rate_out is None else rate_out.bps, viewers=stats.viewers,
                      stats=stats, window_s=None if window is None else window.seconds,
                      window_clock=None if window is None else window.clock, disagree=disagree)

    def sampled_every(self) -> float | None:
        """Mean seconds between the readings in the window (None with fewer than two)."""
        reads = self._reads
        if len(reads) < 2:
            return None
        return (reads[-1].at - reads[0].at) / (len(reads) - 1)

    def forget_all_but_last(self) -> None:
        """The node left the screen: keep one reading, so its next poll still has an anchor."""
        while len(self._reads) > 1:
            self._reads.popleft()


def _went_back(reads: deque[_Read], read: _Read) -> list[Field]:
    """The directions whose total is below the last valid one."""
    back: list[Field] = []
    for field in (_bytes_in, _bytes_out):
        new = field(read)
        old = next((value for r in reversed(reads) if (value := field(r)) is not None), None)
        if new is not None and old is not None and new < old:
            back.append(field)
    return back


class _Rate(NamedTuple):
    bps: float
    seconds: float
    clock: WindowClock
    anchor: _Read


def _rate(reads: deque[_Read], field: Field) -> _Rate | None:
    """One direction's rate, from the oldest valid reading in the window (None: no honest rate)."""
    newest = reads[-1]
    value = field(newest)
    anchor = next((read for read in reads if field(read) is not None), newest)
    old = field(anchor)
    if value is None or old is None or anchor is newest:
        return None
    console = newest.at - anchor.at
    server = (None if newest.server_at is None or anchor.server_at is None
              else newest.server_at - anchor.server_at)
    clock: WindowClock
    if server is not None and MIN_SERVER_SPAN_S <= server <= MAX_CLOCK_RATIO * console + 10:
        seconds, clock = server, "server"
    elif console >= MIN_RATE_SPAN_S:
        seconds, clock = console, "console"
    else:
        return None
    bps = (value - old) * 8 / seconds
    return _Rate(bps, seconds, clock, anchor) if 0 <= bps <= MAX_PLAUSIBLE_BPS else None


def _disagrees(reads: deque[_Read], ours: _Rate | None, figure: Field, peak: int | None) -> bool:
    """Whether the server's figures contradict our rate: above its own peak, or far from its recent
    figures while ingest moves and each of the server's one-second windows was seen (readings at most
    1.5 s apart)."""
    if ours is None:
        return False
    if peak is not None and ours.bps > peak * (1 + RATE_TOLERANCE) + DISAGREE_FLOOR_BPS:
        return True
    anchor = ours.anchor
    if ours.clock == "server":  # the server's figure of each of its updates in the window, once each
        by_update = {r.server_at: figure(r) for r in reads
                     if r.server_at is not None and anchor.server_at is not None and r.server_at > anchor.server_at}
        figures = [value for value in by_update.values() if value is not None]
    else:
        figures = [value for r in reads if r.at > anchor.at and (value := figure(r)) is not None]
    ingest = [value for r in reads if r.at >= anchor.at and (value := r.bytes_in) is not None]
    if not figures or len(ingest) < 2 or ingest[-1] <= ingest[0] or len(figures) * 1.5 < ours.seconds:
        return False
    theirs = sum(figures) / len(figures)
    return abs(ours.bps - theirs) > max(RATE_TOLERANCE * max(ours.bps, theirs), DISAGREE_FLOOR_BPS)

