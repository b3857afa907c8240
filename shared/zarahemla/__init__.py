"""The Settlers of Zarahemla: a Catan variant (Water for Sheep, a Temple, 12 VP).

``GAME`` is the registered game object; see RULES.md for every rule choice,
the notation and the board.
"""

from .game import GAME, Zarahemla

__all__ = ["GAME", "Zarahemla"]
