"""Gyoku from Python: shogi positions, the referee of every ending, the impasse
calculator, and records in every format and encoding.

>>> import gyoku
>>> b = gyoku.Board()
>>> b.push_usi("7g7f")
>>> b.check_move("P*5e")
'not_in_hand'
>>> g = gyoku.Game(rules="jsa")
>>> g.move("7g7f"); g.resign("white"); g.outcome["reason"]
'resignation'
"""

from ._gyoku import (
    Board,
    Game,
    GameError,
    IllegalMoveError,
    Record,
    Verdicts,
    impasse,
    judge,
    move16,
    move_to_usi,
    presets,
    read,
    write,
)

__all__ = [
    "Board",
    "Game",
    "GameError",
    "IllegalMoveError",
    "Record",
    "Verdicts",
    "impasse",
    "judge",
    "move16",
    "move_to_usi",
    "presets",
    "read",
    "write",
]
