"""The contract every game keeps (``shared.contract``), over ``game_types()``, and the contract
itself: the leak it must catch, the reveal it must allow, its command line.

The properties are listed in ``shared.contract.PROPERTIES``; the default run plays a few short
games per type, ``pytest -m slow`` longer ones.  The two Liar's Dice fixtures are plug-ins as
a stranger writes them (``tests/fixtures/liars_dice.py`` and its leaky twin).
"""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared import contract, events
from shared.contract import ContractFailure, check_game
from shared.games import game_types, get_game
from tests.fixtures import liars_dice, liars_dice_leaky

GAMES = game_types()
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=GAMES)
def game(request):
    return get_game(request.param)


def test_the_contract_over_short_random_games(game):
    # seed 2: seed 0's short Stone Age games steal no card that could have been another
    counts = check_game(game, games=1, plies=90, seed=2)
    assert counts["replay"] >= len(contract.seat_counts(game))
    assert counts["views"] and counts["check_play"] and counts["bad_text"]
    if game.name in ("zarahemla", "stone_age"):
        # both deal secrets: the leak check compared pairs of outcomes (its count), and the
        # sentinels were planted
        assert counts["leaks"] and counts["sentinels"]


@pytest.mark.slow
def test_the_contract_over_long_random_games(game):
    # Zarahemla's Prosperity ("All other players must give you all of their Resource Cards of
    # that type.") shows how many each seat gave, and its event declares that reveal
    counts = check_game(game, games=2, plies=700)  # raises ContractFailure at the first fault
    assert counts["replay"] and counts["views"] and counts["check_play"]


def test_the_three_built_in_games_are_checked():
    assert {"zarahemla", "stone_age", "title_of_liberty"} <= set(GAMES)


def test_every_move_parsed_is_a_shared_move_with_a_pasteable_repr(game):
    from shared.move import Move
    n = max(game.min_seats, 2) if game.max_seats > 1 else 1
    state = game.new_game(game.seat_names(n), {}, b"repr")
    for seat in game.to_act(state):
        for text in game.legal_moves(state, seat)[:20]:
            move = game.parse_move(text)
            assert isinstance(move, Move)
            again = type(move)(*eval(repr(move), {"Move": lambda k, a=(): (k, a)}))
            assert again == move and str(move) == text


# --- the leak check ------------------------------------------------------------------------------

def test_a_roll_that_tells_every_seat_every_cup_fails_the_leak_check():
    with pytest.raises(ContractFailure) as exc:
        check_game(liars_dice_leaky.GAME)
    failure = exc.value
    assert failure.prop == "leaks"
    assert "'roll'" in failure.message and "leaks a secret" in failure.message
    # the reproduction names the seed, the seats and the moves up to the leaking one
    assert "new_game(['north', 'east'], {}, b'contract-200')" in failure.reproduction
    assert "'roll'" in failure.reproduction


def test_a_move_that_drew_is_checked_even_when_two_entropies_agree():
    """A draw with few outcomes (one die a cup; a steal from a hand of two cards) gives the
    same outcome under two entropies now and then: the check goes on to the others."""
    class OneDie(liars_dice_leaky.LeakyLiarsDice):
        name = "one_die"
        options_schema = {"dice": dict(liars_dice.LiarsDice.options_schema["dice"], default=1)}

    game = OneDie()
    for n in range(500):
        state = game.new_game(["north", "east", "south"], {}, b"one-die-%d" % n)
        state = game.play(state, "north", "bid 1 1")
        state = game.play(state, "east", "dudo")      # one seat loses its only die
        seat = game.to_act(state)[0]
        one, two = (game.play(contract.clone(state), seat, "roll", b"leak-%d" % i)
                    for i in (0, 1))
        if one == two:
            break
    assert one == two   # a state whose first two entropies roll the same cups
    with pytest.raises(ContractFailure) as exc:
        contract.Checker(game).leaks(state, seat, "roll")
    assert exc.value.prop == "leaks" and "leaks a secret" in exc.value.message


def test_the_leak_count_is_the_pairs_compared_not_the_moves_replayed():
    checker = contract.Checker(liars_dice.GAME)
    state = liars_dice.GAME.new_game(["north", "east"], {}, b"count")
    checker.leaks(state, "north", "bid 1 1")    # draws nothing: no pair to compare
    assert checker.counts["leaks"] == 0
    state = liars_dice.GAME.play(state, "north", "bid 1 1")
    state = liars_dice.GAME.play(state, "east", "dudo")
    checker.leaks(state, liars_dice.GAME.to_act(state)[0], "roll")
    assert checker.counts["leaks"] > 0


def test_the_leaky_twin_passes_every_sentinel_check(monkeypatch):
    """Why the leak check exists: the sentinels alone do not see the leak."""
    monkeypatch.setattr(contract.Checker, "leaks", lambda self, state, seat, text: None)
    counts = check_game(liars_dice_leaky.GAME)
    assert counts["sentinels"] > 0


def test_the_honest_twin_passes_with_its_reveal_declared():
    counts = check_game(liars_dice.GAME, games=2)
    assert counts["leaks"] > 0 and counts["sentinels"] > 0


def test_a_reveal_left_undeclared_is_reported_as_a_leak(monkeypatch):
    """dudo lifts every cup on purpose; it is listed first, so the sentinel check plays it.
    Without its ``reveals`` the cups reach every seat and the contract says so."""
    def no_reveals(state, *args, reveals=None, **kw):
        return add_event(state, *args, **kw)

    add_event = events.add_event
    monkeypatch.setattr(liars_dice, "add_event", no_reveals)
    with pytest.raises(ContractFailure) as exc:
        check_game(liars_dice.GAME)
    assert exc.value.prop == "sentinels" and "'dudo'" in exc.value.message


def test_a_steal_that_names_the_card_to_everyone_fails_in_a_built_in_game(monkeypatch):
    """The leak check on Zarahemla, with its robber made to tell every seat the stolen card."""
    from shared.zarahemla import game as zgame
    original = zgame.Zarahemla.applies["robber"]

    def loud_robber(st, seat, mv, plan, rng):
        original(st, seat, mv, plan, rng)
        for ev in st["events"]:
            if ev.get("private"):
                ev["public"] = " / ".join(sorted(ev["private"].values()))

    class Loud(zgame.Zarahemla):
        applies = dict(zgame.Zarahemla.applies, robber=loud_robber)

    with pytest.raises(ContractFailure) as exc:
        check_game(Loud(), plies=200)
    assert exc.value.prop == "leaks" and "robber" in exc.value.message


def test_a_game_that_raises_fails_the_property_it_was_checked_for():
    class Crashing(liars_dice.LiarsDice):
        name = "crashing"

        def view(self, state, seat):
            raise RuntimeError("no view today")

    with pytest.raises(ContractFailure) as exc:
        check_game(Crashing())
    assert "RuntimeError: no view today" in exc.value.message


# --- the command line, on plug-ins installed as distributions -----------------------------------

def declare(site, entries, dist="pbem_fixture_games"):
    """An installed distribution in ``site`` that declares ``entries`` in pbem.games."""
    info = site / f"{dist}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[pbem.games]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    return site


PLUGINS = {"liars_dice": "tests.fixtures.liars_dice:GAME",
           "liars_dice_leaky": "tests.fixtures.liars_dice_leaky:GAME",
           "broken_dice": "tests.fixtures.broken_game:GAME"}


@pytest.fixture
def site(tmp_path):
    return declare(tmp_path / "site", PLUGINS)


def run(args, site, module=("-m", "shared.contract")):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    return subprocess.run([sys.executable, *module, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)


def test_the_command_passes_the_honest_plug_in_and_prints_each_property(site):
    done = run(["liars_dice", "--games", "1", "--seed", "3"], site)
    assert done.returncode == 0, done.stdout + done.stderr
    for name, _ in contract.PROPERTIES:
        assert f"ok    {name}:" in done.stdout
    assert "liars_dice: every property holds" in done.stdout


def test_the_command_fails_the_leaky_plug_in_naming_the_leak_and_a_reproduction(site):
    done = run(["liars_dice_leaky"], site)
    assert done.returncode == 1
    assert "FAIL  leaks:" in done.stdout and "leaks a secret" in done.stdout
    assert "to reproduce:" in done.stdout and "game.new_game(" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    # the reproduction pastes into Python as printed: it reaches the leaking roll
    lines = done.stdout.split("to reproduce:\n")[1].splitlines()
    script = "\n".join(line[4:] for line in lines) + "\nprint(game.legal_moves(state, " \
        "game.to_act(state)[0]))"
    again = run(["-c", script], site, module=())
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "['roll']"


def test_the_command_names_a_plug_in_that_cannot_load(site):
    done = run(["broken_dice"], site)
    assert done.returncode == 1
    assert "broken_dice cannot load" in done.stderr
    assert "ModuleNotFoundError" in done.stderr and "pbem_dice_helpers" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_command_refuses_an_unknown_game_in_one_sentence(site):
    done = run(["no_such_game"], site)
    assert done.returncode == 1
    assert "there is no game called 'no_such_game'" in done.stderr
    assert "liars_dice" in done.stderr and "Traceback" not in done.stderr


def test_the_command_checks_a_built_in_game(site):
    done = run(["title_of_liberty", "--plies", "30"], site)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok    leaks:" in done.stdout
    # it keeps no hidden field: the leak check had nothing to compare, and says why
    leaks = next(line for line in done.stdout.splitlines() if line.startswith("ok    leaks:"))
    assert leaks.endswith("(nothing to check (no such state or field))")


def test_the_command_says_when_the_leak_check_compared_no_outcomes(monkeypatch):
    """Sentinels planted but no two outcomes compared (Stone Age's short games at seed 0 steal
    no card that could have been another): the leak line says so, not "checked"."""
    from shared import games
    monkeypatch.setitem(games._loaded, "liars_dice", liars_dice.GAME)
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(contract, "check_game",
                        lambda game, **kw: dict.fromkeys(dict(contract.PROPERTIES), 1) |
                        {"leaks": 0})
    assert contract.main(["liars_dice"], out, err) == 0
    assert "(nothing to check: no two outcomes of a move differed only in fields hidden " \
           "from a viewer)" in out.getvalue()
    assert "(checked once)" in out.getvalue()


@pytest.mark.parametrize("args", [["liars_dice", "--games", "0"], ["liars_dice", "--plies", "-3"],
                                  ["liars_dice", "--seed", "x"], []])
def test_the_command_refuses_bad_arguments_in_one_sentence(site, args):
    done = run(args, site)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("python -m shared.contract: error:")
