"""Where open source 0.18-0.20 cut LL-HLS segments when cue events arrive (they write no marker tag).

The rule, read from a real 0.19.0 (captures/ome-0.19.0 `markers/versions`, `timeline.txt`, the log's
"Force segment flush immediately, cue-out marker"), with D the segment duration:

- Each segment aims at a point of the stream's D grid: segment `msn` ends at the first keyframe at or after
  `(msn + 1 - inserted) x D` (and after its own start), `inserted` being how many segments cuts have added
  so far. Without cues this is the plain grid.
- A cue-out cuts the segment in progress at the cue point (the start of the frame it falls in, not a
  keyframe) and adds a segment: the next one ends at the grid point the cut one aimed at (5.867 s, then a
  0.133 s segment whose only part is not INDEPENDENT, then D again).
- A cue-in inside the break cuts the same way but adds no segment: the next one runs to the grid point
  after (3.133 s, then 8.867 s).
- The break's automatic return (its planned end) holds the segment it falls in open past 2 x D, to the end
  of the part in progress then (12.5 s for D = 6 s, part 0.5 s), and adds a segment: the segments after it
  end at the next keyframes until the grid is caught up (0.5, 1.0, 4.0 s, then D).

The captures show one break with a manual cue-in; a break that returns by itself is given the same return.
Audio follows the video's boundaries (its first AAC frame at or after each), where the real server cuts it
on its own frames (5.898 + 0.116 s there).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Literal

CutKind = Literal["out", "in", "return"]


@dataclass(frozen=True)
class Cut:
    ticks: int
    kind: CutKind


@dataclass(frozen=True)
class Run:
    """Segments `first_msn`, `first_msn + 1`, ... start at `starts`; after the run the grid resumes with
    `inserted` segments added: segment `msn` starts at `(msn - inserted) x D`."""

    first_msn: int
    starts: tuple[int, ...]
    inserted: int


class CueSegmentation:
    """Segment boundaries of one stream under the rule above, for its cuts (sorted by time)."""

    def __init__(self, cuts: list[Cut], *, segment_ticks: int, keyframe_ticks: int, part_ticks: int) -> None:
        self.segment_ticks = segment_ticks
        self.keyframe_ticks = keyframe_ticks
        self.part_ticks = part_ticks
        self.runs = self._runs(sorted(cuts, key=lambda c: c.ticks))
        self._run_starts = [run.starts[0] for run in self.runs]
        self._run_msns = [run.first_msn for run in self.runs]

    def boundary(self, msn: int) -> int:
        """Start of segment `msn`."""
        at = bisect.bisect_right(self._run_msns, msn) - 1
        if at < 0:
            return msn * self.segment_ticks
        run = self.runs[at]
        offset = msn - run.first_msn
        if offset < len(run.starts):
            return run.starts[offset]
        return (msn - run.inserted) * self.segment_ticks

    def msn_at(self, ticks: int) -> int:
        """The segment in progress at media time `ticks` (video boundaries)."""
        at = bisect.bisect_right(self._run_starts, ticks) - 1
        if at < 0:
            return ticks // self.segment_ticks
        run = self.runs[at]
        inside = bisect.bisect_right(run.starts, ticks) - 1
        if inside < len(run.starts) - 1:
            return run.first_msn + inside
        return max(run.first_msn + len(run.starts) - 1, ticks // self.segment_ticks + run.inserted)

    def _keyframe_after(self, ticks: int) -> int:
        """The first keyframe strictly after `ticks`."""
        return (ticks // self.keyframe_ticks + 1) * self.keyframe_ticks

    def _runs(self, cuts: list[Cut]) -> tuple[Run, ...]:
        seg = self.segment_ticks
        runs: list[Run] = []
        inserted = 0
        pending = list(cuts)
        while pending:
            msn = pending[0].ticks // seg + inserted  # the grid holds until the next cut
            start = (msn - inserted) * seg
            first_msn, starts = msn, [start]
            while True:
                target = max((msn + 1 - inserted) * seg, start + 1)
                end = -(-target // self.keyframe_ticks) * self.keyframe_ticks
                cut = next((c for c in pending if start < c.ticks < end), None)
                if cut is not None and cut.kind == "return":
                    end = start + (2 * seg // self.part_ticks + 1) * self.part_ticks
                    inserted += 1
                elif cut is not None:
                    end = cut.ticks
                    inserted += cut.kind == "out"
                pending = [c for c in pending if c.ticks >= end]
                msn, start = msn + 1, end
                starts.append(start)
                on_grid = start == (msn - inserted) * seg
                if on_grid and (not pending or pending[0].ticks >= start + seg):
                    break
            runs.append(Run(first_msn, tuple(starts), inserted))
        return tuple(runs)
