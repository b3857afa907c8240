"""The client's modules import each other without a circle, and its command modules never
import one another (what they share lives in the modules beside client/cli.py).

The graph is read with ``ast`` from the source, imports inside functions included (the CLI
imports lazily, so a circle there would not show at import time but is a tangle all the
same)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path, name, known):
    """The modules of ``known`` that the module ``name`` (file ``path``) imports."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            # "from . import x" names module x; "from .a import b" names module a
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(package):
    files = {_module_name(p): p for p in (ROOT / package).rglob("*.py")}
    return {name: _imports(path, name, files) for name, path in files.items()}


def find_cycle(graph):
    """One import circle as a list of modules, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_client_has_no_import_circle():
    graph = import_graph("client")
    assert "client.poster" in graph and "client.commands.play" in graph
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_command_modules_never_import_each_other():
    graph = import_graph("client")
    commands = {m for m in graph if m.startswith("client.commands.")}
    assert len(commands) >= 9
    tangled = {m: sorted(graph[m] & commands) for m in commands if graph[m] & commands}
    assert tangled == {}


def test_the_cycle_finder_finds_a_circle():
    """The check above can fail: a made-up graph with a circle is caught."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_relative_imports_are_resolved():
    """``from ..poster import X`` inside client/commands/ names client.poster."""
    graph = import_graph("client")
    assert "client.poster" in graph["client.commands.play"]
    assert "client.seats" in graph["client.commands.bots"]
