"""The connection panels: bars as wide as the panel, a height that holds still when a count flaps; the totals
as wide as the panel is."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from wait_support import resized, settled
from widget_support import NEWS, NOW, view

from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.widgets.connection_bars import SHRINK_AFTER, ConnectionBars
from omeconsole.ui.widgets.totals_panel import TotalsPanel, totals_rows

PROTOCOLS = ("llhls", "hlsv3", "webrtc", "srt")


class PanelHost(PaletteApp[None]):
    CSS = "ConnectionBars { width: 1fr; height: auto; border: round $primary; padding: 0 1; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield ConnectionBars("inbound", PROTOCOLS, id="in")
            yield ConnectionBars("outbound", PROTOCOLS, id="out")


def lines(panel: ConnectionBars) -> list[str]:
    return [strip.text for strip in panel.render_lines(Region(0, 0, panel.outer_size.width, panel.outer_size.height))]


async def test_a_flapping_count_does_not_move_the_screen_and_another_node_starts_afresh() -> None:
    app = PanelHost()
    async with app.run_test(size=(90, 20)) as pilot:
        panel = app.query_one("#out", ConnectionBars)
        panel.show({"llhls": 9, "hlsv3": 4, "webrtc": 1}, fresh=True)
        await settled(pilot)
        drawn = lines(panel)
        assert panel.outer_size.height == 2 + 4, "three bars and the idle line, in a border"
        assert all(line.endswith("│") and line.startswith("│") for line in drawn[1:-1]), "no bar wraps"
        assert "llhls" in drawn[1] and drawn[1].rstrip("│ ").endswith("9")
        panel.show({"llhls": 9, "hlsv3": 4, "webrtc": 0})  # webrtc drops to 0: one bar fewer
        await settled(pilot)
        assert panel.outer_size.height == 6, "one line fewer: the panel (and all below it) holds still"
        assert not any("webrtc █" in line for line in lines(panel))
        for reading in range(SHRINK_AFTER):  # two bars fewer, and back, and fewer again: flapping
            panel.show({"llhls": 9, "hlsv3": 4, "webrtc": 1} if reading % 2 else {"llhls": 9 + reading % 4})
            await settled(pilot)
            assert panel.outer_size.height == 6, "a count that comes and goes does not move the screen"
        for reading in range(SHRINK_AFTER):  # fewer bars for long enough: the room is given back
            assert panel.outer_size.height == 6
            panel.show({"llhls": 9 + reading % 2})
            await settled(pilot)
        assert panel.outer_size.height == 2 + 2
        panel.show({"llhls": 2}, fresh=True)  # another node
        await settled(pilot)
        assert panel.outer_size.height == 2 + 2
        panel.show(None, fresh=True)
        await settled(pilot)
        assert "n/a (not reported by this server)" in "\n".join(lines(panel))


class TotalsHost(PaletteApp[None]):
    CSS = "TotalsPanel { width: 1fr; height: auto; border: round $primary; padding: 0 1; }"

    def compose(self) -> ComposeResult:
        yield TotalsPanel(id="totals")


async def test_totals_follow_the_panels_width_one_column_two_columns_and_cut() -> None:
    app = TotalsHost()
    async with app.run_test(size=(70, 20)) as pilot:
        panel = app.query_one(TotalsPanel)
        panel.show(view(NEWS), NOW)
        await settled(pilot)
        drawn = lines(panel)
        assert panel.outer_size.height == 2 + len(totals_rows(view(NEWS), NOW)), "one pair a line"
        widest = max(len(label) for label, _ in totals_rows(view(NEWS), NOW))
        bytes_in = next(line for line in drawn if "bytes in" in line)
        assert bytes_in.index("953.67 MiB") == bytes_in.index("bytes in") + widest + 1, "labels padded alike"
        await resized(pilot, 130, 20)
        await settled(pilot)
        assert panel.outer_size.height == 2 + (len(totals_rows(view(NEWS), NOW)) + 1) // 2, "two columns"
        assert any("bytes in" in line and "connections" in line for line in lines(panel))
        await resized(pilot, 34, 20)
        await settled(pilot)
        narrow = lines(panel)
        assert all(len(line) == 34 for line in narrow), "nothing wraps or spills out of the panel"
        assert any("…" in line for line in narrow), "what does not fit is cut visibly"
