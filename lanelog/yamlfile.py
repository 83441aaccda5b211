"""Read a small YAML file and remember the line of every key, for error messages.

The policy, the flaky list and the budgets file are read here (the router and the
queries both use it, so it sits beside the leaves, on the errors alone).

A policy error must name the file, the key and the line, so the loaders need
more than ``yaml.safe_load`` gives: this keeps a map from key paths to lines,
and refuses a duplicate key (PyYAML would silently keep the last one).

Anchors and aliases are refused as they are read, before anything is built:
nine nested aliases in a few hundred bytes expand to hundreds of millions of
nodes for whatever walks the tree, and a policy or a flaky list is a small
hand-written file that never needs them.
"""

from __future__ import annotations

from typing import Any

import yaml

from lanelog.errors import YamlFileError

Key = tuple[str | int, ...]

MAX_BYTES = 1_000_000



class _NoAliases(Exception):
    """An anchor or alias met while composing; carries where it was."""

    def __init__(self, mark: yaml.Mark) -> None:
        super().__init__()
        self.mark = mark


class _Loader(yaml.SafeLoader):
    """The safe loader, refusing an anchor or alias before it is composed."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]  # types-PyYAML leaves Parser.peek_event bare
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _NoAliases(event.start_mark)
        return super().compose_node(parent, index)


class YamlFile:
    """A parsed YAML document with the source line of each key and list item."""

    def __init__(self, text: str, name: str) -> None:
        self.name = name
        self.lines: dict[Key, int] = {}
        if len(text) > MAX_BYTES:
            raise YamlFileError(f"{name}: larger than {MAX_BYTES} bytes")
        try:
            loader = _Loader(text)
            try:
                node = loader.get_single_node()
                self._index(node, ())
                self.data: Any = loader.construct_document(node) if node is not None else None
            finally:
                loader.dispose()
        except _NoAliases as exc:
            raise YamlFileError(f"{name} line {exc.mark.line + 1}: anchors and aliases "
                                "(&name, *name) are not allowed: write the value out") from None
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = f" line {mark.line + 1}" if mark is not None else ""
            raise YamlFileError(f"{name}{where}: not valid YAML ({exc.problem or exc})") from None
        except yaml.YAMLError as exc:
            raise YamlFileError(f"{name}: not valid YAML ({exc})") from None
        except RecursionError:
            # The composer recurses once per level; a hand-written file is never this deep.
            raise YamlFileError(f"{name}: nested too deeply to be a hand-written file") from None

    def where(self, key: Key) -> str:
        """``"lanes.yaml line 4, key map.store.py"`` for a key path."""
        line = self.line(key)
        at = f" line {line}" if line is not None else ""
        dotted = ".".join(str(part) if isinstance(part, str) else f"[{part}]" for part in key)
        return f"{self.name}{at}, key {dotted.replace('.[', '[')}" if key else f"{self.name}{at}"

    def line(self, key: Key) -> int | None:
        """The line of ``key``, or of its nearest enclosing key that has one."""
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.lines.get(())

    def _index(self, node: yaml.Node | None, key: Key) -> None:
        if node is None:
            return
        self.lines.setdefault(key, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, value_node in node.value:
                name = str(key_node.value)
                if name in seen:
                    raise YamlFileError(
                        f"{self.name} line {key_node.start_mark.line + 1}: duplicate key {name!r}")
                seen.add(name)
                self.lines[key + (name,)] = key_node.start_mark.line + 1
                self._index(value_node, key + (name,))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self.lines[key + (index,)] = item.start_mark.line + 1
                self._index(item, key + (index,))
