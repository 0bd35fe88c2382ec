"""The tree of virtual hosts → applications → streams, each label carrying live badges.

Nodes are rebuilt only when the arranged shape (which nodes, in which order) changes; on an ordinary
update only the labels of the nodes that changed are replaced. Collapsed branches and the cursor
survive a rebuild.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rich.text import Text
from textual import on
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from omeconsole.core.model import NodePath
from omeconsole.ui.tree_model import Branch

LabelFor = Callable[[NodePath], Text]


class NodeTree(Tree[NodePath]):
    def __init__(self, **options: Any) -> None:
        super().__init__("servers", **options)
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 2
        self._by_path: dict[NodePath, TreeNode[NodePath]] = {}
        self._shape: tuple[Branch, ...] | None = None
        self._collapsed: set[NodePath] = set()

    @property
    def shape(self) -> tuple[Branch, ...] | None:
        return self._shape

    @property
    def cursor_path(self) -> NodePath | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def paths(self) -> list[NodePath]:
        return list(self._by_path)

    def rebuild(self, shape: tuple[Branch, ...], label_for: LabelFor, prefer: NodePath | None = None) -> bool:
        """Mirror `shape`; returns False (and does nothing) when it is what is already shown.

        The cursor stays on its node (or the nearest ancestor left); with no cursor yet it goes to
        `prefer` when given (and stays unset until that node exists), else to the first line.
        """
        if shape == self._shape:
            return False
        keep = self.cursor_path
        self._shape = shape
        self.clear()
        self._by_path.clear()

        def add(parent: TreeNode[NodePath], branch: Branch) -> None:
            if branch.path.level == "stream":
                self._by_path[branch.path] = parent.add_leaf(label_for(branch.path), data=branch.path)
                return
            node = parent.add(label_for(branch.path), data=branch.path,
                              expand=branch.path not in self._collapsed)
            self._by_path[branch.path] = node
            for child in branch.children:
                add(node, child)

        for branch in shape:
            add(self.root, branch)
        if keep is not None:
            self.select_path(keep, nearest=True)
        elif prefer is not None:
            self.select_path(prefer)  # not there yet: the cursor waits for it rather than wander
        elif self._by_path:
            self.cursor_line = 0
        return True

    def relabel(self, paths: Iterable[NodePath], label_for: LabelFor) -> None:
        for path in paths:
            node = self._by_path.get(path)
            if node is not None:
                node.set_label(label_for(path))

    def select_path(self, path: NodePath, *, nearest: bool = False) -> bool:
        """Move the cursor to `path`, opening its parents; with `nearest`, fall back to its closest ancestor."""
        target: NodePath | None = path
        while target is not None and target not in self._by_path:
            target = target.parent if nearest else None
        if target is None:
            return False
        node = self._by_path[target]
        ancestor = node.parent
        while ancestor is not None:
            if ancestor.data is not None:
                self._collapsed.discard(ancestor.data)
            ancestor.expand()
            ancestor = ancestor.parent
        self.move_cursor(node, animate=False)
        self.call_after_refresh(self.scroll_to_node, node, animate=False)
        return True

    def visible_paths(self) -> list[NodePath]:
        """The nodes on screen now (the engine polls those before the rest)."""
        top = int(self.scroll_offset.y)
        out = []
        for line in range(top, top + max(1, self.size.height)):
            node = self.get_node_at_line(line)
            if node is None:
                break
            if node.data is not None:
                out.append(node.data)
        return out

    @on(Tree.NodeCollapsed)
    def _remember_collapsed(self, event: Tree.NodeCollapsed[NodePath]) -> None:
        if event.node.data is not None:
            self._collapsed.add(event.node.data)

    @on(Tree.NodeExpanded)
    def _remember_expanded(self, event: Tree.NodeExpanded[NodePath]) -> None:
        if event.node.data is not None:
            self._collapsed.discard(event.node.data)
