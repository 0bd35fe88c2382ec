"""What a `NodeTree` tells its screen: small messages whose `control` is the tree, so a screen selects them
with `@on(NodeTree.Opened, "#tree")`. Handlers by name read `on_node_tree_opened` and so on."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.widget import Widget

from omeconsole.model.paths import NodePath


@dataclass
class TreeMessage(Message, namespace="node_tree"):
    tree: Widget
    """The `NodeTree` that posted it (typed as a widget: the tree imports this module, not the reverse)."""

    @property
    def control(self) -> Widget:
        return self.tree


@dataclass
class TreeHighlighted(TreeMessage, namespace="node_tree"):
    """The cursor rests on another node (None: the tree is empty)."""

    path: NodePath | None


@dataclass
class TreeOpened(TreeMessage, namespace="node_tree"):
    """Enter (or a click on the cursor's row) on a node: show it in full."""

    path: NodePath


@dataclass
class TreeToggled(TreeMessage, namespace="node_tree"):
    """A host or application was expanded or collapsed."""

    path: NodePath
    expanded: bool


@dataclass
class TreeServerOpened(TreeMessage, namespace="node_tree"):
    """A fleet's tree: the operator opened another server's row (moves to that server)."""

    profile: str


@dataclass
class VisibleRowsChanged(TreeMessage, namespace="node_tree"):
    """The nodes on screen changed (scroll, resize, new listing, a branch opened or closed)."""

    paths: tuple[NodePath, ...]
