"""Following a stream's thumbnail in the core (issue 29), against the real simulator's thumbnail publisher:
the format that answers is found and kept (an application with only a PNG encode), a stream without an
image encode is said to have none and asked again only every 10 s, reads come at most once a second, and
the simulator's frozen picture is said frozen once it has not changed for the configured time. Also how
the setting is given: `thumbnails = false` in the config, `--no-thumbnails` on the command line."""

from __future__ import annotations

from pathlib import Path

from fake_clock import FakeClock
from sim_support import running_simulator

from omeconsole.api.publisher import PublisherReader
from omeconsole.cli.parser import build_parser, flags
from omeconsole.core.config import load_settings
from omeconsole.core.thumbnails.follow import ABSENT_RETRY_S, ThumbnailFollower
from simulator.world.clock import ManualClock
from simulator.world.scenario import parse_scenario

SCENARIO = parse_scenario("""
[[vhosts]]
name = "default"
  [[vhosts.apps]]
  name = "png-only"
  thumbnails = ["png"]
    [[vhosts.apps.streams]]
    name = "cam"
    permanent = true
  [[vhosts.apps]]
  name = "plain"
    [[vhosts.apps.streams]]
    name = "cam"
    permanent = true
""", "thumbnail-follow")


def _follower(publisher_url: str, app: str, clock: FakeClock, frozen_after_s: float = 10.0) -> ThumbnailFollower:
    return ThumbnailFollower(PublisherReader(publisher_url, app, "cam"), clock, frozen_after_s=frozen_after_s)


async def test_the_format_that_answers_is_found_and_reads_come_once_a_second(clock: ManualClock) -> None:
    console = FakeClock()
    async with running_simulator(SCENARIO, clock=clock) as sim:
        clock.advance(3)
        follower = _follower(sim.publisher_url, "png-only", console)
        try:
            state = await follower.refresh()
            assert state.note == "" and state.picture is not None and state.picture.width == 320
            assert state.verdict is not None and state.verdict.look == "moving"
            assert not follower.due()
            console.advance(0.5)
            assert not follower.due()
            console.advance(0.5)
            assert follower.due()
        finally:
            await follower.aclose()


async def test_no_image_encode_is_said_and_asked_again_only_every_10_s(clock: ManualClock) -> None:
    console = FakeClock()
    async with running_simulator(SCENARIO, clock=clock) as sim:
        clock.advance(3)
        follower = _follower(sim.publisher_url, "plain", console)
        try:
            state = await follower.refresh()
            assert state.picture is None
            assert state.note == "no thumbnail: the server publishes none for this stream"
            console.advance(ABSENT_RETRY_S - 1)
            assert not follower.due()
            console.advance(1)
            assert follower.due()
        finally:
            await follower.aclose()


async def test_a_frozen_picture_is_frozen_after_the_configured_time(clock: ManualClock) -> None:
    console = FakeClock()
    async with running_simulator(SCENARIO, clock=clock, faults="picture-freeze=5s..") as sim:
        clock.advance(6)
        follower = _follower(sim.publisher_url, "png-only", console, frozen_after_s=3.0)
        try:
            looks = []
            for _ in range(5):
                state = await follower.refresh()
                assert state.verdict is not None
                looks.append((state.verdict.look, state.verdict.unchanged_s))
                clock.advance(1)
                console.advance(1)
            assert looks == [("moving", 0), ("moving", 1), ("moving", 2), ("frozen", 3), ("frozen", 4)]
        finally:
            await follower.aclose()


def test_thumbnails_off_by_the_config_or_the_flag(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("")
    assert load_settings({}, path=config, environ={}).thumbnails
    config.write_text("thumbnails = false\nthumbnail_frozen_after = 4\n")
    from_file = load_settings({}, path=config, environ={})
    assert not from_file.thumbnails and from_file.thumbnail_frozen_after == 4
    config.write_text("")
    for argv in (["--no-thumbnails"], ["ui", "--no-thumbnails"], ["demo", "--no-thumbnails"]):
        assert not load_settings(flags(build_parser().parse_args(argv)), path=config, environ={}).thumbnails, argv
    assert load_settings(flags(build_parser().parse_args(["ui"])), path=config, environ={}).thumbnails
