"""Games from other distributions: the entry-point group ``pbem.games`` (shared/games.py)."""

import configparser
import fnmatch
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from shared import games
from shared.base import Game
from tests.fixtures.pig import Pig


class _Dist:
    """Just enough of a distribution's entry points for ``importlib.metadata.entry_points``."""

    def __init__(self, entries):
        self.eps = [importlib.metadata.EntryPoint(name, value, games.ENTRY_POINT_GROUP)
                    for name, value in entries.items()]

    def __call__(self, group=None, **kw):
        # another group (alembic's plug-ins, when a test starts the server): nothing declared
        return importlib.metadata.EntryPoints(self.eps if group == games.ENTRY_POINT_GROUP
                                              else [])


@pytest.fixture
def distribution(monkeypatch):
    """A fake installed distribution ``pbem-pig2`` shipping one game module."""
    module = types.ModuleType("pbem_pig2")

    class Pig2(Pig):
        name = "pig2"
        title = "Pig again (from another distribution)"

    module.GAME = Pig2()
    module.NOT_A_GAME = object()
    broken = types.ModuleType("pbem_broken")
    monkeypatch.setitem(sys.modules, "pbem_pig2", module)
    monkeypatch.setitem(sys.modules, "pbem_broken", broken)
    monkeypatch.setattr(importlib.metadata, "entry_points", _Dist({
        "pig2": "pbem_pig2:GAME",
        "impostor": "pbem_pig2:NOT_A_GAME",
        "ghost": "pbem_no_such_module:GAME",
        "zarahemla": "pbem_pig2:GAME",       # a plug-in cannot replace a built-in game
    }))
    monkeypatch.setattr(games, "_loaded", dict(games._loaded))
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pbem_no_such_module" else True)
    return module


def test_a_game_declared_by_another_distribution_is_found_and_plays(distribution):
    assert "pig2" in games.game_types()
    game = games.get_game("pig2")
    assert game is distribution.GAME and isinstance(game, Game)
    state = game.new_game(game.seat_names(2), {"target": 5}, b"plugin")
    state = game.play(state, "north", "roll", b"x")
    assert state["ply"] == 1


def test_broken_or_foreign_entries_are_left_out_and_never_hide_the_built_ins(distribution):
    names = games.game_types()
    assert {"zarahemla", "stone_age", "title_of_liberty", "pig2"} <= set(names)
    assert "impostor" not in names and "ghost" not in names
    with pytest.raises(TypeError):
        games.get_game("impostor")
    with pytest.raises(KeyError):
        games.get_game("ghost")
    assert games.get_game("zarahemla").title == "The Settlers of Zarahemla"


def test_the_built_in_games_are_declared_in_the_entry_point_group():
    """setup.cfg declares them, as a distribution of its own would (after pip install)."""
    import configparser
    from pathlib import Path
    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).resolve().parents[2] / "setup.cfg")
    declared = cfg["options.entry_points"][games.ENTRY_POINT_GROUP]
    pairs = dict(line.split(" = ") for line in declared.strip().splitlines())
    assert pairs == games._BUILTIN


# --- a declared game that cannot load is named, and the others still load ----------------------

@pytest.fixture
def broken_plugins(monkeypatch):
    """Declared games that fail in each way a stranger's distribution can."""
    raising = types.ModuleType("pbem_raises")
    raising.__spec__ = importlib.machinery.ModuleSpec("pbem_raises", None)
    monkeypatch.setitem(sys.modules, "pbem_raises", raising)
    monkeypatch.setattr(importlib.metadata, "entry_points", _Dist({
        "broken_dice": "tests.fixtures.broken_game:GAME",
        "no_attr": "pbem_raises:GAME",
        "ghost": "pbem_no_such_module:GAME",
        "liars_dice": "tests.fixtures.liars_dice:GAME",
    }))
    monkeypatch.setattr(games, "_loaded", dict(games._loaded))
    monkeypatch.setattr(games, "_errors", {})


def test_a_game_that_cannot_load_is_named_with_its_reason(broken_plugins):
    names = games.game_types()
    assert {"zarahemla", "stone_age", "title_of_liberty", "liars_dice"} <= set(names)
    errors = games.load_errors()
    assert set(errors) == {"broken_dice", "no_attr", "ghost"}
    assert "ModuleNotFoundError" in errors["broken_dice"]
    assert "pbem_dice_helpers" in errors["broken_dice"]
    assert "AttributeError" in errors["no_attr"]
    assert "pbem_no_such_module" in errors["ghost"]
    lines = games.load_error_lines()
    assert lines[0].startswith("warning: the game broken_dice cannot load: ")


def test_no_load_errors_when_every_declared_game_loads(monkeypatch):
    monkeypatch.setattr(games, "_errors", {})
    assert games.load_errors() == {}
    assert games.load_error_lines() == []


# --- facts at every rules version -----------------------------------------------------------------

def _play_some(game, state, plies=40, seed=5):
    import random
    rnd = random.Random(seed)
    facts = []
    for ply in range(plies):
        owing = game.to_act(state)
        if not owing:
            break
        seat = rnd.choice(owing)
        state = game.play(state, seat, rnd.choice(game.legal_moves(state, seat)), b"f%d" % ply)
        facts += [ev for ev in state["events"] if "kind" in ev]
    return facts


@pytest.mark.parametrize("name", ["zarahemla", "stone_age", "title_of_liberty", "liars_dice"])
def test_every_game_records_facts_at_its_current_version(name):
    from tests.fixtures.liars_dice import GAME as LIARS
    game = LIARS if name == "liars_dice" else games.get_game(name)
    n = max(game.min_seats, 2) if game.max_seats > 1 else 1
    state = game.new_game(game.seat_names(n), {}, b"facts")
    assert _play_some(game, state), f"{name} recorded no facts"


def test_a_new_game_keeps_its_facts_at_rules_version_one():
    """Liar's Dice starts at version "1", the version add_event used to drop facts at."""
    from tests.fixtures.liars_dice import GAME as LIARS
    assert LIARS.rules_version == "1" and not LIARS.versions_without_facts
    state = LIARS.new_game(["north", "east"], {}, b"v1")
    state = LIARS.play(state, "north", "bid 1 3")
    assert state["events"][0]["kind"] == "bid"
    assert LIARS.facts_for(state["events"], None)[0]["data"]["face"] == 3


@pytest.mark.parametrize("name", ["zarahemla", "stone_age", "title_of_liberty"])
def test_the_built_in_games_version_one_keeps_no_facts_so_old_logs_replay(name):
    game = games.get_game(name)
    assert game.versions_without_facts == ("1",)
    n = max(game.min_seats, 3) if game.max_seats >= 3 else game.min_seats
    state = game.new_game(game.seat_names(n), {}, b"old", rules_version="1")
    assert not _play_some(game, state) and not any("kind" in e for e in state["events"])


# --- set-up randomness, bots, the score's name ------------------------------------------------

def test_new_state_is_handed_the_set_up_randomness_from_the_seed_alone():
    from shared.rng import Rng
    from tests.fixtures.liars_dice import GAME as LIARS
    one = LIARS.new_game(["north", "east"], {}, b"same seed")
    two = LIARS.new_game(["north", "east"], {}, b"same seed")
    other = LIARS.new_game(["north", "east"], {}, b"another seed")
    assert one["dice"] == two["dice"] != other["dice"]
    rng = Rng(b"same seed", b"setup")        # what the template hands new_state
    assert one["dice"]["north"] == sorted(rng.die(6) for _ in range(2))
    # a new_state without an rng parameter is called as before (Pig)
    pig = games.get_game("pig").new_game(["north", "east"], {}, b"x")
    assert pig["ply"] == 0


def test_a_plug_in_names_its_own_bots_and_a_level_it_lacks_is_refused():
    import random

    from shared.bots import BotError, choose_move, levels
    from tests.fixtures.liars_dice import GAME as LIARS
    from tests.fixtures.liars_dice_leaky import GAME as LEAKY
    assert levels(LIARS) == ["random", "greedy"] == LIARS.bot_levels()
    assert levels(LEAKY) == ["random"]
    state = LIARS.new_game(["north", "east"], {}, b"bots")
    view, legal = LIARS.view(state, "north"), LIARS.legal_moves(state, "north")
    move = choose_move(LIARS, view, "north", legal, random.Random(1), "greedy")
    assert move in legal and move.startswith("bid ")
    with pytest.raises(BotError) as exc:
        choose_move(LIARS, view, "north", legal, random.Random(1), "strong")
    assert str(exc.value) == "liars_dice has no strong bot: its levels are random, greedy"
    with pytest.raises(BotError, match="pig has no greedy bot: its levels are random"):
        choose_move(games.get_game("pig"), {}, "north", ["roll"], random.Random(1), "greedy")


def test_on_timeout_names_only_a_bot_level_the_game_has():
    from shared import IllegalMove
    from tests.fixtures.liars_dice import GAME as LIARS
    assert LIARS.normalize_options({"on_timeout": "bot:greedy"}, 2)["on_timeout"] == \
        "bot:greedy"
    with pytest.raises(IllegalMove) as exc:
        LIARS.normalize_options({"on_timeout": "bot:strong"}, 2)
    assert exc.value.code == "bad_option"
    assert str(exc.value.message) == "liars_dice has no strong bot: its levels are random, greedy"


def test_a_game_names_its_score_column():
    from tests.fixtures.liars_dice import GAME as LIARS
    assert LIARS.score_label == "dice" and games.get_game("pig").score_label == "points"
    assert games.get_game("zarahemla").score_label == "VP"


# --- docs/ADDING-A-GAME.md: its plug-in is built from its blocks and passes the contract --------

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ADDING-A-GAME.md"


def doc_blocks():
    """Every fenced block of the page, in order: (the PATH of a block the page marks
    ``<!-- file: PATH -->``, or "", its language, its text)."""
    return re.findall(r"(?:<!-- file: (\S+) -->\n)?```([a-z]*)\n(.*?)\n```", DOC.read_text(),
                      re.S)


def doc_files():
    """{path: text} of the blocks the page marks ``<!-- file: PATH -->`` (blocks of the same
    path are one file, in order)."""
    blocks = {}
    for path, _, body in doc_blocks():
        if path:
            blocks.setdefault(path, []).append(body)
    return {path: "\n\n\n".join(parts) + "\n" for path, parts in blocks.items()}


def doc_commands():
    """Every line of the page's unmarked blocks: the commands it tells a reader to run."""
    return [line for path, _, body in doc_blocks() if not path for line in body.splitlines()]


def test_every_block_of_the_page_is_a_file_it_builds_or_a_command_it_runs():
    """No example is left out: each fenced block is a file of the plug-in, or shell commands
    that the install test below runs one by one (``python -m ...`` in the plug-in's site)."""
    text = DOC.read_text()
    blocks = doc_blocks()
    fences = re.findall(r"^\s*(```|~~~)", text, re.M)
    assert len(fences) == 2 * len(blocks), "a block the extraction does not read"
    assert all(path or lang == "sh" for path, lang, _ in blocks)
    assert len(doc_files()) + len(doc_commands()) >= 7
    for command in doc_commands():
        assert re.fullmatch(r"python -m shared\.contract liars_dice( --\w+ \d+)*", command), \
            f"{command!r}: the install test runs only the contract's commands"


def test_every_file_the_page_names_is_in_the_repository_or_the_plug_in():
    named = set(re.findall(r"[\w/.-]+\.(?:md|py|cfg|toml)\b", DOC.read_text()))
    plug_in = {Path(path).name for path in doc_files()} | set(doc_files())
    for name in sorted(named - plug_in):
        found = (ROOT / name).exists() or any(ROOT.glob(f"*/{name}")) or \
            any(ROOT.glob(f"shared/*/{name}"))
        assert found, f"the page names {name}, which is not in this repository"


def install_like_pip(source, site):
    """Install the distribution in ``source`` into ``site`` as pip does: the packages and the
    package data its setup.cfg lists, and a dist-info with its entry points and requirements."""
    cfg = configparser.ConfigParser()
    cfg.read(source / "setup.cfg")
    name, version = cfg["metadata"]["name"], cfg["metadata"]["version"]
    for package in cfg["options"]["packages"].split():
        (site / package).mkdir(parents=True)
        data = [p.strip() for p in cfg["options.package_data"].get(package, "").split(",")]
        for file in (source / package).iterdir():
            if file.suffix == ".py" or any(fnmatch.fnmatch(file.name, pat) for pat in data):
                shutil.copy(file, site / package / file.name)
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    requires = "".join(f"Requires-Dist: {r}\n" for r in cfg["options"]["install_requires"].split())
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                   + requires)
    entry_points = configparser.ConfigParser()
    entry_points.read_dict({group: dict(line.split(" = ") for line in body.strip().splitlines())
                            for group, body in cfg["options.entry_points"].items()
                            if group != "DEFAULT"})
    with open(info / "entry_points.txt", "w") as f:
        entry_points.write(f)


def run_here(args, site, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]),
               HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               PBEM_SERVER="http://127.0.0.1:9")
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=600)


def test_the_pages_game_module_is_the_liars_dice_fixture():
    assert doc_files()["pbem_liars/__init__.py"] == \
        (ROOT / "tests" / "fixtures" / "liars_dice.py").read_text()


def test_the_pages_plug_in_installs_ships_its_notes_and_passes_the_contract(tmp_path):
    files = doc_files()
    assert set(files) == {"pbem_liars/__init__.py", "pbem_liars/HOWTO.md",
                          "pbem_liars/RULES.md", "setup.cfg", "pyproject.toml"}
    source = tmp_path / "pbem-liars"
    for path, text in files.items():
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_text(text)
    tomllib = pytest.importorskip("tomllib")   # Python 3.11 on; pbem runs on 3.10 too
    assert tomllib.loads(files["pyproject.toml"])["build-system"]["build-backend"]
    site = tmp_path / "site"
    install_like_pip(source, site)
    assert (site / "pbem_liars" / "HOWTO.md").is_file()      # package data, shipped
    assert (site / "pbem_liars" / "RULES.md").is_file()
    metadata = next(site.glob("*.dist-info")) / "METADATA"
    assert "Requires-Dist: pbem" in metadata.read_text()      # it depends on pbem
    commands = doc_commands()
    assert len(commands) >= 2
    for command in commands:
        done = run_here(command.split()[1:], site, tmp_path)
        assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
        assert "liars_dice: every property holds" in done.stdout
    rules = run_here(["-c", "from client.cli import main; main()", "rules", "liars_dice"],
                     site, tmp_path)
    assert rules.returncode == 0, rules.stderr
    assert rules.stdout.index("How to play") < rules.stdout.index("bid")
    assert "Keep your dice under your cup" in rules.stdout
    assert "the score counts dice" in rules.stdout and "Bots: random, greedy" in rules.stdout
    notes = run_here(["-c", "from client.cli import main; main()", "rules", "liars_dice",
                      "--choices"], site, tmp_path)
    assert notes.returncode == 0 and "No face is wild" in notes.stdout


def test_pbem_rules_names_a_broken_plug_in_and_still_lists_the_others(tmp_path):
    site = tmp_path / "site"
    info = site / "pbem_broken-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pbem-broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[pbem.games]\nbroken_dice = tests.fixtures.broken_game:GAME\n")
    listed = run_here(["-c", "from client.cli import main; main()", "rules"], site, tmp_path)
    assert listed.returncode == 0
    assert "zarahemla" in listed.stdout and "broken_dice" not in listed.stdout
    assert "warning: the game broken_dice cannot load here: " in listed.stderr
    assert "pbem_dice_helpers" in listed.stderr and "Traceback" not in listed.stderr
    one = run_here(["-c", "from client.cli import main; main()", "rules", "broken_dice"],
                   site, tmp_path)
    assert one.returncode == 1 and "Traceback" not in one.stderr
    assert "the game broken_dice cannot load here: " in one.stderr
    assert "ModuleNotFoundError" in one.stderr


def test_the_server_names_a_game_that_cannot_load_in_its_start_log(broken_plugins, tmp_path,
                                                                   caplog):
    import logging

    from server import create_app
    with caplog.at_level(logging.WARNING, logger="pbem.server"):
        create_app({"TESTING": True,
                    "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/start.sqlite"})
    said = [r.getMessage() for r in caplog.records if r.name == "pbem.server"]
    assert any(m.startswith("warning: the game broken_dice cannot load: ") and
               "pbem_dice_helpers" in m for m in said), said
    assert any("the game ghost cannot load" in m for m in said)


def test_bot_alone_is_the_strongest_level_up_to_greedy_and_is_accepted_again():
    from tests.fixtures.liars_dice import GAME as LIARS
    from tests.fixtures.liars_dice_leaky import GAME as LEAKY
    assert LIARS.normalize_options({"on_timeout": "bot"}, 2)["on_timeout"] == "bot:greedy"
    stored = LEAKY.normalize_options({"on_timeout": "bot"}, 2)   # random bots only
    assert stored["on_timeout"] == "bot:random"
    assert LEAKY.normalize_options(stored, 2) == stored       # a replay reads it again


def test_the_three_built_in_games_are_wired_one_way_by_the_template():
    """Each built-in game takes its legal list and its view from its package's ``legal`` and
    ``view`` modules (``legal_texts(state, seat)``, ``make_view(game, state, seat)``) and
    writes neither method itself; the rules' tables come from ``rules``."""
    import inspect

    from shared.games import get_game
    for name in ("zarahemla", "stone_age", "title_of_liberty"):
        game = get_game(name)
        cls = type(game)
        source = inspect.getsource(cls)
        assert "def legal_moves" not in source and "def view" not in source, name
        assert "view" not in cls.__dict__, name
        assert cls.__dict__["legal_moves"].__func__ is game.legal_module.legal_texts
        assert game.legal_module.__name__ == f"shared.{name}.legal"
        assert game.view_module.__name__ == f"shared.{name}.view"
        assert list(inspect.signature(game.view_module.make_view).parameters)[0::2] == \
            ["game", "seat"]  # (game, state, seat); Zarahemla names its state st throughout
        assert len(inspect.signature(game.legal_module.legal_texts).parameters) == 2
        assert game.checks is game.rules_module.CHECKS
        state = game.new_game(game.seat_names(game.min_seats if game.min_seats > 1 else 2), {},
                              b"wired")
        seat = game.to_act(state)[0]
        moves = game.legal_moves(state, seat)
        assert moves and all(isinstance(m, str) for m in moves)
        assert game.view(state, seat)["you"] == seat
