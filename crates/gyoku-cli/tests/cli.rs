//! Runs the `gyoku` binary: output shapes, exit codes and error messages.

use std::process::{Command, Output};

fn gyoku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gyoku"))
        .args(args)
        .output()
        .expect("run gyoku")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap()
}

/// The JSON of a command whose answer is "no" (exit status 1: an illegal move, a record
/// that differs), said on standard output all the same.
fn json_of_no(out: &Output) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap()
}

#[test]
fn perft_counts_and_json_shape() {
    let v = json(&gyoku(&["perft", "4", "--json"]));
    assert_eq!(v["nodes"], 719_731);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["nps"].as_f64().unwrap() >= 0.0);
    let text = stdout(&gyoku(&["perft", "3"]));
    assert!(text.contains("nodes   25470"), "{text}");
}

#[test]
fn perft_divide_and_sfen() {
    let sfen = "R6sk/9/7G1/9/9/9/9/9/4K4 b P 1";
    let v = json(&gyoku(&[
        "perft", "--sfen", sfen, "2", "--divide", "--json",
    ]));
    assert_eq!(v["nodes"], 56);
    let divide = v["divide"].as_object().unwrap();
    assert_eq!(divide.len(), 110);
    assert!(!divide.contains_key("P*1b"));
    let text = stdout(&gyoku(&["perft", "--sfen", sfen, "1", "--divide"]));
    assert!(
        text.contains("L*1b: 1") || text.contains("9a8a: 1"),
        "{text}"
    );
}

#[test]
fn moves_lists_legal_moves() {
    let v = json(&gyoku(&["moves", "--json"]));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 30);
    assert!(moves.iter().any(|m| m == "7g7f"));
    let v = json(&gyoku(&["moves", "--json", "--moves", "7g7f 3c3d 8h2b+"]));
    assert!(v["moves"].as_array().unwrap().iter().any(|m| m == "3a2b"));
    let text = stdout(&gyoku(&[
        "moves",
        "--sfen",
        "ln2+r1r2/5s+Pkl/3+B1p1p1/p4B2p/2P6/P6PP/1PNP1P3/2G3SK1/L4G1NL w 2GSN3Ps3p 76",
    ]));
    assert!(text.starts_with("2 legal moves (in check)"), "{text}");
    let mated = "+R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200";
    let text = stdout(&gyoku(&["moves", "--sfen", mated]));
    assert!(text.starts_with("0 legal moves (no legal move)"), "{text}");
}

#[test]
fn check_move_names_the_kind() {
    // Issue 47, item 7: an illegal move exits 1 (as `diff` does for "differs"), a legal
    // one 0, a move that does not read 2; the answer is printed either way.
    let v = json_of_no(&gyoku(&[
        "check-move",
        "--sfen",
        "R6sk/9/7G1/9/9/9/9/9/4K4 b P 1",
        "P*1b",
        "--json",
    ]));
    assert_eq!(v, serde_json::json!({"legal": false, "kind": "uchifuzume"}));
    let v = json(&gyoku(&["check-move", "7g7f", "--json"]));
    assert_eq!(v, serde_json::json!({"legal": true}));
    let out = gyoku(&["check-move", "3c3d"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out).trim(),
        "3c3d: illegal: out_of_turn (a piece of the side not to move)"
    );
    assert_eq!(stderr(&out), "");
}

/// The impasse calculator's mate prospects (issue 48): each side as the attacker, the
/// side not to move searched as if it were its turn; `--mate-nodes 0` skips them.
#[test]
fn impasse_says_whether_either_king_can_still_be_mated() {
    let sfen = "4k4/9/4P4/9/9/9/9/9/4K4 w Gp 1";
    let v = json(&gyoku(&["impasse", "--json", "--sfen", sfen]));
    assert_eq!(v["mate_by"]["black"]["result"], "mate", "{v}");
    assert_eq!(v["mate_by"]["black"]["plies"], 1, "{v}");
    assert_eq!(v["mate_by"]["black"]["line"], serde_json::json!(["G*5b"]));
    assert_eq!(v["mate_by"]["white"]["result"], "no_mate", "{v}");
    assert_eq!(v["mate_by"]["nodes_each"], 100_000, "{v}");
    let v = json(&gyoku(&[
        "impasse",
        "--json",
        "--sfen",
        sfen,
        "--mate-nodes",
        "0",
    ]));
    assert!(v["mate_by"].is_null(), "{v}");
    // A budget too small: Black's mate in 17 from the corner is not found in 10 nodes.
    let corner = "K8/9/9/9/9/9/9/9/8k b RB2G2S2N2L9Prb2g2s2n2l9p 1";
    let out = gyoku(&["impasse", "--sfen", corner, "--mate-nodes", "10"]);
    let text = stdout(&out);
    assert!(
        text.contains("can still mate (by checks; 10 nodes each)\nblack   no mate within the budget\nwhite   no mate within the budget\n"),
        "{text}"
    );
}

/// `gyoku mate` (issue 48): the JSON contract, each of the three answers, a tsume SFEN
/// without the attacker's king, and a budget or a time that runs out.
#[test]
fn mate_answers_mate_no_mate_or_unknown() {
    let mate = |extra: &[&str]| {
        let mut args = vec!["mate", "--json", "--table-size", "1MiB"];
        args.extend_from_slice(extra);
        json(&gyoku(&args))
    };
    // The pawn may not be dropped to mate; the rook's capture mates in three.
    let v = mate(&["--sfen", "R6sk/9/7G1/9/9/9/9/9/4K4 b P 1"]);
    assert_eq!(v["result"], "mate");
    assert_eq!(v["plies"], 3);
    assert_eq!(v["line"], serde_json::json!(["9a2a+", "1a2a", "S*2b"]));
    assert_eq!(v["nodes"], 0, "a mate in three needs no df-pn");
    // Only the pawn drop would mate: no mate, proved.
    let v = mate(&["--sfen", "7nk/9/7G1/9/9/9/9/9/4K4 b P 1"]);
    assert_eq!(
        (&v["result"], &v["plies"]),
        (&"no_mate".into(), &serde_json::Value::Null)
    );
    assert_eq!(v["line"], serde_json::json!([]));
    // A tsume problem (no Black king) that takes nine plies, solved by the df-pn.
    let v = mate(&["--sfen", "9/9/k8/3+R5/9/9/9/9/9 b 2G 1"]);
    assert_eq!(v["result"], "mate");
    assert!(
        v["plies"].as_u64().is_some_and(|n| n >= 5 && n % 2 == 1),
        "{v}"
    );
    assert!(v["nodes"].as_u64().is_some_and(|n| n > 0), "{v}");
    // A budget too small to say, in nodes or in time.
    let v = mate(&["--sfen", "9/9/k8/3+R5/9/9/9/9/9 b 2G 1", "--nodes", "3"]);
    assert_eq!(v["result"], "unknown");
    let v = mate(&["--sfen", "9/s5k2/9/9/9/9/9/9/9 b RBG 1", "--time", "50ms"]);
    assert_eq!(v["result"], "unknown");
    // The text form.
    let out = gyoku(&["mate", "--sfen", "4k4/9/4P4/9/9/9/9/9/4K4 b G 1"]);
    assert!(
        stdout(&out).starts_with("mate in 1: G*5b\n"),
        "{}",
        stdout(&out)
    );
    let out = gyoku(&["mate", "--sfen", "4k4/9/9/9/9/9/9/9/4K4 b P 1"]);
    assert!(
        stdout(&out).starts_with("no mate (proved)\n"),
        "{}",
        stdout(&out)
    );
    let out = gyoku(&["mate", "--sfen", "4k4/9/9/9/9/9/9/9/4K4 b X 1"]);
    assert_eq!(out.status.code(), Some(2));
    let out = gyoku(&["mate", "--nodes", "5", "--time", "1s"]);
    assert_eq!(out.status.code(), Some(2), "--nodes and --time together");
}

#[test]
fn malformed_input_exits_2_and_says_where() {
    let out = gyoku(&["moves", "--sfen", "4k4/9/9/9/9/9/9/9/4K4 b RXp 1"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out).trim(),
        "gyoku: sfen: field 3 (hands): unknown piece 'X' at column 2"
    );
    let out = gyoku(&["check-move", "7g7z"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bad rank 'z' at column 4"));
    let out = gyoku(&["perft", "--sfen", "4k4/9/9/9/9/9/9/9/4K3 b - 1", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("field 1 (board): rank 9 describes 8 squares"));
    let out = gyoku(&["moves", "--moves", "7g7f 7g7f"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("move 2 '7g7f' is illegal: bad_movement"),
        "{}",
        stderr(&out)
    );
    let out = gyoku(&["perft", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn illegal_positions_need_lenient() {
    let tsume = "3rkr3/9/8p/4N4/1B7/9/1SG6/2S6/9 b LPp 1";
    let out = gyoku(&["moves", "--sfen", tsume]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing king"));
    let v = json(&gyoku(&["moves", "--sfen", tsume, "--lenient", "--json"]));
    let moves = v["moves"].as_array().unwrap();
    assert!(moves.iter().any(|m| m == "L*5b"));
    assert!(!moves.iter().any(|m| m == "P*5b"));
    // Never accepted: the side not to move in check.
    let out = gyoku(&[
        "moves",
        "--lenient",
        "--sfen",
        "4k4/4R4/9/9/9/9/9/9/4K4 b - 1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("the side not to move is in check"));
    // Never accepted: more lances than a hand can count.
    let out = gyoku(&[
        "moves",
        "--lenient",
        "--sfen",
        "4k4/LLLLLLLLL/LLLLLLL2/9/9/9/9/9/4K4 b - 1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("more pieces of a kind than a hand can hold"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn judge_json_shape_and_reasons() {
    let v = json(&gyoku(&[
        "judge",
        "--moves",
        "7g7f 3c3d 8h2b+ 3a2b B*4e resign",
        "--json",
    ]));
    assert_eq!(v["result"], "black");
    assert_eq!(v["reason"], "resignation");
    assert_eq!(v["ply"], 6);
    assert_eq!(v["detail"]["by"], "white");
    assert!(v["sfen"].as_str().unwrap().ends_with(" w b 6"));
    // Not over: nulls and the ply count.
    let v = json(&gyoku(&["judge", "--moves", "7g7f", "--json"]));
    assert_eq!(
        (v["result"].clone(), v["reason"].clone(), v["ply"].clone()),
        (serde_json::Value::Null, serde_json::Value::Null, 1.into())
    );
    // Sennichite under jsa is no contest; under csa a draw.
    let cycle = "2h3h 8b7b 3h2h 7b8b 2h3h 8b7b 3h2h 7b8b 2h3h 8b7b 3h2h 7b8b";
    let v = json(&gyoku(&[
        "judge", "--moves", cycle, "--rules", "jsa", "--json",
    ]));
    assert_eq!(
        (
            v["result"].as_str(),
            v["reason"].as_str(),
            v["ply"].as_u64()
        ),
        (Some("no_contest"), Some("sennichite"), Some(12))
    );
    assert_eq!(v["detail"]["occurrences"], serde_json::json!([0, 4, 8, 12]));
    let v = json(&gyoku(&["judge", "--moves", cycle, "--json"]));
    assert_eq!(v["result"], "draw");
    // A declaration with `win`, a foul, a failed declaration.
    let v = json(&gyoku(&[
        "judge",
        "--sfen",
        "RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b 2P 1",
        "--moves",
        "win",
        "--json",
    ]));
    assert_eq!(
        (v["result"].as_str(), v["reason"].as_str()),
        (Some("black"), Some("declaration"))
    );
    assert_eq!(v["detail"]["count"]["declaration_points"], 28);
    let v = json(&gyoku(&["judge", "--moves", "win", "--json"]));
    assert_eq!(
        (v["result"].as_str(), v["reason"].as_str()),
        (Some("white"), Some("failed_declaration"))
    );
    assert_eq!(v["detail"]["failed"], "king_not_entered");
    let v = json(&gyoku(&[
        "judge",
        "--sfen",
        "R6sk/9/7G1/9/9/9/9/9/4K4 b P 1",
        "--moves",
        "P*1b",
        "--json",
    ]));
    assert_eq!(
        (v["result"].as_str(), v["reason"].as_str()),
        (Some("white"), Some("illegal_move"))
    );
    assert_eq!(v["detail"]["foul"], "uchifuzume");
}

#[test]
fn judge_overrides_and_refusals() {
    // Move 300 is past csa's 256: the game is over before any move (issue 16).
    let sfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 300";
    let v = json(&gyoku(&["judge", "--sfen", sfen, "--moves", "", "--json"]));
    assert_eq!(
        (
            v["reason"].as_str(),
            v["detail"]["limit"].as_u64(),
            v["ply"].as_u64()
        ),
        (Some("move_limit"), Some(256), Some(0))
    );
    let v = json(&gyoku(&[
        "judge",
        "--sfen",
        sfen,
        "--moves",
        "7g7f",
        "--max-moves",
        "320",
        "--json",
    ]));
    assert_eq!(v["reason"], serde_json::Value::Null);
    // Under friendly rules an illegal move is refused: an input error naming the ply.
    let out = gyoku(&["judge", "--rules", "friendly", "--moves", "7g7f 3c3d 7f7d"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out).trim(),
        "gyoku: --moves: ply 3 '7f7d' refused: illegal move refused: bad_movement (the piece cannot move that way)"
    );
    let out = gyoku(&["judge", "--moves", "7g7f resign 3c3d"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("ply 3 '3c3d': the game is already over"));
    let out = gyoku(&["judge", "--rules", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--rules: unknown rule set 'nope'"));
    let out = gyoku(&["judge", "--moves", "7g7x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("ply 1: usi move '7g7x'"));
    let out = gyoku(&["judge", "--fouls", "maybe"]);
    assert_eq!(out.status.code(), Some(2));
    // A handicap by name starts the game; White moves first.
    let v = json(&gyoku(&[
        "judge", "--sfen", "2-piece", "--moves", "3c3d", "--json",
    ]));
    assert_eq!(v["reason"], serde_json::Value::Null);
}

#[test]
fn impasse_calculator_json() {
    let v = json(&gyoku(&[
        "impasse",
        "--sfen",
        "RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b P 1",
        "--json",
    ]));
    assert_eq!(
        v["black"],
        serde_json::json!({"entered": true, "zone_count": 10, "total_points": 27, "declaration_points": 27, "in_check": false})
    );
    assert_eq!(
        v["verdicts"]["csa"],
        serde_json::json!({"declaration": "lose", "declaration_failure": "points",
            "agreement": "not_available", "ended": null})
    );
    assert_eq!(v["verdicts"]["jsa"]["declaration"], "no_contest");
    // Under try (no declaration, fouls lose) a declaration loses, as `judge --moves win` says.
    assert_eq!(v["verdicts"]["try"]["declaration"], "lose");
    assert_eq!(v["verdicts"]["try"]["declaration_failure"], "no_rule");
    assert_eq!(v["moves_counted"], 0);
    assert_eq!(v["verdicts"].as_object().unwrap().len(), 16);
    // Handicap credit from --initial.
    let sfen = "9/9/9/9/9/9/3p1lllg/+P+P2kssgg/K+P4ssg w r 2";
    let v = json(&gyoku(&[
        "impasse",
        "--lenient",
        "--sfen",
        sfen,
        "--initial",
        "2-piece",
        "--json",
    ]));
    assert_eq!(v["white"]["declaration_points"], 27);
    assert_eq!(v["handicap_credit"], 10);
    assert_eq!(v["verdicts"]["81dojo"]["declaration"], "win");
    assert_eq!(v["verdicts"]["csa"]["declaration"], "lose");
    // A recognised handicap start is its own initial position: credit without --initial.
    let v = json(&gyoku(&["impasse", "--sfen", "2-piece", "--json"]));
    assert_eq!(v["handicap_credit"], 10);
    assert_eq!(v["white"]["total_points"], 27);
    let text = stdout(&gyoku(&["impasse"]));
    assert!(text.contains("black   no"), "{text}");
}

#[test]
fn rules_lists_and_prints_presets() {
    let text = stdout(&gyoku(&["rules"]));
    for name in [
        "jsa",
        "jsa-amateur",
        "csa",
        "81dojo",
        "lishogi",
        "shogi-wars",
        "try",
        "saw",
        "friendly",
        "none",
        "csa24",
        "csa24h",
        "csa27h",
        "wcsc",
        "denryu",
        "floodgate",
    ] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name}");
    }
    // Issue 41, item 5: every preset as data with its digest, each its own.
    let all = json(&gyoku(&["rules", "--json"]));
    let presets = all["presets"].as_array().unwrap();
    assert!(presets.len() >= 16, "{}", presets.len());
    let mut digests: Vec<&str> = presets
        .iter()
        .map(|p| {
            assert!(
                p["rules"]["fouls"].is_string() && p["fields"].is_object(),
                "{p}"
            );
            let d = p["digest"].as_str().unwrap();
            assert!(
                d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit()),
                "{d}"
            );
            d
        })
        .collect();
    digests.sort_unstable();
    digests.dedup();
    assert_eq!(digests.len(), presets.len());
    let wcsc = presets.iter().find(|p| p["name"] == "wcsc").unwrap();
    assert_eq!(wcsc["clock"]["main_ms"], 900_000);
    assert_eq!(wcsc["rules"]["move_limit"]["plies"], 320);
    // One preset's digest is the list's, and an override changes it.
    let csa = json(&gyoku(&["rules", "csa", "--json"]));
    let listed = presets.iter().find(|p| p["name"] == "csa").unwrap();
    assert_eq!(csa["digest"], listed["digest"]);
    let v = json(&gyoku(&["rules", "csa", "--max-moves", "320", "--json"]));
    assert!(
        v["fields"]["move_limit"]
            .as_str()
            .unwrap()
            .starts_with("320 plies")
    );
    assert_eq!(v["fields"].as_object().unwrap().len(), 13);
    assert_ne!(v["digest"], csa["digest"], "--max-moves 320 is other rules");
    assert_eq!(gyoku(&["rules", "fide"]).status.code(), Some(2));
}

/// The README's long game (made by `cargo run --release -p gyoku --example entering_kings
/// -- 4`): both kings enter, White declares on ply 140 with 27 points.
#[test]
fn readme_entering_kings_game_per_preset() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/games/entering-kings.usi"
    );
    let moves = std::fs::read_to_string(path).unwrap();
    let moves = moves.trim();
    for (rules, result, reason, ply) in [
        ("csa", "white", "declaration", 140),
        ("81dojo", "white", "declaration", 140),
        ("jsa-amateur", "white", "declaration", 140),
        ("jsa", "no_contest", "declaration", 140),
    ] {
        let v = json(&gyoku(&[
            "judge", "--moves", moves, "--rules", rules, "--json",
        ]));
        assert_eq!(
            (
                v["result"].as_str(),
                v["reason"].as_str(),
                v["ply"].as_u64()
            ),
            (Some(result), Some(reason), Some(ply)),
            "{rules}"
        );
    }
    // lishogi and Shogi Wars take the impasse automatically at the start of White's turn.
    let before = moves.trim_end_matches(" win");
    for rules in ["lishogi", "shogi-wars"] {
        let v = json(&gyoku(&[
            "judge", "--moves", before, "--rules", rules, "--json",
        ]));
        assert_eq!(
            (
                v["result"].as_str(),
                v["reason"].as_str(),
                v["ply"].as_u64()
            ),
            (Some("white"), Some("automatic_impasse"), Some(139)),
            "{rules}"
        );
    }
    let v = json(&gyoku(&["impasse", "--moves", before, "--json"]));
    assert_eq!(v["white"]["declaration_points"], 27);
    assert_eq!(v["black"]["entered"], true);
    assert_eq!(v["verdicts"]["jsa"]["agreement"], "no_contest");
}

fn data(path: &str) -> String {
    format!(
        "{}/../../tests/data/records/{path}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn judge_record_files() {
    // One record: the object of `judge --moves` plus recorded and agrees.
    let v = json(&gyoku(&["judge", &data("kif/sjis.kif"), "--json"]));
    assert_eq!(
        (
            v["result"].as_str(),
            v["reason"].as_str(),
            v["ply"].as_u64()
        ),
        (Some("black"), Some("resignation"), Some(6))
    );
    assert_eq!(
        v["recorded"],
        serde_json::json!({"end": "resignation", "result": "black", "end_result": "black",
            "summary": null, "checked": "end", "statements_disagree": false})
    );
    assert_eq!(v["agrees"], true);
    assert_eq!(v["why"], serde_json::Value::Null);
    assert_eq!(
        v["limit"],
        serde_json::json!({"plies": 256, "from": "rules"})
    );
    // A foul in a record decides at its ply; the JSA lets a later resignation stand.
    // (It differs from the record, which says Black won by resignation: exit status 1.)
    let v = json_of_no(&gyoku(&["judge", &data("csa/nifu.csa"), "--json"]));
    assert_eq!(
        (
            v["result"].as_str(),
            v["reason"].as_str(),
            v["ply"].as_u64()
        ),
        (Some("white"), Some("illegal_move"), Some(9))
    );
    assert_eq!(
        (v["detail"]["foul"].as_str(), v["agrees"].as_bool()),
        (Some("nifu"), Some(false))
    );
    let v = json(&gyoku(&[
        "judge",
        &data("kif/unnoticed-foul.kifu"),
        "--rules",
        "jsa",
        "--json",
    ]));
    assert_eq!(
        (
            v["result"].as_str(),
            v["reason"].as_str(),
            v["ply"].as_u64()
        ),
        (Some("black"), Some("resignation"), Some(12))
    );
    assert_eq!(v["detail"]["unnoticed_foul"]["kind"], "nifu");
    assert_eq!(v["decided_by"], "resignation_stands");
    // A record's own move limit applies; --max-moves overrides it.
    let v = json(&gyoku(&["judge", &data("csa/v3-utf8.csa"), "--json"]));
    assert_eq!(
        (v["reason"].as_str(), v["agrees"].as_bool()),
        (Some("move_limit"), Some(true))
    );
    let v = json_of_no(&gyoku(&[
        "judge",
        &data("csa/v3-utf8.csa"),
        "--max-moves",
        "0",
        "--json",
    ]));
    assert_eq!(v["reason"], serde_json::Value::Null);
    // Several records (a directory, a two-game file): an array, and a readable summary.
    let v = json_of_no(&gyoku(&[
        "judge",
        &data("usi"),
        &data("csa/two-games.csa"),
        "--json",
    ]));
    assert_eq!(v.as_array().unwrap().len(), 5);
    let out = gyoku(&["judge", &data("csa"), &data("kif"), &data("usi")]);
    assert_eq!(out.status.code(), Some(1), "some differ");
    let text = stdout(&out);
    assert!(text.contains("24 records judged, 0 unreadable"), "{text}");
    assert!(text.contains("differ from their records:"), "{text}");
    // One record: its line says both ends in words, then the summary names it.
    let out = gyoku(&["judge", &data("csa/nifu.csa")]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(
            "nifu.csa: white by illegal_move at ply 9 (recorded: black by resignation)  << differs"
        ),
        "{text}"
    );
    assert!(text.contains("\n1 record judged, 0 unreadable\n"), "{text}");
    assert!(
        text.contains("results: white 1\nreasons: illegal_move 1\n"),
        "{text}"
    );
    assert!(text.contains("1 differs from its record:\n  "), "{text}");
}

#[test]
fn unreadable_records_say_file_line_column() {
    // Each unreadable file says where, and `judge` exits 2. Issue 47, item 2: a CSA board
    // that leaves out a row is an error, not a White without its rook and bishop; item 1:
    // a KIF board diagram is read by its rank labels, and one with a row left out is an
    // error where the board ends (it read every row below one rank too high).
    for (file, says) in [
        (
            "bad-piece.csa",
            "bad-piece.csa:4:6: unknown piece 'XX' (csa)",
        ),
        (
            "missing-row.csa",
            "missing-row.csa:12:1: the board lacks P2 (a CSA board gives all nine rows, P1 to P9) (csa)",
        ),
        (
            "partial-board.kifu",
            "partial-board.kifu:8:1: the board lacks rows 四, 五, 六, 七, 八, 九 (a KIF board gives all nine, 一 to 九) (kif)",
        ),
        (
            "missing-rank.kifu",
            "missing-rank.kifu:15:1: the board lacks row 六 (a KIF board gives all nine, 一 to 九) (kif)",
        ),
    ] {
        let out = gyoku(&["judge", &data(&format!("errors/{file}"))]);
        assert_eq!(out.status.code(), Some(2), "{file}");
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
    }
    // A tsume problem's board drawn only as far as it reaches: an error, unless --lenient
    // reads it as what it gives.
    let out = gyoku(&["judge", &data("errors/partial-board.kifu"), "--lenient"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("black by checkmate at ply 1 (recorded: black by checkmate)"),
        "{}",
        stdout(&out)
    );
    let out = gyoku(&["judge", &data("errors")]);
    assert!(stderr(&out).contains("7 record file(s) could not be read"));
    assert!(
        stderr(&out).contains("bad-square.jkf:6:5: 'to' {\"x\": 10, \"y\": 4} is not a square"),
        "{}",
        stderr(&out)
    );
    let out = gyoku(&["judge", "no/such/file.kif"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn convert_between_formats() {
    let text = stdout(&gyoku(&["convert", &data("kif/sjis.kif"), "--to", "csa"]));
    assert!(
        text.starts_with("V2.2\n")
            && text.contains("+8822UM\nT10\n")
            && text.contains("%TORYO\nT5\n"),
        "{text}"
    );
    let text = stdout(&gyoku(&[
        "convert",
        &data("csa/two-games.csa"),
        "--to",
        "usi",
    ]));
    assert_eq!(text.lines().count(), 2);
    assert!(text.starts_with("position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e 4c4d resign\n"));
    let dir = std::env::temp_dir().join(format!("gyoku-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("game.kif");
    assert!(
        gyoku(&[
            "convert",
            &data("csa/eucjp.csa"),
            "--to",
            "kif",
            "--out",
            out.to_str().unwrap()
        ])
        .status
        .success()
    );
    let bytes = std::fs::read(&out).unwrap();
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "a .kif file is written in Shift_JIS"
    );
    let v = json(&gyoku(&["judge", out.to_str().unwrap(), "--json"]));
    assert_eq!(
        (v["reason"].as_str(), v["agrees"].as_bool()),
        (Some("resignation"), Some(true))
    );
    let many = gyoku(&["convert", &data("usi/games.usi"), "--to", "kif"]);
    assert_eq!(many.status.code(), Some(2));
    assert!(stderr(&many).contains("3 games, but a KIF, KI2 or JKF file holds one"));
    std::fs::remove_dir_all(&dir).unwrap();
    let ki2 = stdout(&gyoku(&["convert", &data("kif/sjis.kif"), "--to", "ki2"]));
    assert!(
        ki2.contains("▲７六歩　△３四歩\n*後手の応手\n▲２二角成　△同　銀　▲４五角\n"),
        "{ki2}"
    );
    assert!(
        ki2.contains("*後手の応手") && ki2.contains("まで5手で先手の勝ち\n\n変化："),
        "{ki2}"
    );
    let western = stdout(&gyoku(&[
        "convert",
        &data("kif/sjis.kif"),
        "--to",
        "western",
    ]));
    assert!(
        western.contains("[Sente \"先手さん\"]\n")
            && western.contains("[Result \"1-0\"]\n\n1. P-7f P-3d 2. Bx2b+ Sx2b 3. B*4e 1-0\n"),
        "{western}"
    );
    let jkf: serde_json::Value = serde_json::from_str(&stdout(&gyoku(&[
        "convert",
        &data("kif/sjis.kif"),
        "--to",
        "jkf",
    ])))
    .unwrap();
    assert_eq!(jkf["initial"]["preset"], "HIRATE");
    assert_eq!(jkf["moves"][3]["move"]["promote"], true);
    assert_eq!(jkf["moves"][4]["move"]["same"], true);
    assert_eq!(jkf["moves"][6]["special"], "TORYO");
    assert_eq!(jkf["moves"][5]["forks"][0][0]["move"]["piece"], "OU");
}

#[test]
fn impasse_of_a_record_at_a_ply_with_chart() {
    let game = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/games/entering-kings.usi"
    );
    let dir = std::env::temp_dir().join(format!("gyoku-chart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A .usi record of the README game: at the end White has 27 declaration points.
    let record = dir.join("game.usi");
    let moves = std::fs::read_to_string(game).unwrap();
    std::fs::write(
        &record,
        format!(
            "position startpos moves {}",
            moves.trim().trim_end_matches(" win")
        ),
    )
    .unwrap();
    let v = json(&gyoku(&["impasse", record.to_str().unwrap(), "--json"]));
    assert_eq!(v["white"]["declaration_points"], 27);
    let v = json(&gyoku(&[
        "impasse",
        record.to_str().unwrap(),
        "--ply",
        "60",
        "--json",
    ]));
    assert_eq!(
        (
            v["black"]["total_points"].as_u64(),
            v["white"]["total_points"].as_u64()
        ),
        (Some(37), Some(17))
    );
    let chart = dir.join("chart.svg");
    let out = gyoku(&[
        "impasse",
        record.to_str().unwrap(),
        "--chart",
        chart.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let svg = std::fs::read_to_string(&chart).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<polyline").count(), 6, "three series a side");
    for label in [">24<", ">27<", ">28<", ">31<"] {
        assert!(svg.contains(label), "{label}");
    }
    let out = gyoku(&["impasse", record.to_str().unwrap(), "--ply", "999"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn builtin_engine_speaks_usi() {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gyoku"))
        .args(["engine"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"usi\nisready\nposition sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1\ngo byoyomi 100\nquit\n",
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("id name Gyoku builtin (greedy)\n"),
        "{text}"
    );
    assert!(text.contains("option name EnteringKingRule type combo default CSARule27"));
    assert!(
        text.contains("usiok\nreadyok\ninfo depth 1 score mate 1 pv G*5b\nbestmove G*5b\n"),
        "{text}"
    );
}

#[test]
fn match_between_builtin_engines() {
    let engine = format!("{} engine", env!("CARGO_BIN_EXE_gyoku"));
    let random = format!("{engine} --style random --seed 7");
    let dir = std::env::temp_dir().join(format!("gyoku-cli-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = gyoku(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &random,
        "--games",
        "4",
        "--byoyomi",
        "200ms",
        "--out",
        dir.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["games"], 4);
    assert_eq!(v["engines"][0], "Gyoku builtin (greedy)");
    assert_eq!(v["engines"][1], "Gyoku builtin (random)");
    let w = v["wins"][0].as_u64().unwrap() + v["wins"][1].as_u64().unwrap();
    assert_eq!(w + v["draws"].as_u64().unwrap(), 4);
    assert_eq!(v["results"].as_array().unwrap().len(), 4);
    for n in 1..=4 {
        for ext in ["kif", "csa"] {
            let record = dir.join(format!("game-{n:04}.{ext}"));
            let judged = json(&gyoku(&["judge", record.to_str().unwrap(), "--json"]));
            assert_eq!(judged["agrees"], true, "{}", record.display());
        }
    }
    // The same command again finds the match finished.
    let again = json(&gyoku(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &random,
        "--games",
        "4",
        "--byoyomi",
        "200ms",
        "--out",
        dir.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(
        (again["resumed"].as_u64(), again["games"].as_u64()),
        (Some(4), Some(4))
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // Bad input: one engine, a bad time, a command that does not exist.
    let one = gyoku(&["match", "--engine", &engine]);
    assert_eq!(one.status.code(), Some(2));
    assert!(stderr(&one).contains("give exactly two engines"));
    let bad = gyoku(&[
        "match", "--engine", &engine, "--engine", &engine, "--time", "soon",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("time control: 'soon'"),
        "{}",
        stderr(&bad)
    );
    let missing = gyoku(&["match", "--engine", "/no/such/engine", "--engine", &engine]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("engine 1 ('/no/such/engine') cannot start"),
        "{}",
        stderr(&missing)
    );
}

/// Issue 29: `--sprt` plays pairs until the test decides: the greedy engine is far stronger
/// than the random one (H1), two random engines are not 300 Elo apart (H0); the records
/// judge to their results, the ratings read the match's results.jsonl, and the same
/// command again plays nothing more.
#[test]
fn an_sprt_match_stops_when_the_test_decides() {
    let engine = format!("{} engine", env!("CARGO_BIN_EXE_gyoku"));
    let random = format!("{engine} --style random --seed 7");
    let dir = std::env::temp_dir().join(format!("gyoku-cli-sprt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |one: &str, two: &str, spec: &str, out: &std::path::Path| {
        json(&gyoku(&[
            "match",
            "--engine",
            one,
            "--engine",
            two,
            "--sprt",
            spec,
            "--byoyomi",
            "100ms",
            "--concurrency",
            "2",
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]))
    };
    let stronger = dir.join("stronger");
    let v = run(&engine, &random, "elo0=0,elo1=100", &stronger);
    let t = &v["sprt"];
    assert_eq!(t["decision"], "H1", "{t}");
    assert!(t["llr"].as_f64().unwrap() >= t["upper"].as_f64().unwrap());
    let pairs: u64 = t["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert!(
        pairs >= 2 && 2 * pairs <= v["games"].as_u64().unwrap(),
        "{t}"
    );
    for r in v["results"].as_array().unwrap() {
        let n = r["game"].as_u64().unwrap();
        let record = stronger.join(format!("game-{n:04}.csa"));
        let judged = json(&gyoku(&["judge", record.to_str().unwrap(), "--json"]));
        assert_eq!(judged["agrees"], true, "{}", record.display());
    }
    let again = run(&engine, &random, "elo0=0,elo1=100", &stronger);
    assert_eq!(again["games"], v["games"]);
    assert_eq!(again["sprt"]["decision"], "H1");
    let rated = json(&gyoku(&["ratings", stronger.to_str().unwrap(), "--json"]));
    let names: Vec<&str> = rated["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Gyoku builtin (greedy)", "Gyoku builtin (random)"],
        "{rated}"
    );
    assert_eq!(rated["games"], v["games"]);

    let even = dir.join("even");
    let other = format!("{engine} --style random --seed 8");
    let v = run(&random, &other, "elo0=0,elo1=300", &even);
    assert_eq!(v["sprt"]["decision"], "H0", "{}", v["sprt"]);
    // An odd cap cannot hold whole pairs.
    let odd = gyoku(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &random,
        "--sprt",
        "elo0=0,elo1=5",
        "--games",
        "7",
    ]);
    assert_eq!(odd.status.code(), Some(2));
    let bad = gyoku(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &random,
        "--sprt",
        "elo0=5,elo1=0",
    ]);
    assert!(
        stderr(&bad).contains("elo0 (5) must be below elo1 (0)"),
        "{}",
        stderr(&bad)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 29: adjudication is opt-in and said in the record: the greedy engine far ahead of
/// the random one by both engines' scores is adjudicated the winner, two equal greedy
/// engines a draw; each record ends suspended with the adjudication in a comment (the rules
/// never ended the game, and `gyoku judge` says so); without the options nothing is.
#[test]
fn adjudicated_games_say_so_in_their_records() {
    let engine = format!("{} engine", env!("CARGO_BIN_EXE_gyoku"));
    let random = format!("{engine} --style random --seed 3");
    let dir = std::env::temp_dir().join(format!("gyoku-cli-adjudicate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |two: &str, flag: &str, rule: &str, out: &std::path::Path| {
        json(&gyoku(&[
            "match",
            "--engine",
            &engine,
            "--engine",
            two,
            "--games",
            "2",
            "--byoyomi",
            "100ms",
            flag,
            rule,
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]))
    };
    for (two, flag, rule, reason) in [
        (
            &random,
            "--adjudicate-resign",
            "500:2",
            "adjudicated_resign",
        ),
        (&engine, "--adjudicate-draw", "10:0:3", "adjudicated_draw"),
    ] {
        let out = dir.join(reason);
        let v = run(two, flag, rule, &out);
        for r in v["results"].as_array().unwrap() {
            assert_eq!(r["reason"], reason, "{v}");
            let record = out.join(format!("game-{:04}.csa", r["game"].as_u64().unwrap()));
            let text = std::fs::read_to_string(&record).unwrap();
            assert!(
                text.contains("'adjudicated: ") && text.trim_end().ends_with("%CHUDAN"),
                "{text}"
            );
            let judged = json(&gyoku(&["judge", record.to_str().unwrap(), "--json"]));
            assert_eq!(
                (judged["result"].is_null(), &judged["agrees"]),
                (true, &true.into()),
                "{judged}"
            );
        }
        if reason == "adjudicated_resign" {
            assert_eq!(v["wins"][0], 2, "{v}");
        }
    }
    let bad = gyoku(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &random,
        "--adjudicate-resign",
        "500",
    ]);
    assert!(
        stderr(&bad).contains("--adjudicate-resign: '500': SCORE:MOVES"),
        "{}",
        stderr(&bad)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 29: a knockout and a Swiss tournament of five built-in engines, through the
/// command: a winner, every engine ranked, a bye in each Swiss round, and bad input named.
#[test]
fn knockout_and_swiss_tournaments_of_builtin_engines() {
    let engine = format!("{} engine", env!("CARGO_BIN_EXE_gyoku"));
    let mut args = vec!["tournament".to_string()];
    for (k, style) in ["greedy", "greedy", "random", "random", "random"]
        .iter()
        .enumerate()
    {
        args.push("--engine".into());
        args.push(format!("e{k}={engine} --style {style} --seed {k}"));
    }
    args.extend(["--byoyomi", "100ms", "--concurrency", "2", "--json"].map(String::from));
    let run = |extra: &[&str]| {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.extend(extra);
        json(&gyoku(&a))
    };
    let ko = run(&["--format", "knockout"]);
    let winner = ko["winner"].as_str().unwrap();
    assert_eq!(ko["standings"][0]["engine"], winner, "{ko}");
    assert_eq!(ko["standings"].as_array().unwrap().len(), 5);
    let swiss = run(&[
        "--format",
        "swiss",
        "--rounds",
        "3",
        "--games-per-encounter",
        "1",
    ]);
    assert_eq!(swiss["games"], 6, "{swiss}");
    let byes: f64 = swiss["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["bye_points"].as_f64().unwrap())
        .sum();
    assert_eq!(byes, 3.0, "one bye a round: {swiss}");
    let bad = gyoku(&["tournament", "--engine", &engine, "--engine", &engine]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("two engines named"),
        "{}",
        stderr(&bad)
    );
    let bad = gyoku(&[
        "tournament",
        "--engine",
        &format!("a={engine}"),
        "--engine",
        &format!("b={engine}"),
        "--format",
        "league",
    ]);
    assert!(
        stderr(&bad).contains("unknown format 'league'"),
        "{}",
        stderr(&bad)
    );
}

/// Issue 16: a game that starts past its move limit is over at ply 0, and the calculator
/// says a declaration there is not available, as the judge does.
#[test]
fn games_starting_past_the_move_limit() {
    let late = "RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b 2P 257";
    let v = json(&gyoku(&["judge", "--sfen", late, "--moves", "", "--json"]));
    assert_eq!(
        (&v["result"], &v["reason"], &v["ply"]),
        (&"draw".into(), &"move_limit".into(), &0.into())
    );
    let out = gyoku(&["judge", "--sfen", late, "--moves", "win"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("already over (draw by move_limit at ply 0)"));
    let v = json(&gyoku(&["impasse", "--sfen", late, "--json"]));
    assert_eq!(v["moves_counted"], 256);
    assert_eq!(v["verdicts"]["csa"]["declaration"], "not_available");
    assert_eq!(v["verdicts"]["csa"]["ended"], "move_limit");
    assert_eq!(v["verdicts"]["81dojo"]["declaration"], "win");
    // The JSA extension of a game imported just after a checking move 500.
    let v = json(&gyoku(&[
        "judge",
        "--lenient",
        "--sfen",
        "k1RK5/9/9/9/9/9/9/9/9 w - 501",
        "--moves",
        "9a9b 7a7d",
        "--rules",
        "jsa",
        "--json",
    ]));
    assert_eq!((&v["reason"], &v["ply"]), (&"move_limit".into(), &2.into()));
}

/// `--rules-of-record`: each record under the rules its header names (a Floodgate
/// `$EVENT`: csa; a JSA title match: jsa; Shogi Wars' headers), the others under --rules,
/// with which and why in the line and the JSON.
#[test]
fn judge_under_the_rules_each_record_names() {
    let v = json(&gyoku(&[
        "judge",
        "--rules",
        "jsa",
        "--rules-of-record",
        "--json",
        &data("kifu-for-js/csa/v2.csa"),
        &data("kifu-for-js/kif/kiou201403160101.kif"),
        &data("csa/wars-disconnect.csa"),
        &data("kif/sjis.kif"),
    ]));
    let said: Vec<(Option<&str>, &str)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["rules_of_record"]["preset"].as_str(),
                r["rules_of_record"]["from"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            (Some("csa"), "record"),
            (Some("jsa"), "record"),
            (Some("shogi-wars"), "record"),
            (None, "option")
        ]
    );
    // The Floodgate record is judged under csa's 256-move limit, not jsa's 500.
    assert_eq!(v[0]["limit"]["plies"], 256);
    assert_eq!(v[3]["limit"]["plies"], 500);
    let text = stdout(&gyoku(&[
        "judge",
        "--rules-of-record",
        &data("kifu-for-js/csa/v2.csa"),
    ]));
    assert!(
        text.contains("[rules csa: its event names Floodgate (wdoor+floodgate-600-10F"),
        "{text}"
    );
}

/// Issue 41, item 5: `gyoku impasse --json` has a verdict under every new preset: under
/// `csa24` (YaneuraOu's `CSARule24`) a 31-point declaration wins and a 30-point one loses;
/// under `csa27h` White is credited what the game lacks.
#[test]
fn the_calculator_judges_under_the_engine_rule_sets() {
    let verdict = |sfen: &str, preset: &str| {
        let v = json(&gyoku(&["impasse", "--json", "--sfen", sfen]));
        v["verdicts"][preset]["declaration"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let black = |pawns: u32| format!("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b {pawns}P 1");
    assert_eq!(verdict(&black(5), "csa24"), "win");
    assert_eq!(verdict(&black(4), "csa24"), "lose");
    assert_eq!(verdict(&black(4), "jsa"), "no_contest");
    let white = "K8/RRBB5/9/PPPPPPP2/9/9/nnss5/gggg1ss2/4k4 w 7p 1";
    assert_eq!(verdict(white, "csa27h"), "win");
    assert_eq!(verdict(white, "csa"), "lose");
    let v = json(&gyoku(&["impasse", "--json", "--sfen", white]));
    for preset in ["csa24", "csa24h", "csa27h", "wcsc", "denryu", "floodgate"] {
        assert!(v["verdicts"][preset].is_object(), "{preset}");
    }
}

/// `gyoku export-training` (issue 49): each position of each game that is over, 38 bytes
/// each, labelled with the referee's result; the games whose record says otherwise are
/// listed (a failed declaration the record counts as a win, a summary the moves refute).
#[test]
fn export_training_labels_each_position_with_the_referees_result() {
    let out = std::env::temp_dir().join(format!("gyoku-export-{}.hcpe", std::process::id()));
    let data = format!("{}/../../tests/data/records", env!("CARGO_MANIFEST_DIR"));
    let o = gyoku(&[
        "export-training",
        &format!("{data}/csa"),
        &format!("{data}/kif"),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let positions = v["positions"].as_u64().unwrap();
    assert!(positions > 50, "{v}");
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 38 * positions);
    let relabelled: Vec<&str> = v["relabelled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert!(
        relabelled.iter().any(|f| f.ends_with("two-games.csa#2")),
        "{relabelled:?}"
    );
    let o = gyoku(&[
        "export-training",
        &data,
        "--out",
        out.to_str().unwrap(),
        "--format",
        "bin",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_file(&out);
}
