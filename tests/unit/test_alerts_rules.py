"""`[[alerts]]` and `[[webhooks]]` in the config file, scopes, and one alert's pending / firing / resolved life."""

from __future__ import annotations

from pathlib import Path

import pytest

from omeconsole.core.alerts.rules import AlertRule, parse_duration
from omeconsole.core.alerts.scope import Scope
from omeconsole.core.alerts.state import AlertKey, AlertStatus, Tracker
from omeconsole.core.config import ConfigError, load_settings
from omeconsole.model.paths import NodePath

GOOD = """
profile = "prod"

[profiles.prod]
api_url = "https://ome.example.net:8082"

[[alerts]]
name = "encoder stalled"
kind = "ingest_stopped"
scope = "prod:default/live/*"
after = "15s"
for = "5s"
keep_firing_for = "1m"
severity = "critical"

[[alerts]]
kind = "input_bitrate_drop"
below_percent = 40

[[alerts]]
kind = "viewers_above"
scope = "default"
viewers = 5000

[[alerts]]
kind = "server_down"

[[webhooks]]
name = "chat"
url = "https://hooks.example.net/ome"
headers_from_env = { Authorization = "CHAT_HOOK_AUTH" }
queue = 50
"""


def _load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "config.toml"
    path.write_text(text)
    path.chmod(0o600)
    return load_settings(path=path, environ={})


def test_rules_and_webhooks_load_with_the_defaults_of_their_kind(tmp_path: Path) -> None:
    settings = _load(tmp_path, GOOD)
    stalled, drop, crowd, down = settings.alerts  # type: ignore[attr-defined]
    assert (stalled.name, stalled.after, stalled.for_s, stalled.keep_firing_for, stalled.severity) == (
        "encoder stalled", 15.0, 5.0, 60.0, "critical")
    assert stalled.parsed_scope.matches("prod", NodePath("default", "live", "concert"))
    assert not stalled.parsed_scope.matches("lab", NodePath("default", "live", "concert"))
    assert (drop.name, drop.below_percent, drop.window, drop.scope) == ("input_bitrate_drop", 40.0, 300.0, "*/*/*")
    assert crowd.parsed_scope.level == "vhost" and crowd.viewers == 5000
    assert (down.after, down.scope, down.severity) == (30.0, "*", "warning")
    assert down.describe() == "no successful read of the server for 30 s"
    (hook,) = settings.webhooks  # type: ignore[attr-defined]
    assert (hook.label, hook.queue, hook.max_attempts) == ("chat", 50, 8)


@pytest.mark.parametrize(("table", "message"), [
    ('kind = "viewers_above"', "viewers_above needs viewers"),
    ('kind = "viewers_above"\nviewers = 3\nafter = "5s"', "after does not apply to viewers_above"),
    ('kind = "ingest_stopped"\nscope = "default/live"', "selects app nodes; ingest_stopped watches stream nodes"),
    ('kind = "server_down"\nscope = "default/live"', "watches whole servers"),
    ('kind = "no_viewers"\nafter = "ten minutes"', "a duration is a number of seconds"),
    ('kind = "no_viewers"\nafter = -5', "between 0 and"),
    ('kind = "input_bitrate_drop"\nbelow_percent = 150', "below_percent"),
    ('kind = "input_bitrate_drop"\nwindow = "5s"', "window must be at least 10 s"),
    ('kind = "page_me"', "kind"),
    ('kind = "server_down"\nsevertiy = "critical"', "severtiy"),
    ('kind = "ingest_stopped"\nscope = "a/b/c/d"', "expected [SERVER:]VHOST[/APP[/STREAM]]"),
])
def test_a_rule_that_cannot_mean_what_it_says_is_refused_at_load(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        _load(tmp_path, f"[[alerts]]\n{table}\n")
    assert message in str(error.value) and "[alerts #1]" in str(error.value)


def test_two_rules_of_one_name_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="two \\[\\[alerts\\]\\] rules are named 'server_down'"):
        _load(tmp_path, '[[alerts]]\nkind = "server_down"\n[[alerts]]\nkind = "server_down"\nafter = 60\n')


def test_durations() -> None:
    assert [parse_duration(v) for v in ("500ms", "30s", "2m", "1.5h", 12, 0.25)] == [0.5, 30, 120, 5400, 12, 0.25]
    for bad in ("30", "5 minutes", "1d", True, None, "-1s"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_scopes_match_by_level_with_wildcards_and_an_optional_server() -> None:
    stream = NodePath("default", "live", "concert")
    assert Scope.parse("*/*/*").matches("any", stream)
    assert Scope.parse("default/live/c*").matches("any", stream)
    assert not Scope.parse("default/live/C*").matches("any", stream)  # names are case-sensitive
    assert not Scope.parse("default/live").matches("any", stream)  # an app scope selects apps only
    assert Scope.parse("default/live").matches("any", NodePath("default", "live"))
    assert Scope.parse("edge-*:*/*/*").matches("edge-2", stream)
    assert not Scope.parse("edge-*:*/*/*").matches("origin", stream)
    assert Scope.parse("127.0.0.1:8081:default/*/*").matches("127.0.0.1:8081", stream)
    assert Scope.parse("*/live/[!x]*").streams_of("default", "live", ["concert", "xray"]) == ["concert"]
    assert Scope.parse("edge-*", server_only=True).matches_server("edge-1")


def _tracker(for_s: float, keep: float) -> Tracker:
    rule = AlertRule(kind="viewers_above", viewers=10, keep_firing_for=keep, **{"for": for_s})
    return Tracker(rule, AlertKey(rule.name, "lab", NodePath("v", "a", "s")))


def test_an_alert_waits_its_for_fires_once_and_resolves_only_after_keep_firing_for() -> None:
    tracker = _tracker(for_s=5, keep=10)
    assert tracker.update(True, 0, 11, "11 viewers") is None
    assert tracker.alert is not None and tracker.alert.status is AlertStatus.PENDING
    assert tracker.update(None, 4, None, "") is None  # cannot tell: the for timer keeps running
    fired = tracker.update(True, 5, 12, "12 viewers")
    assert fired is not None and fired.alert.status is AlertStatus.FIRING and fired.alert.started_at == 5
    assert tracker.update(False, 6, 3, "3 viewers") is None  # clearing starts
    assert tracker.update(True, 12, 15, "15 viewers") is None  # back before keep_firing_for: same alert
    assert tracker.alert.value == 15 and tracker.alert.status is AlertStatus.FIRING
    assert tracker.update(False, 13, 2, "2 viewers") is None
    assert tracker.update(None, 22, None, "") is None
    resolved = tracker.update(None, 23, None, "")
    assert resolved is not None and resolved.alert.status is AlertStatus.RESOLVED
    assert (resolved.alert.started_at, resolved.alert.resolved_at) == (5, 23)
    assert not tracker.active


def test_a_pending_alert_that_clears_is_dropped_without_a_word() -> None:
    tracker = _tracker(for_s=5, keep=0)
    tracker.update(True, 0, 11, "")
    assert tracker.update(False, 3, 1, "") is None
    assert tracker.alert is None and not tracker.active


def test_the_fingerprint_is_the_same_alert_in_every_message_and_every_run() -> None:
    first, second = _tracker(0, 0), _tracker(0, 0)
    one = first.update(True, 0, 11, "x")
    two = second.update(True, 100, 50, "y")
    assert one is not None and two is not None
    assert one.alert.fingerprint == two.alert.fingerprint
    other = Tracker(first.rule, AlertKey(first.rule.name, "lab", NodePath("v", "a", "t"))).update(True, 0, 11, "")
    assert other is not None and other.alert.fingerprint != one.alert.fingerprint
