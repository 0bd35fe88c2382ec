"""The ad breaks and alerts `omeconsole history TARGET` prints: the spans the store kept of the node and the
nodes below it (and the server's own alerts), over the asked range, in each of the command's formats.

Text: one line per span, local times as the readings' (`2026-01-01 00:00:12  to 00:00:40 (28 s)  ad break
default/app/news  sent`); JSON: an `events` list in the node's document; CSV (`--events`): one row per span.
Labels are server and config text: shown through `core.text.visible` in text and CSV, kept as data (ASCII-escaped)
in JSON. A span the recording stopped before it ended has no end ("not ended when last recorded").
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

from omeconsole.core.text import visible

if TYPE_CHECKING:
    from omeconsole.core.history.events import RecordedSpan

CSV_COLUMNS = ("kind", "path", "start", "end", "seconds", "label", "severity", "origin")
LABEL_LIMIT = 80
"""Characters of a label shown in text and CSV."""
OPEN_WORDS = "not ended when last recorded"


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")


def _local(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))


def _node(span: RecordedSpan) -> str:
    return "(whole server)" if span.path is None else visible(str(span.path))


def _seconds(span: RecordedSpan) -> float | None:
    return None if span.ended is None else round(span.ended - span.began, 3)


def span_json(span: RecordedSpan) -> dict[str, Any]:
    return {"kind": span.kind, "path": None if span.path is None else str(span.path), "start": _iso(span.began),
            "end": _iso(span.ended), "seconds": _seconds(span), "label": span.label, "severity": span.severity or None,
            "origin": span.origin or None}


def span_row(span: RecordedSpan) -> dict[str, Any]:
    row = span_json(span)
    row.update(path=_node(span), label=visible(span.label, LABEL_LIMIT), severity=visible(span.severity, LABEL_LIMIT),
               origin=visible(span.origin, LABEL_LIMIT))
    return {key: "" if value is None else value for key, value in row.items()}


def span_line(span: RecordedSpan) -> str:
    """One span in words (see the module)."""
    if span.ended is None:
        until = OPEN_WORDS
    else:
        end = _local(span.ended)
        same_day = end[:10] == _local(span.began)[:10]
        until = f"to {end[11:] if same_day else end} ({span.ended - span.began:.0f} s)"
    words = [span.kind, _node(span)]
    if span.label:
        words.append(visible(span.label, LABEL_LIMIT))
    if span.severity:
        words.append(f"({visible(span.severity, LABEL_LIMIT)})")
    if span.origin:
        words.append(visible(span.origin, LABEL_LIMIT))
    return f"{_local(span.began)}  {until}  {'  '.join(words)}"


def print_spans(spans: list[RecordedSpan], kept_after: float | None, start: float, out: IO[str]) -> None:
    """The text section: a heading, the spans oldest first, and what the store could not keep."""
    print(f"ad breaks and alerts: {len(spans) or 'none'}", file=out)
    for span in spans:
        print(f"  {span_line(span)}", file=out)
    if kept_after is not None and start <= kept_after:
        print(f"  (not kept before {_local(kept_after)}: recorded by a version that did not keep them)", file=out)
