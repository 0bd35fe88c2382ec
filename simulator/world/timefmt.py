"""The server's timestamp format: YYYY-MM-DDTHH:MM:SS.mmm+00:00 (milliseconds and offset always)."""

from __future__ import annotations

from datetime import UTC, datetime


def iso8601_ms(epoch_ms: int) -> str:
    moment = datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}+00:00"
