"""Names nearest to a typo, and what `:` resolves a typed name to."""

from __future__ import annotations

from omeconsole.core.nearest import (
    Jump,
    JumpScope,
    jump_names,
    nearest_paths,
    nearest_words,
    resolve_jump,
    resolve_scope_jump,
    scope_names,
)
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


EDGE: Listing = {"default": {"app": AppStreams(("news", "late")), "relay": AppStreams(("feed",))}}
SPARE: Listing = {"default": {"app": AppStreams(("news", "late"))}}


def test_on_a_fleet_a_name_the_screens_server_has_stays_there_and_one_only_another_has_goes_there() -> None:
    scope = JumpScope(LISTING, {"edge-1": EDGE}, current="origin")
    assert resolve_scope_jump("weather", scope) == Jump(NodePath("default", "live", "weather"))
    assert resolve_scope_jump("default/app/news", scope) == Jump(NodePath("default", "app", "news"))
    assert resolve_scope_jump("feed", scope) == Jump(NodePath("default", "relay", "feed"), server="edge-1")
    assert resolve_scope_jump("late", scope) == Jump(NodePath("default", "app", "late"), server="edge-1")
    assert resolve_scope_jump("edge-1:default/app/news", scope).server == "edge-1"
    assert resolve_scope_jump("origin:default/live/news", scope) == Jump(NodePath("default", "live", "news"))
    ambiguous_here = resolve_scope_jump("news", scope)  # two news here: said here, not looked for elsewhere
    assert ambiguous_here.path is None and ambiguous_here.problem == "2 nodes match"


def test_on_a_fleet_a_name_on_several_other_servers_or_none_opens_nothing_and_says_where() -> None:
    scope = JumpScope(LISTING, {"edge-1": EDGE, "edge-2": SPARE}, current="origin")
    several = resolve_scope_jump("late", scope)
    assert several.path is None and several.problem == "2 other servers have it"
    assert several.nearest == ("edge-1:default/app/late", "edge-2:default/app/late")
    none = resolve_scope_jump("fed", scope)
    assert none.path is None and none.problem == "no node of that name is listed on any server"
    assert "feed" in none.nearest
    typo = resolve_scope_jump("edge-1:default/relay/fed", scope)
    assert typo.path is None and typo.server is None and "edge-1:default/relay/feed" in typo.nearest


def test_on_a_fleet_the_completions_hold_the_other_servers_paths_and_their_own_names() -> None:
    names = scope_names(JumpScope(LISTING, {"edge-1": EDGE, "edge-2": SPARE}, current="origin"))
    assert "weather" in names and "edge-1:default/relay/feed" in names and "edge-2:default/app/late" in names
    assert "feed" in names, "only edge-1 has it"
    assert "late" not in names, "two other servers have it"
    assert scope_names(JumpScope(LISTING)) == jump_names(LISTING)
