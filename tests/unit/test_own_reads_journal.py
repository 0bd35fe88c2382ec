"""The journal the console's processes share of their own publisher reads: a file that is outside text."""

from __future__ import annotations

import json
from pathlib import Path

from fake_clock import FakeClock

from omeconsole.api import own_reads_journal
from omeconsole.api.own_reads import OwnReads
from omeconsole.api.own_reads_journal import Journal, journal_path
from omeconsole.model.paths import NodePath

STREAM = NodePath("default", "app", "backup")


def _pair(tmp_path: Path) -> tuple[OwnReads, OwnReads, FakeClock]:
    path = journal_path(tmp_path, "http://ome.example:8081")
    clock = FakeClock()
    writer, reader = OwnReads(clock.monotonic), OwnReads(clock.monotonic)
    writer.share(Journal(path))
    reader.share(Journal(path))
    return writer, reader, clock


def test_another_process_reads_are_taken_in_open_then_closed_with_their_bytes(tmp_path: Path) -> None:
    writer, reader, clock = _pair(tmp_path)
    ticket = writer.opened("default", "app", "backup", url="u", cap=5000)
    since = reader.mark()
    assert reader.held(since, reader.mark(), STREAM) == 1  # open in the other process: counted as possibly ours
    share = reader.reading(STREAM, since, reader.mark())
    assert share.bytes_out == 5000  # its bytes unknown yet: bounded by its cap
    writer.closed(ticket, 752, url="u")
    since = reader.mark()  # the close is learnt of now: the server may not have seen it yet
    assert reader.reading(STREAM, since, reader.mark()).connections == 1
    clock.advance(1.0)
    share = reader.reading(STREAM, reader.mark(), reader.mark())
    assert (share.connections, share.bytes_out) == (0, 752)
    assert reader.bytes_read(STREAM) == 752 and reader.reads_done == 0  # not this process's read
    assert writer.bytes_read(STREAM) == 752  # and the writer does not take its own lines in twice
    writer.mark()
    assert writer.bytes_read(STREAM) == 752


def test_hostile_lines_are_skipped_and_a_line_cut_short_waits_for_its_end(tmp_path: Path) -> None:
    _, reader, _ = _pair(tmp_path)
    path = journal_path(tmp_path, "http://ome.example:8081")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        handle.write(b"\xff\xfe not json\n[1,2]\n" + b"x" * 10_000 + b"\n")
        handle.write(json.dumps({"w": "other", "t": 1, "s": ["default", "app"], "b": 5}).encode() + b"\n")
        handle.write(json.dumps({"w": "other", "t": True, "c": 5}).encode() + b"\n")
        handle.write(json.dumps({"w": "other", "t": 2, "c": -5}).encode() + b"\n")
        handle.write(b'{"w":"other","t":3,"s":["default","app","backup"],"b":9')  # no end of line yet
    reader.mark()
    assert reader.open_now == 0 and reader.bytes_read(STREAM) == 0
    with path.open("ab") as handle:
        handle.write(b'}\n{"w":"other","t":3,"c":700}\n')
    reader.mark()
    assert reader.bytes_read(STREAM) == 700


def test_a_journal_past_its_size_is_moved_aside_and_readers_go_on_with_the_new_one(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(own_reads_journal, "ROTATE_BYTES", 2000)
    writer, reader, _ = _pair(tmp_path)
    reader.mark()
    for _ in range(40):  # about 80 lines of ~60 bytes: moved aside at least once
        writer.closed(writer.opened("default", "app", "backup", url="u", cap=10), 100, url="u")
        reader.mark()
    assert journal_path(tmp_path, "http://ome.example:8081").with_suffix(".jsonl.old").exists()
    assert reader.bytes_read(STREAM) == 4000 and reader.open_now == 0


def test_a_read_another_process_never_closed_is_forgotten_after_a_while(tmp_path: Path) -> None:
    writer, reader, clock = _pair(tmp_path)
    writer.opened("default", "app", "backup", url="u", cap=10)  # then the process was killed
    reader.mark()
    assert reader.open_now == 1
    clock.advance(own_reads_journal_max() + 1)
    reader.mark()
    assert reader.open_now == 0


def own_reads_journal_max() -> float:
    from omeconsole.api.own_reads import FOREIGN_OPEN_MAX_S

    return FOREIGN_OPEN_MAX_S
