"""The test suite's own promises: the README's test command stays quick, the long runs it
leaves out are still run by CI and named in the README, no test module imports another, and
every test checks something."""

import ast
import configparser
import functools
import glob
import os
import re
import shlex

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def test_the_default_run_leaves_out_the_slow_marker():
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    addopts = shlex.split(cfg["tool:pytest"]["addopts"])
    assert addopts[addopts.index("-m") + 1] == "not slow and not e2e"
    assert "slow:" in cfg["tool:pytest"]["markers"]
    assert "e2e:" in cfg["tool:pytest"]["markers"]


def test_the_default_run_uses_every_core_and_the_readme_names_its_time():
    """The default run is parallel (each test file in one worker: module-scoped servers and
    ordered modules stay whole), pytest-xdist is among the test extras, and the README's
    sentence on the test command names a measured time in seconds and its load."""
    import re
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    addopts = shlex.split(cfg["tool:pytest"]["addopts"])
    assert addopts[addopts.index("-n") + 1] == "auto"
    assert addopts[addopts.index("--dist") + 1] == "loadfile"
    assert "pytest-xdist" in cfg["options.extras_require"]["test"]
    readme = " ".join(_read("README.md").split())
    sentence = readme[readme.index("That default run is"):][:600]
    assert re.search(r"\d[\d,]* s measured on a 2-core machine", sentence), sentence
    assert "load average" in sentence


def test_ci_runs_the_readme_command_and_the_slow_runs():
    ci = _read(".ci/run")
    readme = _read("README.md")
    assert "pip install '.[test]' && pytest" in readme
    import re
    assert "pip install --quiet '.[test]'" in ci and re.search(r"^pytest$", ci, re.M)
    assert re.search(r"^ruff check \.$", ci, re.M)  # the linter runs in CI
    assert "pytest -m slow" in ci and "pytest -m slow" in readme
    # the end-to-end tests the default run leaves out, on each database
    assert re.search(r"^pytest -m e2e$", ci, re.M) and "pytest -m e2e" in readme
    assert re.search(r"^PBEM_TEST_DATABASE_URL=\S+ pytest -m e2e$", ci, re.M)
    assert "PBEM_TEST_DATABASE_URL=postgresql://" in ci


def test_every_test_docs_reliability_names_exists():
    """docs/RELIABILITY.md proves each guarantee by naming tests (`FILE::TEST`, or `::TEST`
    for another test of the file named last): each must be a test of that file, so that a
    renamed or moved test cannot leave a guarantee pointing at nothing."""
    import glob
    import re
    doc = _read("docs/RELIABILITY.md")
    named, current = [], None
    for ref in re.findall(r"`([^`\s]*::[^`\s]+)`", doc):
        path, name = ref.split("::", 1)
        if path:
            found = [p for p in glob.glob(os.path.join(ROOT, "tests", "**", "*.py"),
                                          recursive=True)
                     if p.endswith(os.sep + path.replace("/", os.sep))]
            assert len(found) == 1, f"{ref}: no single test file {path}"
            current = found[0]
        assert current is not None, f"{ref}: no file named before it"
        name = name.split("[", 1)[0]
        with open(current, encoding="utf-8") as f:
            source = f.read()
        assert re.search(rf"^def {re.escape(name)}\(", source, re.M), \
            f"docs/RELIABILITY.md names {ref}, which is not a test of {current}"
        named.append(name)
    assert len(named) > 30


@functools.lru_cache(maxsize=1)
def _parsed_sources():
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            found.append((os.path.relpath(path, ROOT).replace(os.sep, "/"), ast.parse(f.read())))
    return tuple(found)


def _test_sources():
    """(path, tree) of every module of tests/, parsed once for the checks of this file."""
    return _parsed_sources()


def _imported_modules(tree, path):
    """Every module ``tree`` imports (at the top or inside functions), relative ones resolved
    against ``path``."""
    package = path[:-3].split("/")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            yield name
            for alias in node.names:  # ``from tests.server import test_x``
                yield f"{name}.{alias.name}"


def _is_test_module(name):
    return name.startswith("tests.") and name.rsplit(".", 1)[1].startswith("test_")


def test_no_test_module_imports_another_test_module():
    """Set-up that several modules share lives in a conftest.py or in tests/helpers/; a test
    module imported by another would run its tests' module-level code twice and tie the two
    files together."""
    found = set()
    for path, tree in _test_sources():
        for name in _imported_modules(tree, path):
            if _is_test_module(name):
                found.add((path, name))
    assert not found, sorted(found)


def test_the_import_check_sees_an_import_of_a_test_module():
    tree = ast.parse("from tests.server.test_platform import x\n"
                     "def f():\n    from .test_mail import smtp\n")
    names = [n for n in _imported_modules(tree, "tests/server/test_a.py") if _is_test_module(n)]
    assert names == ["tests.server.test_platform", "tests.server.test_mail"]


def _checks(node):
    """Whether the function ``node`` checks something itself: an assert, ``pytest.raises`` (or
    ``warns``, ``fail``), ``raise AssertionError``; and the names of what it calls."""
    checks, calls = False, set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assert):
            checks = True
        elif isinstance(sub, ast.Raise) and sub.exc is not None:
            exc = sub.exc.func if isinstance(sub.exc, ast.Call) else sub.exc
            checks |= getattr(exc, "id", None) == "AssertionError"
        elif isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("raises", "warns", "fail") and isinstance(func, ast.Attribute):
                checks = True
            elif name:
                calls.add(name)
    return checks, calls


def test_every_test_checks_something():
    """Every test function asserts, expects an exception, or calls a helper (any function of
    tests/ by that name) that does: a test that cannot fail proves nothing."""
    functions = {}
    tests = []
    for path, tree in _test_sources():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.setdefault(node.name, []).append(_checks(node))
                if node.name.startswith("test") and os.path.basename(path).startswith("test_"):
                    tests.append((path, node))
    checking = {name for name, found in functions.items() if any(c for c, _ in found)}
    grown = True
    while grown:  # a helper that calls a checking helper checks too
        grown = False
        for name, found in functions.items():
            if name not in checking and any(calls & checking for _, calls in found):
                checking.add(name)
                grown = True
    idle = [f"{path}::{node.name}" for path, node in tests
            if not (_checks(node)[0] or _checks(node)[1] & checking)]
    assert not idle, idle


#: what starts a real server process in a test module: the CLI's server, gunicorn or nginx
#: through tests/liveserver.py, the Procfile's processes, ``pbem-server`` itself
_STARTS_SERVER = re.compile(r"\bLiveServer\(|ProcfileDeployment\(|\bServer\(|BotServer\(|"
                            r"[\"']pbem-server[\"'], [\"']run")


def _marks(node):
    """The ``pytest.mark`` names decorating ``node``."""
    return {d.attr if isinstance(d, ast.Attribute) else getattr(d, "attr", None)
            for d in (dec.func if isinstance(dec, ast.Call) else dec
                      for dec in node.decorator_list)}


def _left_out(node, tree, lines, fixtures, seen=()):
    """Whether the module-level ``node`` (a test, a fixture, a helper or a server class) runs
    only in tests the default run leaves out: a test marked e2e or slow, a fixture the hook
    marks by name, or anything whose every user in the module is one of those."""
    if node.name.startswith("test_"):
        return bool(_marks(node) & {"e2e", "slow"})
    if node.name in fixtures:
        return True
    word = re.compile(rf"\b{re.escape(node.name)}\b")
    users = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))
             and n is not node and n.name not in seen
             and word.search("\n".join(lines[n.lineno - 1:n.end_lineno]))]
    return bool(users) and all(_left_out(n, tree, lines, fixtures, seen + (node.name,))
                               for n in users)


def test_every_test_that_starts_a_server_is_left_out_of_the_default_run():
    """A test that starts a server process itself is marked ``e2e`` (or ``slow``), or its
    module is, or it reaches the server through a fixture tests/conftest.py marks by name
    (E2E_FIXTURES): the default run stays free of process start-ups."""
    from tests.conftest import E2E_FIXTURES
    unmarked = []
    for path, tree in _test_sources():
        if not os.path.basename(path).startswith("test_") or path == "tests/test_test_suite.py":
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            source = f.read()
        if re.search(r"^pytestmark = pytest\.mark\.(e2e|slow)$", source, re.M):
            continue
        lines = source.splitlines()
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                continue
            body = "\n".join(lines[node.lineno - 1:node.end_lineno])
            if not _STARTS_SERVER.search(body):
                continue
            if not _left_out(node, tree, lines, E2E_FIXTURES):
                unmarked.append(f"{path}::{node.name}")
    assert not unmarked, unmarked


def test_the_server_check_sees_an_unmarked_start():
    tree = ast.parse("@pytest.mark.e2e\ndef test_a():\n    LiveServer(url)\n")
    assert _marks(tree.body[0]) == {"e2e"}
    assert _STARTS_SERVER.search("srv = Server(tmp)") and _STARTS_SERVER.search(
        'Popen(["pbem-server", "run"')
