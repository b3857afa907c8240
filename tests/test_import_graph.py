"""No import cycle inside ``server/`` or ``client/``.

The graph is read from the source with ``ast``: every ``import`` and ``from ... import`` at any
depth (inside functions too), relative imports resolved against the importing module's
package.  ``from pkg import name`` is an edge to the module ``pkg.name`` when there is one,
otherwise to ``pkg`` itself (a package counts as its ``__init__``).  Only edges between modules
of the same tree count.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules(package_dir):
    """{dotted name: path} of every module under ``package_dir`` (a package)."""
    base = package_dir.parent
    found = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _resolve(name, is_package, level, module):
    """The absolute name ``from <level dots><module>`` means inside module ``name``."""
    if not level:
        return module or ""
    parts = name.split(".") if is_package else name.split(".")[:-1]
    if level > 1:
        parts = parts[:len(parts) - (level - 1)]
    return ".".join(parts + ([module] if module else []))


def _target(known, dotted):
    """The module ``dotted`` names, or the nearest package above it that is known."""
    while dotted and dotted not in known:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def import_graph(package_dir):
    """{module: {modules it imports}} for the package at ``package_dir``."""
    known = modules(package_dir)
    graph = {name: set() for name in known}
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text("utf-8"), str(path))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(name, is_package, node.level, node.module)
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    targets.append(full if full in known else source)
            for dotted in targets:
                target = _target(known, dotted)
                if target is not None and target != name:
                    graph[name].add(target)
    return graph


def find_cycle(graph):
    """One cycle as a list of modules (first == last), or None."""
    state = {}  # 1: on the current path, 2: done
    path = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_graph_sees_imports_inside_functions_and_relative_package_imports(tmp_path):
    """The checker itself: a cycle made only of a function-level import and a ``from . import
    name`` of the package's ``__init__`` is found, and a graph without one passes."""
    _write(tmp_path, {
        "pkg/__init__.py": "from .sub import thing\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/thing.py": "def f():\n    from .. import helper\n",
        "pkg/other.py": "import pkg.sub.thing\n",
    })
    graph = import_graph(tmp_path / "pkg")
    assert graph["pkg"] == {"pkg.sub.thing"}
    assert graph["pkg.sub.thing"] == {"pkg"}  # `helper` is no module: the package's __init__
    assert graph["pkg.other"] == {"pkg.sub.thing"}
    assert find_cycle(graph) == ["pkg", "pkg.sub.thing", "pkg"]
    (tmp_path / "pkg/sub/thing.py").write_text("def f():\n    from . import sibling\n")
    (tmp_path / "pkg/sub/sibling.py").write_text("X = 1\n")
    graph = import_graph(tmp_path / "pkg")
    assert graph["pkg.sub.thing"] == {"pkg.sub.sibling"}
    assert find_cycle(graph) is None


def _assert_no_cycle(package):
    cycle = find_cycle(import_graph(ROOT / package))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_server_has_no_import_cycle():
    _assert_no_cycle("server")


def test_client_has_no_import_cycle():
    _assert_no_cycle("client")


def test_server_top_level_is_a_few_modules_and_names_are_not_repeated():
    """``server/`` keeps at most eight modules at its top (the rest lives in its packages),
    and no two of its modules share the name views.py or models.py."""
    top = sorted(p.name for p in (ROOT / "server").glob("*.py"))
    assert len(top) <= 8, top
    for name in ("views.py", "models.py"):
        found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "server").rglob(name))
        assert len(found) <= 1, found


def test_command_modules_never_import_each_other():
    """What two commands share lives beside client/cli.py (seats, recovery, numbers, the
    poster), never in another command's module."""
    graph = import_graph(ROOT / "client")
    tangled = sorted((a, b) for a, deps in graph.items() for b in deps
                     if a.startswith("client.commands.") and b.startswith("client.commands."))
    assert tangled == []


def test_every_folder_of_python_modules_is_a_package_setup_finds():
    """``pip install .`` ships only what ``packages = find:`` finds: a folder of modules
    without an ``__init__.py`` (a namespace package) is left out of the wheel and the installed
    ``pbem`` fails on its first command.  The migrations are data (package_data), not modules."""
    from setuptools import find_packages

    found = set(find_packages(str(ROOT), include=["shared", "shared.*", "server", "server.*",
                                                   "client", "client.*"]))
    for tree in ("shared", "server", "client"):
        for folder in sorted({p.parent for p in (ROOT / tree).rglob("*.py")}):
            dotted = ".".join(folder.relative_to(ROOT).parts)
            if dotted.startswith("server.migrations"):
                continue
            assert dotted in found, f"{dotted} has modules but no __init__.py"
