"""Live badges for a node: state as a symbol and a word (never colour alone), input, viewers, rates.

Returns Rich `Text` styled with the theme's variables, so the tree, the detail header and the child
list all say the same thing the same way. An ended stream shows no current rate or viewers (its
last figures are in the totals, as last seen); names from the server are data: control and bidi
characters are shown as muted escapes and nothing is read as markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text

from omeconsole.core import units
from omeconsole.core.text import visible_parts
from omeconsole.core.uptime import uptime_s
from omeconsole.model import audience
from omeconsole.model.nodes import STALLED_MARK, STATE_MARKS, NodeState, NodeView, is_stalled
from omeconsole.ui.fitting import Part, fitted

Marks = tuple[str, ...]
"""Short flags shown after a node's name, most urgent first (`AD 0:24`, `⚑ 2`)."""


def state_text(state: NodeState, colours: Mapping[str, str]) -> Text:
    """The state's symbol and word in its colour (a span, so text appended after it keeps its own)."""
    symbol, word = STATE_MARKS[state]
    return Text().append(f"{symbol} {word}", style=colours.get(f"state-{state.value}", ""))


def view_state_text(view: NodeView, colours: Mapping[str, str]) -> Text:
    """The node's state as a row and a header say it: `● live`, `◐ stalled` (no input bytes for
    `INGEST_STALL_S`), `○ ended`, `▲ stale`."""
    if is_stalled(view):
        symbol, word = STALLED_MARK
        return Text().append(f"{symbol} {word}", style=colours.get("state-stale", ""))
    return state_text(view.state, colours)


def ended_text(view: NodeView) -> str:
    """When an ended stream was last seen live, from its last reading's server time (`last seen 12:03:04`),
    and its input as last known."""
    latest = view.latest
    parts = []
    moment = None if latest is None else (latest.stats.last_recv or latest.stats.last_updated)
    if moment is not None:
        parts.append(f"last seen {moment.astimezone().strftime('%H:%M:%S')}")
    protocol = input_protocol(view, last_known=True)
    if protocol:
        parts.append(f"input was {protocol}")
    return ", ".join(parts)


def input_protocol(view: NodeView, *, last_known: bool = False) -> str | None:
    """The stream's active input: the provider protocol with connections, else the source type
    (`last_known`: from the last reading of an ended stream too)."""
    current = view.latest if last_known else view.current
    if current is not None and current.stats.connections_in:
        active = [name for name, n in current.stats.connections_in.items() if n > 0]
        if active:
            return ",".join(sorted(active))
    if view.info is not None and view.info.source_type:
        return "".join(part for part, _ in visible_parts(view.info.source_type.lower(), 12))
    return None


def viewers_text(view: NodeView) -> str:
    """Playback sessions (`model.audience`): never relays, pushes, recordings or thumbnail readers."""
    viewers = view.viewers
    if viewers is None:
        return "— viewers" if view.state is NodeState.ENDED else f"{units.NA} viewers"
    return audience.count_text(viewers, "viewers")


def others_text(view: NodeView) -> str:
    """The node's connections that are not viewers, named (`16 relays · 1 recording`), empty when none."""
    current = view.current
    return "" if current is None else audience.others_text(current.stats.connections_out)


def own_text(view: NodeView) -> str:
    """` (+1 this console)` when the server counted the console's own open playlist read (taken off the
    viewers shown), else empty."""
    current = view.current
    own = 0 if current is None else current.own_viewers
    return f" (+{own} this console)" if own else ""


def badge_parts(view: NodeView, colours: Mapping[str, str], *, own: bool = False,
                now: float | None = None) -> list[Part]:
    """`● live  rtmp  45 viewers  in 4.50 Mb/s  out 12.30 Mb/s` with theme colours (an ended node: no
    current figures, `○ ended  last seen 12:03:04, input was rtmp`; a rate the server's own figures
    contradict: `⚠` after it). `own`: say when the server also counted the console's own playlist reads
    (the detail's header; rows show the audience). `now`: the screen's instant, for a stream's uptime
    (`up 12 min 05 s`, `up —` when the server's figures give none; `core/uptime`), shown only when given.

    As parts (`ui/fitting`): the state and the viewers stay longest, then the rates (out before in), then
    the uptime; the input, the other connections and the console's own reads go first when the row or
    header is narrow."""
    parts = [Part(view_state_text(view, colours), 0)]
    if view.state is NodeState.ENDED:  # no current figures: when it was last seen, what it was
        said = ended_text(view)
        if said:
            parts.append(Part(Text(said, style=colours.get("muted", "")), 3))
        return parts
    if view.path.level == "stream":
        parts.append(Part(Text(input_protocol(view) or units.NA), 4))
    parts.append(Part(Text(viewers_text(view)), 1))
    muted = colours.get("muted", "")
    if own and (mine := own_text(view)):
        parts.append(Part(Text(mine.strip(), style=muted), 6, separator=" "))
    others = others_text(view)
    if others:
        parts.append(Part(Text(others, style=muted), 5, separator=" · "))
    disagree = view.server_disagrees
    for direction, rate in (("in", view.rate_in_bps), ("out", view.rate_out_bps)):
        badge = Text(f"{direction} ", style=muted)
        badge.append(units.rate(rate), style=colours.get(f"rate-{direction}", ""))
        if direction in disagree:
            badge.append(" ⚠", style=colours.get("state-stale", ""))
        parts.append(Part(badge, 2))
    if now is not None and view.path.level == "stream":
        parts.append(Part(Text(f"up {units.uptime(uptime_s(view, now))}", style=muted), 3))
    return parts


def name_text(name: str, colours: Mapping[str, str], style: str = "bold") -> Text:
    """A name from the server, in `style`, with control and bidi characters shown as muted escapes."""
    text = Text()
    for part, escaped in visible_parts(name):
        text.append(part, style=f"{style} {colours.get('muted', '')}" if escaped else style)
    return text


def marks_text(marks: Sequence[str], colours: Mapping[str, str]) -> Text:
    text = Text()
    for mark in marks:
        text.append(f" {mark} ", style=f"reverse bold {colours.get('rate-out', '')}")
        text.append(" ")
    return text


def node_label(view: NodeView, colours: Mapping[str, str], *, compact: bool = False, marks: Marks = (),
               name_room: int | None = None, badge_room: int | None = None) -> Text:
    """A tree label: the node's own name, its marks, then its badges (only state and viewers when compact).
    `name_room`: the name's column (cut with `…`, padded: the badges of every row start at the same
    column); `badge_room`: the columns of the marks and badges (the least useful badges go first, the marks
    never)."""
    label = name_text(view.path.name, colours)
    if name_room is not None:
        label.truncate(max(1, name_room), overflow="ellipsis", pad=True)
    label.append("  ")
    if compact:
        parts = [Part(view_state_text(view, colours), 0)]
        if view.state is not NodeState.ENDED:  # an ended stream has no current viewers to say
            parts.append(Part(Text(viewers_text(view)), 1))
    else:
        parts = badge_parts(view, colours)
    if marks:
        parts.insert(0, Part(marks_text(marks, colours), 0))
        parts[1] = Part(parts[1].text, 0, separator="")  # the marks end with their own space
    label.append_text(fitted(parts, badge_room))
    return label
