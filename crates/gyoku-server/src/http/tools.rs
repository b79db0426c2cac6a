//! The tools beside the games: the impasse calculator, judging a record, converting one.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use gyoku::mate::{Limits, Solver};
use gyoku::{ImpasseReport, Move, Position, Preset};
use gyoku_kifu::report::{self, impasse_json, record_json};
use gyoku_kifu::{Format, Record};

use super::HttpOptions;
use super::body::{Request, typed_body, upload_body};
use super::error::ApiError;
use super::replay::{ki2_moves, western_moves};
use super::state::{Uploads, upload_work};

/// The most records of one upload judged (an archive in one CSA file); the rest are left
/// and the answer says so.
pub const MAX_RECORDS: usize = 10_000;

/// A position from a request: an SFEN, `startpos`, or a handicap name.
pub(super) fn read_position(text: &str, lenient: bool, what: &str) -> Result<Position, ApiError> {
    if let Ok(handicap) = text.parse::<gyoku::Handicap>() {
        return Ok(handicap.position());
    }
    let setup = gyoku::Setup::from_sfen(text)
        .map_err(|e| ApiError::input("invalid_sfen", format!("{what}: {e}")))?;
    match Position::from_setup(setup) {
        Ok(pos) => Ok(pos),
        Err(e) if lenient => e
            .ignore_all_safe()
            .map_err(|e| ApiError::input("invalid_sfen", format!("{what}: {e}"))),
        Err(e) => Err(ApiError::input(
            "invalid_sfen",
            format!(
                "{what}: {e} (\"lenient\": true accepts a missing king, dead pieces, nifu and extra pieces)"
            ),
        )),
    }
}

/// Plays `moves` (USI, space-separated or a list) from `pos`: a move that does not read is
/// `invalid_move`, one the rules refuse `illegal_move` with its kind (422).
fn play_moves(pos: &mut Position, moves: Option<&UsiMoves>) -> Result<(), ApiError> {
    let texts: Vec<&str> = match moves {
        None => Vec::new(),
        Some(UsiMoves::Line(line)) => line.split_whitespace().collect(),
        Some(UsiMoves::List(list)) => list.iter().map(String::as_str).collect(),
    };
    for (i, text) in texts.iter().enumerate() {
        let ply = i + 1;
        let m: Move = text.parse().map_err(|e| {
            ApiError::input("invalid_move", format!("moves: move {ply} '{text}': {e}"))
                .with("ply", json!(ply))
        })?;
        pos.play(m).map_err(|kind| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "illegal_move",
                format!(
                    "moves: move {ply} '{text}' is illegal: {} ({kind})",
                    kind.code()
                ),
            )
            .with("kind", json!(kind.code()))
            .with("ply", json!(ply))
            .with("move", json!(text))
        })?;
    }
    Ok(())
}

/// USI moves as a request gives them: one string (`"7g7f 3c3d"`) or a list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum UsiMoves {
    /// Moves apart by spaces.
    Line(String),
    /// One move each.
    List(Vec<String>),
}

/// `POST /api/impasse`'s body.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ImpasseBody {
    /// The position, SFEN (`startpos` when absent).
    sfen: Option<String>,
    /// Moves played from it.
    moves: Option<UsiMoves>,
    /// The position the game started from (whose pieces count as the impasse rules say).
    initial: Option<String>,
    /// Whether an SFEN no game could reach is taken all the same.
    lenient: bool,
    /// The mate search's budget for each side (0 skips it; at most [`MAX_MATE_NODES`]).
    mate_nodes: Option<u64>,
}

/// The most nodes one request's mate search may spend (per side for the calculator).
pub const MAX_MATE_NODES: u64 = 1_000_000;

/// The calculator's mate budget for each side when a request does not give one.
pub const DEFAULT_MATE_NODES: u64 = 100_000;

/// The table of one request's mate search, in bytes.
const MATE_TABLE_BYTES: usize = 16 << 20;

/// A request's node budget, checked against [`MAX_MATE_NODES`].
fn mate_budget(nodes: Option<u64>, field: &str) -> Result<u64, ApiError> {
    let nodes = nodes.unwrap_or(DEFAULT_MATE_NODES);
    if nodes > MAX_MATE_NODES {
        return Err(ApiError::input(
            "invalid_json",
            format!("{field}: at most {MAX_MATE_NODES}"),
        ));
    }
    Ok(nodes)
}

impl Request for ImpasseBody {
    fn invalid(path: &str) -> ApiError {
        match path {
            "moves" => ApiError::input("invalid_move", "moves: USI moves, as one string or a list"),
            "lenient" => ApiError::input("invalid_json", "lenient: true or false"),
            "mate_nodes" => ApiError::input("invalid_json", "mate_nodes: a whole number"),
            _ => ApiError::input("invalid_json", format!("{path}: a string was expected")),
        }
    }
}

/// `POST /api/impasse` with `{"sfen": …, "moves": …, "initial": …, "lenient": …,
/// "mate_nodes": …}`: the calculator's report, as `gyoku impasse --json` prints it.
pub(super) async fn impasse(
    State(options): State<Arc<HttpOptions>>,
    State(uploads): State<Arc<Uploads>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let body: ImpasseBody = typed_body(&options, &headers, body).await?;
    let mate_nodes = mate_budget(body.mate_nodes, "mate_nodes")?;
    upload_work(&uploads, move || {
        let sfen = body.sfen.as_deref().unwrap_or("startpos");
        let mut pos = read_position(sfen, body.lenient, "sfen")?;
        play_moves(&mut pos, body.moves.as_ref())?;
        let initial = body
            .initial
            .as_deref()
            .map(|text| read_position(text, true, "initial").map(|p| p.to_setup()))
            .transpose()?;
        let mut report = ImpasseReport::new(&pos, initial.as_ref());
        report.search_mates(&pos, mate_nodes);
        let mut v = impasse_json(&report);
        v["sfen"] = json!(pos.to_sfen());
        Ok(Json(v))
    })
    .await
}

/// `POST /api/mate`'s body.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MateBody {
    /// The position, SFEN (`startpos` when absent).
    sfen: Option<String>,
    /// Moves played from it.
    moves: Option<UsiMoves>,
    /// Whether an SFEN no game could reach is taken all the same (a tsume problem's
    /// position, without the defender's other pieces, is).
    lenient: bool,
    /// The search's budget (at most [`MAX_MATE_NODES`]).
    nodes: Option<u64>,
}

impl Request for MateBody {
    fn invalid(path: &str) -> ApiError {
        match path {
            "moves" => ApiError::input("invalid_move", "moves: USI moves, as one string or a list"),
            "lenient" => ApiError::input("invalid_json", "lenient: true or false"),
            "nodes" => ApiError::input("invalid_json", "nodes: a whole number"),
            _ => ApiError::input("invalid_json", format!("{path}: a string was expected")),
        }
    }
}

/// `POST /api/mate` with `{"sfen": …, "moves": …, "lenient": …, "nodes": …}`: whether the
/// side to move mates, as `gyoku mate --json` prints it (`result`, `plies`, `line`,
/// `nodes`), and `sfen`.
pub(super) async fn mate(
    State(options): State<Arc<HttpOptions>>,
    State(uploads): State<Arc<Uploads>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let body: MateBody = typed_body(&options, &headers, body).await?;
    let nodes = mate_budget(body.nodes, "nodes")?;
    upload_work(&uploads, move || {
        let sfen = body.sfen.as_deref().unwrap_or("startpos");
        let mut pos = read_position(sfen, body.lenient, "sfen")?;
        play_moves(&mut pos, body.moves.as_ref())?;
        let limits = Limits {
            nodes,
            ..Limits::default()
        };
        let report = Solver::new(MATE_TABLE_BYTES).solve(&pos, &limits, None);
        let mut v = report::mate_report_json(&report);
        v["sfen"] = json!(pos.to_sfen());
        Ok(Json(v))
    })
    .await
}

/// A record format named in a query (`kif`, `ki2`, `csa`, `usi`, `jkf`).
pub(super) fn format_named(name: &str, what: &str) -> Result<Format, ApiError> {
    Format::named(name).ok_or_else(|| {
        ApiError::input(
            "invalid_format",
            format!(
                "{what}: unknown format '{}' (kif, ki2, csa, usi, jkf)",
                name.to_ascii_lowercase()
            ),
        )
    })
}

/// The records of an uploaded file: any format (sniffed, or `format=`), any encoding.
pub(super) fn read_upload(
    bytes: &Bytes,
    q: &HashMap<String, String>,
) -> Result<Vec<Record>, ApiError> {
    if bytes.is_empty() {
        return Err(ApiError::input(
            "invalid_record",
            "the body is empty: send a record file",
        ));
    }
    let format = q
        .get("format")
        .map(|f| format_named(f, "format"))
        .transpose()?;
    let records = gyoku_kifu::read_bytes(bytes, format).map_err(|e| {
        ApiError::input("invalid_record", format!("record: {e}"))
            .with("line", json!(e.line))
            .with("column", json!(e.column))
            .with("read_kind", json!(e.kind.code()))
    })?;
    if records.is_empty() {
        return Err(ApiError::input("invalid_record", "record: no game in it"));
    }
    Ok(records)
}

/// `POST /api/judge[?rules=csa][&max_moves=N][&format=kif]` with a record file as the
/// body: each game replayed and judged, as `gyoku judge --json` does, with its moves.
pub(super) async fn judge_record(
    State(options): State<Arc<HttpOptions>>,
    State(uploads): State<Arc<Uploads>>,
    Query(q): Query<HashMap<String, String>>,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let name = q.get("rules").map_or("csa", String::as_str);
    let preset: Preset = name.parse().map_err(|e: gyoku::ParsePresetError| {
        ApiError::input("invalid_rules", format!("rules: {e}"))
    })?;
    let mut rules = preset.rules();
    let user_max = match q.get("max_moves") {
        None => false,
        Some(text) => {
            let n: u32 = text.parse().map_err(|_| {
                ApiError::input(
                    "invalid_max_moves",
                    format!("max_moves: '{text}' is not a number"),
                )
            })?;
            rules.set_max_moves(n);
            true
        }
    };
    let bytes = upload_body(&options, body).await?;
    upload_work(&uploads, move || {
        let records = read_upload(&bytes, &q)?;
        let total = records.len();
        let judged: Vec<Value> = records
            .iter()
            .take(MAX_RECORDS)
            .map(|r| {
                let j = report::judge_record(r, rules, user_max);
                let mut v = record_json(r, &j);
                v["start_sfen"] = json!(r.start.to_sfen());
                v["moves"] = json!(r.moves.iter().map(|m| m.mv.to_string()).collect::<Vec<_>>());
                v["moves_ki2"] = json!(ki2_moves(&r.start, r.moves.iter().map(|m| m.mv)));
                v["moves_western"] = json!(western_moves(&r.start, r.moves.iter().map(|m| m.mv)));
                v["foul"] = r.foul.as_ref().map_or(
                    Value::Null,
                    |f| json!({ "ply": f.ply, "move": f.mv.to_string(), "kind": f.kind.code() }),
                );
                v
            })
            .collect();
        Ok(Json(json!({
            "rules": preset.name(),
            "records": judged,
            "total": total,
            "truncated": total > MAX_RECORDS,
        })))
    })
    .await
}

/// The most a conversion writes, bytes.
pub const MAX_OUTPUT: usize = 32 * 1024 * 1024;

/// About how many bytes `records` make in `format`, from their moves and comments (the
/// bytes a move takes in each format, at the most: JKF's objects are the largest).
pub(super) fn estimated_output(records: &[Record], format: Format) -> usize {
    let per_move = match format {
        Format::Jkf => 160,
        Format::Kif => 64,
        Format::Ki2 => 32,
        Format::Csa => 24,
        Format::Usi => 8,
    };
    let moves = |moves: &[gyoku_kifu::RecordMove], per_move: usize| -> usize {
        let comments: usize = moves
            .iter()
            .flat_map(|m| &m.comments)
            .map(|c| c.len() * 2 + 8)
            .sum();
        moves.len() * per_move + comments
    };
    // A variation's moves carry no times: about half a main-line move in JKF.
    let per_variation_move = per_move.min(80);
    records
        .iter()
        .map(|r| {
            // The variations too: a record of few main-line moves and many variations was
            // let through and written as 48.8 MB of JKF (issue 43).
            let header: usize = r
                .header
                .iter()
                .map(|(k, v)| k.len() + v.len() * 2 + 8)
                .sum();
            let starts: usize = r.start_comments.iter().map(|c| c.len() * 2 + 8).sum();
            let variations: usize = r
                .variations
                .iter()
                .map(|v| 64 + moves(&v.moves, per_variation_move))
                .sum();
            512 + header + starts + moves(&r.moves, per_move) + variations
        })
        .sum()
}

/// `POST /api/convert?to=kif[&format=csa]` with a record file as the body: the game in
/// another format (UTF-8 text; CSA and USI may hold several games).
pub(super) async fn convert(
    State(options): State<Arc<HttpOptions>>,
    State(uploads): State<Arc<Uploads>>,
    Query(q): Query<HashMap<String, String>>,
    body: Body,
) -> Result<Response, ApiError> {
    let to = q.get("to").ok_or_else(|| {
        ApiError::input(
            "invalid_format",
            "to: which format (kif, ki2, csa, usi, jkf)",
        )
    })?;
    let format = format_named(to, "to")?;
    let bytes = upload_body(&options, body).await?;
    upload_work(&uploads, move || {
        let records = read_upload(&bytes, &q)?;
        // The work is bounded by what it would write: a conversion whose output would pass
        // MAX_OUTPUT is refused before it is written (a 16 MiB KIF as JKF peaked at 2 GiB).
        let estimate = estimated_output(&records, format);
        if estimate > MAX_OUTPUT {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "output_too_large",
                format!(
                    "the {} would be about {} MiB, over the {} MiB this server writes",
                    format.name(),
                    estimate >> 20,
                    MAX_OUTPUT >> 20
                ),
            )
            .with("limit", json!(MAX_OUTPUT)));
        }
        let text = gyoku_kifu::write_all(&records, format)
            .map_err(|e| ApiError::input("too_many_games", e))?;
        // The estimate is an estimate: what was written is held to the limit too.
        if text.len() > MAX_OUTPUT {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "output_too_large",
                format!(
                    "the {} is {} MiB, over the {} MiB this server writes",
                    format.name(),
                    text.len() >> 20,
                    MAX_OUTPUT >> 20
                ),
            )
            .with("limit", json!(MAX_OUTPUT)));
        }
        let ext = format.name();
        let mut response = text.into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"game.{ext}\"")) {
            headers.insert(header::CONTENT_DISPOSITION, v);
        }
        Ok(response)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43: a KIF of one main-line move and many variations was estimated by its main
    /// line alone, let through, and written as 48.8 MB of JKF (2.0 GiB at its peak). Its
    /// variations count now.
    #[test]
    fn variations_count_in_the_estimated_output() {
        let kif = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n\n\
                   変化：2手\n   2 ８四歩(83)\n   3 ２六歩(27)\n";
        let mut records = gyoku_kifu::read_str(kif, Format::Kif).unwrap();
        assert_eq!(records[0].variations.len(), 1);
        let one = records[0].variations[0].clone();
        let small = estimated_output(&records, Format::Jkf);
        assert!(small < 4096, "{small}");
        // What 2,000 variations write is near what is estimated for them (within 2x either
        // way): the estimate neither cries wolf nor lets a large one through.
        records[0].variations = vec![one.clone(); 2_000];
        let estimated = estimated_output(&records, Format::Jkf);
        let written = gyoku_kifu::write_all(&records, Format::Jkf).unwrap().len();
        assert!(
            written * 2 > estimated && estimated * 2 > written,
            "written {written}, estimated {estimated}"
        );
        records[0].variations = vec![one; 150_000];
        let large = estimated_output(&records, Format::Jkf);
        assert!(large > MAX_OUTPUT, "{large}");
    }
}
