"""The traffic model: bit rates with jitter, and viewers per output protocol on a seeded random walk.

Every stream has a popularity ("mood") that drifts, jumps in bursts and drops into quiet periods,
and pulls its viewers toward `audience * mood`, spread over the publisher protocols by per-stream
weights. All of it is column arithmetic, so a tick costs about the same for 10,000 streams as for 8.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from simulator.world.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS

FloatArray = npt.NDArray[np.float64]
Int64Array = npt.NDArray[np.int64]

# Typical share of viewers per publisher protocol (file, hlsv3, llhls, ovt, push, srt, thumbnail, webrtc).
_BASE_WEIGHTS = np.array([0.0, 0.2, 0.45, 0.02, 0.01, 0.02, 0.0, 0.3])
_BURST_RATE = 1 / 600  # per stream per second
_QUIET_RATE = 1 / 900
_SQRT_12 = float(np.sqrt(12.0))
_OVT = PUBLISHER_PROTOCOLS.index("ovt")


class Traffic:
    def __init__(self, seed: int, capacity: int, *, viewer_share: float = 1.0, ovt_viewers: bool = True) -> None:
        """`viewer_share` scales every stream's audience (a fleet's origin serves few viewers itself);
        without `ovt_viewers` nobody watches over OVT but the relays counted in `relay_pulls` (a fleet's edges)."""
        self.rng = np.random.default_rng(seed)
        self.viewer_share = viewer_share
        self.base_weights = _BASE_WEIGHTS.copy()
        if not ovt_viewers:
            self.base_weights[_OVT] = 0.0
        self._capacity = 0
        self.app_row: Int64Array = np.zeros(0, dtype=np.int64)
        self.input_column: Int64Array = np.zeros(0, dtype=np.int64)
        self.bitrate_bps: FloatArray = np.zeros(0)
        self.audience: FloatArray = np.zeros(0)
        self.alive: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)
        self.mood: FloatArray = np.zeros(0)
        self.weights: FloatArray = np.zeros((0, len(PUBLISHER_PROTOCOLS)))
        self.viewers: FloatArray = np.zeros((0, len(PUBLISHER_PROTOCOLS)))
        self.real_viewers: Int64Array = np.zeros((0, len(PUBLISHER_PROTOCOLS)), dtype=np.int64)
        self.relay_pulls: Int64Array = np.zeros(0, dtype=np.int64)
        """Relays (a fleet's edges) pulling each stream over OVT: each one an `ovt` publisher connection that
        receives every byte the stream ingests."""
        self.input_scale: FloatArray = np.zeros(0)
        """Each stream's input bit rate as a share of its own (1; 0 while stalled; a drop in between)."""
        self._resize(capacity)

    def _resize(self, capacity: int) -> None:
        def grow(array: np.ndarray) -> np.ndarray:
            grown = np.zeros((capacity, *array.shape[1:]), dtype=array.dtype)
            grown[: len(array)] = array
            return grown

        self.app_row = grow(self.app_row)
        self.input_column = grow(self.input_column)
        self.bitrate_bps = grow(self.bitrate_bps)
        self.audience = grow(self.audience)
        self.alive = grow(self.alive)
        self.mood = grow(self.mood)
        self.weights = grow(self.weights)
        self.viewers = grow(self.viewers)
        self.real_viewers = grow(self.real_viewers)
        self.relay_pulls = grow(self.relay_pulls)
        self.input_scale = grow(self.input_scale)
        self._capacity = capacity

    def add_stream(self, row: int, app_row: int, input_column: int, bitrate_kbps: int, audience: float) -> None:
        if row >= self._capacity:
            self._resize(max(row + 1, self._capacity * 2))
        self.app_row[row] = app_row
        self.input_column[row] = input_column
        self.bitrate_bps[row] = bitrate_kbps * 1000
        self.audience[row] = audience * self.viewer_share
        self.alive[row] = True
        self.mood[row] = 1.0
        weights = self.base_weights * self.rng.uniform(0.3, 1.7, len(self.base_weights))
        self.weights[row] = weights / weights.sum()
        self.viewers[row] = self.audience[row] * self.weights[row]
        self.real_viewers[row] = 0
        self.relay_pulls[row] = 0
        self.input_scale[row] = 1.0

    def remove_stream(self, row: int) -> None:
        self.alive[row] = False
        self.viewers[row] = 0
        self.real_viewers[row] = 0
        self.relay_pulls[row] = 0

    def step(self, dt: float, n: int, relayed_in: Int64Array | None = None) -> tuple[Int64Array, Int64Array]:
        """Advance every stream by dt seconds; returns bytes in and synthetic bytes out per stream.

        `relayed_in` (a fleet's edge) is what each stream received from its origin in this tick, in place of
        the stream's own encoder model."""
        rng = self.rng
        alive = self.alive[:n]
        if relayed_in is None:
            jitter = 1 + 0.04 * rng.standard_normal(n)
            rate_bps = np.where(alive, self.bitrate_bps[:n] * np.clip(jitter, 0.8, 1.2) * self.input_scale[:n], 0.0)
            delta_in = np.floor(rate_bps * dt / 8).astype(np.int64)
        else:
            delta_in = np.where(alive, relayed_in[:n], 0)
            rate_bps = delta_in * 8 / dt

        mood = self.mood[:n]
        mood *= np.exp(0.05 * np.sqrt(dt) * rng.standard_normal(n))
        bursts = rng.random(n) < _BURST_RATE * dt
        mood[bursts] *= rng.uniform(2.0, 5.0, int(bursts.sum()))
        quiet = rng.random(n) < _QUIET_RATE * dt
        mood[quiet] *= rng.uniform(0.05, 0.3, int(quiet.sum()))
        mood += (1.0 - mood) * min(1.0, 0.01 * dt)
        np.clip(mood, 0.0, 10.0, out=mood)

        viewers = self.viewers[:n]
        target = (self.audience[:n] * mood)[:, None] * self.weights[:n]
        # Uniform steps of unit variance: the same walk as normal steps, at a quarter of the cost.
        noise = (rng.random(viewers.shape) - 0.5) * np.sqrt(viewers + 0.5) * (_SQRT_12 * 0.3 * np.sqrt(dt))
        viewers += (target - viewers) * min(1.0, 0.15 * dt) + noise
        np.clip(viewers, 0.0, None, out=viewers)
        viewers[~alive] = 0.0
        viewers[self.audience[:n] == 0] = 0.0

        synthetic = np.rint(viewers).sum(axis=1)
        delta_out = np.floor(synthetic * rate_bps * dt / 8).astype(np.int64) + self.relay_pulls[:n] * delta_in
        return delta_in, delta_out

    def connections(self, n: int) -> tuple[Int64Array, Int64Array]:
        """Current publisher sessions per protocol and provider (input) sessions per protocol."""
        publisher = np.rint(self.viewers[:n]).astype(np.int64) + self.real_viewers[:n]
        publisher[:, _OVT] += self.relay_pulls[:n]
        provider = np.zeros((n, len(PROVIDER_PROTOCOLS)), dtype=np.int64)
        rows = np.flatnonzero(self.alive[:n])
        provider[rows, self.input_column[rows]] = 1
        return publisher, provider
