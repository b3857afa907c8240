"""Request and response bodies.  Unknown fields are refused; server-owned fields are dump-only."""

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import marshmallow as ma
from marshmallow import fields, validate

from shared.delegation import MAX_LABEL
from shared.envelope import MAX_MOVE_LENGTH

from ..workers.channels import KINDS
from .errors import Schema

NAME_RE = r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$"
#: a page cursor (server/api/games.py): a creation time in microseconds (up to the year 5138)
#: and a game id; any such text is a position in the list, so the schema can say it whole
CURSOR_RE = r"^[0-9]{1,17}\.[A-Za-z0-9]{1,16}$"


#: an email address as the server takes it, in the published schema and on the server alike
#: (one Regexp validator, which apispec publishes as the pattern): a local part of the
#: usual characters, a domain of letter-or-digit labels and a top-level label of 2 to 63
#: letters.  ``0@0.a`` is refused on both sides.
EMAIL_RE = (r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@"
            r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$")
#: the webhook URLs the published schema offers: http or https to a host name (a literal
#: address is refused unless the operator allows private ones, and a name ending in
#: localhost always: a top-level label of 2 to 8 or 10 to 63 letters leaves it out), an
#: optional port and path.  The server takes more with PBEM_WEBHOOK_ALLOW_PRIVATE (any
#: host), and refuses a name that resolves to a private address when it sends.
WEBHOOK_RE = (r"^https?://(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,8}|[a-z]{10,63})"
              r"(?::[1-9][0-9]{0,3})?(?:/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?$")


class WholeRegexp(validate.Regexp):
    """validate.Regexp over the whole value, as the published pattern reads (ECMA-262's
    ``$`` is the end; Python's also matches before a final newline)."""

    def __call__(self, value):
        if self.regex.fullmatch(value) is None:
            raise ma.ValidationError(self._format_error(value))
        return value


def email_field(**kwargs):
    """An email address (EMAIL_RE), at most 254 characters."""
    return fields.String(validate=[validate.Length(max=254), WholeRegexp(
        EMAIL_RE, error="not an email address like ann@example.com")], **kwargs)


def _time_zones():
    """The names ZoneInfo knows: what ``tz`` accepts, published as the field's enum."""
    from zoneinfo import available_timezones
    return sorted(name for name in available_timezones()
                  if re.fullmatch(r"[A-Za-z0-9_+\-/]{1,64}", name))


TZ_DOC = {"enum": _time_zones(), "description": "an IANA time zone name (Europe/Paris)"}


# --- the published shapes of signed documents (server/http/openapi.py publishes them) -------
# What the server accepts of an envelope, a delegation and a side document, written as JSON
# Schema so that the OpenAPI document says it: a request the schema allows gets past every
# shape check, and is refused only for what no schema can say (a signature that does not
# verify, another game's id, a stale seq).  The patterns are ECMA-262 and Python alike, and
# write no lone surrogate (no UTF-8 form).

HEX64 = r"^[0-9a-f]{64}$"
HEX128 = r"^[0-9a-f]{128}$"
#: characters the rules refuse in shown text (shared.messages.check_text): controls, line and
#: paragraph separators, bidirectional overrides and isolates
_HIDDEN = r"\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
#: what str.strip() removes and check_text lets through (besides the newline)
_SPACE = r" \xa0\u1680\u2000-\u200a\u202f\u205f\u3000"


def _text_pattern(newlines):
    """Text check_text accepts: no hidden character, not only white space."""
    space = ("\\n" if newlines else "") + _SPACE
    allowed = _HIDDEN.replace(r"\x00-\x1f", r"\x00-\x09\x0b-\x1f") if newlines else _HIDDEN
    return f"^[{space}]*[^{_HIDDEN}{_SPACE}][^{allowed}]*$"


def _short(max_length=64):
    return {"type": "string", "minLength": 1, "maxLength": max_length,
            "pattern": r"^[^\x00]*$"}


def _integer(maximum):
    return {"type": "integer", "minimum": 0, "maximum": maximum}


def _label(excluded=""):
    """A device label (shared.delegation.valid_label): 1 to 40 characters, no control
    character, no white space at either end; ``excluded`` characters left out as well."""
    inner = r"[^\x00-\x1f\x7f" + excluded + "]"
    outer = r"[^\x00-\x20\x7f\x85" + _SPACE + excluded + "]"
    return f"(?:{outer}|{outer}{inner}{{0,38}}{outer})"


#: a delegation of a device key (shared/delegation.py), as check_shape takes it
DELEGATION_JSON = {
    "type": "object", "additionalProperties": False,
    "required": ["player", "device_key", "label", "not_after", "signature"],
    "description": "a device key's delegation, signed by the player's main key over "
                   "pbem-delegation-v1 and the canonical JSON of the other four fields. "
                   "device_key is 64 lowercase hex digits (a key no signature can match is "
                   "refused at its first signature); "
                   "a registration must be signed by the caller's own main key and not be "
                   "past its not_after",
    "properties": {
        "player": {"type": "string", "pattern": NAME_RE},
        "device_key": {"type": "string", "pattern": HEX64},
        "label": {"type": "string", "minLength": 1, "maxLength": 40,
                  "pattern": "^" + _label() + "$"},
        "not_after": _integer(2 ** 53 - 1),
        "signature": {"type": "string", "pattern": HEX128},
    },
}


def document_body(kind):
    """The body of a side document of ``kind`` (message, order or cancel) as
    shared.messages.check_common and its kind's validator take it."""
    from shared.messages import MAX_MESSAGE_LENGTH
    from shared.orders import MAX_ORDER_LENGTH
    props = {"kind": {"type": "string", "enum": [kind]},
             "game": dict(_short(), description="the game of the path"),
             "seat": _short(), "nonce": _short(),
             "at": dict(_integer(2 ** 53), description="the log's length now"),
             "ts": _integer(2 ** 53),
             "delegation": dict(DELEGATION_JSON, description="only when a device key "
                                "signed: the seat's player's delegation of that key")}
    if kind == "message":
        props["to"] = dict(_short(40), nullable=True,
                           description="null for the whole table, or another seat than seat")
        props["text"] = {"type": "string", "minLength": 1, "maxLength": MAX_MESSAGE_LENGTH,
                         "pattern": _text_pattern(newlines=True)}
    elif kind == "order":
        props["text"] = {"type": "string", "minLength": 1, "maxLength": MAX_ORDER_LENGTH,
                         "pattern": _text_pattern(newlines=False)}
    else:
        props["order"] = {"type": "string", "pattern": HEX64,
                          "description": "the hash of the order to cancel"}
    return {"type": "object", "additionalProperties": False,
            "required": sorted(set(props) - {"delegation"}), "properties": props}


#: one character of a JSON string in canonical form (no control character): "\"" and "\\"
#: escaped, anything else as itself
_JSON_CHAR = r'(?:[^"\\\x00-\x1f]|\\["\\])'


def _envelope_pattern():
    """The canonical text of a player's envelope (shared.envelope.read_envelope), with or
    without a device's delegation: keys sorted, no spaces, integers only."""
    from shared.envelope import MAX_MOVE_LENGTH, MAX_NONCE_LENGTH
    integer = "(?:0|[1-9][0-9]{0,14})"
    name = NAME_RE.strip("^$")
    delegation = ('"delegation":\\{"device_key":"[0-9a-f]{64}","label":"' + _label('"\\\\')
                  + '","not_after":' + integer + ',"player":"' + name
                  + '","signature":"[0-9a-f]{128}"\\},')
    # a move is not only white space: it begins with another character
    move_first = r'(?:[^"\\\x00-\x20\x85' + _SPACE + r']|\\["\\])'
    return ('^\\{(?:' + delegation + ')?"game":"[A-Za-z0-9_-]{1,64}","move":"' + move_first
            + _JSON_CHAR + "{0,%d}" % (MAX_MOVE_LENGTH - 1) + '","nonce":"' + _JSON_CHAR
            + "{1,%d}" % MAX_NONCE_LENGTH + '","prev":"[0-9a-f]{64}","seat":"' + _JSON_CHAR
            + '{1,32}","seq":' + integer + ',"ts":' + integer + '\\}$')


ENVELOPE_TEXT = {
    "pattern": _envelope_pattern(),
    "description": "the envelope's canonical JSON (sorted keys, no spaces, UTF-8, integers "
                   "only): {game, seq, prev, seat, move, nonce, ts}, and delegation when a "
                   "device key signs; game is the game of the path, seq and prev the next "
                   "entry's (GET .../view: next_seq, prev)",
}


def _valid_tz(value):
    if not re.fullmatch(r"[A-Za-z0-9_+\-/]{1,64}", value):
        raise ma.ValidationError(f"{value!r} is not a time zone name like Europe/Paris")
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ma.ValidationError(f"{value!r} is not a time zone name like Europe/Paris") \
            from None


def _not_a_bot_name(value):
    from ..game.bots import is_reserved_name
    if is_reserved_name(value):
        raise ma.ValidationError(f"the name {value!r} is reserved: names bot and bot-... "
                                 "belong to the server's bots")


# a number written as text (every query string; a JSON body may send "3" for 3): ASCII only.
# Python's int() and float() also read other scripts' digits ("٣", "３"), "1_000" and
# surrounding spaces, which no client writes on purpose: marshmallow would take them.
_ASCII_INTEGER = re.compile(r"-?[0-9]+\Z")
_ASCII_FLOAT = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")


class Integer(fields.Integer):
    """marshmallow's Integer, reading a text only in ASCII digits ("Not a valid integer.")."""

    def _validated(self, value):
        if isinstance(value, str) and not _ASCII_INTEGER.match(value):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class Float(fields.Float):
    """marshmallow's Float, reading a text only in ASCII digits ("Not a valid number.")."""

    def _validated(self, value):
        if isinstance(value, str) and not _ASCII_FLOAT.match(value):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class Strict(Schema):
    class Meta:
        unknown = ma.RAISE


class NoBodySchema(Strict):
    """A request that takes no field: an empty object; anything else is refused."""


class PlayerCreateSchema(Strict):
    name = fields.String(required=True, validate=[WholeRegexp(
        NAME_RE, error="a name is 2 to 32 letters, digits, '.', '_' or '-'"),
        validate.NoneOf(["me"], error="the name 'me' is reserved"), _not_a_bot_name])
    public_key = fields.String(required=True, validate=WholeRegexp(
        r"^[0-9a-f]{64}$", error="a public key is 64 lowercase hex digits (Ed25519)"))
    email = email_field(load_default=None, allow_none=True)
    tz = fields.String(load_default="UTC", validate=_valid_tz, metadata=TZ_DOC)
    # key rotation: the recovery key's public half, and the registered key's signature of
    # shared.table.recovery_message(name, recovery_key) (both or neither)
    recovery_key = fields.String(load_default=None, allow_none=True, validate=WholeRegexp(
        r"^[0-9a-f]{64}$", error="a recovery key is 64 lowercase hex digits (Ed25519)"))
    recovery_cert = fields.String(load_default=None, allow_none=True, validate=WholeRegexp(
        r"^[0-9a-f]{128}$", error="a recovery certificate is 128 lowercase hex digits"))


class PlayerSchema(Strict):
    name = fields.String(dump_only=True)
    public_key = fields.String(dump_only=True)
    tz = fields.String(dump_only=True)
    email = fields.String(dump_only=True, allow_none=True)
    created_at = fields.DateTime(dump_only=True)
    recovery_key = fields.String(dump_only=True, allow_none=True)
    recovery_certs = fields.Dict(dump_only=True, allow_none=True)
    key_rotations = Integer(dump_only=True)


class KeyRotationSchema(Strict):
    """A new main key for a player (``POST /api/players/NAME/key``), proven by the current
    main key or by the recovery key (``by``)."""
    public_key = fields.String(required=True, validate=WholeRegexp(
        r"^[0-9a-f]{64}$", error="a public key is 64 lowercase hex digits (Ed25519)"))
    proof = fields.String(required=True, validate=WholeRegexp(
        r"^[0-9a-f]{128}$", error="the proof is a signature: 128 lowercase hex digits"))
    by = fields.String(load_default="main", validate=validate.OneOf(["main", "recovery"]))
    recovery_cert = fields.String(load_default=None, allow_none=True, validate=WholeRegexp(
        r"^[0-9a-f]{128}$", error="a recovery certificate is 128 lowercase hex digits"))


class RatingSchema(Strict):
    player = fields.String(dump_only=True)
    rating = Float(dump_only=True)  # openskill's ordinal: mu - 3 sigma
    mu = Float(dump_only=True)
    sigma = Float(dump_only=True)
    games = Integer(dump_only=True)
    wins = Integer(dump_only=True)


class TeamRecordSchema(Strict):
    player = fields.String(dump_only=True)
    team_size = Integer(dump_only=True)
    games = Integer(dump_only=True)
    wins = Integer(dump_only=True)
    players = fields.List(fields.Nested(lambda: TeamRecordSchema()), dump_only=True)


class RatingTableSchema(Strict):
    type = fields.String(dump_only=True)
    cooperative = fields.Boolean(dump_only=True)
    ratings = fields.List(fields.Nested(RatingSchema), dump_only=True)
    teams = fields.List(fields.Nested(TeamRecordSchema), dump_only=True)
    rated_finished = Integer(dump_only=True, metadata={
        "description": "rated games of the type that are over (a competitive type): those "
                       "whose players had too little history changed no rating"})
    history = fields.Dict(keys=fields.String(), values=Integer(), dump_only=True,
                          metadata={"description": "the history a rated game asks of each "
                                    "player's account to change ratings: days old, other "
                                    "games finished (PBEM_RATING_MIN_DAYS, _GAMES)"})


class RecordSchema(Strict):
    """A player's record (server/game/records.py)."""
    finished = Integer(dump_only=True, metadata={
        "description": "games over that were not aborted"})
    wins = Integer(dump_only=True)
    resignations = Integer(dump_only=True)
    aborts = Integer(dump_only=True, metadata={"description": "aborted games"})
    missed_deadlines = Integer(dump_only=True, metadata={
        "description": "deadlines passed with nothing sent: the server's forced entries"})


class ProfileSchema(PlayerSchema):
    record = fields.Nested(RecordSchema, dump_only=True)
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(RatingSchema),
                          dump_only=True)
    team_records = fields.Dict(keys=fields.String(),
                               values=fields.List(fields.Nested(TeamRecordSchema)),
                               dump_only=True)


class RematchSchema(Strict):
    decline = fields.Boolean(load_default=False)


class GameCreateSchema(Strict):
    type = fields.String(required=True, validate=validate.Length(min=1, max=32))
    seats = Integer(required=True, strict=True, validate=validate.Range(min=1, max=8))
    options = fields.Dict(keys=fields.String(validate=validate.Length(max=32)),
                          values=fields.Raw(), load_default=dict,
                          validate=validate.Length(max=20))
    # what _scalar_options accepts (an object, a list, a fraction: a 400), as the published
    # schema says it (server/http/openapi.py), with the option names of the games this
    # server offers (OpenAPI 3.0 has no propertyNames: listing them keeps NUL out of a key)
    options.pbem_schema = lambda: _options_shape()  # the games load after this module
    seat = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=32))
    move_hours = Integer(load_default=None, allow_none=True, strict=True,
                         validate=validate.Range(min=1, max=24 * 60))
    # seats filled with the server's bots at creation (server/game/bots.py), and their level
    bots = Integer(load_default=0, strict=True, validate=validate.Range(min=0, max=8))
    # not given: the game's strongest level up to greedy; given: that level or a refusal
    bot_level = fields.String(load_default=None, allow_none=False, validate=validate.OneOf(
        ["random", "greedy", "strong"], error="the bot levels are random, greedy and strong"))
    # rated: the finished game changes its players' ratings; default: rated when the game is
    # competitive and has no bots (server/game/ratings.py)
    rated = fields.Boolean(load_default=None, allow_none=True)
    # private: never listed; its seats are taken only with the invite token the answer gives
    private = fields.Boolean(load_default=False)

    @ma.validates("options")
    def _scalar_options(self, value, **kwargs):
        for key, item in value.items():
            if not isinstance(item, (str, int, bool)) or isinstance(item, float):
                raise ma.ValidationError(f"option {key} must be a string, integer or boolean")
            if isinstance(item, str) and len(item) > 64:
                raise ma.ValidationError(f"option {key} is too long")


OPTION_VALUE = {"anyOf": [{"type": "string", "maxLength": 64, "pattern": r"^[^\x00]*$"},
                          {"type": "integer"}, {"type": "boolean"}]}


def _options_shape():
    """GameCreate's options as published: the names of every game's options (each game takes
    its own: GET /api/types), a value of OPTION_VALUE each, at most 20."""
    from shared.games import game_types, get_game
    names = sorted({name for game in game_types()
                    for name in (get_game(game).options_schema or {})})
    return {"type": "object", "maxProperties": 20, "additionalProperties": False,
            "properties": {name: OPTION_VALUE for name in names},
            "description": "the game type's own options (GET /api/types): another type's "
                           "option is refused (422 bad_option)"}


class JoinSchema(Strict):
    seat = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=32))
    # a private game's invite token (the ``invite`` its creator and players are shown)
    invite = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=64))


class SeatSchema(Strict):
    seat = fields.String(dump_only=True)
    player = fields.String(dump_only=True, allow_none=True)
    invited = fields.String(dump_only=True, allow_none=True, metadata={
        "description": "the name of the player a free seat is kept for (a rematch's "
                       "invitation: only they may take it); null once taken, and for a seat "
                       "anyone may take"})


class GameSchema(Strict):
    id = fields.String(dump_only=True)
    type = fields.String(dump_only=True)
    rules_version = fields.String(dump_only=True)
    options = fields.Dict(dump_only=True)
    status = fields.String(dump_only=True)
    seats = fields.List(fields.Nested(SeatSchema), dump_only=True)
    seq = Integer(dump_only=True)
    head = fields.String(dump_only=True, allow_none=True)
    to_act = fields.List(fields.String(), dump_only=True, allow_none=True)
    seed_commitment = fields.String(dump_only=True)
    result = fields.Dict(dump_only=True, allow_none=True)
    created_at = fields.DateTime(dump_only=True)
    move_hours = Integer(dump_only=True, allow_none=True)
    you = fields.List(fields.String(), dump_only=True)
    deadlines = fields.Dict(keys=fields.String(), values=fields.DateTime(), dump_only=True)
    rated = fields.Boolean(dump_only=True)
    rematch_of = fields.String(dump_only=True, allow_none=True)
    rematch = fields.String(dump_only=True, allow_none=True)
    invited = fields.List(fields.String(), dump_only=True)
    private = fields.Boolean(dump_only=True)
    time_bank = fields.Dict(dump_only=True, allow_none=True, metadata={
        "description": "a game with the option time_bank: {hours: each seat's bank, left: "
                       "{seat: seconds left}}; null for a game without one"})
    invite = fields.String(dump_only=True, allow_none=True, metadata={
        "description": "a private game's invite token, shown to its creator and players only "
                       "(null for everyone else): join with it, or share /g/ID?invite=TOKEN"})
    asked = fields.Dict(dump_only=True, allow_none=True, metadata={
        "description": "listed with asked=true, a playing game of the caller's: {seat, "
                       "pending, decisions} as GET /api/games/ID/table has them"})


class HeadSchema(Strict):
    game = fields.String(dump_only=True)
    length = Integer(dump_only=True)
    hash = fields.String(dump_only=True, allow_none=True)
    signature = fields.String(dump_only=True)


class ViewResponseSchema(Strict):
    game = fields.Nested(GameSchema, dump_only=True)
    seat = fields.String(dump_only=True, allow_none=True)
    next_seq = Integer(dump_only=True)
    prev = fields.String(dump_only=True, allow_none=True)
    view = fields.Dict(dump_only=True, allow_none=True)
    board = fields.String(dump_only=True, allow_none=True)
    head = fields.Nested(HeadSchema, dump_only=True, allow_none=True,
                         metadata={"description": "null while the game is open"})


class LegalMovesSchema(Strict):
    seat = fields.String(dump_only=True)
    next_seq = Integer(dump_only=True)
    prev = fields.String(dump_only=True, allow_none=True)
    moves = fields.List(fields.String(), dump_only=True)


class MoveSubmitSchema(Strict):
    envelope = fields.String(required=True, validate=validate.Length(min=2, max=2048))
    envelope.pbem_schema = dict(ENVELOPE_TEXT, type="string", minLength=2, maxLength=2048)
    signature = fields.String(required=True, validate=WholeRegexp(
        r"^[0-9a-f]{128}\Z", error="a signature is 128 lowercase hex digits (Ed25519)"))


class EntrySchema(Strict):
    seq = Integer(dump_only=True)
    seat = fields.String(dump_only=True)
    move = fields.String(dump_only=True)
    forced = fields.Boolean(dump_only=True)
    events = fields.List(fields.String(), dump_only=True)
    facts = fields.List(fields.Dict(), dump_only=True,
                        metadata={"description": "what the move caused as fields, one "
                                  "{kind, data} per event, redacted for the caller"})
    hash = fields.String(dump_only=True)
    prev = fields.String(dump_only=True)
    envelope = fields.String(dump_only=True)
    signature = fields.String(dump_only=True)
    received_at = fields.String(dump_only=True, allow_none=True)
    view = fields.Nested(ViewResponseSchema, dump_only=True, metadata={
        "description": "only with answer=view: the game's view for the caller after the "
                       "move, with the new signed head (what GET .../view answers)"})


class MoveQuerySchema(Strict):
    answer = fields.String(load_default="entry", validate=validate.OneOf(["entry", "view"]),
                           metadata={"description": "`view`: the answer also carries the view "
                                     "after the move and its signed head, and a stale_seq "
                                     "refusal the current view and the entry the move "
                                     "linked to (`details.view`, `details.entries`), so that a "
                                     "client needs no other request to go on"})


MAX_SEQ = 2 ** 31 - 1  # the seq column is a 32-bit integer on PostgreSQL


class LogQuerySchema(Strict):
    since = Integer(load_default=0, validate=validate.Range(min=0, max=MAX_SEQ))
    limit = Integer(load_default=None, allow_none=True,
                    validate=validate.Range(min=1, max=10000))


class LogSchema(Strict):
    entries = fields.List(fields.Nested(EntrySchema), dump_only=True)
    head = fields.Nested(HeadSchema, dump_only=True, allow_none=True,
                         metadata={"description": "null while the game is open"})


class SeatQuerySchema(Strict):
    seat = fields.String(load_default=None, validate=validate.Length(max=32))


class GamesQuerySchema(Strict):
    status = fields.String(load_default=None, validate=validate.OneOf(["open", "playing", "over"]))
    limit = Integer(load_default=50, validate=validate.Range(min=1, max=200),
                    metadata={"description": "games per page (newest first)"})
    cursor = fields.String(load_default=None, validate=WholeRegexp(CURSOR_RE),
                           metadata={"description": "the `next` of the previous page"})
    asked = fields.Boolean(load_default=False, metadata={
        "description": "signed: add to each playing game the caller holds a seat in its "
                       "`asked` (what GET /api/games/ID/table says of the takeback pending "
                       "and the table's decisions), so an inbox needs one request"})


class GameListSchema(Strict):
    games = fields.List(fields.Nested(GameSchema), dump_only=True)
    next = fields.String(dump_only=True, allow_none=True,
                         metadata={"description": "pass as `cursor` for the next page; null "
                                   "on the last page"})


class GameTypeSchema(Strict):
    name = fields.String(dump_only=True)
    title = fields.String(dump_only=True)
    rules_version = fields.String(dump_only=True)
    min_seats = Integer(dump_only=True)
    max_seats = Integer(dump_only=True)
    options = fields.Dict(dump_only=True)


class GameTypeListSchema(Strict):
    types = fields.List(fields.Nested(GameTypeSchema), dump_only=True)


class ArchiveHeadSchema(Strict):
    game = fields.String(dump_only=True)
    length = Integer(dump_only=True)
    hash = fields.String(dump_only=True)
    status = fields.String(dump_only=True, validate=validate.OneOf(["playing", "over"]))
    signature = fields.String(dump_only=True)


class ArchiveSchema(Strict):
    format = fields.String(dump_only=True)
    header = fields.Dict(dump_only=True)
    genesis = fields.String(dump_only=True)
    start_signature = fields.String(dump_only=True)
    entries = fields.List(fields.Dict(), dump_only=True)
    head = fields.Nested(ArchiveHeadSchema, dump_only=True)
    seed = fields.String(dump_only=True, allow_none=True)
    result = fields.Dict(dump_only=True, allow_none=True)
    # pbem-archive-v3 (table talk and standing orders, shared/messages.py, shared/orders.py)
    messages = fields.List(fields.Dict(), dump_only=True)
    orders = fields.List(fields.Dict(), dump_only=True)
    # pbem-archive-v4: the server's signature of which messages and orders it holds
    documents = fields.Dict(dump_only=True, metadata={
        "description": "reader (a player's name, or null), digest of the messages and "
                       "orders, and the server's signature of them with the head"})


class InboundResultSchema(Strict):
    results = fields.List(fields.Dict(), dump_only=True)
    undecodable = fields.List(fields.String(), dump_only=True)
    plain = fields.Dict(dump_only=True, metadata={
        "description": "a mail without a signed block: what became of it as a move in plain "
                       "words ({status: accepted, refused or ignored, code, ...})"})


class MailKeySchema(Strict):
    """A player's mail key (server/game/mailkeys.py)."""
    on = fields.Boolean(dump_only=True, metadata={
        "description": "moves by mail are on: the key is delegated, in force and held"})
    device_key = fields.String(dump_only=True, allow_none=True)
    fingerprint = fields.String(dump_only=True, allow_none=True)
    not_after = Integer(dump_only=True, allow_none=True)
    ended = fields.Boolean(dump_only=True, metadata={
        "description": "a mail key is registered but no longer signs (its date passed, or a "
                       "key rotation ended its delegation): pbem mail off, then on"})


class MailKeyMadeSchema(Strict):
    """A fresh mail key for the caller's main key to delegate."""
    player = fields.String(dump_only=True)
    device_key = fields.String(dump_only=True)
    fingerprint = fields.String(dump_only=True)
    label = fields.String(dump_only=True, metadata={"description": 'always "mail"'})
    max_days = Integer(dump_only=True)


class MailDelegationSchema(Strict):
    delegation = fields.Dict(required=True, metadata={
        "description": '{player, device_key, label: "mail", not_after, signature}, signed by '
                       "the caller's main key (shared/delegation.py)"})


class MailRevokedSchema(Strict):
    revoked = fields.List(fields.String(), dump_only=True, metadata={
        "description": "the mail keys revoked: append @revoke KEY to each running game"})
    orders_ended = fields.List(fields.Dict(), dump_only=True)


class SettingsSchema(Strict):
    email = email_field(allow_none=True)
    tz = fields.String(validate=_valid_tz, metadata=TZ_DOC)
    notify = fields.String(validate=validate.OneOf(["every", "digest", "none"]))
    quiet_start = Integer(allow_none=True, strict=True,
                          validate=validate.Range(min=0, max=23))
    quiet_end = Integer(allow_none=True, strict=True, validate=validate.Range(min=0, max=23))
    webhook_url = fields.Url(allow_none=True, schemes={"http", "https"},
                             require_tld=False, validate=validate.Length(max=500))
    webhook_url.pbem_schema = {
        "type": "string", "nullable": True, "maxLength": 500, "pattern": WEBHOOK_RE,
        "description": "where notices are POSTed (null: none). Loopback, private, "
                       "link-local and multicast addresses are refused, as an address in the "
                       "URL (422 webhook_refused) and as the address a name resolves to when "
                       "a notice is sent, unless the operator sets PBEM_WEBHOOK_ALLOW_PRIVATE"}
    weekends_off = fields.Boolean(truthy={True}, falsy={False})


class VacationSchema(Strict):
    days = Integer(required=True, strict=True, validate=validate.Range(min=1, max=60))


class MeSchema(PlayerSchema):
    notify = fields.String(dump_only=True)
    quiet_start = Integer(dump_only=True, allow_none=True)
    quiet_end = Integer(dump_only=True, allow_none=True)
    webhook_url = fields.String(dump_only=True, allow_none=True)
    # the settings' webhook's signing secret (Standard Webhooks), in the answer that set it
    webhook_secret = fields.String(dump_only=True, allow_none=True)
    weekends_off = fields.Boolean(dump_only=True)
    vacation_until = fields.DateTime(dump_only=True, allow_none=True)
    vacation_days_left = Integer(dump_only=True)


class TableSchema(Strict):
    """GET /api/games/ID/table: the table state (shared/table.py) as the caller's seat sees
    it; nothing in it is hidden."""
    seat = fields.String(dump_only=True, allow_none=True)
    pending = fields.Dict(dump_only=True, allow_none=True)
    takeback_moves = fields.List(Integer(), dump_only=True)
    keys = fields.Dict(keys=fields.String(), values=fields.String(), dump_only=True)
    revoked = fields.List(fields.String(), dump_only=True)
    taken_back = fields.List(Integer(), dump_only=True)
    next_seq = Integer(dump_only=True)
    # the table's decisions pending or in force (shared/table.py LogReplay.decisions): draw,
    # abort, pause (each with its seat, accepted and owed), paused, pauses, resigned; and
    # how many rules moves of its own each seat made (one seat aborts alone below two each)
    decisions = fields.Dict(dump_only=True)
    own_moves = fields.Dict(keys=fields.String(), values=Integer(), dump_only=True)
    limits = fields.Dict(keys=fields.String(), values=Integer(), dump_only=True)


class BotAccountSchema(Strict):
    level = fields.String(dump_only=True)
    player = fields.String(dump_only=True)
    public_key = fields.String(dump_only=True)


class BotListQuerySchema(Strict):
    game = fields.String(load_default=None, validate=validate.Length(min=1, max=32))


class BotListSchema(Strict):
    game = fields.String(dump_only=True, allow_none=True)
    levels = fields.List(fields.String(), dump_only=True)
    bots = fields.List(fields.Nested(BotAccountSchema), dump_only=True)


# --- tournaments (server/api/tournaments.py; the document is shared/tournament.py's) ----------

_SIG = WholeRegexp(r"^[0-9a-f]{128}$", error="a signature is 128 lowercase hex digits")


class TournamentCreateSchema(Strict):
    """A tournament document signed by its organiser, and the seed it commits to (kept
    secret by the server until the tournament is over)."""
    document = fields.Dict(required=True)
    signature = fields.String(required=True, validate=_SIG)
    seed = fields.String(required=True, validate=WholeRegexp(
        r"^[0-9a-f]{64}$", error="the seed is 64 lowercase hex digits (32 bytes)"))


class TournamentJoinSchema(Strict):
    """An entry: the signature, by ``public_key``, of the entry message."""
    public_key = fields.String(required=True, validate=WholeRegexp(
        r"^[0-9a-f]{64}$", error="a public key is 64 lowercase hex digits (Ed25519)"))
    signature = fields.String(required=True, validate=_SIG)


class TournamentCloseSchema(Strict):
    """The organiser's signature of the sorted names of the players who entered."""
    signature = fields.String(required=True, validate=_SIG)


class TournamentLeaveSchema(Strict):
    from_round = Integer(required=True, strict=True,
                         validate=validate.Range(min=1, max=31))
    signature = fields.String(required=True, validate=_SIG)


class TournamentQuerySchema(Strict):
    status = fields.String(load_default="open", validate=validate.OneOf(
        ["open", "closed", "playing", "over"]))


class TournamentSchema(Strict):
    id = fields.String(dump_only=True)
    document = fields.Dict(dump_only=True)
    status = fields.String(dump_only=True)
    round = Integer(dump_only=True)
    rounds_total = Integer(dump_only=True)
    organiser = fields.String(dump_only=True)
    entries = fields.List(fields.Dict(), dump_only=True)
    rounds = fields.List(fields.Dict(), dump_only=True)
    standings = fields.List(fields.Dict(), dump_only=True)
    you = fields.Dict(dump_only=True, allow_none=True)


class TournamentListSchema(Strict):
    tournaments = fields.List(fields.Dict(), dump_only=True)


class StandingsSchema(Strict):
    tournament = fields.String(dump_only=True)
    round = Integer(dump_only=True)
    standings = fields.List(fields.Dict(), dump_only=True)


class TournamentExportSchema(Strict):
    format = fields.String(dump_only=True)
    tournament = fields.String(dump_only=True)
    document = fields.Dict(dump_only=True)
    signature = fields.String(dump_only=True)
    entries = fields.List(fields.Dict(), dump_only=True)
    close = fields.Dict(dump_only=True, allow_none=True)
    withdrawals = fields.List(fields.Dict(), dump_only=True)
    rounds = fields.List(fields.Dict(), dump_only=True)
    seed = fields.String(dump_only=True, allow_none=True)
    #: while it runs: the keys of the seeding and of each round paired so far (hex)
    round_keys = fields.List(fields.String(), dump_only=True, allow_none=True)
    archives = fields.Dict(dump_only=True)
    standings = fields.List(fields.Dict(), dump_only=True)


# Table talk, mutes and standing orders (server/api/talk.py)

class DocumentSchema(Strict):
    """A signed side document: its body (an object) and the seat's signature (hex).

    The published body is the shape shared/messages.py takes for each kind (``pbem_schema``,
    server/http/openapi.py); the service checks it, and the signature, whole."""

    body = fields.Dict(required=True)
    signature = fields.String(required=True, validate=validate.Length(max=200),
                              metadata={"pattern": HEX128})


def _body(kind):
    body = fields.Dict(required=True)
    body.pbem_schema = document_body(kind)
    return body


class MessageDocumentSchema(DocumentSchema):
    """A signed message (shared/messages.py)."""
    body = _body("message")


class OrderDocumentSchema(DocumentSchema):
    """A signed standing order (shared/orders.py)."""
    body = _body("order")


class CancelDocumentSchema(DocumentSchema):
    """A signed cancellation of a standing order (shared/orders.py)."""
    body = _body("cancel")


class MessagesQuerySchema(Strict):
    # a message id: the column is a 32-bit integer on PostgreSQL and SQLite refuses 2^63
    since = Integer(load_default=0, strict=False,
                    validate=validate.Range(min=0, max=MAX_SEQ), metadata={
                               "description": "only the messages numbered above this (a "
                                              "message's id for the same reader)"})


class MessageSchema(Strict):
    id = Integer(dump_only=True, metadata={
        "description": "the message's number for this reader: its place (from 1) among the "
                       "game's messages the reader may read; messages of other audiences "
                       "are not counted (server/talk.py readable)"})
    at = Integer(dump_only=True)
    seat = fields.String(dump_only=True)
    to = fields.String(dump_only=True, allow_none=True)
    player = fields.String(dump_only=True, allow_none=True)
    text = fields.String(dump_only=True)
    hash = fields.String(dump_only=True)
    document = fields.Dict(dump_only=True)
    created_at = fields.DateTime(dump_only=True)


class MessageListSchema(Strict):
    messages = fields.List(fields.Nested(MessageSchema), dump_only=True)


class OrderSchema(Strict):
    id = Integer(dump_only=True)
    hash = fields.String(dump_only=True)
    seat = fields.String(dump_only=True)
    at = Integer(dump_only=True)
    text = fields.String(dump_only=True)
    meaning = fields.String(dump_only=True, allow_none=True)
    status = fields.String(dump_only=True)
    cancelled_at = Integer(dump_only=True, allow_none=True)
    played = Integer(dump_only=True)
    created_at = fields.DateTime(dump_only=True)


class OrderPostedSchema(Strict):
    order = fields.Nested(OrderSchema, dump_only=True)
    played = Integer(dump_only=True, metadata={
        "description": "entries the server played for standing orders right away"})


class OrderListSchema(Strict):
    orders = fields.List(fields.Nested(OrderSchema), dump_only=True)


class MuteSchema(Strict):
    player = fields.String(required=True, validate=validate.Length(min=1, max=32))


class MuteListSchema(Schema):
    muted = fields.List(fields.String(), dump_only=True)


# Seats offered to substitutes (server/api/offers.py)

class OfferLinkSchema(Strict):
    game = fields.String(dump_only=True)
    seat = fields.String(dump_only=True)
    path = fields.String(dump_only=True, metadata={
        "description": "the link's path on this server, /seat/TOKEN (claimed once)"})
    url = fields.String(dump_only=True)
    signer = fields.String(dump_only=True, metadata={
        "description": "who signs the hand-over once the link is claimed: server, or the "
                       "name of the player whose key does"})


class OfferSchema(Strict):
    game = fields.String(dump_only=True)
    type = fields.String(dump_only=True)
    seat = fields.String(dump_only=True)
    status = fields.String(dump_only=True, metadata={
        "description": "open, claimed (waiting for the signer), done or void"})
    held_by = fields.String(dump_only=True, allow_none=True)
    signer = fields.String(dump_only=True, allow_none=True)
    claimant = fields.String(dump_only=True, allow_none=True)
    claimant_key = fields.String(dump_only=True, allow_none=True)


class OfferListSchema(Strict):
    offers = fields.List(fields.Nested(OfferSchema), dump_only=True)


# Notice channels, chat ids and Web Push subscriptions (server/api/channels.py)

class ChannelCreateSchema(Strict):
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    target = fields.Dict(required=True)
    # the fields check_target reads of a target (each kind its own: a URL, an id, a token, a
    # chat id number); OpenAPI 3.0 cannot say a key has no NUL but by naming the keys
    target.pbem_schema = {"type": "object", "additionalProperties": False, "properties": {
        name: {"anyOf": [{"type": "string", "maxLength": 500, "pattern": r"^[^\x00]*$"},
                         {"type": "integer"}]}
        for name in ("url", "mention", "homeserver", "room", "token", "chat_id", "secret")}}


class ChannelSchema(Strict):
    id = Integer(dump_only=True)
    kind = fields.String(dump_only=True)
    target = fields.Dict(dump_only=True)
    status = fields.String(dump_only=True)
    failures = Integer(dump_only=True)
    stopped_reason = fields.String(dump_only=True, allow_none=True)
    game = fields.String(dump_only=True, allow_none=True)
    secret = fields.String(dump_only=True, allow_none=True)


class ChannelListSchema(Strict):
    channels = fields.List(fields.Nested(ChannelSchema), dump_only=True)
    chat_ids = fields.Dict(dump_only=True)
    push = fields.List(fields.Dict(), dump_only=True)


class ChatIdsSchema(Strict):
    discord = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=64))
    slack = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=64))
    matrix = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=128))


class TestResultSchema(Strict):
    sent = fields.Boolean(dump_only=True)
    reason = fields.String(dump_only=True, allow_none=True)


class SecretSchema(Strict):
    secret = fields.String(dump_only=True)


class PushKeysSchema(Strict):
    p256dh = fields.String(required=True, validate=validate.Length(max=200))
    auth = fields.String(required=True, validate=validate.Length(max=100))


class PushSubscribeSchema(Strict):
    endpoint = fields.String(required=True, validate=validate.Length(max=1000))
    keys = fields.Nested(PushKeysSchema, required=True)
    label = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=64))
    # a browser's PushSubscription.toJSON() also names expirationTime
    expirationTime = fields.Raw(load_default=None, allow_none=True)  # noqa: N815
    expirationTime.pbem_schema = {"type": "number", "nullable": True}


class PushEndpointSchema(Strict):
    endpoint = fields.String(required=True, validate=validate.Length(max=1000))


class VapidSchema(Strict):
    public_key = fields.String(dump_only=True)


# Waiting for a game's next move (server/api/push.py)

#: the longest long poll and event stream, in seconds
MAX_WAIT = 60
MAX_STREAM = 600


class WaitQuerySchema(Strict):
    after = Integer(required=True, validate=validate.Range(min=-1, max=MAX_SEQ),
                    metadata={"description": "the last seq the client knows (-1: none)"})
    status = fields.String(load_default=None,
                           validate=validate.OneOf(["open", "playing", "over"]),
                           metadata={"description": "the status the client knows: a change "
                                                    "of status answers too (a game starts)"})
    timeout = Float(load_default=25.0, validate=validate.Range(min=0, max=MAX_WAIT),
                    metadata={"description": f"seconds to wait, at most {MAX_WAIT}"})


class EventsQuerySchema(Strict):
    timeout = Float(load_default=120.0, validate=validate.Range(min=1, max=MAX_STREAM),
                    metadata={"description": "seconds before the server ends the "
                                                    "stream (EventSource reconnects by "
                                                    f"itself); at most {MAX_STREAM}"})


class PublicHeadSchema(Strict):
    """A game's public head (server/workers/push.py ``public_head``)."""

    game = fields.String(dump_only=True)
    status = fields.String(dump_only=True, metadata={"description": "open, playing or over"})
    seq = Integer(dump_only=True, metadata={"description": "the last entry's seq "
                                                   "(-1: none yet)"})
    head = fields.String(dump_only=True, allow_none=True,
                         metadata={"description": "the last entry's hash (the genesis hash "
                                                  "before the first move)"})
    to_act = fields.List(fields.String(), dump_only=True,
                         metadata={"description": "the seats that owe a move"})
    result = fields.Dict(dump_only=True, allow_none=True)
    seats_taken = Integer(dump_only=True)


class WaitSchema(PublicHeadSchema):
    changed = fields.Boolean(dump_only=True, metadata={
        "description": "true: the head is news (seq > after, or another status); false: "
                       "the wait timed out and this is the unchanged head"})


# Device keys and their one-time links (server/api/devices.py)

class DelegationSchema(Schema):
    class Meta:
        unknown = ma.RAISE
    delegation = ma.fields.Dict(required=True)
    delegation.pbem_schema = DELEGATION_JSON  # its shape, published (server/http/openapi.py)


class LinkCreateSchema(Schema):
    class Meta:
        unknown = ma.RAISE
    label = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=MAX_LABEL))


class KeySchema(Schema):
    class Meta:
        unknown = ma.RAISE
    public_key = ma.fields.String(required=True, validate=ma.validate.Length(max=64))


class DeviceSchema(Schema):
    label = ma.fields.String(dump_only=True)
    device_key = ma.fields.String(dump_only=True)
    fingerprint = ma.fields.String(dump_only=True)
    not_after = Integer(dump_only=True)
    created_at = ma.fields.DateTime(dump_only=True)
    ended = ma.fields.Boolean(dump_only=True)
    delegation = ma.fields.Dict(dump_only=True)


class DeviceListSchema(Schema):
    devices = ma.fields.List(ma.fields.Nested(DeviceSchema), dump_only=True)


class RevokedSchema(Schema):
    revoked = ma.fields.List(ma.fields.String(), dump_only=True, metadata={
        "description": "the device keys revoked"})
    orders_ended = ma.fields.List(ma.fields.Dict(), dump_only=True, metadata={
        "description": "the standing orders those devices signed, ended with them: "
                       "{game, seat, order, hash}"})


class DeviceLinkSchema(Schema):
    id = Integer(dump_only=True)
    label = ma.fields.String(dump_only=True)
    expires_at = ma.fields.DateTime(dump_only=True)
    status = ma.fields.String(dump_only=True, metadata={
        "description": "waiting, key, delegated, done, cancelled or expired"})
    public_key = ma.fields.String(dump_only=True, allow_none=True)
    fingerprint = ma.fields.String(dump_only=True, allow_none=True)
    path = ma.fields.String(dump_only=True)
    url = ma.fields.String(dump_only=True)


class PageKeyAnswerSchema(Schema):
    fingerprint = ma.fields.String(dump_only=True)
    label = ma.fields.String(dump_only=True)


class PageDelegationSchema(Schema):
    status = ma.fields.String(dump_only=True, metadata={"description": "no_key, waiting or "
                                                                        "done"})
    delegation = ma.fields.Dict(dump_only=True)


# One-time sign-in links and sessions (server/api/links.py)

class LinkSchema(Schema):
    path = ma.fields.String(dump_only=True, metadata={
        "description": "the link's path on this server, e.g. /login/TOKEN (one use)"})
    url = ma.fields.String(dump_only=True, metadata={
        "description": "the whole link, as this server sees its own address"})
    expires_at = ma.fields.DateTime(dump_only=True)
    game = ma.fields.String(dump_only=True)
    seat = ma.fields.String(dump_only=True)


class SessionSchema(Schema):
    player = ma.fields.String(dump_only=True)
    expires_in = Integer(dump_only=True, metadata={
        "description": "seconds the session cookie lasts (PBEM_SESSION_HOURS)"})


# May I play this move? (server/api/check.py)

class CheckSchema(Schema):
    class Meta:
        unknown = ma.RAISE

    move = fields.String(required=True, validate=validate.Length(min=1, max=MAX_MOVE_LENGTH))
    seat = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=32))


class CheckAnswerSchema(Schema):
    seat = fields.String(dump_only=True)
    move = fields.String(dump_only=True)
    legal = fields.Boolean(dump_only=True)
    code = fields.String(dump_only=True)
    reason = fields.String(dump_only=True)
    outcome = fields.String(dump_only=True, metadata={
        "description": "certain, chance (dice or a draw decide it), hidden (cards you "
                       "cannot see decide it) or unknown"})
    events = fields.List(fields.String(), dump_only=True)
    changes = fields.List(fields.String(), dump_only=True)
    next = fields.Dict(keys=fields.String(), values=fields.String(), dump_only=True)
    summary = fields.String(dump_only=True)
    next_seq = Integer(dump_only=True)
    prev = fields.String(dump_only=True, allow_none=True)


# The calendar feed (server/api/calendar.py)

class FeedSchema(Strict):
    url = fields.String(dump_only=True)
