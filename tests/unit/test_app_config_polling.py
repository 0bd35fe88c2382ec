"""When the engine reads an application's document (the planner and store, fed by hand, no network): once for
the selected stream's or application's app, again only every `app_config_interval`, or at once when it may have
changed (the stream's playlists changed, the app was gone from its listing and is back, a refresh); a failure is
asked again after `app_config_retry` and keeps the last document."""

from __future__ import annotations

import math
import random

from omeconsole.api.errors import NotFoundError, ServerError
from omeconsole.core.polling.jobs import AppConfigJob, AppConfigRead, Failed, InfoJob, InfoRead, Listed, ListingJob
from omeconsole.core.polling.listing import ROOT
from omeconsole.core.polling.planner import Room, Screen, next_due, plan
from omeconsole.core.polling.settings import PollSettings
from omeconsole.core.polling.store import NodeStore
from omeconsole.model.app_config import AppConfig
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import PlaylistInfo, StreamInfo

SETTINGS = PollSettings(app_config_interval=300.0, app_config_retry=30.0)
APP = NodePath("v", "a")
STREAM = NodePath("v", "a", "s0")
JOB = AppConfigJob(APP)
CONFIG = AppConfig(publishers=frozenset({"llhls", "hls"}))


def listed(store: NodeStore, apps: tuple[str, ...] = ("a",), at: float = 0.0) -> None:
    for job, names in [(ROOT, ("v",)), (ListingJob("v"), apps), *((ListingJob("v", a), ("s0",)) for a in apps)]:
        store.sent(job, at)
        store.apply(Listed(job, names, at), SETTINGS.interval)


def documents(store: NodeStore, screen: Screen, now: float) -> list[AppConfigJob]:
    return [job for job in plan(store, screen, Room(now, 50, 1.0, True), SETTINGS) if isinstance(job, AppConfigJob)]


def read(store: NodeStore, at: float, config: AppConfig | None = CONFIG) -> None:
    store.sent(JOB, at)
    store.apply(AppConfigRead(JOB, config, at), SETTINGS.interval)


def info(*file_names: str) -> StreamInfo:
    return StreamInfo("s0", "Rtmp", None, None, (), ("s0",),
                      tuple(PlaylistInfo("s0", name, name, False) for name in file_names))


def test_read_once_for_the_selected_stream_then_only_every_interval() -> None:
    store = NodeStore(SETTINGS, random.Random(1))
    listed(store)
    screen = Screen(selected=STREAM, visible=(STREAM,))
    assert documents(store, screen, 0.0) == [JOB]
    assert documents(store, Screen(visible=(STREAM,)), 0.0) == []  # not selected: not read
    assert documents(store, Screen(selected=NodePath("v")), 0.0) == []  # a virtual host has no document
    assert documents(store, Screen(selected=APP), 0.0) == [JOB]
    read(store, 1.0)
    view = store.app_config(APP)
    assert view is not None and view.config == CONFIG and view.read_at == 1.0 and view.error is None
    for now in range(2, 300):
        assert documents(store, screen, float(now)) == [], now
    assert next_due(store, screen, 250.0, 1.0, SETTINGS) <= 301.0
    assert documents(store, screen, 301.0) == [JOB]


def test_the_watched_stream_changes_when_its_applications_document_arrives() -> None:
    store = NodeStore(SETTINGS, random.Random(1))
    listed(store)
    store.watch(frozenset({STREAM}))
    store.take_changes()
    read(store, 1.0)
    changed, _, _ = store.take_changes()
    assert {APP, STREAM} <= changed


def test_changed_playlists_or_the_app_listed_anew_or_a_refresh_make_it_due_at_once() -> None:
    store = NodeStore(SETTINGS, random.Random(1))
    listed(store, ("a", "b"))
    screen = Screen(selected=STREAM)
    read(store, 1.0)
    for playlists in (("llhls",), ("llhls",)):  # the same playlists again: nothing may have changed
        store.apply(InfoRead(InfoJob(STREAM), info(*playlists), 2.0), SETTINGS.interval)
    assert documents(store, screen, 3.0) == []
    store.apply(InfoRead(InfoJob(STREAM), info("llhls", "master"), 4.0), SETTINGS.interval)
    assert documents(store, screen, 4.0) == [JOB]

    read(store, 5.0)
    store.sent(ListingJob("v"), 6.0)
    store.apply(Listed(ListingJob("v"), ("b",), 6.0), SETTINGS.interval)  # the app is gone...
    assert store.app_config(APP) is None  # ...and its document with it
    assert documents(store, screen, 6.0) == [JOB]  # read anew whenever it is asked for again

    read(store, 7.0)
    store.make_app_config_due(APP)  # the operator's refresh
    assert documents(store, screen, 7.0) == [JOB]


def test_a_failure_keeps_the_last_document_and_is_asked_again_after_the_retry() -> None:
    store = NodeStore(SETTINGS, random.Random(1))
    listed(store)
    screen = Screen(selected=STREAM)
    read(store, 1.0)
    store.make_app_config_due(APP)
    store.sent(JOB, 2.0)
    store.apply(Failed(JOB, ServerError("[HTTP] boom (500)", 500), 2.0), SETTINGS.interval)
    view = store.app_config(APP)
    assert view is not None and view.config == CONFIG and view.error == "[HTTP] boom (500)" and view.read_at == 1.0
    assert documents(store, screen, 31.0) == []
    assert documents(store, screen, 32.0) == [JOB]
    # a server without the endpoint ("Controller not found") is asked again only at the slow interval
    store.sent(JOB, 40.0)
    store.apply(Failed(JOB, NotFoundError("[HTTP] Controller not found (404)", 404, level="path"), 40.0),
                SETTINGS.interval)
    assert documents(store, screen, 339.0) == [] and documents(store, screen, 340.0) == [JOB]


def test_a_document_that_lists_no_publishers_is_read_and_kept_as_unknown() -> None:
    store = NodeStore(SETTINGS, random.Random(1))
    listed(store)
    read(store, 1.0, config=None)
    view = store.app_config(APP)
    assert view is not None and view.config is None and view.read_at == 1.0 and view.error is None
    assert store.app_config_due_at(APP) == 301.0
    assert store.app_config_due_at(NodePath("v", "other")) == -math.inf
