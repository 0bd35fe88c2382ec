"""The dashboard, the node view and the fleet screen over a replay: the same screens, time moved by keys, nothing sent.

The screens are the live ones drawn from a `ReplayEngine`; what differs is here. The keys move the
replay cursor (← → 10 s, shift for a minute, home / end, 1 2 3 play at 1x, 10x, 60x, p pauses) and the
engine is told at once, so the screen redraws for the new moment. The status line carries a REPLAY badge
with the replayed moment in local time and how long ago it was, and the speed. The keys that would
send (o i m, the ad-break panel) or poll (r, + -) say why they do nothing instead; `e` says where a
recorded range is exported from (`omeconsole history`).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from pathlib import Path

from omeconsole.core.history.replay import READ_ONLY_REASON
from omeconsole.core.history.replay_engine import ReplayEngine
from omeconsole.core.history.summary import duration
from omeconsole.live.session import LiveSession
from omeconsole.ui.actions import bindings
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.fleet_screen import FleetScreen
from omeconsole.ui.screens.live_screen import LiveScreen
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.widgets.status_bar import StatusLine

REPLAY_BINDINGS = bindings("replay_back", "replay_forward", "replay_back_more", "replay_forward_more", "replay_start",
                           "replay_end", "replay_play_1x", "replay_play_10x", "replay_play_60x", "replay_pause")


def replay_words(engine: ReplayEngine, now: datetime) -> str:
    """`14:02:10, 2 h 00 min ago  ▶ 10x` (‖ when paused): the replayed moment in local time (with its date
    when it is not today's), honestly dated against `now`."""
    cursor = engine.cursor
    moment = datetime.fromtimestamp(cursor.position).astimezone()
    today = moment.date() == now.astimezone().date()
    shown = moment.strftime("%H:%M:%S" if today else "%Y-%m-%d %H:%M:%S")
    ago = max(0.0, now.timestamp() - cursor.position)
    speed = f"▶ {cursor.speed:g}x" if cursor.speed else ("end" if cursor.position >= cursor.end else "‖")
    return f"{shown}, {duration(ago)} ago  {speed}"


class ReplayKeys(LiveScreen):
    """The replay's keys and status for a live screen (mixed in before the screen's own class)."""

    live: LiveSession

    @property
    def replay(self) -> ReplayEngine:
        engine = self.live.engine
        assert isinstance(engine, ReplayEngine), "a replay screen is built with a replay session"
        return engine

    def status_now(self) -> StatusLine:
        line = super().status_now()  # a fleet's screen adds the whole fleet's alerts
        words = replay_words(self.replay, self.live.clock.wall())
        # REPLAY says that nothing is sent: no READ-ONLY badge beside it.
        return dataclasses.replace(line, replay=words, read_only=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("cue_out", "cue_in", "id3", "ad_break"):
            return True  # shown, so that pressing them says why nothing is sent
        if action == "pause":
            return False  # p pauses the replay (replay_pause), not polling
        return super().check_action(action, parameters)

    def _moved(self, words: str) -> None:
        self.replay.moved()
        self.say(words)

    # Time -----------------------------------------------------------------------------------------------

    def action_replay_jump(self, seconds: float) -> None:
        self.replay.cursor.jump(seconds)
        self._moved(f"{'+' if seconds > 0 else '-'}{duration(abs(seconds))}")

    def action_replay_seek(self, end: int) -> None:
        cursor = self.replay.cursor
        cursor.seek(cursor.end if end else cursor.start)
        self._moved("the end of the replay" if end else "the start of the replay")

    def action_replay_play(self, speed: float) -> None:
        self.replay.cursor.play(speed)
        self._moved(f"playing at {speed:g}x")

    def action_replay_pause(self) -> None:
        cursor = self.replay.cursor
        if cursor.speed:
            cursor.pause()
            self._moved("paused (1, 2, 3 play)")
        else:
            cursor.play(1.0)
            self._moved("playing at 1x")

    # What a replay does not do --------------------------------------------------------------------------

    def _refuse(self) -> None:
        self.say(READ_ONLY_REASON)

    def action_cue_out(self) -> None:
        self._refuse()

    def action_cue_in(self) -> None:
        self._refuse()

    def action_id3(self) -> None:
        self._refuse()

    def action_ad_break(self) -> None:
        self._refuse()

    def action_refresh(self) -> None:
        self.say("replay: nothing is polled (1, 2, 3 play; ← → move)")

    def action_interval_longer(self) -> None:
        self.say("replay: samples are shown as they were taken")

    def action_interval_shorter(self) -> None:
        self.action_interval_longer()

    def action_export(self) -> None:
        self.say("replay: export a recorded range with `omeconsole history NODE --from T --to T --csv`")


class ReplayDashboard(ReplayKeys, DashboardScreen):
    BINDINGS = REPLAY_BINDINGS


class ReplayNodeScreen(ReplayKeys, NodeScreen):
    LIVE_PICTURE = False  # a replay shows what was recorded: no picture of the stream as it is now
    BINDINGS = REPLAY_BINDINGS


class ReplayFleetScreen(ReplayKeys, FleetScreen):
    CSS_PATH = str(Path(__file__).resolve().parents[1] / "fleet.tcss")
    """The fleet screen's stylesheet (a relative path would be looked for beside the subclass's module)."""
    BINDINGS = REPLAY_BINDINGS

    def _moved(self, words: str) -> None:
        for live in self.fleet.lives.values():  # every server shows the cursor's moment at once
            engine = live.engine
            if live is not self.live and isinstance(engine, ReplayEngine):
                engine.moved()
        super()._moved(words)
