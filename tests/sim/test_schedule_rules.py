"""Scheduled breaks through the one send path on the real simulator: the rules skip with the reason, a
template's out and ID3 go as one array, the file is watched, the lock and the audit log keep every break
to one send, missed runs are said and never sent late."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from adops_support import server_context
from schedule_support import Rig, drive, rig, running
from sim_support import TEST_TOKEN, api_client

from omeconsole.api.client import OmeClient
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.schedule.events import RunnerEvent
from omeconsole.core.schedule.lock import LockHeld, RunnerLock, lock_path
from omeconsole.core.schedule.model import ScheduleError
from omeconsole.core.schedule.runner import Runner, RunnerRefused
from omeconsole.model.paths import NodePath

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SPOT = '[templates.spot]\nduration = "30s"\n'
EVERY_2M = SPOT + '[[schedules]]\nname = "spots"\nstream = "default/app/stream"\ntemplate = "spot"\nevery = "2m"\n'


def _intents(r: Rig) -> list[dict[str, object]]:
    if not r.audit.exists():
        return []
    return [line for line in map(json.loads, r.audit.read_text().splitlines()) if line["type"] == "intent"]


def _at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


async def test_a_break_on_air_at_the_run_skips_it_with_the_reason(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M) as r, running(r, watch_s=60) as runner:
        await drive(runner, r.clock, _at(3))
        # An operator's 100 s break from this console at 3:00, on air at 4:00.
        controller = r.adops.stream(NodePath("default", "app", "stream"))
        outcome = await controller.send(controller.plan_cue_out(100))
        assert outcome.status == "accepted"
        await drive(runner, r.clock, _at(6) + timedelta(seconds=10))
    assert [e.run for e in r.kinds("sent")] == [_at(2), _at(6)]
    [skipped] = r.kinds("skipped")
    assert skipped.run == _at(4) and "a break is already on air since 00:03:01" in skipped.message
    assert skipped.alert == "schedule_missed"
    assert len(_intents(r)) == 3  # the operator's break and 2:00, 6:00: nothing for 4:00


async def test_a_break_another_sender_put_on_air_skips_the_run(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M) as r, running(r, watch_s=60) as runner:
        await drive(runner, r.clock, _at(3) + timedelta(seconds=50))
        async with api_client(r.simulator) as http:  # a POST straight to the server at 3:50: 100 s, on air at 4:00
            reply = await http.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent",
                                    json={"eventFormat": "cue", "events": [{"cueType": "out", "duration": 100000}]})
            assert reply.status_code == 200
        await drive(runner, r.clock, _at(6) + timedelta(seconds=10))
    assert [e.run for e in r.kinds("sent")] == [_at(2), _at(6)]
    [skipped] = r.kinds("skipped")
    assert skipped.run == _at(4) and "on air" in skipped.message, skipped.message
    assert len(_intents(r)) == 2


async def test_a_template_with_id3_sends_one_array_and_its_in_at_the_end(tmp_path: Path) -> None:
    config = ('[templates.tagged]\nduration = 20\n'
              'id3_out = [{frameType = "TXXX", info = "adId", data = "spot-7"}]\n'
              'id3_in = [{frameType = "TXXX", info = "adEnd", data = "spot-7"}]\n'
              '[[schedules]]\nname = "tagged"\nstream = "default/app/stream"\ntemplate = "tagged"\nat = ["00:02"]\n')
    async with rig(tmp_path, config) as r, running(r, watch_s=60) as runner:
        await drive(runner, r.clock, _at(3))
        stream = r.simulator.world.find_stream("default", "app", "stream")
        assert stream is not None
        formats = [e.event_set.eventFormat for e in stream.events.events]
    out, end = _intents(r)
    assert out["action"] == "cue-out" and str(out["path"]).endswith(":sendEvents")
    assert out["body"] == [{"eventFormat": "cue", "events": [{"cueType": "out", "duration": 20000}]},
                           {"eventFormat": "id3v2", "eventType": "event",
                            "events": [{"frameType": "TXXX", "info": "adId", "data": "spot-7"}]}]
    assert end["action"] == "id3" and end["time"] == (_at(2) + timedelta(seconds=20)).isoformat(
        timespec="milliseconds").replace("+00:00", "+00:00")
    assert formats == ["cue", "id3v2", "id3v2"]
    assert [e.run for e in r.kinds("confirmed")] == [_at(2)]


async def test_a_pattern_that_matches_nothing_is_said_at_each_run(tmp_path: Path) -> None:
    config = SPOT + '[[schedules]]\nname = "none"\nstream = "default/app/zz*"\ntemplate = "spot"\nevery = "2m"\n'
    async with rig(tmp_path, config) as r, running(r, watch_s=60) as runner:
        await drive(runner, r.clock, _at(4) + timedelta(seconds=1))
    assert [e.run for e in r.kinds("no-match")] == [_at(2), _at(4)]
    assert "matches no stream now" in r.kinds("no-match")[0].message and not _intents(r)


async def test_a_file_turned_bad_keeps_the_last_good_schedules_and_says_so(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M) as r, running(r, watch_s=1) as runner:
        await drive(runner, r.clock, _at(2) + timedelta(seconds=30))
        r.config.write_text(EVERY_2M.replace('every = "2m"', 'at = ["25:00"]'))
        await drive(runner, r.clock, _at(4) + timedelta(seconds=30))
        r.config.write_text(EVERY_2M.replace('every = "2m"', 'at = ["00:07"]'))
        await drive(runner, r.clock, _at(8) + timedelta(seconds=30))
    [invalid] = r.kinds("invalid")
    assert "key 'at': '25:00' is not a time of day" in invalid.message
    assert "keeping the last good schedules (1)" in invalid.message
    assert [e.run for e in r.kinds("sent")] == [_at(2), _at(4), _at(7)]  # 4:00 by the last good, 7:00 by the new
    assert len(_intents(r)) == 3


async def test_a_malformed_file_at_start_starts_nothing(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M + "[[schedules]\n") as r:
        runner = r.runner()
        with pytest.raises(ScheduleError, match="not valid TOML"):
            runner.start()
        assert not runner.lock.held


async def test_two_runners_on_one_audit_log_send_each_break_once(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M) as r:
        async with running(r, watch_s=60) as first:
            second = r.runner()
            with pytest.raises(LockHeld, match=r"already run by test runner pid \d+ on .* since 2026-01-01T00:00:20"):
                second.start()
            await drive(first, r.clock, _at(4) + timedelta(seconds=10))
        async with running(r, watch_s=60) as third:  # the lock is free once the first stopped
            await drive(third, r.clock, _at(8) + timedelta(seconds=10))
    runs = [e.run for e in r.kinds("sent")]
    assert runs == [_at(2), _at(4), _at(6), _at(8)] and len({str(i["id"]) for i in _intents(r)}) == 4
    assert not r.kinds("missed")


async def test_runs_missed_while_nothing_ran_are_said_on_start_and_never_sent_late(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M) as r:
        async with running(r, watch_s=60) as first:
            await drive(first, r.clock, _at(2) + timedelta(seconds=10))
        r.clock.advance(7 * 60)  # nothing runs from 2:10 to 9:10
        async with running(r, watch_s=60) as second:
            await drive(second, r.clock, _at(10) + timedelta(seconds=10))
    missed = r.kinds("missed")
    assert [e.run for e in missed] == [_at(4), _at(6), _at(8)]
    assert missed[0].message == "missed 00:04 — not sent late (nothing was running)"
    assert {e.alert for e in missed} == {"schedule_missed"}
    assert [e.run for e in r.kinds("sent")] == [_at(2), _at(10)]


async def test_a_runner_woken_long_after_its_run_sends_nothing_late(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M) as r, running(r, watch_s=60) as runner:
        await drive(runner, r.clock, _at(1))
        r.clock.manual.set_ms(r.clock.manual.now_ms() + 9 * 60_000)  # the machine slept from 1:00 to 10:00
        await drive(runner, r.clock, _at(12) + timedelta(seconds=10))
    missed = r.kinds("missed")
    assert missed[0].run == _at(2) and missed[0].message.startswith("missed 00:02 — not sent late (")
    assert missed[1].message == "3 more run(s) missed up to 00:08 — none sent late"
    assert [e.run for e in r.kinds("sent")] == [_at(10), _at(12)]
    assert len(_intents(r)) == 2


async def test_paused_and_skipped_runs_are_not_sent(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M) as r:
        r.schedules.write_text('[control.spots]\nskip = ["2026-01-01T00:04:00+00:00"]\n')
        async with running(r, watch_s=1) as runner:
            await drive(runner, r.clock, _at(6) + timedelta(seconds=10))
            r.schedules.write_text('[control.spots]\npaused = true\n')
            await drive(runner, r.clock, _at(8) + timedelta(seconds=10))
    assert [e.run for e in r.kinds("sent")] == [_at(2), _at(6)]
    assert [(e.run, e.message) for e in r.kinds("skipped")] == [
        (_at(4), "this run was skipped by the operator"), (_at(8), "the schedule is paused")]


async def test_read_only_mode_refuses_schedules(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M) as r:
        r.adops.context = r.adops.context.__class__(r.adops.context.api_url, "test", read_only=True)
        with pytest.raises(RunnerRefused, match="read-only mode"):
            r.runner().start()


async def test_the_repeated_hour_in_berlin_sends_its_run_once(tmp_path: Path) -> None:
    berlin = ZoneInfo("Europe/Berlin")
    start = datetime(2026, 10, 25, 0, 20, tzinfo=UTC)  # 02:20 CEST; at 03:00 CEST clocks go back to 02:00 CET
    config = SPOT + ('[[schedules]]\nname = "night"\nstream = "default/app/stream"\ntemplate = "spot"\n'
                     'at = ["02:30"]\ntimezone = "Europe/Berlin"\n')
    async with rig(tmp_path, config, start=start) as r, running(r, watch_s=60) as runner:
        await drive(runner, r.clock, datetime(2026, 10, 25, 2, 0, tzinfo=UTC))  # 03:00 CET
    [sent] = r.kinds("sent")
    assert sent.run is not None and sent.run.astimezone(berlin).strftime("%H:%M %Z") == "02:30 CEST"
    assert len(_intents(r)) == 1


async def test_the_skipped_hour_in_berlin_sends_its_run_after_the_change(tmp_path: Path) -> None:
    berlin = ZoneInfo("Europe/Berlin")
    start = datetime(2026, 3, 29, 0, 20, tzinfo=UTC)  # 01:20 CET; at 02:00 clocks go forward to 03:00 CEST
    config = SPOT + ('[[schedules]]\nname = "night"\nstream = "default/app/stream"\ntemplate = "spot"\n'
                     'at = ["02:30", "03:30"]\ntimezone = "Europe/Berlin"\n')
    async with rig(tmp_path, config, start=start) as r, running(r, watch_s=60) as runner:
        await drive(runner, r.clock, datetime(2026, 3, 29, 2, 0, tzinfo=UTC))
    [sent] = r.kinds("sent")  # 02:30 does not exist: it runs at 03:30 CEST, once with 03:30's own run
    assert sent.run is not None and sent.run.astimezone(berlin).strftime("%H:%M %Z") == "03:30 CEST"
    assert len(_intents(r)) == 1


async def test_the_pre_roll_warning_is_said_its_lead_before_the_run(tmp_path: Path) -> None:
    config = ('[templates.warned]\nduration = "30s"\npreroll = "10s"\n'
              '[[schedules]]\nname = "warned"\nstream = "default/app/stream"\ntemplate = "warned"\nat = ["00:02"]\n')
    heard: list[tuple[datetime, RunnerEvent]] = []
    async with rig(tmp_path, config) as r:
        runner = Runner(r.adops, r.book, [r.config, r.schedules], lambda e: heard.append((r.clock.wall(), e)),
                        RunnerLock(lock_path(r.audit), "test runner"), watch_s=60)
        runner.start()
        stop = asyncio.Event()
        task = asyncio.create_task(runner.run(stop))
        await drive(runner, r.clock, _at(2) + timedelta(seconds=10))
        stop.set()
        await task
        runner.close()
    [(said_at, warning)] = [(at, e) for at, e in heard if e.kind == "preroll"]
    assert said_at == _at(2) - timedelta(seconds=10) and warning.run == _at(2)
    assert warning.message == "break of 30 s in 10 s"
    assert [e.run for _, e in heard if e.kind == "sent"] == [_at(2)]


async def test_without_a_shared_lock_the_audit_log_still_keeps_each_break_to_one_send(tmp_path: Path) -> None:
    """Two runners whose locks do not see each other (as two machines whose lock files differ) on one audit
    log, one clock: the audit log read before each send leaves every run to whichever wrote its intent first."""
    async with rig(tmp_path, EVERY_2M) as r:
        others: list[RunnerEvent] = []
        client = OmeClient(r.simulator.api_url, TEST_TOKEN)
        ops = AdOps(client, AuditLog(r.audit, now=r.clock.wall), r.clock, server_context(client.api_url),
                    publisher_url=r.simulator.publisher_url, confirm_timeout_s=10.0)
        other = Runner(ops, r.book, [r.config, r.schedules], others.append,
                       RunnerLock(tmp_path / "elsewhere" / "scheduler.lock", "other machine"), watch_s=60)
        (tmp_path / "elsewhere").mkdir()
        other.start()
        stop = asyncio.Event()
        task = asyncio.create_task(other.run(stop))
        try:
            async with running(r, watch_s=60) as first:
                await drive(first, r.clock, _at(4) + timedelta(seconds=10))
        finally:
            stop.set()
            await task
            other.close()
            await ops.aclose()
            await client.aclose()
    both = r.events + others
    assert sorted(e.run for e in both if e.kind == "sent") == [_at(2), _at(4)]
    already = [e for e in both if e.kind == "skipped"]
    assert sorted(e.run for e in already) == [_at(2), _at(4)]
    assert {e.message for e in already} == {"already sent (the audit log has this run)"}
    assert len(_intents(r)) == 2
