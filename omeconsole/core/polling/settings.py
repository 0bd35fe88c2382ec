"""How the polling engine paces itself: intervals, the request budget, history lengths."""

from __future__ import annotations

from dataclasses import dataclass

FASTEST_INTERVAL_S = 0.5
"""The shortest polling interval the console offers; the chart series is sized for it."""


@dataclass(frozen=True)
class PollSettings:
    interval: float = 1.0
    """Seconds between polls of the selected node and of every node on screen (budget allowing)."""
    listing_interval: float = 10.0
    """Seconds between listings of the virtual hosts, their applications, and the streams of every
    application that is expanded on screen; also how often the selected stream's input info is read."""
    background_listing_interval: float = 60.0
    """Seconds between listings of the streams of applications not expanded on screen."""
    app_config_interval: float = 300.0
    """Seconds between reads of the selected stream's application document (its publishers): a configuration
    changes rarely; it is read again sooner when it may have changed (the app listed anew, the stream's
    playlists changed, a refresh)."""
    app_config_retry: float = 30.0
    """Seconds before an application document that could not be read is asked for again."""
    request_budget: float = 20.0
    """Requests per second, all kinds together (the token bucket's rate, unless one is shared)."""
    max_concurrency: int = 4
    history_seconds: float = 600.0
    """Full readings kept per watched node: history_seconds / interval of them."""
    chart_seconds: float = 3600.0
    """Rate series kept per watched node, for chart windows up to this long."""
    keep_recent_histories: int = 16
    """Nodes no longer watched that keep their rings, so scrolling away and back keeps a chart."""
    ended_keep_seconds: float = 600.0
    """How long a stream gone from its listing stays listed as ended (with its history)."""
    listing_share: float = 0.5
    """At most this share of a batch goes to background listings while nodes on screen wait."""
    backoff_base: float = 1.0
    backoff_cap: float = 30.0

    def __post_init__(self) -> None:
        if min(self.interval, self.listing_interval, self.background_listing_interval, self.request_budget,
               self.history_seconds, self.chart_seconds, self.app_config_interval, self.app_config_retry) <= 0:
            raise ValueError("intervals, the request budget and the history lengths must be positive")
        if self.max_concurrency < 1:
            raise ValueError("at least one request must be allowed at a time")

    @property
    def history_capacity(self) -> int:
        """Full readings per ring (at the configured interval)."""
        return max(1, round(self.history_seconds / self.interval))

    @property
    def chart_capacity(self) -> int:
        """Series points per ring: the chart window at the fastest interval."""
        return max(1, round(self.chart_seconds / FASTEST_INTERVAL_S))
