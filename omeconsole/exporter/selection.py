"""Which streams get series of their own when a server has more than `--max-streams`.

Half of the slots go to the busiest streams (most viewers, then the highest outbound rate), the other
half to the newest of the rest (by the server's createdTime), and slots one half leaves unused go to the
other. Streams never read yet are not exported (there is nothing to export). A stream left out loses
nothing: the application's and the virtual host's own series are the server's running counters, which
include every stream, exported or not, live or ended.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from omeconsole.model.nodes import NodeView
from omeconsole.model.paths import NodePath

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# Keys compare the path's segments (plain strings), not NodePath objects: sorting 10,000 streams per scrape.
def _busy_key(view: NodeView) -> tuple[int, float, tuple[str, ...]]:
    sample = view.latest
    assert sample is not None
    return (-(sample.viewers or 0), -(sample.rate_out_bps or 0.0), view.path.segments)


def _new_key(view: NodeView) -> tuple[float, tuple[str, ...]]:
    sample = view.latest
    assert sample is not None
    created = sample.stats.created
    return (-(created.timestamp() if created is not None else _EPOCH.timestamp()), view.path.segments)


def _path_key(view: NodeView) -> tuple[str, ...]:
    return view.path.segments


def choose_streams(views: Iterable[NodeView], limit: int | None) -> list[NodeView]:
    """The streams to export, at most `limit` (None: all that have a reading), in a stable order."""
    readable = [v for v in views if v.latest is not None]
    if limit is None or len(readable) <= limit:
        return sorted(readable, key=_path_key)
    if limit <= 0:
        return []
    busiest = sorted(readable, key=_busy_key)
    newest = sorted(readable, key=_new_key)
    chosen: dict[NodePath, NodeView] = {}
    busy_share = (limit + 1) // 2
    for view in busiest[:busy_share]:
        chosen[view.path] = view
    for view in newest:
        if len(chosen) >= limit:
            break
        chosen.setdefault(view.path, view)
    for view in busiest[busy_share:]:
        if len(chosen) >= limit:
            break
        chosen.setdefault(view.path, view)
    return sorted(chosen.values(), key=_path_key)
