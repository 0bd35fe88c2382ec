"""Schedule files from the command line: `schedule check|list|add|remove|skip-next|pause|resume`, bad input
refused with the file, the table and the key named (exit 2), the config never written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from omeconsole.cli.main import main
from omeconsole.core.schedule.store import dumps_toml, read_toml

CONFIG = """
api_url = "http://127.0.0.1:9"

[templates.spot]
duration = "30s"
preroll = "10s"
id3_out = [{frameType = "TXXX", info = "adId", data = "spot-1"}]

[[schedules]]
name = "news"
stream = "default/app/news"
template = "spot"
every = "12m"
offset = "3m"
timezone = "Europe/Berlin"
between = "06:00-23:00"
"""


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    schedules = tmp_path / "schedules.toml"
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(config))
    monkeypatch.setenv("OMECONSOLE_SCHEDULES", str(schedules))
    return config, schedules


def _bad(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(body)  # the config's template spot (30 s) is known
    return path


LONG = '[templates.long]\nduration = 58\n'
SCHEDULE = '[[schedules]]\nname = "a"\nstream = "default/app/s"\ntemplate = "spot"\n'


@pytest.mark.parametrize(("body", "table", "key", "words"), [
    (SCHEDULE + 'at = ["25:00"]\n', "[[schedules]] #1 (a)", "at", "'25:00' is not a time of day"),
    (SCHEDULE + 'every = "12m"\ntimezone = "Mars/Olympus"\n', "[[schedules]] #1 (a)", "timezone",
     "no time zone named 'Mars/Olympus'"),
    (SCHEDULE + 'every = "12m"\njitter = "5s"\n', "[[schedules]] #1 (a)", "jitter", "unknown key"),
    (LONG + SCHEDULE.replace('"spot"', '"long"') + 'every = "1m"\n', "[[schedules]] #1 (a)", "every",
     "runs 60 s apart: shorter than the break (58 s) plus a segment (6 s)"),
    (SCHEDULE + 'at = ["10:00", "10:00", "10:00"]\ncron = "* * * * *"\n', "[[schedules]] #1 (a)", "cron",
     "exactly one of every, at or cron"),
    (LONG + SCHEDULE.replace('"spot"', '"long"') + 'cron = "*/1 * * * *"\n', "[[schedules]] #1 (a)", "cron",
     "runs 60 s apart"),
    (SCHEDULE.replace('"spot"', '"nope"') + 'every = "12m"\n', "[[schedules]] #1 (a)", "template",
     "no template named 'nope' (templates: spot)"),
    (SCHEDULE.replace("default/app/s", "default/app") + 'every = "12m"\n', "[[schedules]] #1 (a)", "stream",
     "vhost/app/stream"),
    ('[templates.long]\nduration = "2d"\n', "[templates.long]", "duration", "at most 86400 s"),
    ('[templates.x]\nduration = 30\nid3_out = [{frameType = "APIC"}]\n', "[templates.x]", "id3_out",
     "not a frame id"),
])
def test_check_refuses_with_the_file_the_table_and_the_key(tmp_path: Path, files: tuple[Path, Path], body: str,
                                                           table: str, key: str, words: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = _bad(tmp_path, body)
    assert main(["schedule", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: {table}: key {key!r}: " in err and words in err, err


def test_check_refuses_a_malformed_file(tmp_path: Path, files: tuple[Path, Path],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[[schedules]\nname = ")
    assert main(["schedule", "check", str(path)]) == 2
    assert f"{path}: (file): not valid TOML" in capsys.readouterr().err
    assert main(["schedule", "check", str(tmp_path / "absent.toml")]) == 2


def test_check_and_list_a_good_config(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    config, _ = files
    assert main(["schedule", "check", str(config)]) == 0
    assert "1 schedule(s), 1 template(s): valid" in capsys.readouterr().out
    assert main(["schedule", "list", "--count", "2"]) == 0
    out = capsys.readouterr().out
    assert "news: default/app/news, template spot (30 s, ID3 with the out (1), pre-roll 10 s), every 12m +3m " \
           "between 06:00-23:00 (Europe/Berlin)" in out
    assert "  next: " in out and (" CET" in out or " CEST" in out)


def test_edits_change_the_schedule_file_and_never_the_config(files: tuple[Path, Path],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    config, schedules = files
    before = config.read_bytes()
    assert main(["schedule", "add", "late", "--stream", "default/app/*", "--template", "spot",
                 "--at", "22:00,23:30", "--timezone", "Europe/Berlin"]) == 0
    assert main(["schedule", "pause", "news"]) == 0
    assert main(["schedule", "skip-next", "late"]) == 0
    assert main(["schedule", "skip-next", "late"]) == 0
    data = read_toml(schedules)
    assert data["schedules"] == [{"name": "late", "stream": "default/app/*", "template": "spot",
                                  "at": ["22:00", "23:30"], "timezone": "Europe/Berlin"}]
    assert data["control"]["news"] == {"paused": True}
    assert len(data["control"]["late"]["skip"]) == 2  # the next run, then the one after it
    assert main(["schedule", "list", "--json"]) == 0
    listed = {row["name"]: row for row in json.loads(capsys.readouterr().out.splitlines()[-1])}
    assert listed["news"]["paused"] is True
    assert [n["skipped"] for n in listed["late"]["next"]] == [True, True, False]
    assert main(["schedule", "resume", "news"]) == 0
    assert main(["schedule", "remove", "news"]) == 2  # it is the config's
    assert "this command does not change it" in capsys.readouterr().err
    assert main(["schedule", "remove", "late"]) == 0
    assert main(["schedule", "add", "bad", "--stream", "default/app/s", "--template", "spot", "--at", "25:00"]) == 2
    assert "not written" in capsys.readouterr().err
    assert "bad" not in schedules.read_text()
    assert config.read_bytes() == before
    assert oct(schedules.stat().st_mode & 0o777) == "0o600"


def test_toml_written_reads_back_the_same() -> None:
    data = {"schedules": [{"name": 'quo"te \\ ünï \x7f', "at": ["06:00"], "every": 60, "x": 1.5, "b": True}],
            "control": {"a b": {"paused": False, "skip": ["2026-01-01T00:00:00+00:00"]}},
            "templates": {"t": {"duration": 30, "id3_out": [{"frameType": "TXXX", "data": "x"}]}}}
    import tomllib

    assert tomllib.loads(dumps_toml(data)) == data


def test_the_command_line_help_lists_the_commands() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
    done = subprocess.run([str(Path(sys.executable).parent / "omeconsole"), "schedule", "--help"],
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0 and "skip-next" in done.stdout


def test_the_sent_ids_follow_the_audit_log_as_it_grows(tmp_path: Path) -> None:
    from omeconsole.core.schedule.sent import SentIds

    path = tmp_path / "audit.jsonl"
    sent = SentIds(path)
    assert "a" not in sent
    path.write_bytes(b'{"type":"intent","id":"a"}\n\x00garbage\n[1,2]\n{"type":"outcome","id":"z"}\n'
                     + b"x" * (2 << 20) + b'\n{"type":"intent","id":"b"}\n{"type":"intent","id":"c"')
    assert sent.current() == {"a", "b"}  # "c" is a line still being written
    with path.open("ab") as handle:
        handle.write(b'}\n{"type":"send","id":"d"}\n')
    assert sent.current() == {"a", "b", "c", "d"}
    path.unlink()
    path.write_bytes(b'{"type":"intent","id":"e"}\n')  # replaced: read from the start
    assert sent.current() == {"e"}
