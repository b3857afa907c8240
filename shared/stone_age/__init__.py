"""The Settlers of the Stone Age (Catan Histories) as a pbem rules engine.

``GAME`` is the :class:`~shared.base.Game` object; ``parse_move`` and
``format_move`` give the notation.  See RULES.md beside this file.
"""

from .game import StoneAgeGame
from .notation import Move, format_move, parse_move

GAME = StoneAgeGame()

__all__ = ["GAME", "Move", "StoneAgeGame", "format_move", "parse_move"]
