"""What a server does with a cue, from the edition and version the console detected, and what a plan says."""

from __future__ import annotations

import pytest
from fake_clock import FakeClock

from omeconsole.api.wire import Id3Frame
from omeconsole.core.adops.ad_break import AdBreak
from omeconsole.core.adops.plan import PlanInput, plan_cue_in, plan_cue_out, plan_id3
from omeconsole.model.paths import NodePath
from omeconsole.model.server import (
    NO_MARKER_TAGS_NOTE,
    MarkerCapability,
    ServerInfo,
    marker_capability,
)

NOTE = ("this server writes no ad markers into its playlists: players and ad insertion downstream see no break; "
        "it will cut a segment at the splice point")


@pytest.mark.parametrize(("edition", "version", "writing"), [
    ("enterprise", "0.20.0.0-1", "tags"),
    ("enterprise", "unknown", "tags"),
    ("oss", "0.18.0", "segment-cut"),
    ("oss", "0.19.0", "segment-cut"),
    ("oss", "v0.20.3", "segment-cut"),
    ("oss", "0.21.0", "refused"),
    ("oss", "0.22.1-rc1", "refused"),
    ("oss", "1.0.0", "refused"),
    ("oss", "unknown", "unknown"),
    ("oss", "(From archive)", "unknown"),
    ("oss", "0.17.5", "unknown"),
    (None, "0.19.0", "unknown"),
])
def test_marker_writing_follows_edition_and_version(edition: str | None, version: str, writing: str) -> None:
    capability = marker_capability(edition, version)  # type: ignore[arg-type]
    assert capability.writing == writing
    assert capability.writes_tags is (writing == "tags")
    assert capability.cuts_segment_only is (writing == "segment-cut")


def test_a_cue_refused_on_the_wire_wins_over_the_version() -> None:
    assert marker_capability("oss", "0.19.0", events_supported=False).writing == "refused"
    assert marker_capability("enterprise", "x", events_supported=False).writing == "refused"


def test_detected_server_info_carries_its_capability() -> None:
    oss = ServerInfo("oss", "0.19.0", "(From archive)", "v1", True)
    assert oss.markers == MarkerCapability("segment-cut", "0.19.0")
    assert oss.markers.note == NOTE == NO_MARKER_TAGS_NOTE
    enterprise = ServerInfo("enterprise", "0.20.0.0-1", "x", "v2", True)
    assert enterprise.markers.note is None
    newer = ServerInfo("oss", "0.21.0", "x", "v1", False, "cannot take cue events")
    assert newer.markers.writing == "refused" and "refuses cue events" in (newer.markers.note or "")


def _given(markers: MarkerCapability) -> PlanInput:
    clock = FakeClock()
    return PlanInput(send_id="s1", target=NodePath("default", "app", "stream"),
                     api_path_of={"sendEvent": "/x:sendEvent", "sendEvents": "/x:sendEvents"},
                     server="127.0.0.1:8081", profile=None, read_only=False, view=AdBreak(clock).view(),
                     playlist_known=True, segment_s=6.0, now=clock.wall(), markers=markers)


def test_a_cue_plan_on_a_server_without_marker_tags_says_so_before_the_send() -> None:
    for plan in (plan_cue_out(_given(marker_capability("oss", "0.19.0")), 30),
                 plan_cue_in(_given(marker_capability("oss", "0.19.0")))):
        notes = [w for w in plan.warnings if w.code == "no-marker-tags"]
        assert [w.message for w in notes] == [NOTE]
        assert not notes[0].needs_confirmation  # a fact to read, not a reason to refuse
        assert "no-marker-tags" not in plan.warning_codes


def test_no_note_where_markers_are_written_or_for_id3() -> None:
    assert not any(w.code == "no-marker-tags" for w in plan_cue_out(_given(marker_capability("enterprise", "1")),
                                                                      30).warnings)
    id3 = plan_id3(_given(marker_capability("oss", "0.19.0")), [Id3Frame(frameType="TIT2", data="x")])
    assert not any(w.code == "no-marker-tags" for w in id3.warnings)


def test_marker_unconfirmed_never_holds_where_no_marker_can_come() -> None:
    from datetime import UTC, datetime, timedelta

    from omeconsole.core.alerts.audit_feed import CueSend
    from omeconsole.core.alerts.conditions import marker_unconfirmed
    from omeconsole.core.alerts.rules import AlertRule

    rule = AlertRule(kind="marker_unconfirmed", within=30)
    sent = datetime(2026, 11, 29, 0, 8, 45, tzinfo=UTC)
    cue = CueSend(NodePath("default", "app", "stream"), "id", sent, "out", 30.0, accepted=True,
                  seen_after_s=None, gave_up=True)
    later = sent + timedelta(seconds=60)
    assert marker_unconfirmed(rule, cue, later, marker_capability("enterprise", "x")).holds
    verdict = marker_unconfirmed(rule, cue, later, marker_capability("oss", "0.19.0"))
    assert not verdict.holds and "this server writes no marker tags" in verdict.detail
