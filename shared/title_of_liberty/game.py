"""The Game object for Title of Liberty: wires notation, rules, view and render."""

from .. import IllegalMove
from ..base import FIRST_RULES_VERSION, Game
from . import rules
from .board import SEATS
from .state import DIFFICULTY, lost_code, over_code

HELP = """Title of Liberty: 1-5 Nephite armies retake the cities and kill Amalickiah.

At the start of an army's turn the other captains may give it supplies:
  give helaman 3 food | give helaman 2 gold | give helaman 1 weapons | pass
The army whose turn it is may train and arm soldiers of any kind (1 gold,
1 weapon each; at most two scouts an army):
  buy 2 archers | arm 2 archers | buy 1 scout | buy 1 captain
then marches along a route that starts where it stands (1 food a step; a
boat trip ~ from the port where the one boat lies to another port is one
step), stays where it is (rest: free, but an army with no food starves),
renews an attack where it stands (free in a city, 1 food on a battlefield),
or starves:
  move bountiful-v2-w1 | move bountiful~lehi-morianton | rest | attack | starve
A march takes the food token of every village and town it passes or stops
on; "leave" takes none, "leave v2" leaves just that one:
  move bountiful-v2-w1 leave | move bountiful-v2-w1-v4 leave v4
A route ends at the first battlefield or Lamanite city it meets: the battle
starts at once.  In battle, pair one of your soldiers with one Lamanite:
  duel infantry archer | duel captain captain | duel scout@path infantry
  sector palace | duel infantry archer@tower | duel slinger infantry@gate
  duel infantry infantry@temple | duel captain king@temple | wine | stop
On a HILL battlefield whose Lamanites stand on the 2 LAMANITE HILL a scout
may lead up to 5 soldiers up a forest path (twice a battle):
  lead 3 infantry 2 archers
Names of places are case-insensitive; a unique prefix (3+ letters) is enough.

Dice Numbers Chart (both throw; the higher wins, ties throw again; the
loser reads his own roll):
  die         killed  wounded  captured  fit for duty
  blue d20    1-2     3-4      5-7       8-20
  purple d12  1-2     3-4      5-6       7-12
  green d10   1-2     3-4      5-6       7-10
  white d8    1-2     3-4      5         6-8
Who throws which (with the Advantage of the inset in brackets):
  Nephite captain blue; scout purple; infantry green (purple); Helaman's
  infantry purple (blue); archers and slingers white (green).
  Lamanite king and captains purple; archers green; infantry white (green).
The Advantage: seashore zone 1 to the Nephites if they came by the boat,
zone 3 to the Lamanites; hill zone 1 to the Nephites, zone 2 to the
Lamanites (not against soldiers a scout led up a forest path); none in a city.
"""


class _Schema:
    """Just what ``Game.normalize_options`` reads: a name and an options schema."""

    def __init__(self, name, options_schema):
        self.name = name
        self.options_schema = options_schema


class TitleOfLiberty(Game):
    """The cooperative Nephite war game (the rulebook has no title)."""

    name = "title_of_liberty"
    title = "Title of Liberty"
    cooperative = True
    rules_version = "3"
    rules_versions = ("1", "2", "3")
    open_ended_kinds = frozenset({"move"})
    min_seats = 1
    max_seats = 5
    #: the options of rules version 2 (new games)
    options_schema = {
        "rounds": {"type": "int", "default": 0,
                   "help": "round budget, in place of the book's ONE HOUR for slow play; "
                           "time up = Lamanites win; 0 = the difficulty's (book 12, hard 8)"},
        "cities": {"type": "str", "default": "book", "choices": ["book", "all"],
                   "help": "book: k armies retake k+1 cities (Morianton always); "
                           "all: six cities for every team"},
        "difficulty": {"type": "str", "default": "book", "choices": sorted(DIFFICULTY),
                       "help": "book: the rulebook; hard: more Lamanites in every battle "
                               "and city, 8 rounds, a smaller box of supplies"},
        "deadline_hours": {"type": "int", "default": 0,
                           "help": "optional wall-clock limit in hours, kept by the "
                                   "server (0 = none; 1 = the book's ONE HOUR)"},
    }
    #: the options of rules version 1 (old games and archives)
    options_schema_v1 = {
        "rounds": {"type": "int", "default": 12,
                   "help": "round budget (the book's one hour); time up = Lamanites win"},
        "short_game": {"type": "bool", "default": False,
                       "help": "k armies must retake k+1 cities, Morianton always"},
        "deadline_hours": {"type": "int", "default": 0,
                           "help": "optional wall-clock limit in hours, kept by the "
                                   "server (0 = none)"},
    }

    seats = SEATS
    #: the bots of this game (``shared.bots``)
    bots_module = "shared.bots.title_of_liberty"
    #: version 1 states predate facts (``shared.events``): their events keep none
    versions_without_facts = ("1",)
    #: the view's scores count the flags of the cities each army retook
    score_label = "flags"
    seat_words = ("army", "armies")
    #: rules (the tables, check_duty, after_move, to_act, owes), notation (parse_move,
    #: format_move), legal (legal_texts), view (make_view), render, svg and state.new_state:
    #: see ``Game.package``
    package = __package__
    help_text = HELP

    # --- set-up -----------------------------------------------------------

    def normalize_options(self, options, n, rules_version=None):
        """Options with defaults filled in, under ``rules_version`` (default: the current)."""
        options = dict(options or {})
        if options.get("deadline_hours") is None:
            options.pop("deadline_hours", None)
        version = self.resolve_rules_version(rules_version)
        if version == FIRST_RULES_VERSION:
            # the base class's checks, read against the version-1 schema (no shared state
            # is changed: the server calls this from several threads)
            out = Game.normalize_options(_Schema(self.name, self.options_schema_v1),
                                         options, n)
        else:
            if "short_game" in options:
                raise IllegalMove("option short_game belongs to rules version 1: the book's "
                                  "short game (k armies retake k+1 cities) is now the "
                                  "default; ask cities=all for six", code="bad_option")
            if options.get("rounds") is None:
                options.pop("rounds", None)
            out = super().normalize_options(options, n)
            if out["rounds"] == 0:
                out["rounds"] = DIFFICULTY[out["difficulty"]]["rounds"]
        if out["rounds"] < 1:
            raise IllegalMove("option rounds must be at least 1" if version == FIRST_RULES_VERSION
                              else "option rounds must be at least 1, or 0 for the "
                                   "difficulty's budget", code="bad_option")
        if out["deadline_hours"] < 0:
            raise IllegalMove("option deadline_hours cannot be negative", code="bad_option")
        return out

    # --- play -------------------------------------------------------------


    def timeout_choice(self, state, seat):
        """Givers pass; a battle stops; an idle army rests (or renews a free attack,
        or starves when it has neither food nor a city to attack, once no captain may still
        give it food: until then None, its timeout waits for theirs)."""
        if seat != state["turn"]:
            return "pass"
        if state["phase"] == "battle":
            return "stop"
        if state["armies"][seat]["food"] >= 1:
            return "rest"
        if rules.attack_cost(state, seat) == 0:
            return "attack"
        if rules.food_givers(state, seat):
            # note 26: a starving army with gold owes a move (it may buy), but it starves only
            # once the captains who may still give it food have given or passed
            return None
        return "starve"

    def wall_clock_limit(self, options):
        """The optional wall-clock limit (hours from the start), RULES.md choice 2."""
        return options.get("deadline_hours") or None

    def time_up_move(self, state):
        """What the server plays when the wall-clock limit passes: the Lamanites win."""
        return "concede"

    # --- what people see --------------------------------------------------

    def facts_for(self, events, seat):
        """The shared facts, with the codes an ending's text carries: ``lost`` on
        ``army_lost`` (``starved``, ``captain_killed``, ``captain_captured``) and ``why`` on
        ``game_over`` (``won``, ``time``, ``no_army``, ``conceded``), so that no program
        reads the sentences."""
        out = super().facts_for(events, seat)
        for fact in out:
            data = fact["data"]
            if fact["kind"] == "army_lost":
                data["lost"] = lost_code(data.get("fate"))
            elif fact["kind"] == "game_over":
                data["why"] = over_code(data)
        return out


GAME = TitleOfLiberty()
