"""``pbem tournament``: create, enter, follow, leave and export tournaments whose every
pairing and standing anyone can recompute (shared/tournament.py; ``pbem verify`` checks an
exported file offline)."""

import json
import re
import secrets

import click

from ..context import PbemError, UsageProblem, load_game, parse_options, pass_ctx

_TID = re.compile(r"[0-9a-f]{64}")
FORMATS = ("swiss", "round_robin", "tables", "challenge")
TIEBREAKS = ("buchholz", "sonneborn_berger", "wins", "rounds_used")
#: exit status of ``next`` when the caller has no game this round (as ``pbem next``)
EXIT_NONE = 3


class TournamentId(click.ParamType):
    name = "TOURNAMENT"

    def convert(self, value, param, ctx):
        text = str(value).strip().lower()
        if not _TID.fullmatch(text):
            self.fail(f"{value!r} is not a tournament id (64 hex digits, as pbem tournament "
                      "new printed it)", param, ctx)
        return text


TID = TournamentId()


def _main_key(c):
    """This home's name and main private key: a tournament's documents are signed by it."""
    name, key = c.identity()
    if not isinstance(key, bytes):
        raise PbemError("tournament entries and documents are signed with a player's main "
                        "key; this home holds a device key (use the player's own home)")
    return name, key


@click.group("tournament")
def tournament():
    """Tournaments: new, join, show, next, leave, export (and close, start).

    A tournament is a document signed by its organiser; players enter by
    signing its hash; each round's pairings follow from the standings and
    a seed committed in the document, so pbem verify can recompute them
    from the exported file.

    \b
    Example (the id is the one new prints):
      pbem tournament new zarahemla --format swiss --rounds 3
      pbem tournament join 3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d
      pbem tournament close 3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d
      pbem tournament start 3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d
      pbem tournament next 3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d3f9a6c1d
      pbem tournament export -o t.json TID   # TID: that same id
      pbem verify t.json        # exit 5 while it runs: a verified prefix
    """


@tournament.command("new")
@click.argument("game_type", metavar="TYPE")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="swiss",
              show_default=True, help="How rounds are paired.")
@click.option("--rounds", type=click.IntRange(1, 30), required=True, metavar="N",
              help="Rounds to play (round robin: at most the players less one).")
@click.option("--table-size", type=click.IntRange(1, 5), default=None, metavar="K",
              help="Seats a game: 2 for swiss and round robin, 3-4 for tables, 1-5 for the "
                   "challenge (default 2, tables 4, challenge 3).")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="A game option (repeatable); see pbem rules TYPE.")
@click.option("--move-hours", type=click.IntRange(1, 1440), metavar="H",
              help="Hours each move may take (the games' deadlines).")
@click.option("--tiebreak", "tiebreaks", multiple=True, type=click.Choice(TIEBREAKS),
              help="Tiebreaks in order (repeatable; default Buchholz then Sonneborn-Berger, "
                   "the challenge: rounds used).")
@click.option("--max-players", type=click.IntRange(2, 256), default=64, show_default=True)
@click.option("--start", type=click.IntRange(0), default=0, metavar="EPOCH",
              help="No round starts before this time (seconds since the epoch).")
@click.option("--title", default="", metavar="TEXT", help="The tournament's name.")
@pass_ctx
def new(c, game_type, fmt, rounds, table_size, options, move_hours, tiebreaks, max_players,
        start, title):
    """Create a tournament of TYPE and print its id."""
    from shared import IllegalMove
    from shared.tournament import TournamentError, new_document, sign_document
    name, key = _main_key(c)
    if table_size is None:
        table_size = {"tables": 4, "challenge": 3}.get(fmt, 2)
    game_def = load_game(game_type)
    try:
        normalized = game_def.normalize_options(parse_options(options), table_size)
    except IllegalMove as exc:
        raise UsageProblem(exc.message) from None
    from shared.envelope import public_key_hex
    seed = secrets.token_bytes(32)
    if len(title) > 80:
        raise UsageProblem("a title is at most 80 characters")
    try:
        doc = new_document(organiser=name, organiser_key=public_key_hex(key), type=game_type,
                           options=normalized, format=fmt, rounds=rounds, seed=seed,
                           table_size=table_size, move_hours=move_hours,
                           tiebreaks=list(tiebreaks) or None, start=start,
                           max_players=max_players, title=title)
    except TournamentError as exc:
        raise UsageProblem(exc.message) from None
    t = c.signed_api().create_tournament(doc, sign_document(key, doc), seed.hex())
    c.note(f"tournament {t['id']} of {game_type} ({fmt}, {rounds} round(s)) is open for "
           f"entry: pbem tournament join {t['id']}")
    c.emit(t, t["id"])


@tournament.command("list")
@click.option("--status", type=click.Choice(["open", "closed", "playing", "over"]),
              default="open", show_default=True)
@pass_ctx
def list_(c, status):
    """The server's tournaments (default: those open for entry)."""
    rows = c.api.tournaments(status)
    lines = [f"{t['id']}  {t['type']} {t['format']} {t['rounds']} round(s), {t['players']} "
             f"player(s), by {t['organiser']}  {t['title']}" for t in rows]
    c.emit(rows, lines or [f"no tournament is {status}"])


@tournament.command("join")
@click.argument("tid", metavar="TOURNAMENT", type=TID)
@pass_ctx
def join(c, tid):
    """Enter TOURNAMENT, signing its id with your key."""
    from shared.envelope import public_key_hex, sign
    from shared.tournament import entry_message
    name, key = _main_key(c)
    public = public_key_hex(key)
    t = c.signed_api().join_tournament(tid, public, sign(key, entry_message(tid, name, public)))
    c.note(f"{name} entered tournament {tid[:12]}... ({len(t['entries'])} player(s) so far)")
    c.emit(t, tid)


@tournament.command("close")
@click.argument("tid", metavar="TOURNAMENT", type=TID)
@pass_ctx
def close(c, tid):
    """Close entry (the organiser), signing the names of the players who entered."""
    from shared.envelope import sign
    from shared.tournament import close_message
    _, key = _main_key(c)
    api = c.signed_api()
    names = [e["player"] for e in api.tournament(tid)["entries"]]
    t = api.close_tournament(tid, sign(key, close_message(tid, names)))
    c.note(f"entry closed on {len(names)} player(s): {', '.join(sorted(names))}")
    c.emit(t, tid)


@tournament.command("start")
@click.argument("tid", metavar="TOURNAMENT", type=TID)
@pass_ctx
def start(c, tid):
    """Start round one (the organiser, once entry is closed)."""
    t = c.signed_api().start_tournament(tid)
    c.emit(t, _show_lines(t))


def _show_lines(t):
    doc = t["document"]
    lines = [f"{doc['title'] or 'tournament'} {t['id'][:12]}...: {doc['type']}, "
             f"{doc['format']}, round {t['round']} of {t['rounds_total']}, {t['status']}"]
    if t["standings"]:
        names = [tb.replace("_", "-") for tb in doc["tiebreaks"]]
        lines.append(f"{'#':>3}  {'player':<20} {'score':>5}  " + " ".join(names))
        for row in t["standings"]:
            lines.append(f"{row['rank']:>3}  {row['player']:<20} {row['score']:>5}  "
                         + " ".join(str(x) for x in row["tiebreaks"]))
    else:
        lines.append("entered: " + (", ".join(e["player"] for e in t["entries"]) or "nobody"))
    current = [r for r in t["rounds"] if r["round"] == t["round"]]
    for rnd in current:
        lines.append(f"round {rnd['round']}:")
        for table in rnd["tables"]:
            won = f", won by {', '.join(table['winners'])}" if table["winners"] else ""
            lines.append(f"  {table['game']}  {' v '.join(table['players'])}  "
                         f"({table['status']}{won})")
        for bye in rnd["byes"]:
            lines.append(f"  bye: {bye}")
    return [_printable(line) for line in lines]


def _printable(text):
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


@tournament.command("show")
@click.argument("tid", metavar="TOURNAMENT", type=TID)
@pass_ctx
def show(c, tid):
    """The standings and the current round of TOURNAMENT."""
    t = c.api.tournament(tid)
    c.emit(t, _show_lines(t))


@tournament.command("next")
@click.argument("tid", metavar="TOURNAMENT", type=TID)
@pass_ctx
def next_(c, tid):
    """Print the id of your unfinished game of this round (exit 3: none is owed)."""
    t = c.signed_api().tournament(tid)
    game = (t.get("you") or {}).get("game")
    if game is None:
        c.note(f"pbem: no game of yours to play in this tournament now: {_none_owed(t)}")
        c.emit({"game": None}, [])
        raise click.exceptions.Exit(EXIT_NONE)
    c.emit({"game": game}, game)


def _none_owed(t):
    """The sentence ``next`` says when the caller owes no game this round."""
    you = t.get("you") or {}
    if t["status"] == "over":
        return "the tournament is over"
    if not you.get("entered"):
        return "you have not entered this tournament"
    if t["status"] in ("open", "closed"):
        return "the tournament has not started: round one is paired when its organiser " \
               "starts it"
    if you.get("withdrawn_from") and you["withdrawn_from"] <= t["round"]:
        return f"you withdrew from round {you['withdrawn_from']} on"
    current = next((r for r in t["rounds"] if r["round"] == t["round"]), None)
    if current is None:
        return f"round {t['round']} is not paired yet"
    playing = [tb for tb in current["tables"] if tb["status"] != "over"]
    mine = "you have a bye in" if t["you"]["player"] in current["byes"] else \
        "your game of" if any(t["you"]["player"] in tb["players"]
                              for tb in current["tables"]) else "you are not paired in"
    mine = f"{mine} round {t['round']}" + (" has ended" if mine.startswith("your") else "")
    if t["round"] >= t["rounds_total"]:
        then = f"it is the last round; the tournament ends when its last game does " \
               f"({len(playing)} still playing)"
    else:
        then = f"round {t['round'] + 1} is paired when the last game of round {t['round']} " \
               f"ends ({len(playing)} still playing)"
    return f"{mine}: {then}"


@tournament.command("leave")
@click.argument("tid", metavar="TOURNAMENT", type=TID)
@pass_ctx
def leave(c, tid):
    """Withdraw from TOURNAMENT: you are not paired from the next round on."""
    from shared.envelope import sign
    from shared.tournament import withdraw_message
    name, key = _main_key(c)
    api = c.signed_api()
    t = api.tournament(tid)
    from_round = 1 if t["status"] == "open" else t["round"] + 1
    t = api.leave_tournament(tid, from_round, sign(key, withdraw_message(tid, name,
                                                                         from_round)))
    c.note(f"{name} left tournament {tid[:12]}..." + ("" if t["status"] == "open" else
                                                      f" from round {from_round} on"))
    c.emit(t, tid)


@tournament.command("export")
@click.argument("tid", metavar="TOURNAMENT", type=TID)
@click.option("-o", "--output", default="-", metavar="FILE",
              help="Where to write it (default: standard output).")
@pass_ctx
def export(c, tid, output):
    """Write TOURNAMENT's file: its document, entries and every game's archive."""
    from ..home import atomic_write
    data = c.api.export_tournament(tid)
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if output == "-":
        click.echo(text, nl=False)
        return
    try:
        atomic_write(output, text, mode=0o644)
    except OSError as exc:
        raise PbemError(f"cannot write {output}: {exc.strerror or exc}") from None
    c.note(f"wrote tournament {tid[:12]}... ({len(data['rounds'])} round(s), "
           f"{len(data['archives'])} game(s)) to {output}"
           + ("" if data["seed"] else "; it is not over, so its seed is not revealed yet: "
              "pbem verify recomputes the pairings so far and reports a prefix (exit 5)"))


# the subcommands live only in the group: the lazy table of client/cli.py finds this module's
# one top-level command, ``tournament``, among its names
del new, list_, join, close, start, show, next_, leave, export
