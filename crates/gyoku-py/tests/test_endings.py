"""gyoku.Game and gyoku.impasse: the endings the Rust suite and the CLI's tests pin, read
from the same tables (tests/data/endings/*.tsv) and with the same cases."""

import random

import pytest

import gyoku
from conftest import data, expand, rows, sfen

def judged(game, mover):
    """A declaration's outcome in the tables' words: WIN, REPLAY or LOSE for the mover."""
    o = game.outcome
    if o["result"] == "no_contest":
        return "REPLAY"
    return "WIN" if o["result"] == mover else "LOSE"


def test_declarations_under_every_declaring_preset():
    table = rows("declarations.tsv")
    assert len(table) >= 35
    for start, zone, points, check, r27, r24, source in table:
        report = gyoku.impasse(start, lenient=True)
        mover = report["turn"]
        count = report[mover]
        assert (str(count["zone_count"]), str(count["declaration_points"])) == (zone, points), source
        assert count["in_check"] == (check == "yes"), source
        for rules, expected in (("csa", r27), ("81dojo", r27), ("jsa-amateur", r27), ("jsa", r24)):
            g = gyoku.Game(rules=rules, sfen=start, max_moves=0, lenient=True)
            g.declare()
            o = g.outcome
            reason = "failed_declaration" if expected == "LOSE" else "declaration"
            assert (judged(g, mover), o["reason"], o["ply"]) == (expected, reason, 1), (source, rules)
        # lishogi and Shogi Wars take a winning impasse at the start of the turn.
        for rules in ("lishogi", "shogi-wars"):
            o = gyoku.Game(rules=rules, sfen=start, lenient=True).outcome
            automatic = o is not None and o["reason"] == "automatic_impasse"
            assert automatic == (r27 == "WIN"), (source, rules)
        # Friendly play has no declaration.
        with pytest.raises(gyoku.GameError) as e:
            gyoku.Game(rules="friendly", sfen=start, lenient=True).declare()
        assert e.value.code == "no_declaration_rule"


def test_handicap_credit_comes_from_the_initial_position():
    for start, initial, r27, r24, source in rows("handicap.tsv"):
        mover = gyoku.impasse(start, lenient=True)["turn"]
        named = None if initial == "-" else initial
        for rules, expected in (("81dojo", r27), ("jsa", r24)):
            g = gyoku.Game(rules=rules, sfen=start, max_moves=0, initial=named, lenient=True)
            g.declare()
            assert judged(g, mover) == expected, (source, rules)
        g = gyoku.Game(rules="lishogi", sfen=start, initial=named, lenient=True)
        assert (g.outcome is not None) == (r27 == "WIN"), (source, "lishogi")
        # csa gives no credit.
        g = gyoku.Game(rules="csa", sfen=start, max_moves=0, initial=named, lenient=True)
        assert g.handicap_credit == 0
        g.declare()
        assert g.outcome["reason"] == "failed_declaration", source
        # The calculator agrees when told the initial position.
        report = gyoku.impasse(start, initial=named, lenient=True)
        assert report["verdicts"]["81dojo"]["declaration"] == ("win" if r27 == "WIN" else "lose"), source


def test_an_unreadable_initial_position_is_refused_as_the_calculator_refuses_it():
    """Issue 28, item 22: `gyoku.Game(initial="two_piece")` gave a credit of 0 silently,
    where `gyoku.impasse` and the CLI refuse the name."""
    with pytest.raises(ValueError) as calculator:
        gyoku.impasse("startpos", initial="two_piece")
    with pytest.raises(ValueError) as game:
        gyoku.Game(rules="81dojo", initial="two_piece")
    assert str(game.value) == str(calculator.value)
    assert "sfen" in str(game.value)
    # A name the CLI knows still gives its credit.
    assert gyoku.Game(rules="81dojo", sfen="2-piece", initial="2-piece").handicap_credit == 10


def test_sennichite_and_perpetual_check_sequences():
    table = rows("repetition.tsv")
    assert len(table) >= 20
    for start, moves, rules, result, reason, ply, source in table:
        moves = expand(moves)
        assert str(len(moves)) == ply, source
        g = gyoku.Game(rules=rules, sfen=sfen(start))
        b = gyoku.Board(sfen(start))
        for i, m in enumerate(moves):
            assert g.outcome is None, (source, i)
            g.move(m)
            b.push_usi(m)
        if result == "none":
            assert g.outcome is None and b.repetitions() < 3, source
            continue
        assert b.repetitions() == 3, source
        o = g.outcome
        assert (o["result"], o["reason"], str(o["ply"])) == (result, reason, ply), source
        assert o["detail"]["occurrences"][3] == o["ply"], source


def test_uchifuzume_lost_or_refused():
    for start, move, expected, source in rows("uchifuzume.tsv"):
        mover = gyoku.Board(start, lenient=True).turn
        lost = gyoku.Game(rules="csa", sfen=start, lenient=True)
        lost.move(move)
        friendly = gyoku.Game(rules="friendly", sfen=start, lenient=True)
        if expected == "legal":
            assert lost.outcome is None, source
            friendly.move(move)
            continue
        o = lost.outcome
        assert o["result"] != mover and o["reason"] == "illegal_move", source
        assert o["detail"]["foul"] == "uchifuzume", source
        with pytest.raises(gyoku.IllegalMoveError) as e:
            friendly.move(move)
        assert e.value.kind == "uchifuzume" and friendly.moves == [], source


def test_games_starting_at_or_past_a_move_limit():
    table = rows("move-limits.tsv")
    assert len(table) >= 20
    for start, rules, actions, result, reason, ply, calc, credit, source in table:
        g = gyoku.Game(rules=rules, sfen=start, lenient=True)
        for token in actions.split():
            if token == "-":
                continue
            over = g.outcome is not None
            try:
                {"win": g.declare, "agree": g.agree}.get(token, lambda: g.move(token))()
                assert not over, (source, token)
            except gyoku.GameError as e:
                if e.code == "game_over":
                    assert over, (source, token)
                else:
                    assert result == "-", (source, token, str(e))
        o = g.outcome
        if o is None:
            assert (result, reason) == ("-", "-"), source
        else:
            assert (o["result"], o["reason"], str(o["ply"])) == (result, reason, ply), source
        report = gyoku.impasse(start, lenient=True)
        assert report["verdicts"][rules]["declaration"] == calc, source
        assert str(gyoku.Game(rules=rules, sfen=start, lenient=True).handicap_credit) == credit, source


# --- The CLI's judge cases (crates/gyoku-cli/tests/cli.rs), through gyoku.Game. ---

def play(rules="jsa", sfen=None, tokens="", **options):
    """`gyoku judge --moves TOKENS`: moves and the actions resign, win, agree, timeout."""
    g = gyoku.Game(rules=rules, sfen=sfen, **options)
    for token in tokens.split():
        if token == "resign":
            g.resign(g.turn)
        elif token == "win":
            g.declare()
        elif token == "agree":
            g.agree()
        elif token == "timeout":
            g.time_up(g.turn)
        else:
            g.move(token)
    return g


def test_judge_cases_of_the_cli():
    g = play(tokens="7g7f 3c3d 8h2b+ 3a2b B*4e resign")
    o = g.outcome
    assert (o["result"], o["reason"], o["ply"], o["detail"]["by"]) == ("black", "resignation", 6, "white")
    assert o["sfen"].endswith(" w b 6")
    assert play(tokens="7g7f").outcome is None
    cycle = "2h3h 8b7b 3h2h 7b8b " * 3
    o = play("jsa", tokens=cycle).outcome
    assert (o["result"], o["reason"], o["ply"], o["detail"]["occurrences"]) == (
        "no_contest", "sennichite", 12, [0, 4, 8, 12])
    assert play("csa", tokens=cycle).outcome["result"] == "draw"
    assert play("csa", tokens=cycle, sennichite="no-contest").outcome["result"] == "no_contest"
    o = play("csa", "RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b 2P 1", "win").outcome
    assert (o["result"], o["reason"], o["detail"]["count"]["declaration_points"]) == ("black", "declaration", 28)
    o = play("csa", tokens="win").outcome
    assert (o["result"], o["reason"], o["detail"]["failed"]) == ("white", "failed_declaration", "king_not_entered")
    o = play("csa", "R6sk/9/7G1/9/9/9/9/9/4K4 b P 1", "P*1b").outcome
    assert (o["result"], o["reason"], o["detail"]["foul"]) == ("white", "illegal_move", "uchifuzume")
    o = play("csa", tokens="7g7f timeout").outcome
    assert (o["result"], o["reason"]) == ("black", "time_up")


def test_overrides_and_refusals_of_the_cli():
    past = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 300"
    o = play("csa", past).outcome
    assert (o["reason"], o["detail"]["limit"], o["ply"]) == ("move_limit", 256, 0)
    assert play("csa", past, "7g7f", max_moves=320).outcome is None
    # Friendly rules refuse a foul, in the CLI's words after `--moves: ply 3 '7f7d' refused: `.
    with pytest.raises(gyoku.IllegalMoveError) as e:
        play("friendly", tokens="7g7f 3c3d 7f7d")
    assert str(e.value) == "illegal move refused: bad_movement (the piece cannot move that way)"
    assert e.value.kind == "bad_movement"
    # Tournament rules with fouls refused, and friendly ones with fouls lost.
    with pytest.raises(gyoku.IllegalMoveError):
        play("jsa", tokens="7g7f 3c3d 7f7d", fouls="refuse")
    assert play("friendly", tokens="7g7f 3c3d 7f7d", fouls="lose").outcome["reason"] == "illegal_move"
    with pytest.raises(gyoku.GameError) as e:
        play(tokens="7g7f resign 3c3d")
    assert e.value.code == "game_over" and "the game is already over" in str(e.value)
    with pytest.raises(ValueError, match=r"^rules: unknown rule set 'nope'"):
        gyoku.Game(rules="nope")
    with pytest.raises(ValueError, match=r"^fouls 'maybe': lose, refuse or claim$"):
        gyoku.Game(fouls="maybe")
    with pytest.raises(ValueError, match=r"^sennichite: 'x' is not 'draw' or 'no-contest'$"):
        gyoku.Game(sennichite="x")
    with pytest.raises(ValueError, match=r"^usi move '7g7x'"):
        play(tokens="7g7x")
    with pytest.raises(ValueError, match=r"^color: 'red'"):
        gyoku.Game().resign("red")
    assert play(sfen="2-piece", tokens="3c3d").outcome is None


def test_agreement_needs_the_rule():
    both = "K8/9/9/9/9/9/9/9/8k b RB2G2S2N2L9Prb2g2s2n2l9p 1"
    g = play("jsa", both, "agree")
    assert (g.outcome["reason"], g.outcome["result"]) == ("impasse_agreement", "no_contest")
    with pytest.raises(gyoku.GameError) as e:
        play("csa", both, "agree")
    assert e.value.code == "no_agreement_rule"


def test_readme_entering_kings_game_per_preset():
    with open(data("games", "entering-kings.usi"), encoding="utf-8") as f:
        moves = f.read().strip()
    for rules, result, reason, ply in (("csa", "white", "declaration", 140),
                                       ("81dojo", "white", "declaration", 140),
                                       ("jsa-amateur", "white", "declaration", 140),
                                       ("jsa", "no_contest", "declaration", 140)):
        o = play(rules, tokens=moves).outcome
        assert (o["result"], o["reason"], o["ply"]) == (result, reason, ply), rules
    before = moves.removesuffix(" win")
    for rules in ("lishogi", "shogi-wars"):
        o = play(rules, tokens=before).outcome
        assert (o["result"], o["reason"], o["ply"]) == ("white", "automatic_impasse", 139), rules
    r = gyoku.impasse(moves=before.split())
    assert r["white"]["declaration_points"] == 27 and r["black"]["entered"]
    assert r["verdicts"]["jsa"]["agreement"] == "no_contest"
    g = play("jsa", tokens=before)
    assert g.impasse()["verdicts"]["jsa"]["agreement"] == "no_contest"


def test_impasse_calculator_of_the_cli():
    r = gyoku.impasse("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b P 1")
    assert r["black"] == {"entered": True, "zone_count": 10, "total_points": 27,
                          "declaration_points": 27, "in_check": False}
    assert r["verdicts"]["csa"] == {"declaration": "lose", "declaration_failure": "points",
                                    "agreement": "not_available", "ended": None}
    assert r["verdicts"]["jsa"]["declaration"] == "no_contest"
    assert r["verdicts"]["try"]["declaration_failure"] == "no_rule"
    assert r["moves_counted"] == 0 and len(r["verdicts"]) == len(gyoku.presets()) == 16
    assert set(gyoku.presets()) == set(r["verdicts"])
    r = gyoku.impasse("9/9/9/9/9/9/3p1lllg/+P+P2kssgg/K+P4ssg w r 2", initial="2-piece", lenient=True)
    assert (r["white"]["declaration_points"], r["handicap_credit"]) == (27, 10)
    assert (r["verdicts"]["81dojo"]["declaration"], r["verdicts"]["csa"]["declaration"]) == ("win", "lose")
    r = gyoku.impasse("2-piece")
    assert (r["handicap_credit"], r["white"]["total_points"]) == (10, 27)
    r = gyoku.impasse("startpos", ["7g7f", "3c3d"])
    assert r["sfen"].endswith(" b - 3")
    with pytest.raises(gyoku.IllegalMoveError):
        gyoku.impasse("startpos", ["7g7f", "7g7f"])


def test_board_and_game_agree_along_random_games():
    """Seeded random games, half of them steered into repetitions (a move that goes back
    where the last-but-one came from is preferred): Board accepts what Game accepts, and
    Board's fourth occurrence is where Game ends by sennichite or perpetual check."""
    endings = set()
    for seed in range(60):
        rng = random.Random(seed)
        b, g = gyoku.Board(), gyoku.Game(rules="csa", max_moves=0)
        while g.outcome is None and len(g.moves) < 400:
            legal = b.legal_moves
            assert legal and all(b.check_move(m) is None for m in legal), seed
            back = [m for m in legal if len(b.moves) >= 2 and b.moves[-2][2:4] == m[0:2]
                    and b.moves[-2][0:2] == m[2:4]]
            m = rng.choice(back) if back and seed % 2 else rng.choice(legal)
            b.push_usi(m)
            g.move(m)
            assert g.sfen() == b.sfen(), seed
            repeated = g.outcome is not None and g.outcome["reason"] in ("sennichite", "perpetual_check")
            assert repeated == (b.repetitions() == 3), (seed, len(b.moves))
        if g.outcome is not None:
            endings.add(g.outcome["reason"])
            if g.outcome["reason"] == "checkmate":
                assert b.is_check() and b.is_game_over()
    assert "sennichite" in endings, endings


def test_agreed_sennichite_and_claimed_fouls():
    """Issue 41: the JSA's sennichite by agreement once the position has repeated, and
    fouls that stand only when claimed (amateur events)."""
    game = gyoku.Game(rules="jsa")
    for usi in ["2h3h", "8b7b", "3h2h", "7b8b"]:
        game.move(usi)
    game.agree_sennichite()
    assert (game.outcome["result"], game.outcome["reason"]) == ("no_contest", "agreed_sennichite")
    with pytest.raises(gyoku.GameError) as e:
        gyoku.Game(rules="csa").agree_sennichite()
    assert e.value.code == "no_sennichite_agreement"
    nifu = gyoku.Game(rules="jsa-amateur", fouls="claim", sfen="4k4/9/4p4/9/9/9/4P4/9/4K4 b P 1")
    nifu.move("P*5e")
    assert nifu.outcome is None
    nifu.claim("white")
    assert (nifu.outcome["result"], nifu.outcome["reason"]) == ("white", "claimed_foul")
