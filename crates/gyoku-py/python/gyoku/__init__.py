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
    Engine,
    EngineError,
    Game,
    GameError,
    IllegalMoveError,
    Record,
    Thought,
    Verdicts,
    impasse,
    judge,
    match,
    move16,
    move_to_usi,
    presets,
    read,
    write,
)

# `Board.is_draw`'s answers, as cshogi names them.
NOT_REPETITION = 0
REPETITION_DRAW = 1
REPETITION_WIN = 2
REPETITION_LOSE = 3
REPETITION_SUPERIOR = 4
REPETITION_INFERIOR = 5

__all__ = [
    "Board",
    "Engine",
    "EngineError",
    "Game",
    "GameError",
    "IllegalMoveError",
    "NOT_REPETITION",
    "REPETITION_DRAW",
    "REPETITION_INFERIOR",
    "REPETITION_LOSE",
    "REPETITION_SUPERIOR",
    "REPETITION_WIN",
    "Record",
    "Thought",
    "Verdicts",
    "impasse",
    "judge",
    "match",
    "move16",
    "move_to_usi",
    "presets",
    "read",
    "write",
]
