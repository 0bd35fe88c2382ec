"""The status line of a live screen, described from the session: what `StatusBar.show` is given."""

from __future__ import annotations

from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.widgets.status_bar import StatusLine


def status_line(live: LiveSession, selected: NodePath | None, *, sort: str = "",
                filter_text: str = "") -> StatusLine:
    """Server, profile and modes; the link with its errors; pause, interval and the selected node's data
    age; the selected stream's ad break and how many others have one; alerts; what the last key did."""
    engine, context = live.engine, live.context
    now = live.clock.monotonic()
    badge = live.ad_board.badge(selected) if selected is not None else None
    elsewhere = sum(1 for path, _ in live.ad_board.active() if path != selected)
    return StatusLine(
        connection=engine.connection, selected=str(selected) if selected is not None else "", paused=engine.paused,
        interval=engine.interval, data_age=engine.node(selected).age(now) if selected is not None else None,
        sort=sort, filter=filter_text, server=context.host, profile=context.profile, read_only=context.read_only,
        demo=context.demo, ad=badge.labelled if badge is not None else "", ads_elsewhere=elsewhere,
        alerts=len(live.alerts.firing()) if live.alerts is not None else 0, note=live.notes.current(now), now=now)
