"""Live badges for a node: state as a symbol and a word (never colour alone), input, viewers, rates.

Returns Rich `Text` styled with the theme's variables, so the tree, the detail header and the child
list all say the same thing the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from omeconsole.core.text import visible_parts
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.ui import format as fmt

STATE_MARKS: dict[NodeState, tuple[str, str]] = {
    NodeState.LIVE: ("●", "live"),
    NodeState.ENDED: ("■", "ended"),
    NodeState.STALE: ("▲", "stale"),
    NodeState.UNKNOWN: ("?", "waiting"),
    NodeState.UNADDRESSABLE: ("⊘", "unaddressable"),
}
"""Symbol and word per state; the colour only reinforces them."""


def state_text(state: NodeState, colours: Mapping[str, str]) -> Text:
    """The state's symbol and word in its colour (a span, so text appended after it keeps its own)."""
    symbol, word = STATE_MARKS[state]
    return Text().append(f"{symbol} {word}", style=colours.get(f"state-{state.value}", ""))


def input_protocol(view: NodeView) -> str | None:
    """The stream's active input: the provider protocol with connections, else the source type."""
    latest = view.latest
    if latest is not None and latest.stats.connections_in:
        active = [name for name, n in latest.stats.connections_in.items() if n > 0]
        if active:
            return ",".join(sorted(active))
    if view.info is not None and view.info.source_type:
        return view.info.source_type.lower()
    return None


def viewers_text(view: NodeView) -> str:
    if view.latest is None:
        return f"{fmt.NA} viewers"
    n = view.latest.viewers
    return f"{n:,} viewer" if n == 1 else f"{n:,} viewers"


def node_badges(view: NodeView, colours: Mapping[str, str]) -> Text:
    """`● live  rtmp  45 viewers  in 4.50 Mb/s  out 12.30 Mb/s` with theme colours."""
    text = state_text(view.state, colours)
    if view.path.level == "stream":
        text.append(f"  {input_protocol(view) or fmt.NA}")
    text.append(f"  {viewers_text(view)}")
    latest = view.latest
    muted = colours.get("muted", "")
    text.append("  in ", style=muted)
    text.append(fmt.rate(latest.rate_in_bps if latest else None), style=colours.get("rate-in", ""))
    text.append("  out ", style=muted)
    text.append(fmt.rate(latest.rate_out_bps if latest else None), style=colours.get("rate-out", ""))
    return text


def name_text(name: str, colours: Mapping[str, str]) -> Text:
    """A node's name from the server, in bold, with control and bidi characters shown as muted escapes."""
    text = Text()
    for part, escaped in visible_parts(name):
        text.append(part, style=f"bold {colours.get('muted', '')}" if escaped else "bold")
    return text


def node_label(view: NodeView, colours: Mapping[str, str], *, compact: bool = False) -> Text:
    """A tree label: the node's own name, then its badges (only state and viewers when compact)."""
    label = name_text(view.path.name, colours)
    label.append("  ")
    if compact:
        label.append_text(state_text(view.state, colours))
        label.append(f"  {viewers_text(view)}")
    else:
        label.append_text(node_badges(view, colours))
    return label
