//! `gyoku ratings`: games gathered from records, match and tournament results, Floodgate's
//! `mk_game_results` lines and a server's database, rated by
//! [`gyoku_league::ratings`].

use std::path::Path;

use gyoku::{Color, GameResult, Preset};
use gyoku_kifu::Record;
use gyoku_league::ratings::floodgate::{self, GameLine, Stamp};
use gyoku_league::ratings::mle::{self, Results, Score};
use serde_json::{Value, json};

use crate::Failure;
use crate::args::RatingsArgs;
use crate::records;

/// The most games read from all sources together (about 250 bytes each while read).
const MAX_GAMES: usize = 5_000_000;

/// One game as the ratings see it, whatever it was read from.
#[derive(Clone, Debug)]
struct Played {
    /// The players' names (Black, White).
    names: [String; 2],
    /// Their rating ids where the source has them (Floodgate's `name+trip`).
    ids: [Option<String>; 2],
    /// Black's score; `None`: the game does not count (no contest, not finished).
    score: Option<Score>,
    /// How it ended (`toryo`, `abnormal`, … in Floodgate's words where known).
    state: String,
    /// When it ended, where known.
    time: Option<Stamp>,
    plies: Option<u32>,
    /// Where it was read.
    file: String,
}

impl Played {
    /// The key a player is rated under: its id, else its name.
    fn key(&self, side: usize) -> &str {
        self.ids[side].as_deref().unwrap_or(&self.names[side])
    }
}

/// What was read, and what was passed over.
#[derive(Default)]
struct Gathered {
    games: Vec<Played>,
    /// Floodgate lines read as they are (their marks and ids untouched).
    lines: Vec<GameLine>,
    uncounted: usize,
    unreadable: Vec<String>,
    /// The commands seen behind each name in match and tournament directories (their
    /// `match.json` or `tournament.json`): a name behind two commands is two engines rated
    /// as one, and is warned of.
    commands: std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
}

impl Gathered {
    fn room(&self) -> Result<(), Failure> {
        if self.games.len() + self.lines.len() >= MAX_GAMES {
            return Err(Failure::Input(format!(
                "more than {MAX_GAMES} games: rate them in parts"
            )));
        }
        Ok(())
    }

    fn push(&mut self, p: Played) -> Result<(), Failure> {
        self.room()?;
        if p.score.is_none() {
            self.uncounted += 1;
        }
        self.games.push(p);
        Ok(())
    }
}

/// Runs `gyoku ratings`.
pub fn run_ratings(args: &RatingsArgs) -> Result<(), Failure> {
    if args.sources.is_empty() && args.db.is_none() {
        return Err(Failure::Input(
            "no games: name record files or directories, results.jsonl files, mk_game_results \
             files, or --db"
                .into(),
        ));
    }
    let mut gathered = Gathered::default();
    for source in &args.sources {
        read_source(source, &mut gathered)?;
    }
    if let Some(url) = &args.db {
        read_db(url, &mut gathered)?;
    }
    if args.floodgate {
        floodgate_list(args, &gathered)
    } else {
        mle_list(args, &gathered)
    }
}

/// Reads one source by what it is.
fn read_source(path: &Path, into: &mut Gathered) -> Result<(), Failure> {
    let meta =
        std::fs::metadata(path).map_err(|e| Failure::Input(format!("{}: {e}", path.display())))?;
    if meta.is_dir() && path.join("results.jsonl").is_file() {
        return read_results_jsonl(&path.join("results.jsonl"), into);
    }
    if meta.is_file() && path.file_name().is_some_and(|n| n == "results.jsonl") {
        return read_results_jsonl(path, into);
    }
    if meta.is_file() && is_game_results_file(path)? {
        return read_game_results(path, into);
    }
    read_records(path, into)
}

/// Whether `path`'s first line is an `mk_game_results` line.
fn is_game_results_file(path: &Path) -> Result<bool, Failure> {
    use std::io::{BufRead, Read};
    let file = gyoku_kifu::files::open_regular(path).map_err(Failure::Input)?;
    let mut first = String::new();
    let mut reader = std::io::BufReader::new(file.take(64 * 1024));
    let _ = reader.read_line(&mut first);
    Ok(GameLine::looks_like(first.trim_end_matches(['\r', '\n'])))
}

/// The longest line read from a results file.
const MAX_LINE: u64 = 64 * 1024;

/// Each line of a text file, read as it streams (a line past [`MAX_LINE`] is an error):
/// results files can be far larger than a record file.
fn each_line(
    path: &Path,
    mut each: impl FnMut(usize, &str) -> Result<(), Failure>,
) -> Result<(), Failure> {
    use std::io::{BufRead, Read};
    let file = gyoku_kifu::files::open_regular(path).map_err(Failure::Input)?;
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    for n in 1.. {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| Failure::Run(format!("{}:{n}: {e}", path.display())))?;
        if read == 0 {
            return Ok(());
        }
        if read as u64 > MAX_LINE {
            return Err(Failure::Input(format!(
                "{}:{n}: a line over {MAX_LINE} bytes",
                path.display()
            )));
        }
        let text = String::from_utf8_lossy(&line);
        each(n, text.trim_end_matches(['\r', '\n']))?;
    }
    Ok(())
}

/// `mk_game_results` lines, one game each; blank lines passed over.
fn read_game_results(path: &Path, into: &mut Gathered) -> Result<(), Failure> {
    each_line(path, |n, line| {
        let line = line.trim();
        if line.is_empty() {
            return Ok(());
        }
        into.room()?;
        let g = GameLine::parse(line)
            .map_err(|e| Failure::Input(format!("{}:{n}: {e}", path.display())))?;
        into.lines.push(g);
        Ok(())
    })
}

/// A match's or tournament's `results.jsonl`: the players from each line's `players`
/// (Black, White), else from the game's record beside it, else `engine1`/`engine2`.
fn read_results_jsonl(path: &Path, into: &mut Gathered) -> Result<(), Failure> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let commands = identity_commands(dir);
    for (name, command) in commands.iter().flatten() {
        if let Some(name) = name {
            into.commands
                .entry(name.clone())
                .or_default()
                .insert(command.clone());
        }
    }
    each_line(path, |n, line| {
        if line.trim().is_empty() {
            return Ok(());
        }
        let at = format!("{}:{n}", path.display());
        let v: Value =
            serde_json::from_str(line).map_err(|e| Failure::Input(format!("{at}: {e}")))?;
        let Some(game) = v["game"].as_u64() else {
            return Err(Failure::Input(format!(
                "{at}: not a results.jsonl line (no game)"
            )));
        };
        let players: Option<[String; 2]> = v["players"]
            .as_array()
            .filter(|a| a.len() == 2)
            .and_then(|a| Some([a[0].as_str()?.to_string(), a[1].as_str()?.to_string()]));
        // A tournament's line says the result by colour; a match's names the winning
        // engine (engine1/engine2) and which engine had Black.
        let engine = |v: &Value| {
            v.as_str()
                .and_then(|s| s.strip_prefix("engine"))
                .and_then(|k| k.parse::<usize>().ok())
        };
        let (names, score) = match v["result"].as_str() {
            Some(result) => {
                let names = players
                    .ok_or_else(|| Failure::Input(format!("{at}: a result without its players")))?;
                let score = match result {
                    "black" => Some(Score::Win),
                    "white" => Some(Score::Loss),
                    "draw" => Some(Score::Draw),
                    _ => None,
                };
                (names, score)
            }
            None => {
                let Some(black) = engine(&v["black"]) else {
                    return Err(Failure::Input(format!(
                        "{at}: not a results.jsonl line (no result, no black engine)"
                    )));
                };
                let names = players
                    .or_else(|| names_from_record(&dir.join(format!("game-{game:04}.csa"))))
                    .unwrap_or_else(|| {
                        let white = if black == 1 { 2 } else { 1 };
                        [format!("engine{black}"), format!("engine{white}")]
                    });
                // match.json lists engine 1 and engine 2: the command behind each name.
                if let Some(commands) = &commands {
                    let white = if black == 1 { 2 } else { 1 };
                    for (name, k) in [(&names[0], black), (&names[1], white)] {
                        if let Some((_, command)) = commands.get(k.wrapping_sub(1)) {
                            into.commands
                                .entry(name.clone())
                                .or_default()
                                .insert(command.clone());
                        }
                    }
                }
                let score = match &v["winner"] {
                    Value::Null if v["reason"] == "no_contest" => None,
                    Value::Null => Some(Score::Draw),
                    w if engine(w) == Some(black) => Some(Score::Win),
                    _ => Some(Score::Loss),
                };
                (names, score)
            }
        };
        into.push(Played {
            names,
            ids: [None, None],
            score,
            state: v["reason"].as_str().unwrap_or("").to_string(),
            time: None,
            plies: v["plies"].as_u64().and_then(|p| u32::try_from(p).ok()),
            file: at,
        })
    })
}

/// The engines of the match or tournament in `dir` (its `match.json` or
/// `tournament.json`): each one's given name, if any, and command. A tournament's names
/// are taken as they stand (they are its results' names).
fn identity_commands(dir: &Path) -> Option<Vec<(Option<String>, String)>> {
    let path = ["match.json", "tournament.json"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())?;
    let bytes = gyoku_kifu::files::read_regular(&path, 1 << 20).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    v["engines"]
        .as_array()?
        .iter()
        .map(|e| {
            Some((
                e["name"].as_str().map(str::to_string),
                e["command"].as_str()?.to_string(),
            ))
        })
        .collect()
}

fn names_from_record(path: &Path) -> Option<[String; 2]> {
    let record = records::read_file(path).ok()?.into_iter().next()?;
    Some([
        player(&record, Color::Black)?,
        player(&record, Color::White)?,
    ])
}

/// A record's player: 先手/下手 for Black, 後手/上手 for White.
fn player(record: &Record, color: Color) -> Option<String> {
    let keys = match color {
        Color::Black => ["先手", "下手"],
        Color::White => ["後手", "上手"],
    };
    keys.iter()
        .find_map(|k| record.header(k))
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// Record files and directories, each record judged again (under CSA's rules and the
/// record's own move limit); a record without both players' names is passed over.
fn read_records(path: &Path, into: &mut Gathered) -> Result<(), Failure> {
    let mut files =
        gyoku_kifu::walk::RecordFiles::new(&[path.to_path_buf()]).map_err(Failure::Input)?;
    while let Some(file) = files.next_path() {
        let file = match file {
            Ok(f) => f,
            Err(e) => {
                into.unreadable.push(e);
                continue;
            }
        };
        let mut pushed = Ok(());
        let read =
            gyoku_kifu::files::read_records_each(&file, records::max_file_bytes(), &mut |r| {
                if pushed.is_ok() {
                    pushed = from_record(&r, &file).map_or(Ok(()), |p| into.push(p));
                }
            });
        pushed?;
        if let Err(e) = read {
            into.unreadable.push(e);
        }
    }
    Ok(())
}

fn from_record(record: &Record, file: &Path) -> Option<Played> {
    let names = [player(record, Color::Black)?, player(record, Color::White)?];
    let rules = gyoku_kifu::report::rules_for(record, Preset::Csa.rules(), false);
    let judged = gyoku_kifu::judge::judge(record, rules);
    let score = match judged.result {
        Some(GameResult::Win(Color::Black)) => Some(Score::Win),
        Some(GameResult::Win(Color::White)) => Some(Score::Loss),
        Some(GameResult::Draw) => Some(Score::Draw),
        Some(GameResult::NoContest) | None => None,
    };
    let reason = judged
        .game
        .outcome()
        .map(|o| o.reason.code().to_string())
        .unwrap_or_default();
    let ids = rating_ids(record).map_or([None, None], |[b, w]| [Some(b), Some(w)]);
    let time = record
        .header("終了日時")
        .or_else(|| record.header("開始日時"))
        .and_then(floodgate::parse_time);
    Some(Played {
        names,
        ids,
        score,
        state: floodgate_state(&reason).to_string(),
        time,
        plies: u32::try_from(record.moves.len()).ok(),
        file: file.display().to_string(),
    })
}

/// shogi-server's `'rating:black_id:white_id` comment.
fn rating_ids(record: &Record) -> Option<[String; 2]> {
    record
        .start_comments
        .iter()
        .chain(record.moves.iter().flat_map(|m| &m.comments))
        .find_map(|c| c.trim().strip_prefix("rating:"))
        .and_then(|r| r.split_once(':'))
        .map(|(b, w)| [b.trim().to_string(), w.trim().to_string()])
}

/// A reason code in the words of Floodgate's `'summary:` line.
fn floodgate_state(reason: &str) -> &str {
    match reason {
        "resignation" => "toryo",
        "checkmate" => "tsumi",
        "time_up" => "time_up",
        "illegal_move" | "illegal_action" => "illegal",
        "sennichite" | "perpetual_check" => "sennichite",
        "declaration" => "kachi",
        "max_moves" => "max_moves",
        "abnormal" | "disconnected" => "abnormal",
        other => other,
    }
}

/// A server's finished games.
fn read_db(url: &str, into: &mut Gathered) -> Result<(), Failure> {
    let db = gyoku_server::store::DbUrl::parse(url)
        .ok_or_else(|| Failure::Input(format!("--db {url}: a SQLite file or a postgres:// URL")))?;
    let mut store = gyoku_server::store::open(&db).map_err(|e| Failure::Run(e.to_string()))?;
    let games = store
        .finished_games(u32::try_from(MAX_GAMES).unwrap_or(u32::MAX))
        .map_err(|e| Failure::Run(e.to_string()))?;
    for g in games {
        let score = match g.result.as_deref() {
            Some("black") => Some(Score::Win),
            Some("white") => Some(Score::Loss),
            Some("draw") => Some(Score::Draw),
            _ => None,
        };
        into.push(Played {
            names: [g.black, g.white],
            ids: g.rating_ids,
            score,
            state: floodgate_state(&g.reason).to_string(),
            time: g.ended_at.as_deref().and_then(floodgate::parse_time),
            plies: Some(g.moves),
            file: format!("{url}#{}", g.id),
        })?;
    }
    Ok(())
}

/// The maximum-likelihood list.
fn mle_list(args: &RatingsArgs, gathered: &Gathered) -> Result<(), Failure> {
    if !(args.prior_draws >= 0.0 && args.prior_draws.is_finite()) {
        return Err(Failure::Input(format!(
            "--prior-draws {}: 0 or more",
            args.prior_draws
        )));
    }
    let mut results = Results::default();
    for g in &gathered.games {
        if let Some(score) = g.score {
            results.add(g.key(0), g.key(1), score, 1.0);
        }
    }
    // Floodgate's lines, each game once and whole (no weights, no thresholds).
    let mut lines = 0;
    for g in gathered
        .lines
        .iter()
        .collect::<std::collections::HashSet<_>>()
    {
        let score = match (g.black_mark.as_str(), g.white_mark.as_str()) {
            ("win", "lose") => Score::Win,
            ("lose", "win") => Score::Loss,
            ("draw", "draw") => Score::Draw,
            (b, w) => {
                return Err(Failure::Input(format!(
                    "{}: marks {b:?} and {w:?} (win/lose, lose/win or draw/draw)",
                    g.file
                )));
            }
        };
        results.add(&g.black_id, &g.white_id, score, 1.0);
        lines += 1;
    }
    let list = mle::rate(
        &results,
        &mle::Options {
            prior_draws: args.prior_draws,
        },
    )
    .map_err(|e| Failure::Input(e.to_string()))?;
    let counted = gathered.games.len() - gathered.uncounted + lines;
    if args.json {
        let players: Vec<Value> = list
            .iter()
            .map(|r| {
                let t = results.tally(r.player);
                json!({
                    "name": results.players()[r.player],
                    "group": r.group,
                    "elo": round1(r.elo),
                    "error": if r.error.is_finite() { json!(round1(r.error)) } else { json!(null) },
                    "games": t.game_count(),
                    "wins": t.wins(), "draws": t.draws(), "losses": t.losses(),
                    "score": t.points() / t.game_count().max(1) as f64,
                })
            })
            .collect();
        outln!(
            "{}",
            json!({
                "method": "mle",
                "prior_draws": args.prior_draws,
                "games": counted,
                "uncounted": gathered.uncounted,
                "unreadable": gathered.unreadable,
                "players": players,
            })
        );
        return Ok(());
    }
    outln!(
        "{counted} games rated by maximum likelihood (Bradley–Terry, draws as half points, {} prior draw{} each); Elo with its 95 % interval, each group's mean at 0",
        args.prior_draws,
        if args.prior_draws == 1.0 { "" } else { "s" }
    );
    let width = list
        .iter()
        .map(|r| results.players()[r.player].chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut group = usize::MAX;
    let mut rank = 0;
    for r in &list {
        if r.group != group {
            group = r.group;
            rank = 0;
            outln!();
            outln!("group {group}");
            outln!(
                "{:>4}  {:<width$}  {:>7}  {:>6}  {:>5}  {:>5}  {:>13}",
                "rank",
                "player",
                "elo",
                "±",
                "games",
                "score",
                "W/D/L"
            );
        }
        rank += 1;
        let t = results.tally(r.player);
        outln!(
            "{rank:>4}  {:<width$}  {:>7.1}  {:>6}  {:>5}  {:>4.1}%  {:>13}",
            results.players()[r.player],
            r.elo,
            if r.error.is_finite() {
                format!("{:.1}", r.error)
            } else {
                "-".into()
            },
            t.game_count(),
            100.0 * t.points() / t.game_count().max(1) as f64,
            format!("{}/{}/{}", t.wins(), t.draws(), t.losses()),
        );
    }
    notes(gathered);
    Ok(())
}

fn notes(gathered: &Gathered) {
    for (name, commands) in &gathered.commands {
        if commands.len() > 1 {
            let list: Vec<&str> = commands.iter().map(String::as_str).collect();
            eprintln!(
                "warning: '{name}' names {} different engine commands ({}): they are rated as one \
                 player; name each with --engine NAME=COMMAND",
                commands.len(),
                list.join("; ")
            );
        }
    }
    if gathered.uncounted > 0 {
        outln!(
            "{} games not counted (no contest, or not finished)",
            gathered.uncounted
        );
    }
    for e in &gathered.unreadable {
        eprintln!("gyoku: not read: {e}");
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Floodgate's list, as mk_rate computes it.
fn floodgate_list(args: &RatingsArgs, gathered: &Gathered) -> Result<(), Failure> {
    let base = match &args.base_date {
        Some(d) => floodgate::parse_time(d).ok_or_else(|| {
            Failure::Input(format!(
                "--base-date {d}: a date (2026-11-21) or a time (2026-11-21 10:00:00)"
            ))
        })?,
        None => now(),
    };
    let mut lines = gathered.lines.clone();
    for g in &gathered.games {
        let Some(score) = g.score else { continue };
        let (b, w) = match score {
            Score::Win => ("win", "lose"),
            Score::Loss => ("lose", "win"),
            Score::Draw => ("draw", "draw"),
        };
        lines.push(GameLine {
            time: g.time.unwrap_or(base),
            state: g.state.clone(),
            black_mark: b.into(),
            black_id: g.key(0).to_string(),
            white_id: g.key(1).to_string(),
            white_mark: w.into(),
            file: g.file.clone(),
            plies: g.plies,
        });
    }
    let options = floodgate::Options {
        base,
        half_life: f64::from(args.half_life),
        half_life_ignore: f64::from(args.half_life_ignore),
        ignore: f64::from(args.ignore),
        abnormal_threshold: args.abnormal_threshold,
        skip_draws: args.skip_draw_games,
        fixed: args.fixed_rate_player.clone().zip(args.fixed_rate),
    };
    let mut list = floodgate::rate(&lines, &options).map_err(|e| Failure::Input(e.to_string()))?;
    // Each group strongest first (the library lists ids in byte order, as mk_rate does).
    list.sort_by(|a, b| {
        a.group
            .cmp(&b.group)
            .then(b.rate.cmp(&a.rate))
            .then(a.id.cmp(&b.id))
    });
    if args.yaml {
        out!("{}", players_yaml(&list));
    } else if args.json {
        let players: Vec<Value> = list
            .iter()
            .map(|p| {
                json!({
                    "id": p.id, "name": p.name,
                    "rating_group": p.group, "rate": p.rate,
                    "win": p.win, "loss": p.loss,
                    "last_modified": floodgate::format_time(p.last_modified),
                })
            })
            .collect();
        outln!(
            "{}",
            json!({
                "method": "floodgate",
                "base_date": floodgate::format_time(base),
                "lines": lines.len(),
                "uncounted": gathered.uncounted,
                "unreadable": gathered.unreadable,
                "players": players,
            })
        );
    } else {
        outln!(
            "{} games, rated as Floodgate's mk_rate at {} (half-life {} days after {}, {} days kept)",
            lines.len(),
            floodgate::format_time(base),
            args.half_life,
            args.half_life_ignore,
            args.ignore
        );
        let width = list
            .iter()
            .map(|p| p.id.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let mut group = usize::MAX;
        for p in &list {
            if p.group != group {
                group = p.group;
                outln!();
                if group == floodgate::UNRATED_GROUP {
                    outln!("not rated (fewer than 15 games, a win and a loss)");
                } else {
                    outln!("group {group}");
                }
                outln!(
                    "{:<width$}  {:>6}  {:>8}  {:>8}  {}",
                    "player",
                    "rate",
                    "win",
                    "loss",
                    "last game"
                );
            }
            outln!(
                "{:<width$}  {:>6}  {:>8.3}  {:>8.3}  {}",
                p.id,
                p.rate,
                p.win,
                p.loss,
                floodgate::format_time(p.last_modified)
            );
        }
    }
    if !args.yaml && !args.json {
        notes(gathered);
    }
    Ok(())
}

/// `players.yaml` in mk_rate's layout (groups, then each player's fields).
fn players_yaml(list: &[floodgate::Player]) -> String {
    let mut out = String::from("---\nplayers:\n");
    let mut group = usize::MAX;
    for p in list {
        if p.group != group {
            group = p.group;
            out.push_str(&format!("  {group}:\n"));
        }
        out.push_str(&format!(
            "    {}:\n      name: {}\n      rating_group: {}\n      rate: {}\n      last_modified: {}\n      win: {}\n      loss: {}\n",
            yaml_text(&p.id),
            yaml_text(&p.name),
            p.group,
            p.rate,
            floodgate::format_time(p.last_modified),
            p.win,
            p.loss
        ));
    }
    out
}

/// A YAML scalar: plain when safe, else double-quoted.
fn yaml_text(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || "+-_.@".contains(c))
        && !s.starts_with(['-', '+', '.', '@'])
        && s.parse::<f64>().is_err();
    if plain {
        s.to_string()
    } else {
        format!("{s:?}")
    }
}

/// Now, as a [`Stamp`] (UTC).
fn now() -> Stamp {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}
