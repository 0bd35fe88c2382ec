"""The listing: vhost -> app -> AppStreams(live, ended), copy-on-write, replaced per app only when it
changed, ended streams tracked per app once per change, and names that are data."""

from __future__ import annotations

from omeconsole.core.polling.jobs import ListingJob
from omeconsole.core.polling.listing import ROOT, ListingBook
from omeconsole.model.nodes import AppStreams
from omeconsole.model.paths import NodePath

Server = dict[str, dict[str, list[str]]]


def full_pass(book: ListingBook, server: Server, now: float = 0.0) -> list[NodePath]:
    """Lists everything, level by level, as the engine would; returns what went."""
    gone: list[NodePath] = []
    gone += book.apply(ROOT, tuple(server), now).gone
    for vhost in server:
        gone += book.apply(ListingJob(vhost), tuple(server[vhost]), now).gone
        for app in server[vhost]:
            gone += book.apply(ListingJob(vhost, app), tuple(server[vhost][app]), now).gone
    return gone


def names(book: ListingBook) -> Server:
    return {v: {a: list(s.live) for a, s in apps.items()} for v, apps in book.listing().items()}


def test_a_pass_builds_the_listing_and_every_listing_is_then_due_by_job() -> None:
    book = ListingBook()
    server = {"v": {"a": ["s1", "s2"], "b": []}, "w": {"c": ["s3"]}}
    assert not book.complete()
    assert full_pass(book, server) == []
    assert names(book) == server
    assert book.complete()
    assert list(book.jobs()) == [ROOT, ListingJob("v"), ListingJob("v", "a"), ListingJob("v", "b"),
                                 ListingJob("w"), ListingJob("w", "c")]


def test_an_unchanged_answer_keeps_every_object_and_a_change_replaces_only_its_app() -> None:
    book = ListingBook()
    full_pass(book, {"v": {"a": ["s1", "s2"], "b": ["s3"]}})
    before = book.listing()
    a, b = before["v"]["a"], before["v"]["b"]
    assert not book.apply(ListingJob("v", "a"), ("s1", "s2"), 1.0).changed
    assert book.listing() is before and book.listing()["v"]["a"] is a
    change = book.apply(ListingJob("v", "a"), ("s1", "s4"), 2.0)
    after = book.listing()
    assert change.changed and change.gone == (NodePath("v", "a", "s2"),)
    assert after is not before and after["v"]["b"] is b  # the other app is the same object: skip it
    assert after["v"]["a"] == AppStreams(("s1", "s4"), ("s2",))
    assert before["v"]["a"] is a and a == AppStreams(("s1", "s2"))  # a reader's copy did not change


def test_ended_streams_keep_when_they_went_and_were_last_seen_and_come_back_when_listed() -> None:
    book = ListingBook()
    full_pass(book, {"v": {"a": ["s1", "s2"]}}, now=10.0)
    book.apply(ListingJob("v", "a"), ("s1", "s2"), 20.0)
    book.apply(ListingJob("v", "a"), ("s1",), 30.0)
    ended = book.ended(NodePath("v", "a", "s2"))
    assert ended is not None and (ended.at, ended.last_seen) == (30.0, 20.0)
    change = book.apply(ListingJob("v", "a"), ("s1", "s2"), 40.0)
    assert change.back == (NodePath("v", "a", "s2"),)
    assert book.listing()["v"]["a"] == AppStreams(("s1", "s2"))
    assert book.ended(NodePath("v", "a", "s2")) is None


def test_ended_streams_leave_after_the_keep_time_in_one_replacement() -> None:
    book = ListingBook()
    full_pass(book, {"v": {"a": ["s1", "s2", "s3"], "b": ["t"]}})
    book.apply(ListingJob("v", "a"), ("s1", "s3"), 5.0)
    book.apply(ListingJob("v", "a"), ("s1",), 8.0)
    assert book.listing()["v"]["a"].ended == ("s2", "s3")  # in the order they ended
    other = book.listing()["v"]["b"]
    assert book.expire(100.0, keep=600.0) == ()
    assert book.expire(606.0, keep=600.0) == (NodePath("v", "a", "s2"),)
    assert book.listing()["v"]["a"] == AppStreams(("s1",), ("s3",))
    assert book.expire(609.0, keep=600.0) == (NodePath("v", "a", "s3"),)
    assert book.listing()["v"]["a"] == AppStreams(("s1",))
    assert book.listing()["v"]["b"] is other


def test_removed_apps_and_vhosts_go_with_everything_under_them() -> None:
    book = ListingBook()
    full_pass(book, {"v": {"a": ["s1"], "b": ["s3"]}, "w": {"c": ["s4"]}})
    book.apply(ListingJob("v", "a"), (), 1.0)  # s1 ended
    assert book.apply(ListingJob("v"), ("b",), 2.0).gone == (NodePath("v", "a"),)
    assert book.ended(NodePath("v", "a", "s1")) is None  # nothing is kept under an app that is gone
    assert book.missing(ListingJob("w"), 3.0).gone == (NodePath("w"),)
    assert names(book) == {"v": {"b": ["s3"]}}
    assert ListingJob("w", "c") not in list(book.jobs())


def test_names_are_data_and_unaddressable_parents_are_listed_but_never_asked_about() -> None:
    book = ListingBook()
    hostile = ("ok", "", "a/b", "\ud800", "..", "\x1b]52;c;aGk=\x07")
    book.apply(ROOT, (*hostile, "ok"), 0.0)
    assert tuple(book.listing()) == hostile  # each once, in the server's order
    assert list(book.jobs()) == [ROOT, ListingJob("ok"), ListingJob("\x1b]52;c;aGk=\x07")]
    book.apply(ListingJob("ok"), ("app", "x/y"), 0.0)
    assert ListingJob("ok", "x/y") not in list(book.jobs()) and ListingJob("ok", "app") in list(book.jobs())
    book.apply(ListingJob("ok", "app"), ("s", "", "\ud800"), 0.0)
    assert book.listing()["ok"]["app"].live == ("s", "", "\ud800")
