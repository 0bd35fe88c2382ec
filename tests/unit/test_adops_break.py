"""The ad-break state machine: what the operator sees through a break, driven by sends and sightings."""

from __future__ import annotations

from datetime import timedelta

from fake_clock import FakeClock

from omeconsole.core.adops.ad_break import AdBreak, BreakState
from omeconsole.core.adops.audit import OUTCOME_UNKNOWN
from omeconsole.core.adops.matcher import PlaylistBreak, Sighting


def test_whole_break_confirmed_by_the_playlist_counts_down_and_ends_by_itself() -> None:
    clock = FakeClock()
    ad_break = AdBreak(clock)
    assert ad_break.view().state is BreakState.IDLE
    assert ad_break.try_begin("cue-out") is None
    assert ad_break.view().state is BreakState.IDLE  # claimed, but nothing has left yet
    ad_break.started("cue-out")
    assert ad_break.view().state is BreakState.SENT
    ad_break.send_accepted("cue-out", planned_s=30.0)
    assert ad_break.view().state is BreakState.SCHEDULED
    splice = clock.wall() + timedelta(seconds=1.5)
    ad_break.on_sighting(Sighting("cue-out", "id1", 0.5, "seen in playlist after 0.5 s", splice_wall=splice))
    view = ad_break.view()
    assert view.state is BreakState.SCHEDULED and view.splice_wall == splice and view.from_playlist
    clock.advance(1.5)
    view = ad_break.view()
    assert view.state is BreakState.ON_AIR and view.remaining_s == 30.0
    clock.advance(20)
    assert ad_break.view().remaining_s == 10.0
    clock.advance(10)
    view = ad_break.view()
    assert view.state is BreakState.ENDED and "ended by itself after 30 s" in view.message
    assert view.confirmations == ("cue-out: seen in playlist after 0.5 s",)


def test_cue_in_seen_ends_the_break_early() -> None:
    clock = FakeClock()
    ad_break = AdBreak(clock)
    ad_break.try_begin("cue-out")
    ad_break.started("cue-out")
    ad_break.send_accepted("cue-out", planned_s=60.0)
    ad_break.on_sighting(Sighting("cue-out", "a", 1.0, "seen", splice_wall=clock.wall()))
    clock.advance(5)
    assert ad_break.view().state is BreakState.ON_AIR
    assert ad_break.try_begin("cue-in") is None
    ad_break.started("cue-in")
    ad_break.send_accepted("cue-in")
    view = ad_break.view()  # the server's in lands on the first keyframe a keyframe interval after the request
    assert view.state is BreakState.ON_AIR and view.remaining_s == 1.0 and "ends at 00:00:06.000" in view.message
    ad_break.on_sighting(Sighting("cue-in", "b", 0.7, "seen in playlist after 0.7 s"))
    assert ad_break.view().state is BreakState.ENDED


def test_an_accepted_cue_in_ends_the_break_by_itself_when_the_playlist_cannot_show_it() -> None:
    clock = FakeClock()
    ad_break = AdBreak(clock)
    ad_break.try_begin("cue-out")
    ad_break.started("cue-out")
    ad_break.send_accepted("cue-out", planned_s=30.0)
    clock.advance(17)
    assert ad_break.view().state is BreakState.ON_AIR
    ad_break.try_begin("cue-in")
    ad_break.started("cue-in")
    ad_break.send_accepted("cue-in")
    clock.advance(1)
    view = ad_break.view()
    assert view.state is BreakState.ENDED and view.message == "ended by cue-in at 00:00:18.000"


def test_second_press_while_in_flight_is_refused_with_a_reason() -> None:
    ad_break = AdBreak(FakeClock())
    assert ad_break.try_begin("cue-out") is None
    refusal = ad_break.try_begin("cue-out")
    assert refusal is not None and "still being sent" in refusal
    assert ad_break.try_begin("id3") is not None
    ad_break.send_accepted("cue-out", planned_s=30)
    assert ad_break.try_begin("id3") is None


def test_timeout_is_outcome_unknown_until_the_playlist_tells() -> None:
    clock = FakeClock()
    ad_break = AdBreak(clock)
    ad_break.try_begin("cue-out")
    ad_break.started("cue-out")
    ad_break.send_unknown("cue-out")
    view = ad_break.view()
    assert view.state is BreakState.UNKNOWN and OUTCOME_UNKNOWN in view.message and view.in_flight is None
    ad_break.on_sighting(Sighting("cue-out", "a", 2.0, "seen", splice_wall=clock.wall()))
    assert ad_break.view().state is BreakState.ON_AIR


def test_without_a_playlist_the_splice_is_the_servers_rule_labelled_estimated() -> None:
    clock = FakeClock()
    ad_break = AdBreak(clock)
    ad_break.playlist_status(False)
    ad_break.try_begin("cue-out")
    ad_break.started("cue-out")
    ad_break.send_accepted("cue-out", planned_s=15)
    view = ad_break.view()
    assert view.state is BreakState.SCHEDULED and view.splice_source == "estimated"
    assert view.splice_wall == clock.wall() + timedelta(seconds=1)
    assert view.message == "accepted by the server; the playlist cannot be read"
    clock.advance(1)
    view = ad_break.view()
    assert view.state is BreakState.ON_AIR and not view.from_playlist and "splice estimated" in view.message
    clock.advance(15)
    assert ad_break.view().state is BreakState.ENDED


def test_a_wait_that_runs_out_never_moves_the_splice() -> None:
    """The issue's 0.19.0 run: the server cut at +1.0 s; the console once put the splice where 15 s ran out."""
    clock = FakeClock()
    ad_break = AdBreak(clock)
    requested = clock.wall()
    ad_break.try_begin("cue-out")
    ad_break.started("cue-out")
    ad_break.send_accepted("cue-out", planned_s=30)
    clock.advance(15)
    ad_break.on_sighting(Sighting("cue-out", "a", None, "cue-out in the playlist not seen within 15 s"))
    view = ad_break.view()
    assert view.splice_wall == requested + timedelta(seconds=1) and view.splice_source == "estimated"
    assert view.state is BreakState.ON_AIR and view.remaining_s == 16.0
    assert "splice estimated from the server's rule" in view.message
    clock.advance(16)
    assert ad_break.view().state is BreakState.ENDED


def test_a_segment_cut_gives_the_splice_on_a_server_without_markers() -> None:
    clock = FakeClock()
    ad_break = AdBreak(clock)
    ad_break.try_begin("cue-out")
    ad_break.started("cue-out")
    ad_break.send_accepted("cue-out", planned_s=30)
    cut = clock.wall() + timedelta(seconds=1.077)
    clock.advance(1.3)
    ad_break.on_sighting(Sighting("cue-out", "a", 1.3, "splice seen (segment cut at 00:00:01.077), no marker "
                                  "written", splice_wall=cut, by_cut=True))
    view = ad_break.view()
    assert view.state is BreakState.ON_AIR and view.splice_wall == cut and view.splice_source == "cut"
    assert view.from_playlist and view.ends_wall == cut + timedelta(seconds=30)


def test_refused_cue_out_is_failed_with_the_server_message() -> None:
    ad_break = AdBreak(FakeClock())
    ad_break.try_begin("cue-out")
    ad_break.started("cue-out")
    ad_break.send_failed("cue-out", "[HTTP] duration must be ... (400)")
    view = ad_break.view()
    assert view.state is BreakState.FAILED and "refused: [HTTP]" in view.message and view.in_flight is None


def test_a_claim_whose_intent_could_not_be_written_leaves_the_stream_as_it_was() -> None:
    ad_break = AdBreak(FakeClock())
    assert ad_break.try_begin("cue-out") is None
    ad_break.release()
    view = ad_break.view()
    assert view.state is BreakState.IDLE and view.in_flight is None
    assert ad_break.try_begin("cue-in") is None


def test_a_break_someone_else_started_is_taken_from_the_playlist_and_ends_with_its_cue_in() -> None:
    clock = FakeClock()
    ad_break = AdBreak(clock)
    splice = clock.wall() + timedelta(seconds=2)
    ad_break.on_playlist(PlaylistBreak(splice, 30.0, ended=False, line="#EXT-X-CUE-OUT:DURATION=30.000"))
    view = ad_break.view()
    assert view.state is BreakState.SCHEDULED and view.from_playlist and view.splice_wall == splice
    clock.advance(3)
    assert ad_break.view().state is BreakState.ON_AIR and ad_break.view().remaining_s == 29.0
    ad_break.on_playlist(PlaylistBreak(splice, 30.0, ended=True, line="#EXT-X-CUE-OUT:DURATION=30.000"))
    assert ad_break.view().state is BreakState.ENDED


def test_a_break_over_by_its_duration_is_not_taken_again_from_a_late_playlist() -> None:
    clock = FakeClock()
    ad_break = AdBreak(clock)
    splice = clock.wall()
    clock.advance(31)
    ad_break.on_playlist(PlaylistBreak(splice, 30.0, ended=False, line="#EXT-X-CUE-OUT:DURATION=30.000"))
    assert ad_break.view().state is BreakState.IDLE


def test_a_new_break_in_the_playlist_after_ours_ended_unwatched_is_on_air() -> None:
    # Nothing looked at the model while our 30 s break ran out; the next playlist read shows someone else's.
    clock = FakeClock()
    ad_break = AdBreak(clock)
    ad_break.try_begin("cue-out")
    ad_break.started("cue-out")
    ad_break.send_accepted("cue-out", planned_s=30.0)
    ad_break.on_sighting(Sighting("cue-out", "ours", 1.0, "seen", splice_wall=clock.wall()))
    clock.advance(100)
    theirs = clock.wall() - timedelta(seconds=5)
    ad_break.on_playlist(PlaylistBreak(theirs, 100.0, False, "#EXT-X-CUE-OUT:DURATION=100.000"))
    view = ad_break.view()
    assert view.state is BreakState.ON_AIR and view.splice_wall == theirs and view.remaining_s == 95.0
