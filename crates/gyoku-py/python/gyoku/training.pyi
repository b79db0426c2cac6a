"""Type stubs for `gyoku.training`."""

import os
from typing import Any, Iterable, Union

_Source = Union[str, "os.PathLike[str]", bytes]

__all__ = ["write"]

def write(
    sources: Iterable[_Source],
    path: Union[str, "os.PathLike[str]"],
    format: str = "hcpe",
    rules: str = "jsa",
) -> dict[str, Any]:
    """Each position of each judged game, with the move played and the referee's result: cshogi's hcpe or YaneuraOu's psv."""
