"""`omeconsole history` and `record` at the edges, and the `[history]` settings, on stores written here."""

from __future__ import annotations

import csv
import io
import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from history_support import SERVER, STREAM, Reading, write

from omeconsole.cli.main import main
from omeconsole.core.config import ConfigError, load_settings
from omeconsole.core.history.settings import HISTORY_DB_ENV, HistorySettings
from omeconsole.core.history.target import Target
from omeconsole.model.paths import NodePath

T0 = float(int(time.time()) // 60 * 60 - 1200)
"""Twenty minutes ago on a whole minute: `history` reads the real clock, and this is at full resolution."""


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "history.sqlite3"
    monkeypatch.setenv(HISTORY_DB_ENV, str(path))
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(tmp_path / "none.toml"))
    for name in ("OME_API_URL", "OME_ACCESS_TOKEN", "OME_PUBLISHER_URL"):
        monkeypatch.delenv(name, raising=False)
    return path


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat()


def test_history_prints_a_range_at_a_step_with_gaps_as_empty_rows(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(db, [Reading(T0 + s, s * 100, s * 1_000, 7, created=T0 - 600) for s in range(120) if not 40 <= s < 60])
    window = ["--from", _iso(T0), "--to", _iso(T0 + 120)]
    assert main(["history", "default/app/stream", *window, "--step", "10s", "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["time"] for r in rows] == [datetime.fromtimestamp(T0 + s, UTC).isoformat(timespec="milliseconds")
                                         for s in range(0, 120, 10)]
    assert [r["samples"] for r in rows] == ["10"] * 4 + ["0", "0"] + ["10"] * 6
    assert rows[4]["bytes_out"] == "" and rows[4]["viewers"] == ""  # a gap is empty, never 0
    assert sum(int(r["bytes_out"] or 0) for r in rows) == 119 * 1_000

    assert main(["history", "default/app/stream", *window]) == 0
    text = capsys.readouterr().out
    assert text.count("gap: no sample") == 1  # samples as taken: one gap where 20 went missing
    assert "every sample as taken from full resolution, sampled every 1.0 s" in text
    assert "total moved in this range: 11.62 KiB in, 116.21 KiB out" in text
    assert main(["history", "default/app/stream", *window, "--step", "10s"]) == 0
    text = capsys.readouterr().out
    assert text.count("gap: no sample until") == 1 and "(2 points)" in text


def test_history_refuses_what_it_cannot_answer(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "default/app/stream"]) == 1
    assert "no history recorded yet" in capsys.readouterr().err
    assert not db.exists()
    write(db, [Reading(T0, 1, 1, 1, created=T0)])
    assert main(["history", "default/app/other"]) == 1
    assert "nothing recorded for default/app/other" in capsys.readouterr().err
    assert main(["history", "default/app/stream", "--from", _iso(T0 + 10), "--to", _iso(T0)]) == 2
    assert main(["history", "default/app/stream", "--from", _iso(T0), "--step", "1s", "--to",
                 _iso(T0 + 86_400 * 30)]) == 2
    assert "choose a larger step" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["history", "default/app/stream", "--since", "2h", "--from", _iso(T0)])
    assert usage.value.code == 2
    with pytest.raises(SystemExit):
        main(["history", "default/app/stream", "--since", "soon"])


def test_server_text_is_shown_as_data(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = NodePath("default", "app", "evil\x1b]52;c;bad\x07\u202e")
    write(db, [Reading(T0, 1, 1, 1, created=T0), Reading(T0 + 1, 2, 2, 1, created=T0)], node=hostile,
          ended_at=T0 + 2)
    assert main(["history"]) == 0
    listed = capsys.readouterr().out
    assert "\x1b" not in listed and "\u202e" not in listed
    assert "evil\\x1b]52;c;bad\\x07⟨U+202E⟩" in listed
    assert main(["history", str(hostile), "--from", _iso(T0 - 1), "--to", _iso(T0 + 5)]) == 0
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "evil\\x1b" in shown
    assert main(["history", "--json"]) == 0
    assert "\x1b" not in capsys.readouterr().out  # JSON escapes it: \u001b


def test_record_says_why_it_cannot_open_the_store(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OME_ACCESS_TOKEN", "token")
    assert main(["record", "--db", str(tmp_path), "--api-url", "http://127.0.0.1:9"]) == 2
    assert "cannot open" in capsys.readouterr().err


def test_the_history_table_of_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[history]\npath = "~/elsewhere/h.sqlite3"\nfull_resolution = "2h"\n'
                      'tiers = [{ step = "30s", keep = "2d" }, { step = 300, keep = "90d" }]\nmax_size = "500 MiB"\n',
                      encoding="utf-8")
    config.chmod(0o600)
    history = load_settings(path=config, environ={}).history
    assert history.full_resolution == 7200 and history.max_size == 500 * 1024**2
    assert [(t.step, t.keep) for t in history.tiers] == [(30, 172_800), (300, 90 * 86_400)]
    assert history.database_path(environ={}) == Path("~/elsewhere/h.sqlite3").expanduser()
    assert history.database_path(environ={HISTORY_DB_ENV: "/tmp/x.sqlite3"}) == Path("/tmp/x.sqlite3")
    assert history.describe() == "full resolution for 2 h, 30 s for 2 d, 5 min for 90 d; at most 500 MiB"
    assert HistorySettings().describe() == "full resolution for 1 h, 10 s for 1 d, 1 min for 30 d; at most 2,048 MiB"
    for bad in ('tiers = [{ step = "1.5s", keep = "1h" }]', 'tiers = [{ step = "1m", keep = "30s" }]',
                'max_size = "lots"', 'full_resolution = -5', 'tiers = [{ step = 10, keep = "1d" }, '
                '{ step = "10s", keep = "2d" }]'):
        config.write_text(f"[history]\n{bad}\n", encoding="utf-8")
        with pytest.raises(ConfigError, match="history"):
            load_settings(path=config, environ={})


@pytest.mark.parametrize(("text", "profile", "path"), [
    ("default/app/stream", None, NodePath("default", "app", "stream")),
    ("origin:default/app/stream", "origin", NodePath("default", "app", "stream")),
    ("edge-1:default", "edge-1", NodePath("default")),
    (":odd:vhost/app", None, NodePath("odd:vhost", "app")),
    ("default/app:1/stream", None, NodePath("default", "app:1", "stream")),
])
def test_targets_take_an_optional_profile(text: str, profile: str | None, path: NodePath) -> None:
    target = Target.parse(text)
    assert (target.profile, target.path) == (profile, path)


@pytest.mark.parametrize("text", ["", "prod:", "a/b/c/d", "prod:a//b"])
def test_malformed_targets_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"\[PROFILE:\]vhost"):
        Target.parse(text)


def test_json_output_is_one_document(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(db, [Reading(T0 + s, s, s * 10, 3, created=T0, server_peak=9, server_peak_at=T0 + 1.5) for s in range(5)])
    assert main(["history", "default/app/stream", "--json", "--from", _iso(T0), "--to", _iso(T0 + 10)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["server"] == SERVER.key and document["path"] == str(STREAM)
    assert document["step"] is None and [p["total_out"] for p in document["points"]] == [0, 10, 20, 30, 40]
    assert document["summary"]["peak_viewers"] == 3  # what was seen: the server's peak (9) counts every session
    assert document["summary"]["peak_viewers_at"] == datetime.fromtimestamp(T0, UTC).isoformat(
        timespec="milliseconds")
