"""The pages' handlers: a few lines each over the services (``server/game/views.py``,
``server/game/archives.py``: the same calls as the API)."""

import hashlib
import logging
import re

from flask import make_response, redirect, render_template, request, url_for
from markupsafe import Markup

from shared import numbering
from shared.games import game_types, get_game

from ..db import db
from ..db.models import Game, Seat
from ..db.state_cache import load_state
from ..game import duties, tournaments
from ..game.archives import archive_for
from ..game.views import log_entries, seat_of, view_for
from ..http.errors import fail
from . import archive as archive_view
from .blueprint import bp, error_page
from .signin import LinkRefused, clear_session, redeem_link, session_player, set_session

log = logging.getLogger("pbem.web")

LOG_ON_PAGE = 40        # the newest entries on a game's page (the archive has them all)
ARCHIVE_WINDOW = 8      # moves listed either side of the current one in the stepper


# --- helpers ----------------------------------------------------------------------------

def _game_or_404(game_id):
    game = db.session.get(Game, game_id) if len(game_id) <= 16 else None
    if game is None:
        fail(404, "unknown_game", f"there is no game {game_id!r}")
    return game


def _title(type_):
    try:
        return get_game(type_).title or type_
    except KeyError:
        return type_


def _board(game_def, view):
    """(SVG markup or None, text board): the drawing when the game has one, always the text."""
    text = game_def.render(view)
    try:
        svg = Markup(game_def.svg(view))  # shared.svg escapes every text it writes
    except NotImplementedError:
        svg = None
    except Exception:  # noqa: BLE001 - a broken drawing must not take the page down
        log.exception("the %s drawing failed; the page shows the text board", game_def.name)
        svg = None
    return svg, text


def _private_panel(view):
    """What only the viewer may see, from the view: [(label, text)] (empty for a spectator)."""
    if view is None or view.get("you") is None:
        return []
    labels = (("hand", "Your hand"), ("dev", "Your development cards"),
              ("dev_new", "Bought this turn (playable from your next turn)"),
              ("your_vp", "Your victory points, hidden cards included"),
              ("secret", "Your secret"))
    out = []
    for key, label in labels:
        if key in view and view[key] is not None:
            out.append((label, _as_text(view[key])))
    return out


def _as_text(value):
    if isinstance(value, dict):
        items = [f"{k} {v}" for k, v in value.items() if v not in (0, None, False, [], {})]
        return ", ".join(items) if items else "nothing"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) if value else "nothing"
    return str(value)


def _etag(game, seat, player):
    """Changes whenever what this viewer's page shows can change: a move, a join, the end, a
    message this viewer may read (server/game/talk.py ``last_readable``)."""
    from ..game.talk import last_readable
    taken = sum(1 for s in game.seats if s.player_id is not None)
    raw = f"{game.id}.{game.head_seq}.{game.head_hash}.{game.status}.{taken}.{seat}." \
          f"{player.id if player else '-'}.{last_readable(game, player)}"
    return hashlib.sha256(raw.encode()).hexdigest()[:20]


def _viewer(game):
    """(player or None, seat or None): the signed-in player and the seat shown to them."""
    player = session_player()
    if player is None:
        return None, None
    wanted = request.args.get("seat") or None
    mine = [s.seat for s in game.seats if s.player_id == player.id]
    if wanted is not None and wanted not in mine:
        wanted = None
    return player, seat_of(game, player, wanted)


def _game_context(game, player, seat):
    game_def = get_game(game.type)
    view = view_for(game, seat)
    svg = text = None
    if view is not None:
        svg, text = _board(game_def, view)
    since = max(0, game.head_seq - LOG_ON_PAGE + 1)
    log = list(reversed(log_entries(game, seat, since))) if game.genesis else []
    mine = [s.seat for s in game.seats if player is not None and s.player_id == player.id]
    deadlines = {}
    if game.status == "playing" and game.move_hours:
        # when each owing seat must move is public, like whose move it is: every reader sees it
        deadlines = {s: at for s, at in duties.deadlines(game.id, [x.seat for x in game.seats])
                     .items() if at}
    scores = (view or {}).get("scores") or {}
    owes = (view or {}).get("owes") or {}
    counts = (view or {}).get("hand_counts") or {}
    seats = [{"seat": s.seat, "player": s.player.name if s.player else None,
              "score": scores.get(s.seat), "owes": owes.get(s.seat),
              "cards": counts.get(s.seat), "mine": s.seat in mine,
              "deadline": deadlines.get(s.seat)} for s in game.seats]
    return {"game": game, "title": _title(game.type), "view": view, "svg": svg, "text": text,
            "bank": _bank(game),
            "log": log, "log_complete": since == 0, "seats": seats, "seat": seat,
            "player": player, "mine": mine, "private": _private_panel(view),
            "result": (view or {}).get("result") or game.result,
            "etag": _etag(game, seat, player), "show_cards": bool(counts),
            "score_label": game_def.score_label, "game_cooperative": game_def.cooperative,
            "play": _play_context(game, seat, player, view),
            "join": _join_context(game, player, mine)}


def _bank(game):
    """A game's time banks as the page shows them (server/game/timebank.py), or None."""
    from ..game import timebank
    left = timebank.bank_left(game) if game.status == "playing" else None
    if not left:
        return None
    return {"hours": timebank.total_seconds(game) // 3600,
            "left": [(seat, timebank.shown(s)) for seat, s in left.items()]}


def _join_context(game, player, mine):
    """What the join form (``_join.html``) needs: whether the reader may take a seat here,
    and a private game's invite (the one in the page's address, or, for its players, the
    game's own, to share)."""
    import hmac
    token = game.invite_token if game.private else None
    given = request.args.get("invite", "")[:100]
    invited = bool(token) and hmac.compare_digest(given.encode(), token.encode())
    free = [s.seat for s in game.seats if s.player_id is None and s.invited_id is None]
    return {"open": game.status == "open" and bool(free), "private": bool(game.private),
            "invited": invited, "invite": given if invited else None,
            "can": game.status == "open" and bool(free) and player is not None and not mine
            and (not game.private or invited),
            "share": token if token and player is not None and
            (mine or game.created_by == player.id) else None}


# --- moving from the page: the seat's legal moves for static/play.js ----------

#: kinds whose moves are bundles of cards, built with the page's trade form
TRADE_KINDS = ("offer", "counter", "bank", "discard")


def _play_context(game, seat, player, view):
    """What the play panel (``_play.html``) shows the signed-in player of ``seat``: their
    legal moves grouped by kind (the first word; ``play`` and the card), the envelope's
    ``next_seq``/``prev``, and what the trade form needs.  None for anyone else."""
    if player is None or seat is None or game.status != "playing" or view is None:
        return None
    if not any(s.seat == seat and s.player_id == player.id for s in game.seats):
        return None
    game_def = get_game(game.type)
    resigned = seat in ((view.get("table") or {}).get("resigned") or ())
    moves = game_def.legal_moves(load_state(game), seat) \
        if seat in (view.get("to_act") or []) and not resigned else []
    groups = {}
    for move in moves:
        words = move.split()
        kind = " ".join(words[:2]) if words[0] == "play" and len(words) > 1 else words[0]
        groups.setdefault(kind, []).append(move)
    hand = view.get("hand") if isinstance(view.get("hand"), dict) else {}
    trade = [k for k in TRADE_KINDS if k in groups]
    others = [s.seat for s in game.seats if s.seat != seat]
    return {"seat": seat, "moves": moves, "groups": list(groups.items()),
            "owes": (view.get("owes") or {}).get(seat), "next_seq": game.head_seq + 1,
            "prev": game.head_hash, "resources": list(hand), "trade": trade,
            "others": others, "open_ended": sorted(game_def.open_ended_kinds)}


def _iso(moment):
    return moment.isoformat() if moment is not None else ""


@bp.app_template_filter("iso")
def iso_filter(moment):
    return _iso(moment)


@bp.app_template_filter("unix_iso")
def unix_iso_filter(seconds):
    """Unix time (a pause's end, shared/table.py) as an ISO timestamp in UTC."""
    from datetime import datetime, timezone
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat()


@bp.app_template_filter("unix_utc")
def unix_utc_filter(seconds):
    from datetime import datetime, timezone
    return utc_filter(datetime.fromtimestamp(seconds, timezone.utc))


@bp.app_template_filter("utc")
def utc_filter(moment):
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment is not None else ""


@bp.app_template_filter("reason")
def reason_filter(result):
    """The rules' reason a finished game ended ("red reached 12 victory points", "no Nephite
    army is left.") as a sentence, or "" when the result gives none.  A cooperative game the
    players lost has no winners, and without it the page said just "Game over"."""
    reason = result.get("reason") if isinstance(result, dict) else None
    if not isinstance(reason, str) or not reason.strip():
        return ""
    reason = reason.strip()
    return reason[:1].upper() + reason[1:] + ("" if reason.endswith(".") else ".")


@bp.app_template_filter("shown_text")
def shown_text_filter(text):
    """A log entry's text with the pages' numbering (``@takeback 14`` is "@takeback 15")."""
    return numbering.shown_text(text)


@bp.app_template_filter("shown_event")
def shown_event_filter(text):
    """A table event or duty text with its seqs as the pages' move numbers."""
    return numbering.shown_event(text)


@bp.app_template_filter("when")
def when_filter(text):
    """An ISO timestamp string (as the log gives it) shown as UTC text before the script runs."""
    return text.replace("T", " ")[:16] + " UTC" if text else ""


def _no_store(response):
    response.headers["Cache-Control"] = "no-store"
    return response


# --- the lobby -------------------------------------------------------------------------------

@bp.get("/")
def lobby():
    player = session_player()

    def games(status, order, limit):
        # a private game is never listed: its players reach it from their own games
        stmt = db.select(Game).where(Game.status == status, Game.private.is_(False))
        if status == "open":  # a rematch's seats are all kept for its players
            stmt = stmt.where(Game.rematch_of.is_(None))
        return db.session.execute(stmt.order_by(order.desc()).limit(limit)).scalars().all()

    mine = []
    if player is not None:
        mine = _own_games(player)
    types = []
    for name in game_types():
        g = get_game(name)
        types.append({"name": name, "title": g.title or name, "min": g.min_seats,
                      "max": g.max_seats})
    resp = make_response(render_template(
        "lobby.html", player=player, mine=mine, open_games=games("open", Game.created_at, 50),
        playing=games("playing", Game.started_at, 50),
        finished=games("over", Game.finished_at, 20), types=types, title_of=_title,
        open_tournaments=tournaments.listing("open", 20)))
    return _no_store(resp)


def _own_games(player):
    """The reader's games not over, as [{game, owes, due}]: first those where they owe a move,
    the soonest deadline first (no deadline last), then the others, newest first."""
    rows = db.session.execute(
        db.select(Game).where(Game.id.in_(db.select(Seat.game_id)
                                          .where(Seat.player_id == player.id)),
                              Game.status != "over")
        .order_by(Game.created_at.desc()).limit(50)).scalars().all()
    out = []
    for game in rows:
        seats = [s.seat for s in game.seats if s.player_id == player.id]
        owing = [s for s in seats if game.status == "playing" and s in (game.to_act or [])]
        due = None
        if owing and game.move_hours:
            times = [at for at in duties.deadlines(game.id, owing).values() if at]
            due = min(times) if times else None
        out.append({"game": game, "owes": bool(owing), "due": due})

    def key(row):
        if not row["owes"]:
            return (2, 0)
        return (1, 0) if row["due"] is None else (0, row["due"].timestamp())
    # sorted is stable: within a group the newest stays first
    return sorted(out, key=key)


@bp.get("/rules/<type_>")
def rules(type_):
    """How to play first (the game's HOWTO.md), a picture of a new game's board, the move
    notation; the developers' notes (RULES.md) behind a link (``/rules/TYPE/choices``)."""
    game_def = _rules_game(type_)
    return render_template("rules.html", name=type_, title=game_def.title or type_,
                           howto=_markdown(game_def, "howto", game_def.how_to_play),
                           board=_rules_board(game_def), help=game_def.rules_help(),
                           has_choices=_markdown(game_def, "notes", game_def.rules_notes)
                           is not None, choices=False)


@bp.get("/rules/<type_>/choices")
def rules_choices(type_):
    """The developers' notes: the rules as played and every documented choice (RULES.md)."""
    game_def = _rules_game(type_)
    html = _markdown(game_def, "notes", game_def.rules_notes)
    if html is None:
        fail(404, "no_rules_notes", f"{type_} ships no developers' notes")
    return render_template("rules.html", name=type_, title=game_def.title or type_, html=html,
                           choices=True)


def _rules_game(type_):
    try:
        return get_game(type_)
    except KeyError:
        fail(404, "unknown_game_type", f"there is no game called {type_!r}")


_RULES_CACHE = {}


def _markdown(game_def, which, read):
    """``read()`` (Markdown shipped with the game) as HTML, or None when it has none."""
    key = (game_def.name, which)
    if key not in _RULES_CACHE:
        text = read()
        html = None
        if text is not None:
            from markdown_it import MarkdownIt
            # html=False: any HTML in the file is shown as text, never passed through
            md = MarkdownIt("commonmark", {"html": False}).enable("table")
            html = Markup(md.render(text))
        _RULES_CACHE[key] = html
    return _RULES_CACHE[key]


def _rules_board(game_def):
    """(svg, text) of a new game's board as a spectator sees it: default options, the fewest
    seats (two where the game allows), a fixed seed; (None, None) if it cannot be drawn."""
    key = (game_def.name, "board")
    if key not in _RULES_CACHE:
        board = (None, None)
        try:
            n = min(max(game_def.min_seats, 2), game_def.max_seats)
            state = game_def.new_game(game_def.seat_names(n), {}, b"the rules page")
            board = _board(game_def, game_def.view(state, None))
        except Exception:  # noqa: BLE001 - a picture that cannot be drawn is left out
            log.exception("the board of %s cannot be drawn for its rules page", game_def.name)
        _RULES_CACHE[key] = board
    return _RULES_CACHE[key]


# --- one game ------------------------------------------------------------------------------------

@bp.get("/g/<game_id>")
def game_page(game_id):
    game = _game_or_404(game_id)
    player, seat = _viewer(game)
    resp = make_response(render_template("game.html", **_game_context(game, player, seat)))
    return _no_store(resp)


@bp.get("/g/<game_id>/live")
def game_live(game_id):
    """The live parts of a game's page (board, panel, log; and its table talk, which
    ``static/pbem.js`` swaps in too), with an ETag: 304 when unchanged.

    The one update mechanism of the pages: ``static/pbem.js`` fetches it when the game's event
    stream (``/api/games/<id>/events``) says the game changed, or polls it without a stream.
    """
    game = _game_or_404(game_id)
    player, seat = _viewer(game)
    etag = _etag(game, seat, player)
    if etag in request.if_none_match:
        resp = make_response("", 304)
    else:
        resp = make_response(render_template("_live_response.html",
                                             **_game_context(game, player, seat)))
    resp.set_etag(etag)
    resp.headers["Cache-Control"] = "no-cache, private"
    resp.vary.add("Cookie")
    return resp


# --- one tournament ------------------------------------------------------------------------------

@bp.get("/t/<tid>")
def tournament_page(tid):
    """A tournament: its standings, its rounds (each game linked) and, for a signed-in player
    while entry is open, the form that enters them (signed by this browser's key)."""
    from ..game.domain import NotFound
    try:
        t = tournaments.get_or_404(tid)
    except NotFound as exc:
        fail(404, exc.code, exc.message)
    player = session_player()
    info = tournaments.summary(t)
    entered = player is not None and any(e["player"] == player.name for e in info["entries"])
    resp = make_response(render_template(
        "tournament.html", t=info, player=player, entered=entered, title_of=_title,
        can_enter=player is not None and t.status == "open" and not entered))
    return _no_store(resp)


# --- signing in with a one-time link -------------------------------------------------------------

@bp.get("/login/<token>")
def login(token):
    try:
        player, game_id = redeem_link(token)
    except LinkRefused as exc:
        exc.message += (". Sign in on the Sign in page instead (your recovery kit, or a link "
                        "from a device where you are signed in); from your shell, pbem open "
                        "GAME prints a new link")
        resp = make_response(error_page(exc))
        resp.headers["Referrer-Policy"] = "no-referrer"
        return _no_store(resp)
    target = url_for("web.game_page", game_id=game_id)
    resp = make_response(render_template("signed_in.html", player=player, target=target))
    resp.headers["Referrer-Policy"] = "no-referrer"
    set_session(resp, player)
    return _no_store(resp)


@bp.post("/logout")
def logout():
    resp = redirect(url_for("web.lobby"), 303)
    return clear_session(resp)


# --- the archive stepper -----------------------------------------------------------------------

@bp.get("/archive")
def archive_index():
    finished = db.session.execute(db.select(Game).where(Game.status == "over",
                                                        Game.private.is_(False))
                                  .order_by(Game.finished_at.desc()).limit(50)).scalars().all()
    return render_template("archive.html", finished=finished, title_of=_title)


@bp.post("/archive")
def archive_upload():
    request.max_content_length = archive_view.MAX_ARCHIVE_BYTES
    request.max_form_memory_size = archive_view.MAX_ARCHIVE_BYTES
    upload = request.files.get("file")
    if upload is not None and upload.filename:
        data = upload.read(archive_view.MAX_ARCHIVE_BYTES + 1)
    else:
        data = request.form.get("archive", "")
    if not data:
        fail(400, "no_archive", "choose an archive file (the .json file a game's page offers "
             "as download the archive, or one pbem export wrote)")
    try:
        doc = archive_view.load(data)
    except archive_view.Unreadable as exc:
        fail(400, "unreadable_archive", str(exc))
    text = data if isinstance(data, str) else data.decode("utf-8")
    return _stepper(doc, _step_arg(request.form), archive_text=text)


# the upload's own cap (server/errors.py checks a body's length against it before the view)
archive_upload.max_body = archive_view.MAX_ARCHIVE_BYTES


@bp.get("/archive/<game_id>")
def archive_game(game_id):
    game = _game_or_404(game_id)
    doc = archive_for(game)
    return _stepper(doc, _step_arg(request.args), game=game)


def _step_arg(values):
    raw = values.get("step")
    if raw == "goto":
        raw = values.get("goto")
    if raw in (None, ""):
        return None
    # ASCII digits only: int() would also read "٣", "３", "1_0" and " 3"
    if not isinstance(raw, str) or not re.fullmatch(r"-?[0-9]{1,9}", raw):
        fail(400, "bad_step", "the move number must be a whole number")
    return int(raw)


def _stepper(doc, step, archive_text=None, game=None):
    checked = archive_view.verdict(doc)
    total = len(checked["envelopes"])
    step = total if step is None else max(0, min(step, total))
    svg = text = None
    events = []
    view = None
    if checked["replayed"]:
        view, events = archive_view.board_at(doc, checked, step)
        svg, text = _board(checked["game"], view)
    header = doc.get("header") if isinstance(doc, dict) else None
    moves = [{"n": i + 1, "seat": e["seat"], "move": e["move"], "forced": bool(e.get("forced"))}
             for i, e in enumerate(checked["envelopes"])]
    # seats handed to a bot during the game (shared/table.py @handover), numbered as moves
    handovers = [{"n": m["n"], "seat": m["seat"], "player": m["move"].split(" ")[1],
                  "forced": m["forced"]} for m in moves
                 if isinstance(m["move"], str) and m["move"].startswith("@handover ")
                 and len(m["move"].split(" ")) == 3]
    lo, hi = max(0, step - ARCHIVE_WINDOW - 1), min(total, step + ARCHIVE_WINDOW)
    status = 422 if checked["outcome"] == "refused" else 200
    page = render_template("archive_step.html", checked=checked, header=header, step=step,
                           total=total, moves=moves[lo:hi], current=moves[step - 1] if step
                           else None, svg=svg, text=text, events=events, view=view,
                           archive_text=archive_text, game=game, handovers=handovers,
                           signer=archive_view.signer(checked),
                           title=_title(header.get("type")) if isinstance(header, dict) and
                           isinstance(header.get("type"), str) else "archive")
    return page, status
