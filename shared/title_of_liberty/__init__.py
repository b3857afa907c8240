"""Title of Liberty: the cooperative Nephite war game (see RULES.md).

``GAME`` is the rules-library object; ``parse_move`` / ``format_move`` are the
notation.
"""

from .game import GAME, TitleOfLiberty
from .notation import Move, format_move, parse_move

__all__ = ["GAME", "TitleOfLiberty", "Move", "parse_move", "format_move"]
