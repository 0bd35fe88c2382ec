"""Names nearest to a typo, and what `:` resolves a typed name to."""

from __future__ import annotations

from omeconsole.core.nearest import jump_names, nearest_paths, nearest_words, resolve_jump
from omeconsole.model.nodes import AppStreams, Listing
from omeconsole.model.paths import NodePath

LISTING: Listing = {
    "default": {"app": AppStreams(("news", "sports", "backup")), "live": AppStreams(("news", "weather"))},
    "other": {"tv": AppStreams(("movies",))},
}


def test_a_typo_is_answered_with_the_nearest_names_of_its_level() -> None:
    assert nearest_words("intervall", ["interval", "timeout", "theme"]) == ["interval"]
    assert nearest_words("zzz", ["interval", "timeout"]) == []
    assert nearest_paths(NodePath("default", "app", "newz"), LISTING)[0] == NodePath("default", "app", "news")
    assert all(path.level == "app" for path in nearest_paths(NodePath("default", "ap"), LISTING))


def test_a_jump_goes_to_a_path_a_unique_name_or_the_one_path_containing_the_text() -> None:
    assert resolve_jump("default/live/news", LISTING).path == NodePath("default", "live", "news")
    assert resolve_jump("weather", LISTING).path == NodePath("default", "live", "weather")
    assert resolve_jump("MOV", LISTING).path == NodePath("other", "tv", "movies")
    assert resolve_jump("tv", LISTING).path == NodePath("other", "tv")


def test_a_jump_that_names_several_nodes_or_none_opens_nothing_and_says_which() -> None:
    several = resolve_jump("news", LISTING)
    assert several.path is None and several.problem == "2 nodes match"
    assert set(several.nearest) == {"default/app/news", "default/live/news"}
    none = resolve_jump("wether", LISTING)
    assert none.path is None and "weather" in none.nearest
    assert resolve_jump("  ", LISTING).path is None


def test_the_completions_hold_every_path_and_the_names_only_one_node_has() -> None:
    names = jump_names(LISTING)
    assert "default/app/news" in names and "weather" in names and "movies" in names
    assert "news" not in names, "two streams are called news: the name alone completes to neither"
