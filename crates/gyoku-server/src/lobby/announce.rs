//! What a game's players and monitors are told of it: its `Game_Summary`, `%%SHOW`'s view,
//! and the lines, record ending and summary of each way it ends.

use super::*;

impl Lobby {
    /// The Game_Summary for a player (`Some(colour)`) or a monitor (`None`, with the
    /// remaining times and the last move).
    pub(super) fn summary(&self, g: &LiveGame, you: Option<Color>) -> GameSummary {
        let sign = |c: Color| record::sign(c).to_string();
        let declaration = match g.preset {
            Preset::Csa => "Jishogi 1.1".to_string(),
            p => format!("Gyoku {}", p.name()),
        };
        let mut fields = vec![
            ("Protocol_Version".to_string(), "1.2".to_string()),
            ("Protocol_Mode".into(), "Server".into()),
            ("Format".into(), "Shogi 1.0".into()),
            ("Declaration".into(), declaration),
            ("Game_ID".into(), g.id.clone()),
            ("Name+".into(), g.names[0].clone()),
            ("Name-".into(), g.names[1].clone()),
        ];
        if let Some(c) = you {
            fields.push(("Your_Turn".into(), sign(c)));
        }
        fields.push(("Rematch_On_Draw".into(), "NO".into()));
        fields.push(("To_Move".into(), sign(g.start.turn())));
        fields.push(("Max_Moves".into(), g.max_moves.to_string()));
        let time = SummaryTime {
            time_unit: Some("1sec".into()),
            total_time: Some(g.total.into()),
            byoyomi: Some(g.byoyomi.into()),
            increment: Some(g.increment.into()),
            least_time_per_move: Some(self.config.least_time_per_move.into()),
            ..SummaryTime::default()
        };
        let mut position: Vec<String> = gyoku_kifu::csa::board_text(&g.start)
            .lines()
            .map(str::to_string)
            .collect();
        for (m, t) in &g.initial_moves {
            position.push(format!("{m},T{t}"));
        }
        let time = if g.resumed && you.is_some() {
            // Each side's own time left, as `BEGIN Time+`/`Time-` blocks (ShogiHome and
            // CSA 1.2.1 clients read them).
            let side = |c: Color| SummaryTime {
                total_time: Some(g.clock.remaining(c) / 1000),
                ..time.clone()
            };
            SummaryTimes::PerSide(gyoku::ByColor::new(side(Color::Black), side(Color::White)))
        } else {
            SummaryTimes::Both(time)
        };
        if you.is_none() || g.resumed {
            for (m, t, _) in &g.moves {
                position.push(format!("{m},T{t}"));
            }
        }
        GameSummary {
            fields,
            time,
            position,
            trailer: Vec::new(),
        }
    }

    pub(super) fn show(&self, g: &LiveGame, now: Now) -> String {
        let mut s = self.summary(g, None);
        let left = |c: Color| {
            let ms = if g.clock.turn() == c && matches!(g.phase, Phase::Playing) {
                g.clock
                    .time_left(now.mono)
                    .saturating_sub(u64::from(g.byoyomi) * 1000)
            } else {
                g.clock.remaining(c)
            };
            (ms / 1000).to_string()
        };
        s.trailer
            .push(("Remaining_Time+".into(), left(Color::Black)));
        s.trailer
            .push(("Remaining_Time-".into(), left(Color::White)));
        let last = g
            .moves
            .last()
            .map(|(m, t, _)| format!("{m},T{t}"))
            .unwrap_or_default();
        s.trailer.push(("Last_Move".into(), last));
        s.trailer.push((
            "Current_Turn".into(),
            (g.initial_moves.len() + g.moves.len()).to_string(),
        ));
        s.to_string()
    }
}

/// What each side is told at an ending, and what the record and storage say.
pub(super) struct EndLines {
    pub(super) players: [Vec<ServerLine>; 2],
    pub(super) monitor: String,
    pub(super) record_end: Option<&'static str>,
    pub(super) summary: &'static str,
    pub(super) results: [&'static str; 2],
    pub(super) result: Option<&'static str>,
    pub(super) reason: &'static str,
}

pub(super) fn end_lines(g: &LiveGame, ending: &Ending) -> EndLines {
    // CSA's end line for a foul, naming the side that lost by it (a record keeps the foul
    // as shogi-server's `'ILLEGAL_MOVE(…)` comment, which Gyoku reads back as the move).
    let foul_by = |result: GameResult| match result {
        GameResult::Win(Color::White) => Some("%+ILLEGAL_ACTION"),
        GameResult::Win(Color::Black) => Some("%-ILLEGAL_ACTION"),
        _ => None,
    };
    let said = |special: Option<&str>, end: GameEnd| -> Vec<ServerLine> {
        let special = special.map(|text| ServerLine::Special {
            text: text.to_string(),
            ms: None,
        });
        special
            .into_iter()
            .chain([ServerLine::Reason(Reason::Known(end))])
            .collect()
    };
    let (reason_lines, result, record_end, summary, code): (
        Vec<ServerLine>,
        Option<GameResult>,
        Option<&'static str>,
        &'static str,
        &'static str,
    ) = match ending {
        Ending::Left(color) => (
            said(Some("%TORYO"), GameEnd::Resign),
            Some(GameResult::Win(!*color)),
            Some("%TORYO"),
            "abnormal",
            "abnormal",
        ),
        Ending::Suspended => (
            said(None, GameEnd::Chudan),
            None,
            Some("%CHUDAN"),
            "chudan",
            "chudan",
        ),
        Ending::Decided(o) => {
            let r = Some(o.result);
            match &o.reason {
                EndReason::Checkmate | EndReason::NoLegalMove => {
                    // The protocol has no word for mate (shogi-server never sees one):
                    // the result lines alone, which every client reads (python-shogi
                    // refuses any reason line it does not know). The record says %TSUMI.
                    (Vec::new(), r, Some("%TSUMI"), "checkmate", o.reason.code())
                }
                EndReason::Resignation { .. } => (
                    said(Some("%TORYO"), GameEnd::Resign),
                    r,
                    Some("%TORYO"),
                    "toryo",
                    "resignation",
                ),
                EndReason::IllegalMove { kind, .. } => (
                    said(None, GameEnd::IllegalMove),
                    r,
                    foul_by(o.result),
                    match kind {
                        IllegalMoveKind::Uchifuzume => "uchifuzume",
                        IllegalMoveKind::KingInCheck => "oute_kaihimore",
                        _ => "illegal move",
                    },
                    "illegal_move",
                ),
                EndReason::Forfeit { .. } if g.foul_text.as_deref() == Some("%KACHI") => (
                    said(Some("%KACHI"), GameEnd::IllegalMove),
                    r,
                    Some("%KACHI"),
                    "illegal kachi",
                    "failed_declaration",
                ),
                EndReason::Forfeit { .. } => (
                    said(None, GameEnd::IllegalMove),
                    r,
                    foul_by(o.result),
                    "illegal move",
                    "illegal_move",
                ),
                EndReason::FailedDeclaration { .. } => (
                    said(Some("%KACHI"), GameEnd::IllegalMove),
                    r,
                    Some("%KACHI"),
                    "illegal kachi",
                    "failed_declaration",
                ),
                EndReason::Declaration { .. } => (
                    said(Some("%KACHI"), GameEnd::Jishogi),
                    r,
                    Some("%KACHI"),
                    "kachi",
                    "declaration",
                ),
                EndReason::AutomaticImpasse { .. } => (
                    said(None, GameEnd::Jishogi),
                    r,
                    None,
                    "jishogi",
                    "automatic_impasse",
                ),
                EndReason::ImpasseAgreement { .. } | EndReason::ImpasseCount { .. } => (
                    said(None, GameEnd::Jishogi),
                    r,
                    Some("%JISHOGI"),
                    "jishogi",
                    o.reason.code(),
                ),
                EndReason::Sennichite { .. } => (
                    said(None, GameEnd::Sennichite),
                    r,
                    Some("%SENNICHITE"),
                    "sennichite",
                    "sennichite",
                ),
                EndReason::PerpetualCheck { .. } => (
                    said(None, GameEnd::OuteSennichite),
                    r,
                    foul_by(o.result),
                    "oute_sennichite",
                    "perpetual_check",
                ),
                EndReason::Try { .. } => (
                    vec![ServerLine::Reason(Reason::Unknown("#TRY".into()))],
                    r,
                    Some("%TRY"),
                    "try",
                    "try",
                ),
                EndReason::MoveLimit { .. } => (
                    said(None, GameEnd::MaxMoves),
                    r,
                    Some("%MAX_MOVES"),
                    "max_moves",
                    "move_limit",
                ),
                EndReason::TimeUp { .. } => (
                    said(None, GameEnd::TimeUp),
                    r,
                    Some("%TIME_UP"),
                    "time up",
                    "time_up",
                ),
            }
        }
    };
    let max_moves =
        matches!(ending, Ending::Decided(o) if matches!(o.reason, EndReason::MoveLimit { .. }));
    let per_side = |c: Color| -> (Option<ServerLine>, &'static str) {
        let line = |r: EndResult| Some(ServerLine::Result(r));
        match result {
            Some(GameResult::Win(w)) if w == c => (line(EndResult::Win), "win"),
            Some(GameResult::Win(_)) => (line(EndResult::Lose), "lose"),
            // shogi-server's result after `#MAX_MOVES`, read as a reason line.
            Some(_) if max_moves => (
                Some(ServerLine::Reason(Reason::Known(GameEnd::Censored))),
                "draw",
            ),
            Some(_) => (line(EndResult::Draw), "draw"),
            None => (None, "suspended"),
        }
    };
    let (b, bw) = per_side(Color::Black);
    let (w, ww) = per_side(Color::White);
    let monitor = if reason_lines.is_empty() {
        summary.to_string()
    } else {
        let words: Vec<String> = reason_lines.iter().map(ToString::to_string).collect();
        words.join(" ")
    };
    let with = |last: Option<ServerLine>| reason_lines.iter().cloned().chain(last).collect();
    EndLines {
        players: [with(b), with(w)],
        monitor,
        record_end,
        summary,
        results: [bw, ww],
        result: result.map(GameResult::code),
        reason: code,
    }
}
