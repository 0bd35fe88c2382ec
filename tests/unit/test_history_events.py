"""Ad breaks and alerts in the history store: the schema upgrade, what is kept of a span, retention, `history`.

The upgrade is tested on `history-schema1.sqlite3.gz`, a store written by the writer of the schema before spans
(schema 1: 60 one-second readings of default/app/stream from T0, made with `tests/support/history_support.write`
at commit f557e59, then VACUUMed in rollback-journal mode and gzipped).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from history_support import SERVER, STREAM, T0, Reading, store, write

from omeconsole.cli.main import main
from omeconsole.core.history.database import SCHEMA_VERSION, HistoryError
from omeconsole.core.history.events import TEXT_LIMIT
from omeconsole.core.history.observations import ObservedSpan, ServerId
from omeconsole.core.history.reader import HistoryReader
from omeconsole.core.history.settings import HISTORY_DB_ENV, HistorySettings
from omeconsole.model.paths import NodePath

FIXTURE = Path(__file__).parents[1] / "support" / "fixtures" / "history-schema1.sqlite3.gz"
APP = NodePath("default", "app")
OTHER = NodePath("default", "app", "other")


def _schema1(tmp_path: Path) -> Path:
    path = tmp_path / "old.sqlite3"
    with gzip.open(FIXTURE) as packed, path.open("wb") as unpacked:
        shutil.copyfileobj(packed, unpacked)
    return path


def _span(name: str, began: float, ended: float | None, *, kind: str = "ad break", path: NodePath | None = STREAM,
          label: str = "", severity: str = "", origin: str = "sent", server: ServerId = SERVER) -> ObservedSpan:
    return ObservedSpan(server, name, kind, path, began, ended, label, severity, origin)


def _offer(path: Path, *spans: ObservedSpan, now: float = T0 + 1, settings: HistorySettings | None = None) -> None:
    with store(path, settings, now=now) as writer:
        for span in spans:
            assert writer.offer(span)


def test_a_store_of_the_schema_before_spans_is_upgraded_in_place_and_keeps_every_reading(tmp_path: Path) -> None:
    old = _schema1(tmp_path)
    with sqlite3.connect(old) as raw:
        assert raw.execute("SELECT max(version) FROM schema_migrations").fetchone() == (1,)
        before = raw.execute("SELECT * FROM samples ORDER BY at").fetchall()
        series = raw.execute("SELECT * FROM series").fetchall()
    assert len(before) == 60
    with HistoryReader(old) as reader:  # a reader's opening upgrades it too
        assert [s.path for s in reader.summaries(SERVER.key)] == [STREAM]
        assert reader.spans_kept_after() == T0 + 60, "nothing was kept of breaks up to its last reading"
        assert reader.spans(SERVER.key, T0, T0 + 120) == []
    with sqlite3.connect(old) as raw:
        assert raw.execute("SELECT max(version) FROM schema_migrations").fetchone() == (SCHEMA_VERSION,)
        assert raw.execute("SELECT * FROM samples ORDER BY at").fetchall() == before
        assert raw.execute("SELECT * FROM series").fetchall() == series
    _offer(old, _span("a-1", T0 + 70, T0 + 100), now=T0 + 101)
    with HistoryReader(old) as reader:
        (kept,) = reader.spans(SERVER.key, T0, T0 + 200)
        assert (kept.kind, kept.path, kept.began, kept.ended, kept.origin) == ("ad break", STREAM, T0 + 70, T0 + 100,
                                                                              "sent")
        assert reader.series(SERVER.key, STREAM, T0, T0 + 61, now=T0 + 101).bytes_total() == (59_000, 295_000)


def test_a_store_from_a_newer_version_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    write(db, [Reading(T0, 1, 1, 1)])
    raw = sqlite3.connect(db, isolation_level=None)
    raw.execute("INSERT INTO schema_migrations VALUES (?, 'from the future', 0)", (SCHEMA_VERSION + 1,))
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    untouched = db.read_bytes()
    with pytest.raises(HistoryError, match=rf"newer omeconsole \(schema {SCHEMA_VERSION + 1}; this one reads up to "
                                           rf"{SCHEMA_VERSION}\)"):
        HistoryReader(db)
    with pytest.raises(HistoryError, match="newer omeconsole"), store(db):
        pass
    assert db.read_bytes() == untouched


def test_a_new_store_keeps_spans_from_its_start(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    write(db, [Reading(T0, 1, 1, 1)])
    with HistoryReader(db) as reader:
        assert reader.spans_kept_after() is None


def test_a_span_told_again_is_one_row_corrected_then_ended(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    _offer(db, _span("r-1", T0 + 10, None, origin="sent"),
           _span("r-1", T0 + 12, None, origin="sent"),  # the splice seen in the playlist: the band moves
           _span("r-1", T0 + 12, T0 + 40, origin="sent"),
           _span("r-2", T0 + 20, None, kind="alert", label="news ingest", severity="critical", origin=""),
           _span("r-3", T0 + 30, T0 + 31, kind="alert", path=None, label="server down", origin=""),
           _span("r-4", T0 + 5, T0 + 8, path=OTHER),
           _span("r-5", T0 + 5, T0 + 8, kind="something else"))
    with HistoryReader(db) as reader:
        spans = reader.spans(SERVER.key, T0, T0 + 60)
        assert [(s.kind, s.path, s.began, s.ended) for s in spans] == [
            ("ad break", OTHER, T0 + 5, T0 + 8), ("ad break", STREAM, T0 + 12, T0 + 40),
            ("alert", STREAM, T0 + 20, None), ("alert", None, T0 + 30, T0 + 31)]
        assert spans[2].label == "news ingest" and spans[2].severity == "critical"
        assert [s.path for s in reader.spans(SERVER.key, T0, T0 + 60, STREAM)] == [STREAM, STREAM, None]
        assert len(reader.spans(SERVER.key, T0, T0 + 60, APP)) == 4, "an application has its streams' spans"
        assert [s.began for s in reader.spans(SERVER.key, T0 + 41, T0 + 60)] == [T0 + 20], "only what overlaps"


def test_a_span_still_open_told_again_under_a_new_name_is_the_same_row(tmp_path: Path) -> None:
    """A break on air while the console reconnected: its new session tells it again under a new name."""
    db = tmp_path / "h.sqlite3"
    _offer(db, _span("old-1", T0 + 10, None), _span("old-2", T0 + 10, None, kind="alert", label="a"))
    _offer(db, _span("new-1", T0 + 10.000001, None), _span("new-1", T0 + 10.000001, T0 + 40),
           _span("new-2", T0 + 30, None, kind="alert", label="a"),  # fired again later: another span
           _span("new-3", T0 + 10, T0 + 12, path=OTHER))
    with HistoryReader(db) as reader:
        spans = reader.spans(SERVER.key, T0, T0 + 60)
    assert sorted((s.kind, str(s.path), s.began, s.ended or 0.0) for s in spans) == [
        ("ad break", str(OTHER), T0 + 10, T0 + 12), ("ad break", str(STREAM), T0 + 10.000001, T0 + 40),
        ("alert", str(STREAM), T0 + 10, 0.0), ("alert", str(STREAM), T0 + 30, 0.0)]


def test_labels_are_kept_as_data_and_cut(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    hostile = "[red]x[/red]\x1b]52;c;AAAA\x07'); DROP TABLE events; --" + "é" * 1000
    _offer(db, _span("h-1", T0, T0 + 1, kind="alert", label=hostile, severity="\x1b[2J" * 100, origin=""))
    with HistoryReader(db) as reader:
        (kept,) = reader.spans(SERVER.key, T0, T0 + 2)
    assert kept.label == hostile[:TEXT_LIMIT] and len(kept.severity) == TEXT_LIMIT


def test_retention_takes_spans_with_the_readings_of_their_time(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    settings = HistorySettings(full_resolution="1h", tiers=[])
    _offer(db, _span("o-1", T0, T0 + 60), _span("o-2", T0 + 3000, None), _span("o-3", T0 + 100, T0 + 5000),
           settings=settings)
    _offer(db, settings=settings, now=T0 + 3600 + 1000)  # the writer prunes as it opens
    with HistoryReader(db) as reader:
        assert [s.began for s in reader.spans(SERVER.key, T0 - 10_000, T0 + 10_000)] == [T0 + 100, T0 + 3000]


# -- `omeconsole history` --------------------------------------------------------------------------------------

NOW = float(int(time.time()) // 60 * 60 - 1200)
"""`history` reads the real clock: twenty minutes ago is within its default range."""


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "history.sqlite3"
    monkeypatch.setenv(HISTORY_DB_ENV, str(path))
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(tmp_path / "none.toml"))
    for name in ("OME_API_URL", "OME_ACCESS_TOKEN", "OME_PUBLISHER_URL"):
        monkeypatch.delenv(name, raising=False)
    write(path, [Reading(NOW + s, s * 100, s * 1_000, 7) for s in range(120)], now=NOW + 121)
    _offer(path, _span("c-1", NOW + 10, NOW + 40, origin="playlist"),
           _span("c-2", NOW + 50, None, kind="alert", label="news\x1b[31m ingest", severity="critical", origin=""),
           now=NOW + 121)
    return path


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds")


def _local(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


WINDOW = ["--from", _iso(NOW), "--to", _iso(NOW + 120)]


def test_history_lists_the_spans_after_the_readings_in_text(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "default/app/stream", *WINDOW]) == 0
    text = capsys.readouterr().out
    readings, _, spans = text.partition("ad breaks and alerts: 2\n")
    assert "total moved in this range" in readings
    assert spans.splitlines() == [
        f"  {_local(NOW + 10)}  to {_local(NOW + 40)[11:]} (30 s)  ad break  default/app/stream  playlist",
        f"  {_local(NOW + 50)}  not ended when last recorded  alert  default/app/stream  news\\x1b[31m ingest  "
        "(critical)"]
    assert "\x1b" not in text
    assert main(["history", "default/app/stream", "--from", _iso(NOW + 60), "--to", _iso(NOW + 120)]) == 0
    assert "ad breaks and alerts: 1\n" in capsys.readouterr().out, "the break ended before the range"


def test_history_puts_the_spans_in_its_json_and_events_alone_in_each_format(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "default/app/stream", *WINDOW, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert len(document["points"]) > 0
    assert document["events"] == [
        {"kind": "ad break", "path": "default/app/stream", "start": _iso(NOW + 10), "end": _iso(NOW + 40),
         "seconds": 30.0, "label": "", "severity": None, "origin": "playlist"},
        {"kind": "alert", "path": "default/app/stream", "start": _iso(NOW + 50), "end": None, "seconds": None,
         "label": "news\x1b[31m ingest", "severity": "critical", "origin": None}]

    assert main(["history", "default/app/stream", *WINDOW, "--events", "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert alone["events"] == document["events"] and "points" not in alone

    assert main(["history", "default/app/stream", *WINDOW, "--events", "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows == [
        {"kind": "ad break", "path": "default/app/stream", "start": _iso(NOW + 10), "end": _iso(NOW + 40),
         "seconds": "30.0", "label": "", "severity": "", "origin": "playlist"},
        {"kind": "alert", "path": "default/app/stream", "start": _iso(NOW + 50), "end": "", "seconds": "",
         "label": "news\\x1b[31m ingest", "severity": "critical", "origin": ""}]

    assert main(["history", "default/app/stream", *WINDOW, "--events"]) == 0
    text = capsys.readouterr().out
    assert "ad breaks and alerts: 2" in text and "total moved" not in text

    assert main(["history", "default/app/other", *WINDOW, "--events"]) == 1  # nothing recorded of it
    assert main(["history", "--events"]) == 2
    assert "--events needs a TARGET" in capsys.readouterr().err


def test_history_says_until_when_an_upgraded_store_kept_no_spans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    old = _schema1(tmp_path)
    monkeypatch.setenv(HISTORY_DB_ENV, str(old))
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(tmp_path / "none.toml"))
    assert main(["history", "default/app/stream", "--from", _iso(T0), "--to", _iso(T0 + 60), "--events"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        "ad breaks and alerts: none",
        f"  (not kept before {_local(T0 + 60)}: recorded by a version that did not keep them)"]
