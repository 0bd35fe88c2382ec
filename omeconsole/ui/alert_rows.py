"""An alert in the alerts screen's words: when, for how long, and the value against the rule's threshold.

Times in alerts are the console clock's monotonic seconds; here they become the wall-clock time they
were (local time zone) and durations. Every string from outside (rule names and summaries from the
config, node names from the server, the measurement's words) is returned as `Text` built from
`visible_parts`, never parsed as markup.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime, timedelta

from rich.text import Text

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.alerts.state import Alert, AlertStatus
from omeconsole.ui.badges import name_text

STATE_WORDS: Mapping[AlertStatus, tuple[str, str]] = {
    AlertStatus.FIRING: ("⚑ firing", "state-stale"),
    AlertStatus.PENDING: ("◔ pending", "muted"),
    AlertStatus.RESOLVED: ("✓ resolved", "state-live"),
}
"""Symbol and word per status (never colour alone), with the theme variable that colours it."""


def countdown(seconds: float) -> str:
    """`0:24`, `12:05`: minutes and seconds left, rounded up (a countdown reads 0:00 only once it is over)."""
    minutes, secs = divmod(max(0, math.ceil(seconds)), 60)
    return f"{minutes}:{secs:02d}"


def state_words(alert: Alert, now: float) -> tuple[str, str]:
    """The state cell's words and colour: a firing alert whose condition is gone says it is resolving, and
    how long its keep-firing period still holds it."""
    if alert.status is AlertStatus.FIRING and alert.resolves_at is not None:
        return f"⚑ resolving (keep-firing {countdown(alert.resolves_at - now)})", "state-stale"
    return STATE_WORDS[alert.status]


def duration_words(seconds: float) -> str:
    """`42 s`, `3 m 05 s`, `2 h 07 m`, `3 d 4 h`."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} m {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes:02d} m"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h"


def clock_time(at: float, now: float, wall_now: datetime) -> str:
    """The local wall-clock time of monotonic `at`, with the date when it is not today."""
    moment = (wall_now - timedelta(seconds=now - at)).astimezone()
    today = wall_now.astimezone().date()
    return moment.strftime("%H:%M:%S" if moment.date() == today else "%m-%d %H:%M")


def since_text(alert: Alert, now: float, wall_now: datetime) -> str:
    """When the alert fired (firing, resolved) or began to hold (pending)."""
    began = alert.started_at if alert.started_at is not None else alert.since
    return clock_time(began, now, wall_now)


def for_text(alert: Alert, now: float) -> str:
    """How long it has been firing (pending: holding), or how long it fired and when it resolved."""
    if alert.status is AlertStatus.RESOLVED and alert.started_at is not None and alert.resolved_at is not None:
        lasted, ago = alert.resolved_at - alert.started_at, now - alert.resolved_at
        return f"{duration_words(lasted)}, ended {duration_words(ago)} ago"
    began = alert.started_at if alert.started_at is not None else alert.since
    return duration_words(now - began)


def threshold_text(rule: AlertRule) -> str:
    """The rule's threshold in the units of its alerts' values."""
    match rule.kind:
        case "server_down" | "ingest_stopped" | "no_viewers":
            return f"≥ {duration_words(rule.after or 0.0)}"
        case "input_bitrate_drop":
            return f"< {rule.below_percent:g} %"
        case "viewers_above":
            return f"> {rule.viewers}"
        case "marker_unconfirmed":
            return f"≥ {duration_words(rule.within or 0.0)}"
        case "schedule_missed":
            return "a planned break not sent"


def value_text(alert: Alert) -> str:
    """The measured value in the units of the rule's threshold (— when the alert has none)."""
    value = alert.value
    if value is None:
        return "—"
    match alert.kind:
        case "input_bitrate_drop":
            return f"{value:.0f} %"
        case "viewers_above":
            return f"{value:.0f}"
        case _:
            return duration_words(value)


def measured_text(alert: Alert, rule: AlertRule | None) -> str:
    """`12 s / ≥ 10 s`: the value, then the threshold it is held to."""
    value = value_text(alert)
    return f"{value} / {threshold_text(rule)}" if rule is not None else value


def where_text(alert: Alert, colours: Mapping[str, str], *, server: bool = False) -> Text:
    """The node's path, or the server for a server-wide alert, as data; `server`: the node's path after its
    server's name (`edge-1:default/app/news`, for a fleet's alerts)."""
    path = alert.key.path
    if path is None:
        return name_text(f"server {alert.key.server}", colours, style="")
    return name_text(f"{alert.key.server}:{path}" if server else str(path), colours, style="")


def row_cells(alert: Alert, rule: AlertRule | None, now: float, wall_now: datetime,
              colours: Mapping[str, str], *, server: bool = False) -> tuple[Text, ...]:
    """The cells of one row: state, severity, rule, node (after its server's name if `server`), since,
    for, value against threshold."""
    word, colour = state_words(alert, now)
    severity_style = f"bold {colours.get('state-stale', '')}" if alert.severity == "critical" else ""
    return (Text(word, style=colours.get(colour, "")), Text(alert.severity, style=severity_style),
            name_text(alert.key.rule, colours, style="bold"), where_text(alert, colours, server=server),
            Text(since_text(alert, now, wall_now)), Text(for_text(alert, now)),
            Text(measured_text(alert, rule)))


def detail_text(alert: Alert, rule: AlertRule | None, colours: Mapping[str, str], *, server: bool = False) -> Text:
    """The highlighted alert in full: what was measured, the rule's words, scope and timings."""
    text = Text()
    text.append_text(name_text(alert.key.rule, colours))
    text.append(f"  {alert.kind} · {alert.severity} · ")
    text.append_text(where_text(alert, colours, server=server))
    text.append("\nmeasured: ")
    text.append_text(name_text(alert.detail or "—", colours, style=""))
    text.append("\nrule: ")
    text.append_text(name_text(alert.summary, colours, style=""))
    if rule is not None:
        text.append("\nscope ")
        text.append_text(name_text(rule.scope, colours, style=""))
        text.append(f" · fires after {duration_words(rule.for_s)} · resolves after "
                    f"{duration_words(rule.keep_firing_for)} without the condition")
    if alert.key.path is not None:
        text.append("\nEnter: open the node", style=colours.get("muted", ""))
    return text
