"""A newcomer's first hour, the CLI parts that need no server.

Global options after the command, the checks before signing, quoting hints,
server URLs, help examples, wrapping, completion and bad input.
"""

import json
import re
import shutil

import click
import pytest
from click.testing import CliRunner

from client import cli as cli_module
from client.api import Api, BadServerUrl, NotPbemServer, ServerError, check_server_url
from client.cli import COMMANDS, cli
from client.context import Context, load_game
from client.home import Home
from client.precheck import check_first, split_hint
from shared import IllegalMove, InvalidMove
from tests.helpers.completion import complete


def invoke(*args, env=None, obj=None):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env or {}, obj=obj,
                              catch_exceptions=False)


# --- global options after the command, over the whole command table -------------------

def _dummy_args(command):
    """Values for the command's required arguments and options."""
    out = []
    for param in command.params:
        if isinstance(param, click.Argument) and param.required:
            out.append("k7m2q9xa3b" if param.name == "game_id" else
                       "zarahemla" if param.name == "game_type" else
                       "ann" if param.name == "name" else "file.json")
        elif isinstance(param, click.Option) and param.required:
            out += [param.opts[0], "2" if param.name in ("seats", "days") else "out.json"]
    return out


@pytest.mark.parametrize("name", list(COMMANDS))
def test_global_options_work_after_every_command(name):
    group_ctx = cli.make_context("pbem", [name], resilient_parsing=False)
    group_ctx.obj = Context("http://before", None, False, False)
    command = cli.get_command(group_ctx, name)
    args = _dummy_args(command) + ["--json", "--debug", "--server", "http://after:8000/",
                                   "--home", "/tmp/somewhere"]
    command.make_context(name, args, parent=group_ctx)
    obj = group_ctx.obj
    assert (obj.json, obj.debug, obj.server, obj.home_path) == \
        (True, True, "http://after:8000", "/tmp/somewhere")
    # and the same words before the command keep working
    before = cli.make_context("pbem", ["--json", "--server", "http://x", name])
    assert before.params["as_json"] is True and before.params["server"] == "http://x"


def test_json_after_the_command_is_in_its_help_and_not_repeated():
    text = invoke("games", "--help").stdout
    assert text.count("--json") == 1 and "also before" in text
    again = cli.get_command(None, "games")
    assert [p.name for p in again.params].count("as_json") == 1


# --- what the client checks before signing -----------------------------------------------

ZAR = load_game("zarahemla")


def test_a_move_that_does_not_parse_is_refused_with_the_rules_sentence():
    """'settle 99' (the issue's example): corners are numbered 1 to 54."""
    with pytest.raises(InvalidMove, match="'99' is not a corner: corners are numbered 1 to 54"):
        check_first(ZAR, "settle 99", "red", {"to_act": ["red"]}, ["settle 1"])


def test_not_your_turn_is_refused_in_the_servers_words():
    with pytest.raises(IllegalMove, match="^blue owes no move now$"):
        check_first(ZAR, "roll", "blue", {"to_act": ["red"]}, None)


def test_a_move_off_the_legal_list_is_refused_with_the_listed_ones():
    legal = ["settle 1", "settle 2", "settle 3"]
    with pytest.raises(IllegalMove) as info:
        check_first(ZAR, "city 14", "red", {"to_act": ["red"]}, legal)
    assert info.value.message == ("'city 14' is not one of red's legal moves now: red may play "
                                  "only settle 1, settle 2, settle 3 now")
    many = [f"settle {n}" for n in range(1, 20)] + ["end"]
    with pytest.raises(IllegalMove, match="red may play only end, settle moves now"):
        check_first(ZAR, "city 14", "red", {"to_act": ["red"]}, many)
    with pytest.raises(IllegalMove, match="the settle moves red may play now are settle 1, "
                                          "settle 2, settle 3"):
        check_first(ZAR, "settle 14", "red", {"to_act": ["red"]}, legal)


def test_the_list_is_compared_in_canonical_notation():
    assert check_first(ZAR, "ROAD 19-14", "red", {"to_act": ["red"]}, ["road 14-19"]) is None
    assert check_first(ZAR, "  settle   1 ", "red", {"to_act": ["red"]}, ["settle 1"]) is None


def test_open_ended_kinds_are_left_to_the_server():
    """The rules list offers, bank trades and paths only by examples (Game.open_ended_kinds):
    a move of such a kind is never refused for being missing from the list, even when the list
    shows no move of its kind (a Stone Age hand of four equal piles once listed no offer at
    all), since refusing a legal move is worse than letting the server judge it."""
    assert ZAR.open_ended_kinds >= {"offer", "bank"}
    legal = ["end", "offer 1wood for 1brick", "bank 4wood for 1stone"]
    note = check_first(ZAR, "offer 2wood for 1stone", "red", {"to_act": ["red"]}, legal)
    assert "only by examples" in note
    assert "only by examples" in check_first(ZAR, "bank 8wood for 2stone", "red",
                                             {"to_act": ["red"]}, legal)
    assert "only by examples" in check_first(ZAR, "offer 1wood for 1stone", "blue",
                                             {"to_act": ["red", "blue"]},
                                             ["accept", "decline", "counter 1wood for 1stone"])
    # a closed kind missing from the list is refused with the list
    with pytest.raises(IllegalMove, match="blue may play only accept, decline, counter 1wood for "
                                          "1stone now"):
        check_first(ZAR, "settle 14", "blue", {"to_act": ["red", "blue"]},
                    ["accept", "decline", "counter 1wood for 1stone"])


def test_without_a_legal_list_the_check_says_what_it_did():
    note = check_first(ZAR, "settle 14", "red", {"to_act": ["red"]}, None)
    assert note.startswith("'settle 14' was checked for notation and turn only")


@pytest.mark.parametrize("text", ["", " ", "\x00", "settle \x00", "🎲", "settle 🎲", "x" * 600,
                                  "road 14-22", "robber", "play", "offer for", "бревно"])
def test_every_game_refuses_bad_text_with_invalid_move(text):
    from shared.games import game_types
    for name in game_types():
        game = load_game(name)
        with pytest.raises(IllegalMove):
            check_first(game, text, "x", {"to_act": ["x"]}, [])


# --- unquoted moves ----------------------------------------------------------------

def test_split_hint_groups_the_arguments_the_player_meant():
    assert split_hint(ZAR, ["robber", "C"]) == [["robber", "C"]]
    assert split_hint(ZAR, ["robber", "F", "blue", "end"]) == [["robber", "F", "blue"], ["end"]]
    assert split_hint(ZAR, ["road", "14-19", "end"]) == [["road", "14-19"], ["end"]]
    assert split_hint(ZAR, ["play", "liahona", "8"]) == [["play", "liahona", "8"]]
    assert split_hint(ZAR, ["roll", "end"]) is None            # every one parses alone
    assert split_hint(ZAR, ["robber", "Z"]) is None            # no grouping parses
    assert split_hint(ZAR, ["settle 14", "road", "14-19"]) == [["settle 14"], ["road", "14-19"]]


@pytest.mark.parametrize("args,joined,reason", [
    (["settle", "99"], "settle 99", "'99' is not a corner"),
    (["road", "1", "99"], "road 1 99", "'99' is not a corner"),
    (["robber", "Z", "blue"], "robber Z blue", "is not a hex"),
    (["roll", "city", "99"], "city 99", "'99' is not a corner"),
])
def test_unquoted_words_whose_join_is_no_move_either_still_get_the_quoting_hint(
        args, joined, reason):
    """Audit: `pbem play G road 1 99` said "'road' refused: write road and a path,
    like: road 14-19", though the player wrote one: no word of the quotes, because the join
    did not parse either (99 is no corner).  Now the join's reason and the quoted command."""
    from client.commands.play import _quoting_hint
    from client.context import UsageProblem
    with pytest.raises(UsageProblem) as caught:
        _quoting_hint(None, ZAR, "k7m2q9xa3b", args)
    text = str(caught.value)
    assert f"{joined!r} is not a move either" in text and reason in text
    assert f'pbem play k7m2q9xa3b "{joined}"' in text


@pytest.mark.parametrize("args", [["roll", "end"], ["settle 14", "road 14-99"],
                                  ["settle 14", "nonsense"]])
def test_no_quoting_hint_for_moves_or_for_one_bad_word(args):
    """Separate moves, quoted moves, and a single bad word are left to the rules' reasons."""
    from client.commands.play import _quoting_hint
    assert _quoting_hint(None, ZAR, "k7m2q9xa3b", args) is None


# --- server URLs -----------------------------------------------------------------------

@pytest.mark.parametrize("url,words", [
    ("127.0.0.1:5000", "has no scheme: write http://127.0.0.1:5000"),
    ("localhost:5000", "has no scheme: write http://localhost:5000"),
    ("", "the server URL is empty"),
    ("ftp://x", "must start with http:// or https://"),
    ("http://", "names no host"),
    ("http://x:port", "has a port that is not a number"),
    ("http://[::1", "is not a valid URL"),
    ("http://x/?a=1", "must not have a ?query"),
])
def test_a_wrong_server_url_is_named(url, words):
    with pytest.raises(BadServerUrl, match=re.escape(words)):
        check_server_url(url)


def test_a_good_server_url_is_kept():
    assert check_server_url(" https://pbem.example.org/ ") == "https://pbem.example.org"
    assert check_server_url("http://127.0.0.1:5000/pbem") == "http://127.0.0.1:5000/pbem"


def test_the_cli_says_what_is_wrong_with_the_url_exit_2(tmp_path):
    out = invoke("--server", "127.0.0.1:5000", "--home", tmp_path, "show", "k7m2q9xa3b")
    assert out.exit_code == 2
    assert out.stderr == ("pbem: the server URL '127.0.0.1:5000' has no scheme: write "
                          "http://127.0.0.1:5000 (--server or PBEM_SERVER)\n")
    # the same after the command
    assert invoke("show", "k7m2q9xa3b", "--server", "localhost:5000").exit_code == 2


class _Resp:
    def __init__(self, status, text, ctype):
        self.status_code, self.text, self.reason = status, text, "whatever"
        self.headers = {"Content-Type": ctype}

    def json(self):
        return json.loads(self.text)


class _Session:
    def __init__(self, resp):
        self.resp = resp

    def request(self, *a, **kw):
        return self.resp


WERKZEUG_404 = json.dumps({"error": {"code": "not_found", "details": {}, "message": (
    "The requested URL was not found on the server. If you entered the URL manually please "
    "check your spelling and try again.")}})


def test_a_pbem_server_at_a_wrong_path_is_named_not_werkzeugs_text():
    api = Api("http://127.0.0.1:5000/foo", session=_Session(_Resp(404, WERKZEUG_404,
                                                                    "application/json")))
    with pytest.raises(NotPbemServer) as info:
        api.game("k7m2q9xa3b")
    assert "has no pbem API at /api/games/k7m2q9xa3b (HTTP 404)" in info.value.message
    assert "entered the URL manually" not in info.value.message
    assert "with no /api or other path" in info.value.message


def test_a_web_page_is_not_a_pbem_server():
    page = "<!DOCTYPE html><html><body>It works!</body></html>"
    for status in (200, 403):
        api = Api("http://example.org", session=_Session(_Resp(status, page, "text/html")))
        with pytest.raises(NotPbemServer, match="answered HTTP %d with a web page .HTML. where "
                                                "the pbem API answers JSON" % status):
            api.games()
    # a pbem server serves pages too: an HTML 404 under the API path means a path in the URL
    api = Api("http://example.org", session=_Session(_Resp(404, page, "text/html")))
    with pytest.raises(NotPbemServer, match="has no pbem API at /api/games .HTTP 404."):
        api.games()


def test_pbem_own_404s_and_a_proxys_502_keep_their_meaning():
    from client.api import NotFound
    body = json.dumps({"error": {"code": "unknown_game", "message": "there is no game 'x'"}})
    with pytest.raises(NotFound, match="there is no game 'x'"):
        Api("http://x", session=_Session(_Resp(404, body, "application/json"))).game("x")
    with pytest.raises(ServerError):
        Api("http://x", session=_Session(_Resp(502, "<html>bad gateway", "text/html"))).health()


def test_the_cli_prints_one_sentence_for_a_foreign_server(tmp_path):
    session = _Session(_Resp(404, "<html><body>Not Found</body></html>", "text/html"))
    out = invoke("--server", "http://example.org", "--home", tmp_path, "show", "k7m2q9xa3b",
                 obj={"session": session})
    assert out.exit_code == 1 and out.stderr.count("\n") == 1
    assert "has no pbem API at /api/games/k7m2q9xa3b/view" in out.stderr
    assert "unexpected" not in out.stderr


# --- exit codes ------------------------------------------------------------------------

def test_unreachable_has_its_own_exit_code(tmp_path):
    import requests

    class Down:
        def request(self, *a, **kw):
            raise requests.ConnectionError("down")

    home = Home(tmp_path / "h")
    home.create_key()
    home.save_config({"name": "ann"})
    for args in (["wait", "k7m2q9xa3b", "--timeout", "5"], ["show", "k7m2q9xa3b"], ["games"]):
        out = invoke("--home", home.path, *args, obj={"session": Down()})
        assert out.exit_code == 4, args
        assert out.stderr.startswith("pbem: cannot reach the server")


def test_the_exit_codes_are_documented_where_the_commands_are():
    from tests.client.conftest import ROOT
    doc = (ROOT / "docs" / "CLI.md").read_text()
    table = doc[doc.index("## Exit codes"):]
    for code in ("`0`", "`1`", "`2`", "`3`", "`4`"):
        assert code in table
    assert "4 the server cannot be reached" in invoke("--help").stdout


# --- examples the rules accept -----------------------------------------------------------

def _help_moves():
    """Every quoted move in the examples of pbem --help and pbem play --help."""
    texts = invoke("--help").stdout + invoke("play", "--help").stdout
    return texts, re.findall(r'"((?:road|settle|city) [^"]+)"', texts)


def test_help_examples_are_moves_the_zarahemla_board_accepts():
    from shared.zarahemla.board import CORNER_NEIGHBOURS
    from shared.zarahemla.notation import parse_move
    texts, moves = _help_moves()
    assert "road 14-19" in moves and "14-22" not in texts
    for move in moves:
        parse_move(move)  # raises for corners that are not adjacent
        if move.startswith("road "):
            a, b = (int(c) - 1 for c in move.split()[1].split("-"))
            assert b in CORNER_NEIGHBOURS[a]


def test_the_help_example_pair_is_a_legal_first_turn():
    """`pbem play GAME "settle 14" "road 14-19"` as the first set-up turn of a fresh game."""
    example = re.search(r'pbem play GAME ("settle \d+") ("road [\d-]+")', invoke("--help").stdout)
    assert example
    for seats, board in ((2, "beginner"), (3, "beginner"), (4, "variable")):
        state = ZAR.new_game(ZAR.seat_names(seats), {"board": board}, b"s" * 32)
        seat = ZAR.to_act(state)[0]
        for move in (g.strip('"') for g in example.groups()):
            assert move in ZAR.legal_moves(state, seat)
            state = ZAR.play(state, seat, move)


def test_docs_examples_of_roads_are_adjacent():
    from shared.zarahemla import GAME as ZAR
    from shared.zarahemla.notation import parse_move
    from tests.client.conftest import ROOT
    roads = [move for path in (ROOT / "docs" / "CLI.md", ROOT / "README.md")
             for move in re.findall(r'"(road \d+-\d+)"', path.read_text())]
    assert roads  # the docs show a road (parse_move refuses two crossings not adjacent)
    for move in roads:
        assert ZAR.format_move(parse_move(move)) == move


def test_games_names_only_the_viewers_duty():
    from client.seats import to_act_text

    def games_for(you):
        game = {"id": "k7m2q9xa3b", "type": "zarahemla", "status": "playing", "you": you,
                "to_act": ["red", "blue"], "seats": [], "deadlines": {}}
        resp = _Resp(200, json.dumps({"games": [game]}), "application/json")
        return resp

    for you, shown in ((["red"], "YOU, blue"), (["blue"], "YOU, red"),
                       (["white"], "red, blue"), (["red", "blue"], "YOU (red, blue)")):
        assert to_act_text(you, ["red", "blue"]) == shown


def test_games_table_while_an_offer_is_open(tmp_path):
    rows = {}
    for me in ("red", "blue"):
        home = Home(tmp_path / me)
        home.create_key()
        home.save_config({"name": me})
        game = {"id": "k7m2q9xa3b", "type": "zarahemla", "status": "playing", "you": [me],
                "to_act": ["red", "blue"], "seats": [], "deadlines": {}}
        session = _Session(_Resp(200, json.dumps({"games": [game]}), "application/json"))
        out = invoke("--home", home.path, "games", obj={"session": session})
        # the row of the game (what waits for the player is listed above the table)
        row = next(line for line in out.stdout.splitlines() if line.startswith("k7m2q9xa3b "))
        rows[me] = row.split()[3:]
    assert rows == {"red": ["red", "YOU,", "blue"], "blue": ["blue", "YOU,", "red"]}


# --- wrapping --------------------------------------------------------------------------

def test_the_end_of_game_commands_are_never_cut_by_the_wrapping():
    """Audit: at the end of a game, pbem show wrapped "Check it: pbem export ID -o
    ID.json && pbem verify ID.json" at 80 columns between -o and its file, so the copied
    line failed.  Each command has a line of its own; the rules' reason is said too."""
    from client.commands.games import _panel
    from client.context import wrap_lines
    resp = {"game": {"id": "fdk45dtqh9", "status": "over"},
            "view": {"status": "over", "result": {"winners": [],
                                                  "reason": "no Nephite army is left."}}}
    import textwrap
    shown = [w for line in _panel(resp, "moroni")   # as pbem show wraps its panel
             for w in textwrap.wrap(line, 80, subsequent_indent="  ", break_on_hyphens=False)]
    lines = wrap_lines(_panel(resp, "moroni"), 80, indent="    ")
    assert shown == lines
    assert lines == ["Game over: nobody won (no Nephite army is left).  Check the finished "
                     "game:",
                     "  pbem export fdk45dtqh9 -o fdk45dtqh9.json",
                     "  pbem verify fdk45dtqh9.json"]
    resp["view"]["result"] = {"winners": ["red"]}
    assert _panel(resp, "red")[0] == "Game over: red won.  Check the finished game:"
    # a board that says "Game over: ..." itself is not repeated by the panel
    assert _panel(resp, "red", "Game over: red won.")[0] == "Check the finished game:"


@pytest.mark.parametrize("width", [80, 60])
def test_rules_fit_the_terminal(width, monkeypatch):
    from shared.games import game_types
    if width != 80:
        monkeypatch.setattr("client.context._stdout_is_tty", lambda: True)
        monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback=None:
                            shutil.os.terminal_size((width, 24)))
    for name in game_types():
        out = invoke("rules", name)
        assert out.exit_code == 0
        lines = out.stdout.splitlines()
        assert max(map(len, lines)) <= width, (name, max(lines, key=len))
    text = invoke("rules", "zarahemla").stdout
    assert "--option vp_to_win" in text and "(default 12)" in text


@pytest.mark.parametrize("name", ["zarahemla", "stone_age", "title_of_liberty"])
def test_rules_of_each_game_start_with_how_to_play_and_name_no_code(name):
    """pbem rules TYPE is for players: How to play (the guide) first, then the moves; the
    developers' notes, with their test names and files, only behind --choices."""
    from shared.games import get_game
    game = get_game(name)
    text = invoke("rules", name).stdout
    guide = game.how_to_play().strip().splitlines()
    assert text.index("How to play") < text.index(guide[0]) < text.index("\nMoves\n")
    for heading in (ln for ln in guide if ln.startswith("## ")):
        assert heading in text
    for bad in ("test_", ".py", "RULES.md", "shared/"):
        assert bad not in text, bad
    assert f"pbem rules {name} --choices" in " ".join(text.split())
    notes = invoke("rules", name, "--choices").stdout
    assert game.rules_notes().splitlines()[0] in notes


def test_wrap_lines_keeps_words_and_indents():
    from client.context import wrap_lines
    line = "  --option board=...  " + "word " * 30
    out = wrap_lines([line, "short"], 40)
    assert all(len(x) <= 40 for x in out) and out[-1] == "short"
    assert all(x.startswith("    ") for x in out[1:-1])
    assert " ".join(" ".join(out[:-1]).split()) == " ".join(line.split())
    assert wrap_lines(["x" * 50], 40) == ["x" * 50]  # one long word is left whole


# --- completion -------------------------------------------------------------------------


def test_completion_of_game_types(tmp_path):
    offered = complete(["new", ""], tmp_path)
    assert {"stone_age", "title_of_liberty", "zarahemla"} <= set(offered)
    assert complete(["rules", "za"], tmp_path) == ["zarahemla"]


def test_completion_of_game_ids_and_moves_from_the_home(tmp_path):
    home = Home(tmp_path)
    server = "http://127.0.0.1:5000"
    home.remember_games(server, [{"id": "k7m2q9xa3b", "type": "zarahemla", "status": "playing"},
                                 {"id": "k7old00000", "type": "pig", "status": "over"},
                                 {"id": "zz00000000", "type": "pig", "status": "open"}])
    home.remember_games("http://elsewhere", [{"id": "k7other000", "type": "pig"}])
    assert complete(["show", "k7"], tmp_path) == ["k7m2q9xa3b", "k7old00000"]
    assert complete(["play", ""], tmp_path) == ["k7m2q9xa3b", "zz00000000", "k7old00000"]
    assert complete(["--server", "http://elsewhere", "log", ""], tmp_path) == ["k7other000"]
    # moves: the legal list fetched with the state
    fetched = {"game": {"id": "k7m2q9xa3b"}, "prev": "ab" * 32, "view": None}
    home.cache_view(server, "k7m2q9xa3b", {**fetched, "next_seq": 4, "view_next_seq": 4,
                                           "seat": "red",
                                           "legal": {"seat": "red", "next_seq": 4,
                                                     "moves": ["road 14-19", "road 13-14",
                                                               "end"]}})
    assert complete(["play", "k7m2q9xa3b", "ro"], tmp_path) == ["road 14-19", "road 13-14"]
    assert complete(["play", "--offline", "k7m2q9xa3b", "e"], tmp_path) == ["end"]
    # after a move was queued the list is for an older state: nothing is offered
    home.cache_view(server, "k7m2q9xa3b", {**fetched, "next_seq": 5, "view_next_seq": 4,
                                           "seat": "red",
                                           "legal": {"seat": "red", "next_seq": 4,
                                                     "moves": ["end"]}})
    assert complete(["play", "k7m2q9xa3b", ""], tmp_path) == []
    assert complete(["play", "nosuchgame", ""], tmp_path) == []


def test_completion_never_fails_loudly(tmp_path):
    (tmp_path / "games.json").write_text("{not json")
    assert complete(["show", ""], tmp_path) == []


# --- bad input never reaches "unexpected error" ------------------------------

@pytest.mark.parametrize("args", [
    ["show", ""], ["show", "🎲"], ["show", "../../etc"], ["show", "a/b"], ["show", "x" * 5000],
    ["log", " "], ["export", "", "-o", "x.json"], ["join", "a?b"], ["wait", "\x00"],
    ["moves", "k7m2q9xa3b\n"], ["register", "🎲"], ["register", ""], ["register", "a b"],
])
def test_bad_ids_and_names_are_usage_errors(args, tmp_path):
    out = invoke("--home", tmp_path, "--server", "http://127.0.0.1:9", *args)
    assert out.exit_code == 2, out.stderr
    assert ("is not a game id" in out.stderr or "is not a player name" in out.stderr)
    assert "unexpected" not in out.stderr and "Traceback" not in out.stderr


class _Recorder:
    """A session that must not be asked anything."""

    def request(self, *a, **kw):
        raise AssertionError("no request expected")


@pytest.mark.parametrize("move,words", [("", "is empty: give a move"),
                                        (" ", "is empty: give a move"),
                                        ("x" * 501, "a move is at most 500")])
def test_moves_no_envelope_can_carry_are_refused_before_any_request(move, words, tmp_path):
    home = Home(tmp_path / "h")
    home.create_key()
    home.save_config({"name": "ann"})
    for mode in ([], ["--offline"], ["--armor"]):
        out = invoke("--home", home.path, "play", *mode, "k7m2q9xa3b", "roll", move,
                     obj={"session": _Recorder()})
        assert out.exit_code == 1 and words in out.stderr, out.stderr
        assert "unexpected" not in out.stderr and out.stderr.startswith("pbem: move 2 ")


def test_library_errors_become_sentences():
    from client.context import _as_pbem_error
    from shared.envelope import EnvelopeError
    assert _as_pbem_error(EnvelopeError("the move must be 1 to 500 characters")).message == \
        "the move must be 1 to 500 characters"
    assert _as_pbem_error(InvalidMove("'x' is not a move")).exit_code == 1
    assert _as_pbem_error(ValueError("a bug")) is None  # a real bug still says "unexpected"
    assert cli_module.COMMANDS  # the module loaded


# --- the pre-check agrees with the rules on real states -------------------------------------------

@pytest.mark.parametrize("name,seats,options", [
    ("zarahemla", 3, {"board": "beginner"}), ("zarahemla", 4, {}), ("stone_age", 3, {}),
    ("title_of_liberty", 2, {}), ("pig", 2, {}),
])
def test_precheck_agrees_with_the_rules_over_a_random_game(name, seats, options):
    """Along a seeded random game: every listed move passes the pre-check, and a move the
    pre-check passes silently (no note) is one the rules accept; moves listed for another
    seat or an earlier state are refused or noted, never passed silently when illegal."""
    import random

    from shared.games import game_types
    if name not in game_types():
        pytest.skip(f"no {name} engine here")
    game = load_game(name)
    rng = random.Random(13)
    state = game.new_game(game.seat_names(seats, options), options, b"precheck" * 4)
    seen = []
    for _ in range(60):
        to_act = game.to_act(state)
        if not to_act:
            break
        for seat in to_act:
            view = game.view(state, seat)
            legal = game.legal_moves(state, seat)
            for move in legal:
                assert check_first(game, move, seat, view, legal) is None, (seat, move)
            for move in rng.sample(seen, min(len(seen), 25)):
                try:
                    note = check_first(game, move, seat, view, legal)
                except IllegalMove:
                    continue
                if note is None:
                    game.check(state, seat, move)  # passed silently: the rules must agree
            seen = list(dict.fromkeys(seen + legal))[-300:]
        seat = to_act[0]
        state = game.play(state, seat, rng.choice(game.legal_moves(state, seat)))


@pytest.mark.parametrize("name,text,words", [
    ("outbox.json", "{}", "outbox.json is damaged (it holds an object where a list belongs)"),
    ("outbox.json", "[1, 2]", "outbox.json is damaged (queued move 1 is not a signed move)"),
    ("outbox.json", '[{"game": "x"}]', "queued move 1 is not a signed move"),
    ("config.json", "[]", "config.json is damaged (it holds a list where an object belongs)"),
    ("config.json", '{"name": 5}', "config.json is damaged (the name is not a text)"),
    ("servers.json", "[]", "servers.json is damaged"),
    ("servers.json", '{"http://127.0.0.1:9": 5}', "the entry of http://127.0.0.1:9 is not"),
    ("cache/127.0.0.1_9/k7m2q9xa3b.json", "[]", "k7m2q9xa3b.json is damaged"),
    ("cache/127.0.0.1_9/k7m2q9xa3b.json", '{"view": {}}', "it is not a view the server sent"),
])
def test_a_damaged_home_file_is_named_not_a_crash(name, text, words, tmp_path):
    home = Home(tmp_path / "h")
    home.create_key()
    home.save_config({"name": "ann"})
    (tmp_path / "h" / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "h" / name).write_text(text)
    command = {"outbox.json": ["sync"], "config.json": ["games"],
               "servers.json": ["register", "ann"]}.get(name, ["play", "--offline",
                                                                 "k7m2q9xa3b", "end"])
    session = _Session(_Resp(200, json.dumps({"public_key": "00" * 32}), "application/json"))
    out = invoke("--home", home.path, "--server", "http://127.0.0.1:9", *command,
                 obj={"session": session})
    assert out.exit_code == 1 and words in out.stderr, out.stderr
    assert "unexpected" not in out.stderr and out.stderr.endswith("move it away and try again\n")
