"""Commands about the record: log, export and the offline verify."""

import json

import click

from ..completion import complete_game
from ..context import (
    EXIT_PREFIX,
    GAME_ID,
    PbemError,
    color_wanted,
    load_game,
    pass_ctx,
    terminal_width,
)

# --- log, export, verify ----------------------------------------------------------------------

def _check_log(game_id, entries, head):
    """The log's own links and hashes agree with each other and with the signed head: each
    entry's envelope is for this game, carries its seq, links to the entry before it (the
    first one shown: to the prev it states) and hashes to its stated hash."""
    from shared.envelope import EnvelopeError, verify_entry

    from ..heads import HistoryError
    prev = None
    for e in entries:
        try:
            verify_entry(e["envelope"], e["signature"], game_id=game_id, seq=e["seq"],
                         prev=e["prev"] if prev is None else prev, expected_hash=e["hash"])
        except (EnvelopeError, KeyError, TypeError):
            raise HistoryError(f"the log of game {game_id} is inconsistent at move "
                               f"{_number(e)}: its hash "
                               "chain is broken") from None
        prev = e["hash"]
    if head is not None and entries and (head["length"] != entries[-1]["seq"] + 1
                                         or head["hash"] != prev):
        raise HistoryError(f"the log of game {game_id} does not end at the server's signed head")


def _number(entry):
    """The move number of a log entry as people read it (from 1), or "?"."""
    seq = entry.get("seq") if isinstance(entry, dict) else None
    return seq + 1 if isinstance(seq, int) else "?"


def _device_note(entry):
    """" (device 'phone')" for an entry signed by a delegated device key, " (by mail: the
    server's mail key)" for one a mail key signed (shared/delegation.py), else ""."""
    from shared.delegation import is_mail_key
    try:
        delegation = json.loads(entry["envelope"]).get("delegation")
        if is_mail_key(delegation):
            return " (by mail: the server's mail key)"
        return f" (device {delegation['label']!r})" if isinstance(delegation, dict) else ""
    except (KeyError, TypeError, ValueError, AttributeError):
        return ""


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@pass_ctx
def log(c, game_id):
    """The moves of GAME so far, with what they caused as you may see it.

    The table talk you may read (pbem say) is shown between the moves, where it was written;
    moves the server played for a standing order (pbem order) are marked so.  With --json,
    the entries only (pbem --json log); the messages are in the archive (pbem export).

    \b
    Example:
      pbem log k7m2q9xa3b
      pbem --json log k7m2q9xa3b | jq -r '.[].move'
    """
    from ..numbers import joined_events, shown_text
    resp = c.api.log(game_id)
    c.heads.check(game_id, resp.get("head"))
    entries = resp["entries"]
    _check_log(game_id, entries, resp.get("head"))
    lines = []
    for kind, e in _with_talk(c, game_id, entries):
        if kind == "message":
            lines.append(_talk_line(e))
            continue
        events = joined_events(e)
        forced = " (forced)" if e.get("forced") else ""
        forced += _device_note(e)  # a move signed by a device key (pbem device)
        if forced and '"order":' in e.get("envelope", ""):
            forced = " (standing order)"
        # numbered from 1, as on the game's pages (client/numbers.py)
        lines.append(f"{e['seq'] + 1:>4}  {e['seat']:<10} {shown_text(e['move'])}{forced}"
                     + (f"  -- {events}" if events else ""))
    if not entries and not c.json:
        c.note(f"no moves yet in game {game_id}")
    c.emit(entries, log_lines(lines, terminal_width()))


def log_lines(lines, width):
    """``lines`` wrapped to ``width`` under the move column; a word longer than the room left
    (a long Stone Age path, 100-93-85-...) breaks after one of its hyphens, or where it must.

    >>> wrapped = log_lines(["   1  red        move " + "-".join(["100"] * 20)], 40)
    >>> max(map(len, wrapped)) <= 40, wrapped[1]
    (True, '                 100-100-100-100-100-')
    """
    import textwrap
    hang = " " * 17
    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        out.extend(textwrap.wrap(line, width, subsequent_indent=hang, break_on_hyphens=True,
                                 break_long_words=True) or [line])
    return out


def _with_talk(c, game_id, entries):
    """Entries and the messages the caller may read, interleaved (shared.messages); the
    messages are left out when the server has no table talk (an older server)."""
    from shared.messages import interleave

    from ..api import NotFound, NotPbemServer
    if c.json:
        return [("entry", e) for e in entries]
    try:
        messages = c.api.messages(game_id)["messages"]
    except (NotFound, NotPbemServer):  # a server from before table talk: it answered the log
        messages = []
    return interleave(entries, messages)


def _talk_line(m):
    """One message as ``pbem log`` shows it, every control character escaped."""
    from shared.messages import printable
    who = f"{m['seat']} ({m['player']})" if m.get("player") else m["seat"]
    to = f" to {m['to']} only" if m.get("to") else ""
    return "      " + printable(f"> {who}{to}: ") + printable(m["text"])


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("-o", "--output", required=True, metavar="FILE", type=click.Path(dir_okay=False),
              help="Where to write the archive ('-' for stdout).")
@pass_ctx
def export(c, game_id, output):
    """Write the archive of GAME (every signed move; the seed once it is over) to FILE.

    The archive is checked before it is written: its signatures and links, its server key
    against the one this home pinned, and its head against the last one seen.

    \b
    Example:
      pbem export k7m2q9xa3b -o game.json && pbem verify game.json
    """
    from shared.archive import ArchiveError, check_chain

    from ..home import atomic_write
    archive = c.api.archive(game_id)
    try:
        check_chain(archive)
    except ArchiveError as exc:
        raise PbemError(f"the server's archive of game {game_id} does not verify: "
                        f"{exc.message}") from None
    c.heads.check_archive(game_id, archive)
    text = json.dumps(archive, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    finished = archive["seed"] is not None  # checked: v2 reveals it only with a final head
    if output == "-":
        click.echo(text, nl=False)
    else:
        try:
            atomic_write(output, text, mode=0o644)
        except OSError as exc:
            raise PbemError(f"cannot write {output}: {exc.strerror or exc}") from None
        summary = {"game": game_id, "file": output, "entries": len(archive["entries"]),
                   "finished": finished}
        if c.json:
            c.emit(summary)
        else:
            c.note(f"wrote {len(archive['entries'])} move(s) of "
                   f"{'finished' if finished else 'running'} game {game_id} to {output}")




def _printable(text):
    """``text`` with control characters escaped: an archive's names and moves reach the
    terminal, and a forged one must not drive it (escape sequences, carriage returns)."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--server-key", metavar="HEX",
              help="Refuse the archive unless the server that signed it has this public key "
                   "(64 hex digits, as GET /api/server shows it).")
@click.option("--no-color", is_flag=True, help="Plain text even on a terminal.")
@pass_ctx
def verify(c, file, server_key, no_color):
    """Check an archive offline: seed, signatures, hash links and a full replay.

    Needs no server.  Says exactly one of three things: the archive is
    complete and verified (exit 0, the final board printed); it is a
    verified prefix of a running game, or an old-format archive that cannot
    show it is complete (exit 5: its length and the signed head it ends at);
    or it is refused (exit 1, naming the fault and the entry).

    \b
    Example:
      pbem verify game.json
      pbem verify --server-key 3fa0...e1 game.json
    """
    from shared.archive import ArchiveError, load_archive, verify_archive
    try:
        with click.open_file(file, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise PbemError(f"cannot read {file}: {exc.strerror or exc}") from None
    tournament_file = _tournament_file(data)
    if tournament_file is not None:
        return _verify_tournament(c, file, tournament_file,
                                  server_key.lower() if server_key else None)
    try:
        archive = load_archive(data)
        header = archive.get("header") if isinstance(archive, dict) else None
        if isinstance(header, dict) and isinstance(header.get("type"), str):
            try:
                load_game(header["type"])  # registers PBEM_EXTRA_GAMES
            except Exception:  # noqa: BLE001 - verify_archive names an unknown type itself
                pass
        report = verify_archive(archive, server_key=server_key.lower() if server_key else None)
    except ArchiveError as exc:
        where = f" (entry {exc.index})" if exc.index is not None and \
            f"entry {exc.index}" not in exc.message else ""
        # --json: the verdict is the error's details (one JSON document on stdout)
        raise PbemError(_printable(f"{file}: {exc.message}{where}; archive refused"),
                        "archive_refused", {"ok": False, "outcome": "refused", "file": file,
                                            "error": exc.message, "index": exc.index}) \
            from None
    head = report["head"]
    data = {"ok": True, "outcome": "complete" if report["complete"] else "prefix", "file": file,
            "format": report["format"], "game": header["game"], "type": header["type"],
            "entries": report["entries"], "head": head, "status": report["status"],
            "server_key": report["server_key"], "replayed": report["replayed"],
            "result": report["result"], "note": report["note"]}
    signer = f"server key {report['server_key'][:16]}..."
    data["seats"] = [{"seat": st["seat"], "player": st["player"],
                      "bot": _is_bot_name(st["player"])} for st in header["seats"]]
    seats_line = _printable("Seats: " + ", ".join(
        f"{st['seat']} {st['player']}" + (" (a bot of the server)" if st["bot"] else "")
        for st in data["seats"]) + ".")
    data["handovers"] = report.get("handovers") or []
    if data["handovers"]:  # seats handed to a bot during the game (@handover entries)
        seats_line += _printable(" Handed over: " + ", ".join(
            f"{h['seat']} to {h['player']} at move {h['seq'] + 1}" + _handover_how(h)
            for h in data["handovers"]) + ".")
    data["mail_moves"] = report.get("mail_moves") or []
    seats_line += _mail_summary(data["mail_moves"])
    if not report["complete"]:
        lines = [f"{file}: a verified prefix, not a whole game: the signatures and hash links "
                 f"of {report['entries']} move(s) of {header['type']} game {header['game']} "
                 f"hold, up to the head signed by {signer} (length {head['length']}, hash "
                 f"{head['hash'][:16]}...)."]
        from shared.archive import SIGNED_FORMATS
        if report["format"] not in SIGNED_FORMATS:
            replay = (" The seed matches its commitment and the moves replay."
                      if report["replayed"] else "")
            lines.append(f"It is in the old format {report['format']}, whose end is not signed "
                         f"as final, so it cannot show that the game is complete.{replay} "
                         f"Export the game again for a pbem-archive-v2 file.")
        else:
            lines.append(f"Game {header['game']} is still running, so the full replay waits for "
                         f"the end (the seed is revealed then); the archive does not show how "
                         f"the game goes on.")
            if report["note"] and ";" in report["note"]:
                lines.append("Note: " + report["note"].split("; ", 1)[1] + ".")
        lines.insert(1, seats_line)
        c.emit(data, _wrapped(_printable(line) for line in lines))
        raise click.exceptions.Exit(EXIT_PREFIX)
    game = report["game"]
    color = color_wanted(no_color)
    result = report["result"] or {}
    winners = ", ".join(result.get("winners") or []) or "nobody"
    # a table decision ended it (shared/table.py): say which, and an abort's "unrated"
    how = f" ({result['reason']})" if result.get("table") or result.get("resigned") else ""
    talk = _talk_summary(report)
    if talk:
        data["messages"] = len(report.get("messages") or [])
        data["orders"] = report.get("orders", 0)
        data["order_entries"] = report.get("order_entries", 0)
    c.emit(data, [game.render(report["view"], color=color), *_wrapped([
        seats_line, *talk, _printable(
            f"{file}: complete and verified: {report['entries']} move(s) of {header['type']} "
            f"game {header['game']} up to the final head signed by {signer}; the seed matches "
            f"its commitment, every signature and hash link holds, and the replay agrees; won "
            f"by {winners}{how}.")])])


def _wrapped(lines):
    """The verdict's sentences wrapped to 80 columns (a word, such as a file name, is never
    cut); the board above them is the game's own and already fits."""
    from ..context import wrap_lines
    return wrap_lines(list(lines), 80)


def _tournament_file(data):
    """The parsed tournament export (shared/tournament.py) ``data`` holds, or None."""
    from shared.tournament import EXPORT_FORMAT
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) and parsed.get("format") == EXPORT_FORMAT \
        else None


def _verify_tournament(c, file, export, server_key):
    """``pbem verify`` of a tournament file: every game's archive verified, every pairing and
    standing recomputed (exit 0 only when all agree on a finished tournament; a running one
    verifies as a prefix, exit 5; else the reason and exit 1)."""
    from shared.archive import ArchiveError, verify_archive
    from shared.tournament import TournamentError, verify_tournament
    keys = set()

    def verify_game(archive):
        gid = archive.get("header", {}).get("game") if isinstance(archive, dict) and \
            isinstance(archive.get("header"), dict) else None
        try:
            report = verify_archive(archive, server_key=server_key)
        except ArchiveError as exc:
            raise TournamentError(f"the archive of game {gid!r} does not verify: "
                                  f"{exc.message}", "bad_game") from None
        keys.add(report["server_key"])
        if len(keys) > 1:  # every game of one tournament is signed by its one server
            raise TournamentError(f"game {gid!r} is signed by another server key than the "
                                  "tournament's other games", "wrong_game")
        return report

    def get_game(name):
        try:
            return load_game(name)
        except Exception:  # noqa: BLE001 - an unknown game is named as the reason
            raise TournamentError(f"this pbem does not know the game {name!r}",
                                  "unknown_game") from None
    try:
        report = verify_tournament(export, verify_game, get_game)
    except (TournamentError, ArchiveError) as exc:
        raise PbemError(_printable(f"{file}: {exc.message}; tournament refused"),
                        "tournament_refused", {"ok": False, "outcome": "refused",
                                               "file": file, "error": exc.message,
                                               "code": getattr(exc, "code", None)}) from None
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise PbemError(_printable(f"{file}: the tournament file is malformed ({exc!r:.80}); "
                                   "tournament refused"), "tournament_refused",
                        {"ok": False, "outcome": "refused", "file": file}) from None
    rows = report["standings"]
    data = {"ok": True, "outcome": "complete" if report["complete"] else "prefix",
            "final": report["final"],
            "file": file, "tournament": report["tournament"], "players": report["players"],
            "rounds": report["rounds"], "games": report["games"], "standings": rows}
    lines = [f"{'#':>3}  {'player':<20} {'score':>5}  tiebreaks"]
    lines += [f"{r['rank']:>3}  {r['player']:<20} {r['score']:>5}  "
              + " ".join(str(x) for x in r["tiebreaks"]) for r in rows]
    said = (f"{file}: tournament {report['tournament'][:12]}... verified: the document, "
            f"{len(report['players'])} signed entries and the close; {report['games']} "
            f"game(s) verified; the pairings of {report['rounds']} round(s) and the standings ")
    if report["final"]:
        lines.append(said + "recomputed from the revealed seed agree"
                     + ("." if report["complete"] else ", though not every round was played."))
    else:
        lines.append(said + "recomputed from the round keys revealed so far agree.")
        lines.append("It is a verified prefix of a running tournament: its seed is revealed "
                     "when it is over, and only then are those keys checked against the "
                     "document's seed commitment and its games' ends known.")
    c.emit(data, _wrapped(_printable(line) for line in lines))
    if not report["complete"]:
        raise click.exceptions.Exit(EXIT_PREFIX)


def _talk_summary(report):
    """v3: a line on the messages and standing orders the verifier checked ([] for none)."""
    messages, orders = len(report.get("messages") or []), report.get("orders", 0)
    documents = report.get("documents") or {}
    if not messages and not orders and not documents.get("note"):
        return []
    if documents.get("signed"):  # v4: the server signed which documents the archive holds
        reader = documents["reader"]
        whose = f"every one {reader} may read" if reader else "the public ones"
        chosen = (f" The server signed that these are {whose}, in this order: none was "
                  "dropped, added or moved.")
    else:
        chosen = f" Note: {documents['note']}." if documents.get("note") else ""
    # nothing is counted as "0 things": a sentence says there was none
    talk = f"Table talk: {messages} signed message(s) verified." if messages else \
        "Table talk: none."
    entries = report.get("order_entries", 0)
    if not orders:
        standing = "Standing orders: none."
    elif entries:
        standing = (f"Standing orders: {orders} signed order(s), and every one of the "
                    f"{entries} move(s) played for them follows from its order.")
    else:
        standing = f"Standing orders: {orders} signed order(s); no move was played for them."
    return [f"{talk} {standing}{chosen}"]


def _handover_how(h):
    """How a seat changed hands, in words: to a bot or to a substitute, by whom."""
    if not _is_bot_name(h["player"]):  # a substitute (shared/table.py)
        return (" (a substitute, handed over by the server: a bot had taken the seat at a "
                "missed deadline)" if h["forced"] else " (a substitute, signed by the seat's "
                "leaving player)")
    return " (its deadline passed)" if h["forced"] else " (by its player)"


def _mail_summary(mail_moves):
    """The moves a mail key signed (a key the server holds, delegated by the seat's player for
    the moves they send in plain words by mail), one sentence per key ("" for none)."""
    from datetime import datetime, timezone

    from shared.delegation import fingerprint
    by_key = {}
    for m in mail_moves:
        by_key.setdefault(m["device_key"], []).append(m)
    out = []
    for key, moves in by_key.items():
        first = moves[0]
        until = datetime.fromtimestamp(first["not_after"], timezone.utc) \
            .strftime("%Y-%m-%d %H:%M UTC")
        numbers = ", ".join(str(m["seq"] + 1) for m in moves)
        out.append(_printable(
            f" Move{'s' if len(moves) > 1 else ''} {numbers} ({first['seat']}) signed by "
            f"{first['player']}'s mail key {fingerprint(key)} (held by the server), delegated "
            f"by {first['player']}'s main key until {until}, first in the log at move "
            f"{first['first_seq'] + 1}."))
    return "".join(out)


def _is_bot_name(name):
    """Whether an archive's player name is one a pbem server keeps for its bots (bot-LEVEL:
    server/bots.py refuses such names to people)."""
    folded = str(name).lower().replace("_", "-").replace(".", "-")
    return folded == "bot" or folded.startswith("bot-")
