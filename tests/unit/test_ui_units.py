"""The console's pure parts: wording of numbers, themes, bars, badges, export files."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from omeconsole.core import units as fmt
from omeconsole.core.export import write_history
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample
from omeconsole.model.server import LinkState
from omeconsole.ui.badges import node_label
from omeconsole.ui.themes import BUILTIN_THEME_DIR, ThemeFileError, load_theme_file, load_themes
from omeconsole.ui.widgets.connection_bars import bar
from omeconsole.ui.widgets.status_bar import banner_text

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def stats(total_in: int = 0, connections_in: dict[str, int] | None = None, viewers: int = 0) -> NodeStats:
    return NodeStats(created=T0, last_updated=T0, total_bytes_in=total_in, total_bytes_out=0,
                     connections_in=connections_in, connections_out={"llhls": viewers},
                     total_connections=viewers, max_total_connections=viewers, max_total_connection_time=T0,
                     avg_throughput_in_bps=0, avg_throughput_out_bps=0, max_throughput_in_bps=0,
                     max_throughput_out_bps=0, last_throughput_in_bytes=0, last_throughput_out_bytes=0)


def view(path: str, *, viewers: int = 0, rate: float | None = None, state: NodeState = NodeState.LIVE,
         history: int = 1) -> NodeView:
    samples = tuple(Sample(at=float(i), rate_in_bps=rate if i else None, rate_out_bps=None, viewers=viewers,
                           stats=stats(i * 1000, {"srt": 1}, viewers)) for i in range(history))
    return NodeView(path=NodePath.parse(path), state=state, latest=samples[-1] if samples else None,
                    history=samples)


class TestUnits:
    def test_rates_are_bits_per_second_in_decimal_units(self) -> None:
        assert fmt.rate(4_500_000) == "4.50 Mb/s"
        assert fmt.rate(1_590_000_000) == "1.59 Gb/s"
        assert fmt.rate(999) == "999 b/s"
        assert fmt.rate(0.0) == "0 b/s"

    def test_totals_are_bytes_in_binary_units(self) -> None:
        assert fmt.size(1536) == "1.50 KiB"
        assert fmt.size(3 * 1024**3) == "3.00 GiB"
        assert fmt.size(12) == "12 B"

    def test_unknown_values_read_na_never_zero(self) -> None:
        assert fmt.rate(None) == fmt.size(None) == fmt.count(None) == fmt.age(None) == "n/a"
        assert fmt.timestamp(None) == "n/a"

    def test_ages_read_naturally(self) -> None:
        assert fmt.age(0.42) == "0.4 s"
        assert fmt.age(75) == "1 min 15 s"
        assert fmt.age(7260) == "2 h 01 min"


class TestThemes:
    def test_every_builtin_theme_loads(self) -> None:
        loaded = load_themes([BUILTIN_THEME_DIR])
        assert loaded.problems == []
        names = {t.name for t in loaded.themes}
        assert {"ome-dark", "ome-light", "ome-high-contrast", "ome-colour-blind"} <= names
        for theme in loaded.themes:
            for variable in ("state-live", "state-ended", "state-stale", "rate-in", "rate-out", "meter", "muted"):
                assert variable in theme.variables, (theme.name, variable)

    def test_colour_blind_theme_does_not_pair_red_and_green_for_states(self) -> None:
        theme = load_theme_file(BUILTIN_THEME_DIR / "colour-blind.toml")
        assert theme.variables["state-live"].upper() == "#56B4E9"  # sky blue, not green
        assert theme.variables["state-stale"].upper() == "#E69F00"  # orange, not red

    def test_a_user_theme_overrides_and_a_bad_one_is_reported(self, tmp_path: Path) -> None:
        (tmp_path / "mine.toml").write_text('name = "ome-dark"\nprimary = "#123456"\n')
        (tmp_path / "broken.toml").write_text('name = "x"\nprimary = "not-a-colour"\n')
        loaded = load_themes([BUILTIN_THEME_DIR, tmp_path])
        dark = next(t for t in loaded.themes if t.name == "ome-dark")
        assert dark.primary == "#123456" and dark.variables["rate-in"] == "#123456"
        assert len(loaded.problems) == 1 and "broken.toml" in loaded.problems[0]

    def test_unknown_keys_are_refused_with_the_file_named(self, tmp_path: Path) -> None:
        path = tmp_path / "typo.toml"
        path.write_text('name = "t"\nprimary = "#000000"\nprimery = "#111111"\n')
        with pytest.raises(ThemeFileError, match=r"typo\.toml.*primery"):
            load_theme_file(path)


class TestDrawing:
    def test_bars_scale_to_the_peak(self) -> None:
        assert bar(10, 10, 8) == "█" * 8
        assert bar(5, 10, 8) == "█" * 4
        assert bar(0, 10, 8) == ""
        assert bar(1, 100, 8) == "▏"

    def test_badges_say_the_state_in_words(self) -> None:
        label = node_label(view("default/app/news", viewers=25, rate=3e6, history=2), {}).plain
        assert label == "news  ● live  srt  25 viewers  in 3.00 Mb/s  out n/a"
        ended = view("default/app/news", viewers=25, rate=3e6, state=NodeState.ENDED, history=2)
        assert node_label(ended, {}, compact=True).plain == "news  ○ ended"  # no current figures
        said = node_label(ended, {}).plain  # when it was last seen (local time), what its input was
        assert said.startswith("news  ○ ended  last seen ") and said.endswith(", input was srt"), said
        assert "viewers" not in said and "n/a" not in said

    def test_banner_explains_and_counts_down(self) -> None:
        down = LinkState(status="unreachable", message="cannot connect to h:1 (retrying in 4 s)",
                               next_retry_at=12.5)
        assert banner_text(down, now=10.0) == "✖ UNREACHABLE: cannot connect to h:1 (retrying in 2.5 s)"
        assert banner_text(LinkState(status="connected", message="ok"), now=0.0) is None


def test_export_writes_units_and_leaves_unknowns_empty(tmp_path: Path) -> None:
    node = view("default/app/news", viewers=3, rate=2e6, history=3)
    paths = write_history(node, tmp_path, T0, mono_now=2.0)
    assert [p.name for p in paths] == ["default_app_news-20260101T000000.csv",
                                       "default_app_news-20260101T000000.json"]
    rows = list(csv.DictReader(paths[0].open()))
    assert [r["rate_in_bps"] for r in rows] == ["", "2000000", "2000000"]
    assert rows[0]["received_at"] == "2025-12-31T23:59:58.000+00:00"
    assert rows[2]["connections_in_srt"] == "1" and rows[2]["viewers"] == "3"
    document = json.loads(paths[1].read_text())
    assert document["samples"][0]["rate_in_bps"] is None
    assert "bits per second" in document["units"]["rate_*"]
