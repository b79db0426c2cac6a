"""Training data from game records, labelled by the referee.

>>> import gyoku.training
>>> # gyoku.training.write(["games.csa"], "games.hcpe")  # cshogi's hcpe
>>> # gyoku.training.write(["games.csa"], "games.psv", format="psv")  # YaneuraOu's
"""

from ._gyoku import training_write as write

__all__ = ["write"]
