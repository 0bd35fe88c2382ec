"""The tree of virtual hosts → applications → streams, each label carrying live badges.

Nodes are rebuilt only when the arranged shape (which nodes, in which order) changes; on an ordinary
update only the labels of the nodes that changed are replaced. Collapsed branches and the cursor
survive a rebuild.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from omeconsole.core.tree_model import Branch
from omeconsole.model.paths import NodePath

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
        self._labels: dict[NodePath, Text] = {}

    @property
    def shape(self) -> tuple[Branch, ...] | None:
        return self._shape

    @property
    def cursor_path(self) -> NodePath | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def paths(self) -> list[NodePath]:
        """Every node, in display order."""
        out: list[NodePath] = []

        def walk(node: TreeNode[NodePath]) -> None:
            for child in node.children:
                if child.data is not None:
                    out.append(child.data)
                walk(child)

        walk(self.root)
        return out

    def rebuild(self, shape: tuple[Branch, ...], label_for: LabelFor, prefer: NodePath | None = None) -> bool:
        """Mirror `shape`; returns False (and does nothing) when it is what is already shown.

        Only what changed is touched: new nodes are inserted in place, vanished ones removed, and a
        level is rebuilt only when its order changed. The cursor stays on its node (or the nearest
        ancestor left); with no cursor yet it goes to `prefer` when given (and stays unset until
        that node exists), else to the first line.
        """
        if shape == self._shape:
            return False
        keep = self.cursor_path
        self._sync(self.root, self._shape or (), shape, label_for)
        self._shape = shape
        if keep is not None:
            self.select_path(keep, nearest=True)
        elif prefer is not None:
            self.select_path(prefer)  # not there yet: the cursor waits for it rather than wander
        elif self._by_path:
            self.cursor_line = 0
        return True

    def _sync(self, parent: TreeNode[NodePath], old: tuple[Branch, ...], new: tuple[Branch, ...],
              label_for: LabelFor) -> None:
        old_by_path = {branch.path: branch for branch in old}
        wanted = {branch.path for branch in new}
        if [b.path for b in old if b.path in wanted] != [b.path for b in new if b.path in old_by_path]:
            for branch in old:  # the order changed: this level is laid out again
                self._forget(branch)
            parent.remove_children()
            old_by_path = {}
        for branch in old:
            if branch.path not in wanted and branch.path in self._by_path:
                self._by_path[branch.path].remove()
                self._forget(branch)
        following: TreeNode[NodePath] | None = None
        for branch in reversed(new):
            if branch.path in old_by_path:
                node = self._by_path[branch.path]
                self._sync(node, old_by_path[branch.path].children, branch.children, label_for)
            else:
                node = self._add(parent, branch, label_for, before=following)
            following = node

    def _add(self, parent: TreeNode[NodePath], branch: Branch, label_for: LabelFor,
             before: TreeNode[NodePath] | None = None) -> TreeNode[NodePath]:
        label = self._labels[branch.path] = label_for(branch.path)
        if branch.path.level == "stream":
            node = parent.add_leaf(label, data=branch.path, before=before)
        else:
            node = parent.add(label, data=branch.path, before=before, expand=branch.path not in self._collapsed)
            for child in branch.children:
                self._add(node, child, label_for)
        self._by_path[branch.path] = node
        return node

    def _forget(self, branch: Branch) -> None:
        for path in branch.paths():
            self._by_path.pop(path, None)
            self._labels.pop(path, None)

    def relabel(self, paths: Iterable[NodePath], label_for: LabelFor) -> None:
        """Replaces the labels that changed (a label callback returns the same object when not)."""
        for path in paths:
            node = self._by_path.get(path)
            if node is None:
                continue
            label = label_for(path)
            if label is not self._labels.get(path):
                self._labels[path] = label
                node.set_label(label)

    def get_label_width(self, node: TreeNode[NodePath]) -> int:
        """The width Textual's own method finds, without rendering the label: the tree measures every
        line after each change of shape, which on 10,000 streams cost more than the rest of a redraw."""
        prefix = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE) if node.allow_expand else ""
        label = node.label
        return cell_len(prefix) + (label.cell_len if isinstance(label, Text) else cell_len(label))

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
        # `TreeNode.line` is only refreshed at the next render; after an insert it can point one row
        # off, so the line is counted here from the current shape.
        self.cursor_line = self._line_of(node)
        self.call_after_refresh(self.scroll_to_node, node, animate=False)
        return True

    def _line_of(self, target: TreeNode[NodePath]) -> int:
        line = -1

        def walk(node: TreeNode[NodePath]) -> bool:
            nonlocal line
            for child in node.children:
                line += 1
                if child is target or (child.is_expanded and walk(child)):
                    return True
            return False

        return line if walk(self.root) else -1

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
