"""The link to one server: a small state machine with the one back-off, and its error bookkeeping.

connecting -> (detected) connected -> (every answer of an attempt a link error) unreachable /
unauthorized / error, probing with back-off -> (any answer) connected.

While the link is down one cheap probe goes out per attempt, and the probe's back-off never exceeds
one interval, so a server that comes back is seen within two intervals however long it was away;
bulk work waits. Every failed request, and every internal error, counts towards `errors_per_minute`
and `last_error`, whether or not it took the link down. "connected" is never said while requests fail
or hang and none has succeeded for two intervals: the state says "error" and why.
"""

from __future__ import annotations

import math
from collections import deque

from omeconsole.api.errors import AuthError, RequestTimeout, UnreachableError
from omeconsole.core.polling.budget import Backoff
from omeconsole.model.server import LinkState, LinkStatus, ServerInfo

_ERROR_WINDOW_S = 60.0
_MAX_ERRORS_KEPT = 4096
"""More failures than this in a minute read as "4096 or more per minute"; memory stays bounded."""


class Link:
    def __init__(self, api_url: str, backoff: Backoff, backoff_cap: float) -> None:
        self._api_url = api_url
        self._backoff = backoff
        self._backoff_cap = backoff_cap
        self.server: ServerInfo | None = None
        self.status: LinkStatus = "connecting"
        self.message = "connecting"
        self.retry_at: float | None = None
        self._errors: deque[float] = deque(maxlen=_MAX_ERRORS_KEPT)
        self._errors_total = 0
        self.last_error: str | None = None
        self.last_error_at: float | None = None
        self.last_success_at: float | None = None

    @property
    def up(self) -> bool:
        return self.server is not None and self.status == "connected"

    def ready(self, now: float) -> bool:
        """Whether an attempt may go out now (not waiting out a back-off)."""
        return self.retry_at is None or now >= self.retry_at

    def retry_now(self) -> None:
        self.retry_at = None

    # -- what happened ----------------------------------------------------------------------------

    def detected(self, server: ServerInfo, now: float) -> None:
        self.server = server
        self.succeeded(now)

    def succeeded(self, now: float) -> None:
        self.last_success_at = now
        if self.server is not None and self.status != "connected":
            self._backoff.reset()
            self.retry_at = None
            self.status = "connected"
            self.message = (f"connected to {self._api_url}: {self.server.edition} {self.server.version} "
                            f"({self.server.stats_api} statistics)")

    def failed(self, message: str, now: float) -> None:
        """One failed request (or internal error); counted, and it does not by itself take the link down."""
        self._errors.append(now)
        self._errors_total += 1
        self.last_error = message
        self.last_error_at = now

    def down(self, error: Exception, message: str, now: float, interval: float) -> None:
        """Every answer of an attempt said the server cannot be used (or detection failed): back off,
        then probe again. `message` is the failure in words."""
        # The probe's cap follows the interval (it may change at run time): see the module docstring.
        self._backoff.cap = min(self._backoff_cap, interval)
        delay = self._backoff.next_delay()
        self.retry_at = now + delay
        if isinstance(error, AuthError):
            self.status, text = "unauthorized", f"the server refused the access token: {message}"
        elif isinstance(error, UnreachableError | RequestTimeout):
            self.status, text = "unreachable", message
        else:
            self.status, text = "error", message
        self.message = f"{text} (retrying in {delay:.0f} s)"

    # -- what the screens read ------------------------------------------------------------------

    def errors_per_minute(self, now: float) -> int:
        count = 0
        for at in reversed(self._errors):
            if at < now - _ERROR_WINDOW_S:
                break
            count += 1
        return count

    def state(self, now: float, interval: float, waiting_since: float | None) -> LinkState:
        """The link as the screens should see it now. `waiting_since`: start of the oldest request in flight."""
        status, message = self.status, self.message
        if status == "connected":
            since = self.last_success_at if self.last_success_at is not None else -math.inf
            failing = self.last_error_at is not None and self.last_error_at > since
            hanging = waiting_since is not None and waiting_since < now - 2 * interval and waiting_since > since
            if (failing or hanging) and now - since > 2 * interval:
                status = "error"
                quiet = "ever" if math.isinf(since) else f"{now - since:.0f} s"
                why = f"last error: {self.last_error}" if failing else "requests are not answered"
                message = f"no request to {self._api_url} has succeeded for {quiet}; {why}"
        return LinkState(status=status, message=message, server=self.server, next_retry_at=self.retry_at,
                         failures=self._backoff.failures, errors_per_minute=float(self.errors_per_minute(now)),
                         last_error=self.last_error, last_error_at=self.last_error_at,
                         last_success_at=self.last_success_at, errors_total=self._errors_total)
