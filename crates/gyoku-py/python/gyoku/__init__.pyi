"""Type stubs for `gyoku` (the extension module `gyoku._gyoku`)."""

import os
from typing import Any, Iterable, Iterator, Literal, Optional, Sequence, Union, final

_Source = Union[str, "os.PathLike[str]", bytes]

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

NOT_REPETITION: int
REPETITION_DRAW: int
REPETITION_WIN: int
REPETITION_LOSE: int
REPETITION_SUPERIOR: int
REPETITION_INFERIOR: int

class IllegalMoveError(ValueError):
    """A move the rules refuse."""
    kind: str

class GameError(Exception):
    """An action a game refuses."""
    code: str

class EngineError(RuntimeError):
    """A USI engine that cannot go on; its process group was killed."""
    cause: str

@final
class Thought:
    """What an engine answered to `go` or `stop`, and what its last main-line info said."""
    bestmove: str
    ponder: Optional[str]
    depth: Optional[int]
    score_cp: Optional[int]
    mate: Optional[int]
    nodes: Optional[int]
    pv: list[str]
    info: Optional[str]

@final
class Engine:
    """A USI engine as a child process, every wait timed out, killed with its children
    when it goes."""
    def __new__(
        cls,
        command: str,
        options: Optional[dict[str, Any]] = None,
        *,
        timeout: float = 30.0,
    ) -> "Engine": ...
    @property
    def name(self) -> str: ...
    @property
    def option_names(self) -> list[str]: ...
    @property
    def closed(self) -> bool: ...
    def new_game(self) -> None: ...
    def go(
        self,
        position: Union["Board", str, None] = None,
        moves: Optional[Sequence[str]] = None,
        *,
        btime: Optional[float] = None,
        wtime: Optional[float] = None,
        byoyomi: Optional[float] = None,
        binc: Optional[float] = None,
        winc: Optional[float] = None,
        movetime: Optional[float] = None,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        infinite: bool = False,
        timeout: Optional[float] = None,
    ) -> Optional[Thought]: ...
    def stop(self, timeout: float = 10.0) -> Thought: ...
    def quit(self) -> None: ...
    def __enter__(self) -> "Engine": ...
    def __exit__(self, *args: object) -> None: ...

@final
class Board:
    """A position and the moves played on it; every move pushed is checked."""
    def __new__(cls, sfen: Optional[str] = None, lenient: bool = False) -> "Board": ...
    def push_usi(self, usi: str, /) -> None: ...
    def push(self, move: Union[str, int], /) -> None:
        """A USI str, or a move16 int (cshogi's form, as `legal_moves_int` gives)."""
    def pop(self) -> str: ...
    def peek(self) -> str: ...
    @property
    def legal_moves(self) -> list[str]: ...
    def legal_moves_int(self) -> list[int]:
        """The legal moves as move16 ints (cshogi's form)."""
    def is_legal(self, m: Union[str, int]) -> bool: ...
    def check_move(self, usi: str) -> Optional[str]: ...
    def is_check(self) -> bool: ...
    def is_game_over(self) -> bool: ...
    def repetitions(self) -> int: ...
    def impasse(self, mate_nodes: int = 0) -> dict[str, Any]: ...
    def set_sfen(self, sfen: str) -> None:
        """Sets the board to an SFEN (or startpos, or a handicap name), forgetting the moves (cshogi's set_sfen)."""
    def reset(self) -> None:
        """Sets the board to the usual start, forgetting the moves (cshogi's reset)."""
    def piece(self, sq: int) -> int:
        """The piece on square sq (0-80, file-major) as cshogi's piece code (0 none; White's +16)."""
    @property
    def pieces(self) -> list[int]:
        """Every square's piece code, square 0 (1a) first (cshogi's pieces)."""
    @property
    def pieces_in_hand(self) -> tuple[list[int], list[int]]:
        """Black's and White's hands: [pawn, lance, knight, silver, gold, bishop, rook] (cshogi's)."""
    def is_draw(self, ply: int = 2147483647) -> int:
        """A repetition within the last ply plies, as cshogi's is_draw: NOT_REPETITION, REPETITION_DRAW, _WIN, _LOSE, _SUPERIOR, _INFERIOR."""
    def is_nyugyoku(self) -> bool:
        """Whether the side to move may declare and win under the 27-point rule (cshogi's is_nyugyoku)."""
    def mate_move_in_1ply(self) -> Optional[str]:
        """A move that mates at once (USI), or None (cshogi's mate_move_in_1ply)."""
    def mate(self, nodes: int = 1000000, table_mib: int = 16) -> dict[str, Any]:
        """A df-pn mate search: {"result": "mate" | "no_mate" | "unknown", "plies", "line", "nodes"}."""
    def sfen(self) -> str: ...
    def zobrist_hash(self) -> int: ...
    @property
    def turn(self) -> str: ...
    @property
    def move_number(self) -> int: ...
    @property
    def moves(self) -> list[str]: ...
    def copy(self) -> "Board": ...
    def __copy__(self) -> "Board": ...
    def diagram(self, letters: bool = False) -> str:
        """KIF's kanji diagram, or SFEN's letters with the hands and the side to move."""
    def svg(self, last_move: bool = True) -> str:
        """The board as SVG, the last move and a king in check marked."""
    def _repr_svg_(self) -> str: ...

@final
class Game:
    """A game refereed under a rule set."""
    def __new__(
        cls,
        rules: str = "jsa",
        sfen: Optional[str] = None,
        max_moves: Optional[int] = None,
        fouls: Optional[str] = None,
        sennichite: Optional[str] = None,
        initial: Optional[str] = None,
        lenient: bool = False,
    ) -> "Game": ...
    def move(self, usi: str) -> None: ...
    def resign(self, color: str) -> None: ...
    def declare(self) -> None: ...
    def record(self) -> "Record":
        """The game's record so far (`write` writes it)."""
    def agree(self) -> None: ...
    def agree_sennichite(self) -> None: ...
    def claim(self, color: str) -> None: ...
    def time_up(self, color: str) -> None: ...
    @property
    def outcome(self) -> Optional[dict[str, Any]]: ...
    def impasse(self) -> dict[str, Any]: ...
    def sfen(self) -> str: ...
    @property
    def turn(self) -> str: ...
    @property
    def handicap_credit(self) -> int: ...
    @property
    def moves(self) -> list[str]: ...

@final
class Verdicts(Iterator[dict[str, Any]]):
    """The verdicts of `judge`, judged a batch at a time as they are asked for."""
    def __iter__(self) -> "Verdicts": ...
    def __next__(self) -> dict[str, Any]: ...
    @property
    def skipped(self) -> int:
        """Unreadable sources left out so far (`errors="skip"`)."""

def impasse(
    sfen: str = "startpos",
    moves: Optional[Sequence[str]] = None,
    initial: Optional[str] = None,
    lenient: bool = False,
    mate_nodes: int = 0,
) -> dict[str, Any]: ...
def read(source: _Source, format: Optional[str] = None) -> list[dict[str, Any]]: ...
def judge(
    sources: Union[_Source, Iterable[_Source]],
    rules: str = "jsa",
    max_moves: Optional[int] = None,
    fouls: Optional[str] = None,
    sennichite: Optional[str] = None,
    threads: Optional[int] = None,
    errors: Literal["raise", "skip", "yield"] = "raise",
) -> Verdicts: ...
def presets() -> list[str]: ...
def move16(usi: str) -> int:
    """A USI move as a move16 int (cshogi's form)."""
def move_to_usi(move16: int) -> str: ...

@final
class Record:
    """A game record: everything the file said, as `read` found it (its dicts' `record`),
    or a game's record so far (`Game.record()`)."""
    def __len__(self) -> int: ...

def write(
    records: Union[Record, dict[str, Any], "Game", Sequence[Union[Record, dict[str, Any], "Game"]]],
    format: Literal["kif", "kifu", "ki2", "ki2u", "csa", "jkf", "usi"] = "kif",
    encoding: Optional[Literal["utf-8", "shift_jis", "euc-jp"]] = None,
) -> bytes: ...

_Entrant = Union[str, tuple[str, str], dict[str, Any]]

def match(
    engines: Sequence[_Entrant],
    *,
    games: int = 2,
    rules: str = "csa",
    time: Optional[str] = None,
    byoyomi: Optional[str] = None,
    openings: Optional[Union[str, "os.PathLike[str]"]] = None,
    opening_plies: Optional[int] = None,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    concurrency: int = 1,
) -> dict[str, Any]:
    """A refereed match between two USI engines; the summary `gyoku match --json` prints."""
