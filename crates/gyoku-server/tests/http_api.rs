//! The HTTP API end to end: a server on loopback with its CSA and HTTP ports, a game played
//! over CSA and read back over HTTP while it is played and after, and every kind of bad
//! input answered with its documented code and status (never a 500).

mod kit;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use gyoku_server::Options;
use gyoku_server::lobby::Config;
use serde_json::{Value, json};

struct TestServer {
    csa: SocketAddr,
    http: SocketAddr,
    dir: PathBuf,
    running: kit::Running,
}

impl TestServer {
    fn start(name: &str) -> TestServer {
        TestServer::start_with(name, gyoku_server::http::HttpOptions::default())
    }

    /// A server with these HTTP bounds.
    fn start_with(name: &str, http_options: gyoku_server::http::HttpOptions) -> TestServer {
        TestServer::start_configured(name, http_options, Config::default())
    }

    /// A server with these HTTP bounds and lobby settings (its schedule added).
    fn start_configured(
        name: &str,
        http_options: gyoku_server::http::HttpOptions,
        lobby: Config,
    ) -> TestServer {
        let dir = kit::fresh_dir("gyoku-http", name);
        let options = Options {
            lobby: Config {
                schedules: vec![(
                    "floodgate-300-10F".into(),
                    gyoku_server::lobby::Schedule::parse(":00,:30").unwrap(),
                )],
                ..lobby
            },
            http: Some("127.0.0.1:0".parse().unwrap()),
            http_options,
            ..kit::options(&dir)
        };
        let running = kit::Running::start(options);
        TestServer {
            csa: running.csa,
            http: running.http.expect("an HTTP port was asked for"),
            dir,
            running,
        }
    }

    /// One request (`Connection: close`): the status and the body as JSON (or as text in
    /// `{"text": …}` when it is not JSON).
    fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Value) {
        self.request_with(method, path, "", body)
    }

    /// One request with `headers` (each line ending in CRLF) besides Host, Content-Length
    /// and Connection.
    fn request_with(&self, method: &str, path: &str, headers: &str, body: &[u8]) -> (u16, Value) {
        let mut s = TcpStream::connect(self.http).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.http,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut answer = Vec::new();
        s.read_to_end(&mut answer).unwrap();
        parse_answer(&answer)
    }

    /// `GET /api/games/{id}/events`, read as it comes.
    fn events(&self, id: &str) -> Events {
        self.events_after(id, None)
    }

    /// The same, as a watcher that connects again after the event `last` (`Last-Event-ID`).
    fn events_after(&self, id: &str, last: Option<&str>) -> Events {
        let mut s = TcpStream::connect(self.http).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let last = last.map_or(String::new(), |l| format!("Last-Event-ID: {l}\r\n"));
        let head = format!(
            "GET /api/games/{id}/events HTTP/1.1\r\nHost: {}\r\n{last}Connection: close\r\n\r\n",
            self.http
        );
        s.write_all(head.as_bytes()).unwrap();
        let mut reader = BufReader::new(s);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert!(line.starts_with("HTTP/1.1 200"), "{line}");
        Events { reader, id: None }
    }

    fn get(&self, path: &str) -> (u16, Value) {
        self.request("GET", path, b"")
    }

    /// A game of `game` (`name-600-10`) between two CSA clients, agreed and started:
    /// (Black, White, the Game_ID).
    fn csa_game(&self, game: &str) -> (Csa, Csa, String) {
        let mut alice = Csa::connect(self.csa);
        let mut bob = Csa::connect(self.csa);
        alice.say(&format!("LOGIN alice {game},pw"));
        alice.until("LOGIN:");
        bob.say(&format!("LOGIN bob {game},pw"));
        bob.until("LOGIN:");
        let summary = alice.until("END Game_Summary");
        bob.until("END Game_Summary");
        let id = summary
            .iter()
            .find_map(|l| l.strip_prefix("Game_ID:"))
            .unwrap()
            .to_string();
        let (mut black, mut white) = if summary.iter().any(|l| l == "Your_Turn:+") {
            (alice, bob)
        } else {
            (bob, alice)
        };
        black.say(&format!("AGREE {id}"));
        white.say(&format!("AGREE {id}"));
        black.until("START:");
        white.until("START:");
        (black, white, id)
    }

    fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        self.request_with(
            "POST",
            path,
            "Content-Type: application/json\r\n",
            body.to_string().as_bytes(),
        )
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.running.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn parse_answer(answer: &[u8]) -> (u16, Value) {
    let text = String::from_utf8_lossy(answer);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let value = serde_json::from_str(body).unwrap_or_else(|_| json!({ "text": body }));
    (status, value)
}

/// An event stream (chunked; the chunk sizes are skipped, events read by their lines).
struct Events {
    reader: BufReader<TcpStream>,
    /// The last event's `id`.
    id: Option<String>,
}

impl Events {
    /// The next `game` event's data; `None` when the stream has ended.
    fn next_game(&mut self) -> Option<Value> {
        let mut event = String::new();
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if let Some(name) = line.strip_prefix("event: ") {
                event = name.to_string();
            } else if let Some(id) = line.strip_prefix("id: ") {
                self.id = Some(id.to_string());
            } else if let Some(data) = line.strip_prefix("data: ")
                && event == "game"
            {
                return serde_json::from_str(data).ok();
            }
        }
    }
}

/// A CSA client of the test: lines in, lines out.
struct Csa {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Csa {
    fn connect(addr: SocketAddr) -> Csa {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        Csa {
            writer: s.try_clone().unwrap(),
            reader: BufReader::new(s),
        }
    }

    fn say(&mut self, line: &str) {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            assert!(
                self.reader.read_line(&mut line).unwrap() > 0,
                "closed: {lines:?}"
            );
            let line = line.trim_end().to_string();
            let done = line.starts_with(prefix);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }
}

fn error_code(v: &Value) -> &str {
    v["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no error code in {v}"))
}

#[test]
fn a_game_played_over_csa_is_seen_over_http_while_played_and_after() {
    let server = TestServer::start("game");
    let (status, v) = server.get("/api/games");
    assert_eq!(
        (status, &v),
        (
            200,
            &json!({ "games": [], "total": 0, "offset": 0, "limit": 100 })
        )
    );

    let (mut black_side, mut white_side, id) = server.csa_game("web-600-10");
    let (black, white) = (&mut black_side, &mut white_side);
    // A spectator's event stream: the game now, then after every stored change.
    let mut events = server.events(&id);
    let first = events.next_game().unwrap();
    assert_eq!(
        (
            first["status"].as_str(),
            first["moves"].as_array().map(Vec::len)
        ),
        (Some("playing"), Some(0))
    );
    black.say("+7776FU");
    black.until("+7776FU");
    white.until("+7776FU");
    // An engine's Floodgate comment: its evaluation is shown beside the move.
    white.say("-3334FU,'* -35 +2625FU");
    black.until("-3334FU");
    white.until("-3334FU");
    let mut seen = 0;
    while seen < 2 {
        seen = events.next_game().unwrap()["moves"]
            .as_array()
            .unwrap()
            .len();
    }

    // Live: every echoed move is stored, so the API sees both.
    let (status, g) = server.get(&format!("/api/games/{id}"));
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["status"], "playing");
    assert_eq!(g["moves"].as_array().unwrap().len(), 2, "{g}");
    assert_eq!(g["moves"][0]["usi"], "7g7f");
    assert_eq!(g["moves"][1]["csa"], "-3334FU");
    assert_eq!(g["moves"][1]["ki2"], "△３四歩");
    assert_eq!(
        (&g["moves"][0]["eval"], &g["moves"][1]["eval"]),
        (&Value::Null, &json!(-35)),
        "{g}"
    );
    assert_eq!(
        g["sfen"],
        "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"
    );
    assert_eq!(g["turn"], "black");
    assert_eq!(g["outcome"]["result"], Value::Null);
    assert_eq!(g["impasse"]["black"]["total_points"], 27, "{g}");
    assert_eq!(
        g["time"],
        json!({ "total": 600, "byoyomi": 10, "increment": 0 })
    );
    // Issue 41: the digest of the rules it is played under, stored with it: here the csa
    // preset as it is, which `gyoku rules csa --json` gives.
    assert_eq!(
        g["rules_digest"],
        gyoku_league::rules_digest::of_preset(gyoku::Preset::Csa).as_str(),
        "{g}"
    );

    black.say("%TORYO");
    black.until("#LOSE");
    white.until("#WIN");
    // The stream's last event is the finished game, then it ends.
    let mut last = Value::Null;
    while let Some(g) = events.next_game() {
        last = g;
    }
    assert_eq!(last["status"], "finished", "{last}");
    assert_eq!(last["outcome"]["reason"], "resignation", "{last}");
    let (status, list) = server.get("/api/games");
    assert_eq!(status, 200);
    let listed = &list["games"][0];
    assert_eq!(listed["id"], id.as_str());
    assert_eq!(listed["status"], "finished");
    assert_eq!(listed["moves"], 2);
    assert_eq!(list["total"], 1, "{list}");
    assert!(listed["time"]["total"].is_number(), "{listed}");
    // Filtered and paged (issue 46): by a player's name in any case, by status.
    let black_name = listed["black"].as_str().unwrap().to_uppercase();
    let (_, found) = server.get(&format!("/api/games?q={black_name}&status=finished"));
    assert_eq!(
        (found["total"].as_u64(), found["games"][0]["id"].as_str()),
        (Some(1), Some(id.as_str()))
    );
    let (_, none) = server.get("/api/games?status=playing");
    assert_eq!(
        (
            none["total"].as_u64(),
            none["games"].as_array().map(Vec::len)
        ),
        (Some(0), Some(0))
    );
    let (_, past) = server.get("/api/games?offset=1");
    assert_eq!(
        (
            past["total"].as_u64(),
            past["games"].as_array().map(Vec::len)
        ),
        (Some(1), Some(0))
    );
    for bad in [
        "status=over",
        "offset=-1",
        &format!("q={}", "x".repeat(101)),
    ] {
        let (status, error) = server.get(&format!("/api/games?{bad}"));
        assert_eq!(status, 400, "{bad}: {error}");
    }
    let (_, g) = server.get(&format!("/api/games/{id}"));
    assert_eq!(g["outcome"]["result"], "white", "{g}");
    assert_eq!(g["outcome"]["reason"], "resignation", "{g}");
    assert_eq!(g["outcome"]["agrees"], true, "{g}");
    assert_eq!(g["moves"].as_array().unwrap().len(), 2, "{g}");
    assert_eq!(g["moves"][1]["eval"], -35, "from the record: {g}");
    // The impasse chart, as `gyoku impasse --chart` draws it.
    let (status, v) = server.get(&format!("/api/games/{id}/chart.svg"));
    let svg = v["text"].as_str().unwrap();
    assert_eq!(status, 200);
    assert!(
        svg.starts_with("<svg") && svg.contains("over 2 moves"),
        "{svg}"
    );
    // Titled by its players, not by its Game_ID.
    let players = format!(
        "{} vs {}",
        listed["black"].as_str().unwrap(),
        listed["white"].as_str().unwrap()
    );
    assert!(
        svg.contains(&players) && !svg.contains(id.as_str()),
        "{svg}"
    );
}

/// Issue 33, item 3: each event names the stored state it shows (`3-playing`); a watcher
/// that connects again with `Last-Event-ID` is sent the view at once only if it missed a
/// change, is not sent a state twice, and one that saw the game end is sent nothing.
#[test]
fn a_watcher_that_connects_again_resumes_from_the_last_change_it_saw() {
    let server = TestServer::start("resume");
    let (mut black_side, mut white_side, id) = server.csa_game("resume-600-10");
    let (black, white) = (&mut black_side, &mut white_side);
    let mut events = server.events(&id);
    events.next_game().unwrap();
    assert_eq!(events.id.as_deref(), Some("0-playing"));
    for (mover, m) in [(&mut *black, "+7776FU"), (&mut *white, "-3334FU")] {
        mover.say(m);
        mover.until(m);
    }
    while events.id.as_deref() != Some("2-playing") {
        events.next_game().unwrap();
    }
    // Behind: the latest view at once.
    let mut behind = server.events_after(&id, Some("0-playing"));
    let v = behind.next_game().unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
    // Caught up: nothing until the next change, which is the first it is sent.
    let mut caught_up = server.events_after(&id, Some("2-playing"));
    black.say("+2726FU");
    black.until("+2726FU");
    let v = caught_up.next_game().unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(caught_up.id.as_deref(), Some("3-playing"));
    white.say("%TORYO");
    white.until("#LOSE");
    let v = caught_up.next_game().unwrap();
    assert_eq!(v["status"], "finished");
    let end = caught_up.id.clone().unwrap();
    assert_eq!(end, "3-finished");
    assert!(
        caught_up.next_game().is_none(),
        "the stream ends with the game"
    );
    // Back after the end it saw: the stream ends at once, sending nothing.
    let mut after = server.events_after(&id, Some(&end));
    assert!(after.next_game().is_none());
    // Back after an earlier state: the final view.
    let mut late = server.events_after(&id, Some("2-playing"));
    assert_eq!(late.next_game().unwrap()["status"], "finished");
}

#[test]
fn the_calculator_judge_and_convert_answer_like_the_cli() {
    let server = TestServer::start("tools");
    // The calculator, as `gyoku impasse --json` prints it.
    let (status, v) = server.post_json("/api/impasse", &json!({ "moves": "7g7f 3c3d 8h2b+" }));
    assert_eq!(status, 200, "{v}");
    // Black took a bishop: two bishops (5 each), pawns and the rest; one piece in the zone.
    assert_eq!(v["black"]["total_points"], 32, "{v}");
    assert_eq!(v["black"]["zone_count"], 1, "{v}");
    assert_eq!(v["white"]["total_points"], 22, "{v}");
    assert_eq!(v["verdicts"]["jsa"]["declaration"], "lose", "{v}");
    assert!(v["verdicts"].as_object().unwrap().len() >= 10, "{v}");
    // Article 9's condition: neither side mates by checks at move 4 of a game.
    assert_eq!(v["mate_by"]["black"]["result"], "no_mate", "{v}");
    assert_eq!(v["mate_by"]["white"]["result"], "no_mate", "{v}");
    assert_eq!(v["mate_by"]["nodes_each"], 100_000, "{v}");
    // Black (not to move) would mate with the gold at once; White has nothing.
    let sfen = "4k4/9/4P4/9/9/9/9/9/4K4 w Gp 1";
    let (status, v) =
        server.post_json("/api/impasse", &json!({ "sfen": sfen, "mate_nodes": 5000 }));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["mate_by"]["black"]["line"], json!(["G*5b"]), "{v}");
    assert_eq!(v["mate_by"]["white"]["result"], "no_mate", "{v}");
    let (_, v) = server.post_json("/api/impasse", &json!({ "sfen": sfen, "mate_nodes": 0 }));
    assert!(v["mate_by"].is_null(), "{v}");
    // The mate search, as `gyoku mate --json` prints it.
    let (status, v) = server.post_json(
        "/api/mate",
        &json!({ "sfen": "R6sk/9/7G1/9/9/9/9/9/4K4 b P 1", "nodes": 10_000 }),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"], "mate", "{v}");
    assert_eq!(v["line"], json!(["9a2a+", "1a2a", "S*2b"]), "{v}");
    assert_eq!(v["plies"], 3, "{v}");
    // A tsume position (no White pieces but the king) is taken when lenient.
    let (status, v) = server.post_json(
        "/api/mate",
        &json!({ "sfen": "8k/9/9/9/9/9/9/9/9 b P 1", "lenient": true }),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"], "no_mate", "{v}");
    // A record in any format and encoding: here KIF in Shift_JIS, ended by 投了.
    let kif = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 投了\n";
    let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode(kif);
    let (status, v) = server.request("POST", "/api/judge?rules=jsa", &sjis);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["rules"], "jsa");
    let r = &v["records"][0];
    assert_eq!(r["result"], "white", "{v}");
    assert_eq!(r["reason"], "resignation", "{v}");
    assert_eq!(r["moves"], json!(["7g7f", "3c3d"]), "{v}");
    // A foul marked at its ply: a second pawn on file 2 (nifu), Black holding White's 1c.
    let csa = "PI13FU\nP+00FU\n+\n+7776FU\n-8384FU\n+2726FU\n-8485FU\n+0025FU\n%TORYO\n";
    let (status, v) = server.request("POST", "/api/judge", csa.as_bytes());
    assert_eq!(status, 200, "{v}");
    let r = &v["records"][0];
    assert_eq!(r["reason"], "illegal_move", "{v}");
    assert_eq!(
        r["foul"],
        json!({ "ply": 5, "move": "P*2e", "kind": "nifu" }),
        "{v}"
    );
    assert_eq!(r["detail"]["foul_ply"], 5, "{v}");
    // Converted to KIF.
    let (status, v) = server.request("POST", "/api/convert?to=kif", csa.as_bytes());
    assert_eq!(status, 200, "{v}");
    let text = v["text"].as_str().unwrap();
    assert!(text.contains("手数----指手"), "{text}");
    assert!(text.contains("２六歩(27)"), "{text}");
    assert!(text.contains("先手の持駒：歩"), "{text}");
}

#[test]
fn bad_input_gets_its_documented_error_never_a_500() {
    let server = TestServer::start("bad");
    let cases: Vec<(&str, &str, Vec<u8>, u16, &str)> = vec![
        (
            "POST",
            "/api/impasse",
            br#"{"sfen": "9/9/9 b - 1"}"#.to_vec(),
            400,
            "invalid_sfen",
        ),
        (
            "POST",
            "/api/impasse",
            br#"{"moves": "P*5e"}"#.to_vec(),
            422,
            "illegal_move",
        ),
        (
            "POST",
            "/api/impasse",
            br#"{"moves": "7g7z"}"#.to_vec(),
            400,
            "invalid_move",
        ),
        (
            "POST",
            "/api/impasse",
            br#"{"moves": ["7g7f", 7]}"#.to_vec(),
            400,
            "invalid_move",
        ),
        (
            "POST",
            "/api/impasse",
            br#"{"lenient": "yes"}"#.to_vec(),
            400,
            "invalid_json",
        ),
        (
            "POST",
            "/api/impasse",
            b"{not json".to_vec(),
            400,
            "invalid_json",
        ),
        (
            "POST",
            "/api/impasse",
            br#"{"mate_nodes": 1000001}"#.to_vec(),
            400,
            "invalid_json",
        ),
        (
            "POST",
            "/api/mate",
            br#"{"nodes": -1}"#.to_vec(),
            400,
            "invalid_json",
        ),
        (
            "POST",
            "/api/mate",
            br#"{"sfen": "8k/9/9/9/9/9/9/9/9 b P 1"}"#.to_vec(),
            400,
            "invalid_sfen",
        ),
        (
            "POST",
            "/api/impasse",
            b"[1, 2]".to_vec(),
            400,
            "invalid_json",
        ),
        (
            "POST",
            "/api/judge",
            b"this is not a record\n".to_vec(),
            400,
            "invalid_record",
        ),
        ("POST", "/api/judge", Vec::new(), 400, "invalid_record"),
        (
            "POST",
            "/api/judge",
            vec![0xff; 4096],
            400,
            "invalid_record",
        ),
        (
            "POST",
            "/api/judge?rules=chess",
            b"PI\n+\n".to_vec(),
            400,
            "invalid_rules",
        ),
        (
            "POST",
            "/api/judge?max_moves=x",
            b"PI\n+\n".to_vec(),
            400,
            "invalid_max_moves",
        ),
        (
            "POST",
            "/api/convert?to=pgn",
            b"PI\n+\n".to_vec(),
            400,
            "invalid_format",
        ),
        (
            "POST",
            "/api/convert",
            b"PI\n+\n".to_vec(),
            400,
            "invalid_format",
        ),
        (
            "GET",
            "/api/games?limit=0",
            Vec::new(),
            400,
            "invalid_limit",
        ),
        (
            "GET",
            "/api/games?limit=lots",
            Vec::new(),
            400,
            "invalid_limit",
        ),
        (
            "GET",
            "/api/games/no-such-game",
            Vec::new(),
            404,
            "no_such_game",
        ),
        ("GET", "/api/nothing", Vec::new(), 404, "not_found"),
        (
            "DELETE",
            "/api/games",
            Vec::new(),
            405,
            "method_not_allowed",
        ),
    ];
    for (method, path, body, status, code) in cases {
        let json = path.starts_with("/api/impasse") || path.starts_with("/api/mate");
        let headers = if json {
            "Content-Type: application/json\r\n"
        } else {
            ""
        };
        let (got, v) = server.request_with(method, path, headers, &body);
        assert_eq!(
            (got, error_code(&v)),
            (status, code),
            "{method} {path}: {v}"
        );
        assert!(!v["error"]["message"].as_str().unwrap().is_empty(), "{v}");
    }
    // A record that does not read says where and what kind of fault (issue 40).
    let (got, v) = server.request_with("POST", "/api/judge?format=csa", "", b"V2.2\nPX\n");
    assert_eq!(got, 400, "{v}");
    assert_eq!(
        (&v["error"]["read_kind"], &v["error"]["line"]),
        (&json!("position"), &json!(2)),
        "{v}"
    );
    // The illegal move names its kind and ply, as the CLI does.
    let (_, v) = server.post_json("/api/impasse", &json!({ "moves": "7g7f P*5e" }));
    assert_eq!(v["error"]["kind"], "not_in_hand", "{v}");
    assert_eq!(v["error"]["ply"], 2, "{v}");
    // The same as a list.
    let (_, v) = server.post_json("/api/impasse", &json!({ "moves": ["7g7f", "P*5e"] }));
    assert_eq!(
        (&v["error"]["kind"], &v["error"]["ply"]),
        (&json!("not_in_hand"), &json!(2)),
        "{v}"
    );
    // A malformed SFEN says where.
    let (_, v) = server.post_json("/api/impasse", &json!({ "sfen": "9/9/9 b - 1" }));
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("field 1 (board)"),
        "{v}"
    );
}

#[test]
fn a_100_mb_upload_is_refused_without_reading_it_all() {
    let server = TestServer::start("upload");
    let mut s = TcpStream::connect(server.http).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let size = 100 * 1024 * 1024;
    let head = format!(
        "POST /api/judge HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n"
    );
    s.write_all(head.as_bytes()).unwrap();
    // Send until the server stops reading; its answer is read meanwhile.
    let mut writer = s.try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        let chunk = vec![b'P'; 1 << 20];
        let mut sent = 0usize;
        while sent < size && writer.write_all(&chunk).is_ok() {
            sent += chunk.len();
        }
        sent
    });
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let sent = sender.join().unwrap();
    let (status, v) = parse_answer(&answer);
    assert_eq!((status, error_code(&v)), (413, "too_large"), "{v}");
    assert!(sent < size, "all {sent} bytes were taken in");
    // And the server goes on answering.
    assert_eq!(server.get("/api/games").0, 200);
}

/// Issue 28, item 25: a `Content-Length` of 10^12 was not refused up front: the server
/// waited for the body. It answers 413 at once, on every route that takes a body.
#[test]
fn a_declared_oversize_body_is_refused_before_it_is_read() {
    let server = TestServer::start("declared");
    for path in [
        "/api/judge",
        "/api/convert?to=jkf",
        "/api/play",
        "/api/impasse",
        "/api/seats/nosuch/move",
    ] {
        let mut s = TcpStream::connect(server.http).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000000\r\n\r\n"
        );
        s.write_all(head.as_bytes()).unwrap();
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        let (status, v) = parse_answer(&answer);
        assert_eq!((status, error_code(&v)), (413, "too_large"), "{path}: {v}");
    }
    assert_eq!(server.get("/api/games").0, 200);
}

#[test]
fn the_page_is_served_from_the_binary() {
    let server = TestServer::start("page");
    for (path, marker) in [
        ("/", "<script type=\"module\" src=\"/assets/js/main.js\">"),
        ("/assets/js/game.js", "EventSource"),
        ("/assets/style.css", ".board"),
    ] {
        let (status, v) = server.get(path);
        assert_eq!(status, 200, "{path}");
        assert!(v["text"].as_str().unwrap().contains(marker), "{path}");
    }
    // Every module the page imports, from main.js on, is served (issue 26, step 7).
    let mut seen = std::collections::BTreeSet::new();
    let mut queue = vec!["main.js".to_string()];
    while let Some(module) = queue.pop() {
        if !seen.insert(module.clone()) {
            continue;
        }
        let (status, v) = server.get(&format!("/assets/js/{module}"));
        assert_eq!(status, 200, "{module}");
        let text = v["text"].as_str().unwrap();
        for import in text.split("from './").skip(1) {
            queue.push(import.split('\'').next().unwrap().to_string());
        }
    }
    assert!(seen.len() >= 10, "{seen:?}");
    assert_eq!(server.get("/assets/js/nothing.js").0, 404);
    assert_eq!(server.get("/assets/js/position.test.js").0, 404);
}

/// Black has a pawn on 5f and one in hand: `P*5e` is nifu.
const NIFU_SFEN: &str = "lnsgkgsnl/1r5b1/pppp1pppp/9/9/4P4/PPPP1PPPP/1B5R1/LNSGKGSNL b P 1";
/// Black has entered with 10 pieces in the zone and 28 points.
const DECLARE_SFEN: &str = "8R/4K3B/GGGGSSSS1/nnnn5/pppppppp1/llll5/9/r7b/4k4 b 10P 1";

impl TestServer {
    /// A game between two people made over the API, the invitation opened, both seats
    /// playing: (Black's token, White's token).
    fn two_people(&self, game: Value) -> (String, String) {
        let (black, white, _) = self.two_people_invited(game);
        (black, white)
    }

    /// As [`TestServer::two_people`], with the invitation's code (used).
    fn two_people_invited(&self, game: Value) -> (String, String, String) {
        let mut game = game;
        game["opponent"] = json!("person");
        game["color"] = json!("black");
        let (status, a) = self.post_json("/api/play", &game);
        assert_eq!(status, 201, "{a}");
        let (black, invite) = (
            a["token"].as_str().unwrap().to_string(),
            a["invite"].as_str().unwrap().to_string(),
        );
        assert_eq!(black.len(), 32, "128 bits");
        let (status, b) = self.get(&format!("/api/seats/{invite}"));
        assert_eq!(
            (status, b["seat"]["phase"].as_str()),
            (200, Some("invited"))
        );
        let (status, b) = self.post_json(
            &format!("/api/seats/{invite}/join"),
            &json!({"name": "Hanako"}),
        );
        assert_eq!(status, 200, "{b}");
        // The joiner's own secret, which the link does not carry.
        let white = b["token"].as_str().unwrap().to_string();
        assert_ne!(white, invite);
        for token in [&black, &white] {
            self.until(token, |v| v["seat"]["phase"] == "playing");
        }
        (black, white, invite)
    }

    /// Polls a seat until `done` holds (at most 10 s); its last answer.
    fn until(&self, token: &str, done: impl Fn(&Value) -> bool) -> Value {
        gyoku_testdata::wait_for(
            Duration::from_secs(10),
            || format!("seat {token} to get there"),
            || {
                let (status, v) = self.get(&format!("/api/seats/{token}"));
                assert_eq!(status, 200, "{v}");
                done(&v).then_some(v)
            },
        )
    }
}

#[test]
fn two_people_play_from_the_api_under_friendly_and_tournament_rules() {
    let server = TestServer::start("play");
    // Friendly: the nifu is refused, named, and the game goes on.
    let (black, white, invite) = server.two_people_invited(json!({
        "rules": "csa", "fouls": "refuse", "sfen": NIFU_SFEN,
        "time": {"total": 60, "byoyomi": 5},
    }));
    // Issue 27 item 3: the used link is a spectator's: it shows the game, and cannot act.
    let (status, v) = server.get(&format!("/api/seats/{invite}"));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["seat"]["phase"], "taken", "{v}");
    assert_eq!(v["game"]["status"], "playing", "{v}");
    let (status, v) = server.post_json(
        &format!("/api/seats/{invite}/move"),
        &json!({ "move": "3c3d" }),
    );
    assert_eq!((status, error_code(&v)), (409, "not_playing"), "{v}");
    let mv = |token: &str, m: &str| {
        server.post_json(&format!("/api/seats/{token}/move"), &json!({ "move": m }))
    };
    let (status, v) = mv(&white, "3c3d");
    assert_eq!((status, error_code(&v)), (409, "not_your_turn"), "{v}");
    let (status, v) = mv(&black, "P*5e");
    assert_eq!((status, error_code(&v)), (422, "illegal_move"), "{v}");
    assert_eq!(v["error"]["kind"], "nifu");
    assert_eq!(v["error"]["refused"], true);
    let (status, v) = mv(&black, "5f5e");
    assert_eq!(status, 200, "{v}");
    let game = &v["game"];
    assert_eq!(game["moves"][0]["usi"], "5f5e");
    assert_eq!(game["fouls"], "refuse");
    assert_eq!(game["clock"]["running"], "white");
    assert_eq!(game["clock"]["byoyomi_ms"], 5000);
    assert!(game["legal"].as_array().unwrap().contains(&json!("3c3d")));
    let (status, v) = mv(&black, "5e5d");
    assert_eq!((status, error_code(&v)), (409, "not_your_turn"), "{v}");
    let (status, v) = server.post_json(&format!("/api/seats/{white}/resign"), &json!({}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["seat"]["result"], "#LOSE");
    assert_eq!(v["game"]["outcome"]["reason"], "resignation");
    assert_eq!(v["game"]["outcome"]["result"], "black");
    server.until(&black, |v| v["seat"]["result"] == "#WIN");
    let (status, v) = server.post_json(&format!("/api/seats/{invite}/join"), &json!({}));
    assert_eq!((status, error_code(&v)), (409, "invitation_taken"), "{v}");
    let (status, v) = mv(&black, "5e5d");
    assert_eq!((status, error_code(&v)), (409, "not_playing"), "{v}");

    // Tournament: the same drop loses, and the ending names it.
    let (black, _) = server.two_people(json!({
        "rules": "csa", "fouls": "lose", "sfen": NIFU_SFEN,
    }));
    let (status, v) = mv(&black, "P*5e");
    assert_eq!(status, 200, "{v}");
    let outcome = &v["game"]["outcome"];
    assert_eq!(v["game"]["status"], "finished", "{v}");
    assert_eq!(outcome["result"], "white", "{outcome}");
    assert_eq!(outcome["reason"], "illegal_move", "{outcome}");
    assert_eq!(outcome["detail"]["foul"], "nifu", "{outcome}");
    assert_eq!(v["seat"]["result"], "#LOSE");
}

#[test]
fn a_declaration_wins_under_csa_and_is_no_contest_under_jsa() {
    let server = TestServer::start("declare");
    for (rules, result) in [("csa", "black"), ("jsa", "no_contest")] {
        let (black, _) = server.two_people(json!({ "rules": rules, "sfen": DECLARE_SFEN }));
        let (_, v) = server.get(&format!("/api/seats/{black}"));
        assert_eq!(v["game"]["allows"]["declaration"], true, "{v}");
        let (status, v) = server.post_json(&format!("/api/seats/{black}/declare"), &json!({}));
        assert_eq!(status, 200, "{v}");
        let outcome = &v["game"]["outcome"];
        assert_eq!(outcome["result"], result, "{rules}: {outcome}");
        assert_eq!(outcome["reason"], "declaration", "{rules}: {outcome}");
        assert_eq!(outcome["detail"]["count"]["declaration_points"], 28);
    }
    // The lishogi preset has no declaration: the page's button stays off.
    let (black, _) = server.two_people(json!({ "rules": "lishogi" }));
    let (_, v) = server.get(&format!("/api/seats/{black}"));
    assert_eq!(v["game"]["allows"]["declaration"], false, "{v}");
}

#[test]
fn bad_play_requests_get_their_codes() {
    let server = TestServer::start("play-bad");
    for (body, status, code) in [
        (json!({"opponent": "nosuch"}), 400, "no_such_engine"),
        (json!({"opponent": "builtin"}), 400, "no_such_engine"),
        (
            json!({"opponent": "person", "time": {"total": 60, "byoyomi": 5, "increment": 2}}),
            400,
            "invalid_time",
        ),
        (
            json!({"opponent": "person", "time": {"total": -1}}),
            400,
            "invalid_time",
        ),
        (
            json!({"opponent": "person", "time": "fast"}),
            400,
            "invalid_time",
        ),
        (
            json!({"opponent": "person", "rules": "chess"}),
            400,
            "invalid_rules",
        ),
        (
            json!({"opponent": "person", "fouls": "maybe"}),
            400,
            "invalid_fouls",
        ),
        (
            json!({"opponent": "person", "color": "red"}),
            400,
            "invalid_color",
        ),
        (
            json!({"opponent": "person", "sfen": "9/9 b"}),
            400,
            "invalid_sfen",
        ),
        (
            json!({"opponent": "person", "max_moves": "many"}),
            400,
            "invalid_max_moves",
        ),
        // Issue 40 (step 6): the body is typed; a field of the wrong shape keeps its code.
        (
            json!({"opponent": "person", "max_moves": 100_001}),
            400,
            "invalid_max_moves",
        ),
        (
            json!({"opponent": "person", "time": {"periods": "three"}}),
            400,
            "invalid_time",
        ),
        (
            json!({"opponent": "person", "time": {"thinking_units": 5}}),
            400,
            "invalid_time",
        ),
        (
            json!({"opponent": "person", "time": {"thinking_units": {"count": -1}}}),
            400,
            "invalid_time",
        ),
        (
            json!({"opponent": "person", "name": 5}),
            400,
            "invalid_json",
        ),
        (json!({"opponent": 7}), 400, "invalid_json"),
        (json!([1]), 400, "invalid_json"),
    ] {
        let (got, v) = server.post_json("/api/play", &body);
        assert_eq!((got, error_code(&v)), (status, code), "{body}: {v}");
    }
    let (status, v) = server.get("/api/seats/nope");
    assert_eq!((status, error_code(&v)), (404, "no_such_seat"), "{v}");
    let (black, _) = server.two_people(json!({}));
    for (m, code) in [
        (json!({"move": "7g7"}), "invalid_move"),
        (json!({}), "invalid_move"),
    ] {
        let (status, v) = server.post_json(&format!("/api/seats/{black}/move"), &m);
        assert_eq!((status, error_code(&v)), (400, code), "{m}: {v}");
    }
    let (status, v) = server.get("/api/play");
    assert_eq!(status, 200);
    assert_eq!(v["opponents"], json!(["person"]));
}

#[test]
fn an_impasse_count_is_proposed_and_accepted_under_jsa_only() {
    let server = TestServer::start("impasse");
    // Both kings entered, 27 points each: agreed, JSA counts a no-contest (replayed).
    let both = "K8/9/9/9/9/9/9/9/8k b RB2G2S2N2L9Prb2g2s2n2l9p 1";
    let (black, white) = server.two_people(json!({ "rules": "jsa", "sfen": both }));
    let (_, v) = server.get(&format!("/api/seats/{black}"));
    assert_eq!(v["game"]["allows"]["impasse_count"], true, "{v}");
    let (status, v) = server.post_json(&format!("/api/seats/{black}/impasse"), &json!({}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["seat"]["proposal"], "black", "{v}");
    let v = server.until(&white, |v| v["seat"]["proposal"] == "black");
    assert_eq!(v["game"]["status"], "playing");
    let (status, v) = server.post_json(&format!("/api/seats/{white}/impasse"), &json!({}));
    assert_eq!(status, 200, "{v}");
    let outcome = &v["game"]["outcome"];
    assert_eq!(v["game"]["status"], "finished", "{v}");
    assert_eq!(outcome["result"], "no_contest", "{outcome}");
    assert_eq!(outcome["reason"], "impasse_agreement", "{outcome}");
    assert_eq!(v["seat"]["result"], "#DRAW");
    // Under csa there is no agreement: refused, and the game goes on.
    let (black, _) = server.two_people(json!({ "rules": "csa", "sfen": both }));
    let (_, v) = server.get(&format!("/api/seats/{black}"));
    assert_eq!(v["game"]["allows"]["impasse_count"], false, "{v}");
    let (status, v) = server.post_json(&format!("/api/seats/{black}/impasse"), &json!({}));
    assert_eq!((status, error_code(&v)), (422, "refused"), "{v}");
    let (_, v) = server.get(&format!("/api/seats/{black}"));
    assert_eq!(v["game"]["status"], "playing", "{v}");
}

/// Reads one answer on `s` (sent with `Connection: close`): its head and its body.
fn read_answer(s: &mut TcpStream) -> (String, String) {
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.to_string(), body.to_string())
}

/// Issue 28, item 6: another origin's page started games with a no-preflight `text/plain`
/// POST; a DNS-rebound name reached the loopback server; no security headers. A JSON body
/// must say it is JSON, a request that acts must come from this server's page, the `Host`
/// must be this server's, and every answer carries the usual headers.
#[test]
fn other_origins_and_hosts_cannot_act() {
    let server = TestServer::start("origin");
    let play = br#"{"opponent": "person", "rules": "csa"}"#;
    // text/plain (what a form or a no-preflight fetch of another site sends): refused.
    for headers in [
        "Content-Type: text/plain;charset=UTF-8\r\n",
        "Content-Type: application/x-www-form-urlencoded\r\n",
        "",
    ] {
        let (status, v) = server.request_with("POST", "/api/play", headers, play);
        assert_eq!(
            (status, error_code(&v)),
            (415, "unsupported_media_type"),
            "{headers:?}: {v}"
        );
    }
    // Another origin, even with the right type: refused, and no seat is made.
    let json = "Content-Type: application/json\r\n";
    for origin in [
        "Origin: http://evil.example\r\n",
        "Origin: null\r\n",
        "Sec-Fetch-Site: cross-site\r\n",
    ] {
        let (status, v) =
            server.request_with("POST", "/api/play", &format!("{json}{origin}"), play);
        assert_eq!(
            (status, error_code(&v)),
            (403, "cross_origin"),
            "{origin:?}: {v}"
        );
        let (status, v) =
            server.request_with("POST", "/api/seats/0123456789abcdef/resign", origin, b"");
        assert_eq!(
            (status, error_code(&v)),
            (403, "cross_origin"),
            "{origin:?}: {v}"
        );
    }
    // This server's own page may.
    let own = format!(
        "{json}Origin: http://{}\r\nSec-Fetch-Site: same-origin\r\n",
        server.http
    );
    let (status, v) = server.request_with("POST", "/api/play", &own, play);
    assert_eq!(status, 201, "{v}");
    // A name that is not this server's (DNS rebinding) is not answered, even to read.
    let mut s = TcpStream::connect(server.http).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(
        format!(
            "GET /api/games HTTP/1.1\r\nHost: rebound.example:{}\r\nConnection: close\r\n\r\n",
            server.http.port()
        )
        .as_bytes(),
    )
    .unwrap();
    let (head, body) = read_answer(&mut s);
    assert!(head.starts_with("HTTP/1.1 421"), "{head}");
    assert!(body.contains("unknown_host"), "{body}");
    // Every answer, errors included, carries the security headers.
    for path in ["/", "/assets/js/main.js", "/api/games", "/api/nothing"] {
        let mut s = TcpStream::connect(server.http).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(
            format!(
                "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                server.http
            )
            .as_bytes(),
        )
        .unwrap();
        let (head, _) = read_answer(&mut s);
        let head = head.to_ascii_lowercase();
        for h in [
            "x-content-type-options: nosniff",
            "x-frame-options: deny",
            "content-security-policy: default-src 'self'",
            "referrer-policy: no-referrer",
        ] {
            assert!(head.contains(h), "{path}: no {h} in {head}");
        }
    }
}

/// Issue 28, item 12: slow request bodies to `/api/seats/<any token>/move` held every
/// request slot of the route and froze web play. A body to no seat is answered at once
/// without being read; a slow body is cut off; and many slow clients from one address hold
/// only that address's share, so others are answered at once.
#[test]
fn slow_bodies_do_not_freeze_the_api() {
    let server = TestServer::start("slow");
    // A body to no seat: 404 at once, though the body never comes.
    let mut s = TcpStream::connect(server.http).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(
        format!(
            "POST /api/seats/nosuch/move HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{",
            server.http
        )
        .as_bytes(),
    )
    .unwrap();
    let mut answer = [0u8; 64];
    let n = s.read(&mut answer).unwrap();
    let head = String::from_utf8_lossy(&answer[..n]);
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    // 40 slow JSON bodies from this address (past its 32 requests at once).
    let mut slow = Vec::new();
    for _ in 0..40 {
        let mut s = TcpStream::connect(server.http).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(
            format!(
                "POST /api/impasse HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n{{",
                server.http
            )
            .as_bytes(),
        )
        .unwrap();
        slow.push(s);
    }
    // Once the slow ones are in (the 8 past the share are told 429 at once), this address
    // is told so at once rather than queued.
    let mut refused = vec![false; slow.len()];
    for s in &slow {
        s.set_nonblocking(true).unwrap();
    }
    gyoku_testdata::wait_until(Duration::from_secs(10), "8 slow bodies refused", || {
        for (s, no) in slow.iter_mut().zip(&mut refused) {
            let mut b = [0u8; 12];
            if let Ok(n @ 1..) = s.peek(&mut b) {
                *no = b[..n].starts_with(b"HTTP/1.1 429");
            }
        }
        refused.iter().filter(|r| **r).count() == 8
    });
    for s in &slow {
        s.set_nonblocking(false).unwrap();
    }
    let (status, v) = server.post_json("/api/impasse", &json!({ "sfen": "startpos" }));
    assert_eq!((status, error_code(&v)), (429, "too_many_requests"), "{v}");
    // Each slow body is cut off with 408 (the default allows it 10 s).
    let started = std::time::Instant::now();
    let mut timed_out = 0;
    for mut s in slow {
        let (head, body) = read_answer(&mut s);
        if head.starts_with("HTTP/1.1 408") {
            assert!(body.contains("body_timeout"), "{body}");
            timed_out += 1;
        } else {
            assert!(head.starts_with("HTTP/1.1 429"), "{head}");
        }
    }
    assert_eq!(timed_out, 32);
    assert!(started.elapsed() < Duration::from_secs(20));
    // And the address is served again.
    let (status, _) = server.post_json("/api/impasse", &json!({ "sfen": "startpos" }));
    assert_eq!(status, 200);
}

/// Issue 43: slow record uploads shared the players' lane — 8 addresses × 32 slow
/// `/api/judge` bodies took every place among the requests answered at once, so every
/// request, a web player's move included, waited and was answered 503 (the player lost on
/// time). Record files now have a lane of their own: past its share an address's uploads
/// are refused at once, and the players' moves and the page's views are answered while
/// the slow ones hang on. Here one address may hold more requests than the server answers
/// at once, as eight did.
#[test]
fn slow_uploads_do_not_take_the_players_lane() {
    let options = gyoku_server::http::HttpOptions {
        max_in_flight: 24,
        max_in_flight_per_address: 64,
        queue_timeout: Duration::from_secs(2),
        ..gyoku_server::http::HttpOptions::default()
    };
    let per_address = options.max_uploads_per_address;
    let server = TestServer::start_with("uploads", options);
    let (black, white) = server.two_people(json!({
        "rules": "csa", "time": {"total": 60, "byoyomi": 10},
    }));
    // 40 record files that never finish arriving.
    let mut slow = Vec::new();
    for _ in 0..40 {
        let mut s = TcpStream::connect(server.http).unwrap();
        s.write_all(
            format!(
                "POST /api/judge HTTP/1.1\r\nHost: {}\r\nContent-Length: 100000\r\nConnection: close\r\n\r\nV2.2\n",
                server.http
            )
            .as_bytes(),
        )
        .unwrap();
        s.set_nonblocking(true).unwrap();
        slow.push((s, None::<String>));
    }
    // Each past the address's share is refused at once (429); the rest hang on.
    let answered_lines = |slow: &[(TcpStream, Option<String>)]| -> Vec<String> {
        slow.iter()
            .filter_map(|(_, a)| a.as_deref().and_then(|a| a.lines().next()))
            .map(str::to_string)
            .collect()
    };
    let answered = gyoku_testdata::wait_for(
        Duration::from_secs(20),
        || "the uploads past the share were not refused".into(),
        || {
            for (s, answer) in &mut slow {
                if answer.is_none() {
                    let mut buf = [0u8; 512];
                    if let Ok(n @ 1..) = s.read(&mut buf) {
                        *answer = Some(String::from_utf8_lossy(&buf[..n]).into_owned());
                    }
                }
            }
            let answered = answered_lines(&slow);
            (answered.len() == slow.len() - per_address).then_some(answered)
        },
    );
    assert!(
        answered.iter().all(|a| a.starts_with("HTTP/1.1 429")),
        "{answered:?}"
    );
    // Meanwhile the players move and the page is served.
    for (token, m) in [(&black, "7g7f"), (&white, "3c3d"), (&black, "2g2f")] {
        let (status, v) =
            server.post_json(&format!("/api/seats/{token}/move"), &json!({ "move": m }));
        assert_eq!(status, 200, "{v}");
    }
    let (status, v) = server.get("/api/games");
    assert_eq!(status, 200, "{v}");
    let (status, v) = server.get(&format!("/api/seats/{white}"));
    assert_eq!(
        (status, v["game"]["status"].as_str()),
        (200, Some("playing")),
        "{v}"
    );
    // Once the slow ones are gone, a record file is judged again.
    drop(slow);
    let body = b"V2.2\nPI\n+\n+7776FU\n%TORYO\n".to_vec();
    gyoku_testdata::wait_until(Duration::from_secs(10), "a record judged again", || {
        let (status, v) = server.request("POST", "/api/judge", &body);
        assert!(status == 200 || status == 429, "{status} {v}");
        status == 200
    });
}

/// Issue 42, item 3: a person whose page is gone (silent past its bound, or said it left)
/// is away; the other sees it and, after the grace, claims the game (the away player loses
/// as one who left). Before then the claim is refused, and a person who comes back is here
/// again.
#[test]
fn a_person_away_past_the_grace_loses_the_game_when_claimed() {
    let lobby = Config {
        reconnect_grace_ms: 2_000,
        ..Config::default()
    };
    let server = TestServer::start_configured(
        "away",
        gyoku_server::http::HttpOptions {
            presence_silence: Duration::from_secs(3),
            ..gyoku_server::http::HttpOptions::default()
        },
        lobby,
    );
    let (black, white) = server.two_people(json!({ "rules": "csa", "time": {"total": 600} }));
    let presence = |token: &str| {
        let (status, v) = server.get(&format!("/api/seats/{token}/presence"));
        assert_eq!(status, 200, "{v}");
        v
    };
    let v = presence(&black);
    assert_eq!(
        (
            v["opponent"]["here"].clone(),
            v["opponent"]["claimable"].clone()
        ),
        (json!(true), json!(false)),
        "{v}"
    );
    assert_eq!(v["opponent"]["grace"], 2, "{v}");
    let claim = format!("/api/seats/{black}/claim-absence");
    let (status, v) = server.post_json(&claim, &json!({}));
    assert_eq!((status, error_code(&v)), (409, "opponent_here"), "{v}");
    // White's page is gone (nothing asks for White's seat); Black's keeps asking.
    let away = gyoku_testdata::wait_for(
        Duration::from_secs(20),
        || format!("never claimable: {}", presence(&black)),
        || Some(presence(&black)).filter(|v| v["opponent"]["claimable"] == true),
    );
    assert_eq!(away["opponent"]["here"], false, "{away}");
    assert_eq!(away["opponent"]["seconds_left"], 0, "{away}");
    // White's own view says Black is here.
    let (_, w) = server.get(&format!("/api/seats/{white}"));
    assert_eq!(w["seat"]["opponent"]["here"], true, "{w}");
    // White came back just then: not claimable any more.
    let (status, v) = server.post_json(&claim, &json!({}));
    assert_eq!((status, error_code(&v)), (409, "opponent_here"), "{v}");
    // White's page says it leaves (a beacon as it closes): away at once, not after the
    // silence; once the grace has passed, the claim ends the game: Black wins.
    let (status, _) = server.request_with(
        "POST",
        &format!("/api/seats/{white}/leave"),
        "Content-Type: text/plain\r\n",
        b"",
    );
    assert_eq!(status, 204);
    let v = presence(&black);
    assert_eq!(
        (
            v["opponent"]["here"].clone(),
            v["opponent"]["claimable"].clone()
        ),
        (json!(false), json!(false)),
        "{v}"
    );
    gyoku_testdata::wait_until(Duration::from_secs(20), "never claimable again", || {
        presence(&black)["opponent"]["claimable"] == true
    });
    let (status, v) = server.post_json(&claim, &json!({}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["game"]["status"], "finished", "{v}");
    assert_eq!(
        (v["game"]["result"].as_str(), v["game"]["reason"].as_str()),
        (Some("black"), Some("abnormal")),
        "{v}"
    );
    assert_eq!(v["game"]["outcome"]["reason"], "abnormal", "{v}");
    let (status, v) = server.post_json(&claim, &json!({}));
    assert_eq!((status, error_code(&v)), (409, "not_playing"), "{v}");
}

/// Issue 28, item 13: idle HTTP connections were kept forever (~20,000 took every file
/// descriptor). One address holds at most 128 connections (the rest are closed at once),
/// and a connection that sends no request is closed after the header time-out.
#[test]
fn idle_connections_are_capped_and_closed() {
    let server = TestServer::start("idle");
    let mut idle = Vec::new();
    for _ in 0..140 {
        let s = TcpStream::connect(server.http).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        idle.push(s);
    }
    // The last ones past the cap were closed without a word; the others are kept.
    let mut closed = vec![false; idle.len()];
    for s in &idle {
        s.set_nonblocking(true).unwrap();
    }
    gyoku_testdata::wait_until(Duration::from_secs(10), "12 connections closed", || {
        for (s, gone) in idle.iter_mut().zip(&mut closed) {
            let mut b = [0u8; 1];
            if matches!(s.read(&mut b), Ok(0)) {
                *gone = true;
            }
        }
        closed.iter().filter(|c| **c).count() >= 12
    });
    assert_eq!(
        closed.iter().filter(|c| **c).count(),
        12,
        "140 connections, 128 kept"
    );
    for s in &idle {
        s.set_nonblocking(false).unwrap();
    }
    // The kept ones are closed by the header time-out (15 s).
    let started = std::time::Instant::now();
    let mut s = idle.swap_remove(0);
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut b = [0u8; 64];
    let n = s.read(&mut b).unwrap_or(0);
    let waited = started.elapsed();
    assert!(
        n == 0 || String::from_utf8_lossy(&b[..n]).starts_with("HTTP/1.1 408"),
        "{:?}",
        String::from_utf8_lossy(&b[..n])
    );
    assert!(waited < Duration::from_secs(20), "closed after {waited:?}");
    drop(idle);
    gyoku_testdata::wait_until(Duration::from_secs(10), "served again", || {
        server.get("/api/games").0 == 200
    });
}

/// Issue 26, one referee: a move from the page reads no storage before it is sent (the
/// seat knows the turn from the server's own lines; the lobby refuses an illegal one): the
/// answer's view is the one storage read. Issue 40 (step 7): and no replay of the game —
/// the game kept replayed since its seats were first shown is played on by the move.
#[test]
fn a_web_move_costs_one_storage_read_and_no_replay() {
    let server = TestServer::start("cost");
    let (black, white) = server.two_people(json!({ "rules": "csa", "fouls": "refuse" }));
    let counters = || {
        let (_, v) = server.get("/api/health");
        (
            v["storage_reads"].as_u64().unwrap(),
            v["replays"].as_u64().unwrap(),
            v["appended"].as_u64().unwrap(),
        )
    };
    let mv = |token: &str, m: &str| {
        server.post_json(&format!("/api/seats/{token}/move"), &json!({ "move": m }))
    };
    for (token, m) in [(&black, "7g7f"), (&white, "3c3d"), (&black, "8h2b+")] {
        let before = counters();
        // The mover's seat hears the other's move echoed a moment after the other's answer
        // (the seat knows the turn from the server's lines): until then it refuses, with no
        // storage read (as checked below), and the move is asked again.
        let (status, v) = gyoku_testdata::wait_for(
            Duration::from_secs(10),
            || format!("{m}'s seat to hear the move before it"),
            || Some(mv(token, m)).filter(|(_, v)| v["error"]["code"] != "not_your_turn"),
        );
        assert_eq!(status, 200, "{v}");
        let after = counters();
        let cost = (after.0 - before.0, after.1 - before.1, after.2 - before.2);
        assert_eq!(
            cost,
            (1, 0, 1),
            "{m}: (storage reads, replays, appended views)"
        );
    }
    // Out of turn and refused: answered from the seat and the lobby, no storage at all.
    let before = counters();
    let (status, v) = mv(&black, "2b3a");
    assert_eq!((status, error_code(&v)), (409, "not_your_turn"), "{v}");
    let (status, v) = mv(&white, "5a5b5c");
    assert_eq!((status, error_code(&v)), (400, "invalid_move"), "{v}");
    let (status, v) = mv(&white, "2a2b");
    assert_eq!((status, error_code(&v)), (422, "illegal_move"), "{v}");
    assert_eq!(v["error"]["kind"], "bad_movement", "{v}");
    assert_eq!(v["error"]["ply"], 4, "{v}");
    assert_eq!(counters(), before);
}

/// Issue 28, item 15: each stored change was replayed once per event stream watching the
/// game (sixteen streams: sixteen replays a move). A change's view is now built once and
/// sent to every stream.
#[test]
fn a_change_is_shown_to_every_watcher_from_one_replay() {
    let server = TestServer::start("watchers");
    let (black, white) = server.two_people(json!({ "rules": "csa" }));
    let (_, seat) = server.get(&format!("/api/seats/{black}"));
    let id = seat["seat"]["game_id"].as_str().unwrap().to_string();
    let mut streams: Vec<Events> = (0..16).map(|_| server.events(&id)).collect();
    // Views built: from the game's start, or by playing on the game kept replayed.
    let replays = || {
        let v = server.get("/api/health").1;
        v["replays"].as_u64().unwrap() + v["appended"].as_u64().unwrap()
    };
    let moves = |v: Value| v["moves"].as_array().unwrap().len();
    for (n, (token, m)) in [(&black, "7g7f"), (&white, "3c3d")].into_iter().enumerate() {
        let before = replays();
        let (status, v) =
            server.post_json(&format!("/api/seats/{token}/move"), &json!({ "move": m }));
        assert_eq!(status, 200, "{v}");
        for s in &mut streams {
            while moves(s.next_game().unwrap()) < n + 1 {}
        }
        // One replay answers the mover; one is shown to all sixteen streams (and at most
        // one more, when the game's start was still being shown as the move came).
        let cost = replays() - before;
        assert!((2..=3).contains(&cost), "{m}: {cost} replays");
    }
}

/// Issue 28, items 1 and 5: a web invitation was taken from the CSA port (`%%GAME <its
/// name>` as another player), and a CSA client could log in first as the next web seat's
/// name. A web game is joined only by the page's players; issue 40: who plays is not read
/// from a name, so a CSA client with a web player's name is just a namesake.
#[test]
fn web_games_and_names_are_the_pages_only() {
    let server = TestServer::start("webonly");
    let (status, a) = server.post_json(
        "/api/play",
        &json!({ "opponent": "person", "rules": "csa", "color": "black", "name": "Taro" }),
    );
    assert_eq!(status, 201, "{a}");
    let name = a["game_name"].as_str().unwrap().to_string();
    let invite = a["invite"].as_str().unwrap().to_string();
    // x1 mode with %%GAME, and CSA mode with the game in the login: refused alike, under
    // any name, the guest's and the host's included.
    for lines in [
        vec!["LOGIN spy pw x1".to_string(), format!("%%GAME {name} -")],
        vec![format!("LOGIN spy2 {name}-W,pw")],
        vec!["LOGIN Hanako pw x1".to_string(), format!("%%GAME {name} -")],
        vec![format!("LOGIN Taro {name}-W,pw")],
    ] {
        let mut spy = Csa::connect(server.csa);
        for line in &lines {
            spy.say(line);
        }
        let heard = spy.until("##[ERROR]");
        assert!(
            heard
                .last()
                .unwrap()
                .contains("played from the web page only"),
            "{lines:?}: {heard:?}"
        );
    }
    // A CSA client named as the guest will be stays logged in; the friend's link still
    // works under that name, and the game says which Hanako plays.
    let mut namesake = Csa::connect(server.csa);
    namesake.say("LOGIN Hanako pw x1");
    assert_eq!(namesake.until("LOGIN:").last().unwrap(), "LOGIN:Hanako OK");
    let (status, b) = server.post_json(
        &format!("/api/seats/{invite}/join"),
        &json!({ "name": "Hanako" }),
    );
    assert_eq!(status, 200, "{b}");
    let white = b["token"].as_str().unwrap().to_string();
    let v = server.until(&white, |v| v["seat"]["phase"] == "playing");
    assert_eq!(v["seat"]["color"], "white", "{v}");
    let id = v["seat"]["game_id"].as_str().unwrap().to_string();
    let (status, game) = server.get(&format!("/api/games/{id}"));
    assert_eq!(status, 200, "{game}");
    assert_eq!(
        [
            &game["black"],
            &game["white"],
            &game["black_kind"],
            &game["white_kind"]
        ],
        ["Taro", "Hanako", "web", "web"],
        "{game}"
    );
    namesake.say("%%WHO");
    let who = namesake.until("##[WHO] +OK");
    assert!(
        who.iter().any(|l| l.starts_with("##[WHO] Hanako ")),
        "{who:?}"
    );
}

/// Issue 28, item 14: 512 invitation POSTs took every seat until a restart. One address
/// has at most 16 games not over; past that it hears 429 and others are still served.
#[test]
fn one_address_cannot_take_every_seat() {
    let server = TestServer::start("seatcap");
    let ask = json!({ "opponent": "person", "rules": "csa" });
    for i in 0..16 {
        let (status, v) = server.post_json("/api/play", &ask);
        assert_eq!(status, 201, "game {i}: {v}");
    }
    let (status, v) = server.post_json("/api/play", &ask);
    assert_eq!((status, error_code(&v)), (429, "too_many_seats"), "{v}");
}

impl TestServer {
    /// `GET path`: the status, the head and the body's bytes.
    fn get_bytes(&self, path: &str) -> (u16, String, Vec<u8>) {
        self.request_bytes("GET", path, b"")
    }

    /// One request (`Connection: close`): the status, the head and the body's bytes.
    fn request_bytes(&self, method: &str, path: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
        let mut s = TcpStream::connect(self.http).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s.write_all(
            format!(
                "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                self.http,
                body.len()
            )
            .as_bytes(),
        )
        .unwrap();
        s.write_all(body).unwrap();
        let mut answer = Vec::new();
        s.read_to_end(&mut answer).unwrap();
        let split = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&answer[..split]).to_string();
        let status = head[9..12].parse().unwrap();
        (status, head, answer[split + 4..].to_vec())
    }
}

/// Issue 27, items 5 and 8: a finished game (lost by a nifu) is downloaded in every format;
/// each reads back, as `gyoku judge` reads it, to the stored result, the foul kept as the
/// move at its ply. KIF is Shift_JIS.
#[test]
fn a_finished_game_downloads_in_every_format_and_judges_to_its_result() {
    let server = TestServer::start("download");
    let (black, _) = server.two_people(json!({
        "rules": "csa", "fouls": "lose", "sfen": NIFU_SFEN,
    }));
    let (_, v) = server.get(&format!("/api/seats/{black}"));
    let id = v["game"]["id"].as_str().unwrap().replace('+', "%2B");
    // Being played: written as far as it has gone.
    let (status, head, body) = server.get_bytes(&format!("/api/games/{id}/record?format=csa"));
    assert_eq!(status, 200, "{head}");
    assert!(
        String::from_utf8_lossy(&body).contains("P+00FU"),
        "{body:?}"
    );
    let (status, v) = server.post_json(
        &format!("/api/seats/{black}/move"),
        &json!({ "move": "P*5e" }),
    );
    assert_eq!(
        (status, v["game"]["status"].as_str()),
        (200, Some("finished")),
        "{v}"
    );
    for (format, f) in [
        ("kif", gyoku_kifu::Format::Kif),
        ("kifu", gyoku_kifu::Format::Kif),
        ("ki2", gyoku_kifu::Format::Ki2),
        ("csa", gyoku_kifu::Format::Csa),
        ("jkf", gyoku_kifu::Format::Jkf),
        ("usi", gyoku_kifu::Format::Usi),
    ] {
        let (status, head, body) =
            server.get_bytes(&format!("/api/games/{id}/record?format={format}"));
        assert_eq!(status, 200, "{format}: {head}");
        assert!(
            head.to_ascii_lowercase().contains(&format!(".{format}\"")),
            "{format}: {head}"
        );
        if format == "kif" {
            assert!(head.contains("charset=Shift_JIS"), "{head}");
            assert!(std::str::from_utf8(&body).is_err(), "KIF is not UTF-8");
        }
        let records = gyoku_kifu::read_bytes(&body, Some(f))
            .unwrap_or_else(|e| panic!("{format}: {e}\n{}", String::from_utf8_lossy(&body)));
        let judged = gyoku_kifu::judge::judge(&records[0], gyoku::Preset::Csa.rules());
        let outcome = judged
            .game
            .outcome()
            .map(|o| (o.result.code(), o.reason.code(), o.ply));
        assert_eq!(
            outcome,
            Some(("white", "illegal_move", 1)),
            "{format}:\n{}",
            String::from_utf8_lossy(&body)
        );
        let foul = records[0].foul.as_ref().map(|f| (f.ply, f.mv.to_string()));
        assert_eq!(foul, Some((1, "P*5e".to_string())), "{format}");
    }
    let (status, v) = server.get(&format!("/api/games/{id}/record?format=pgn"));
    assert_eq!((status, error_code(&v)), (400, "invalid_format"), "{v}");
}

/// Issue 28, item 19: a large record converted to JKF peaked at 2 GiB. The work a
/// conversion does is bounded by what it would write: 250,000 moves (2 MB of CSA) as JKF
/// are refused before they are written, and as USI (2 MB) converted.
#[test]
fn a_conversion_is_bounded_by_its_output() {
    let server = TestServer::start("convert-bound");
    let mut csa = String::from("V2.2\nPI\n+\n");
    for _ in 0..62_500 {
        csa.push_str("+2838HI\n-8272HI\n+3828HI\n-7282HI\n");
    }
    let (status, v) = server.request("POST", "/api/convert?to=jkf", csa.as_bytes());
    assert_eq!((status, error_code(&v)), (413, "output_too_large"), "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("MiB"),
        "{v}"
    );
    let (status, head, body) = server.request_bytes("POST", "/api/convert?to=usi", csa.as_bytes());
    assert_eq!(status, 200, "{head}");
    assert_eq!(
        String::from_utf8_lossy(&body)
            .split_whitespace()
            .filter(|w| w.len() == 4)
            .count(),
        250_000
    );
}

/// Issue 30: the league on the API: the rating list (made from the stored games a moment
/// after start; empty here) and the scheduled games with their next round and who waits.
#[test]
fn the_rating_list_and_the_scheduled_rounds_are_served() {
    let server = TestServer::start("league");
    let ratings = gyoku_testdata::wait_for(
        Duration::from_secs(10),
        || "the ratings to be computed".to_string(),
        || {
            let (status, v) = server.get("/api/ratings");
            assert_eq!(status, 200);
            (!v["computed_at"].is_null()).then_some(v)
        },
    );
    assert!(ratings["computed_at"].is_string(), "{ratings}");
    assert_eq!(ratings["players"], serde_json::json!([]));
    // The rounds' view is published once the lobby has had an input.
    let mut c = std::net::TcpStream::connect(server.csa).unwrap();
    std::io::Write::write_all(&mut c, b"LOGIN ann pw x1\n%%GAME floodgate-300-10F *\n").unwrap();
    let rounds = gyoku_testdata::wait_for(
        Duration::from_secs(10),
        || "ann to be listed as waiting for the round".to_string(),
        || {
            let (_, v) = server.get("/api/rounds");
            (v["rounds"][0]["waiting"] == serde_json::json!(["ann"])).then_some(v)
        },
    );
    let r = &rounds["rounds"][0];
    assert_eq!(
        (r["game"].as_str(), &r["waiting"]),
        (Some("floodgate-300-10F"), &serde_json::json!(["ann"])),
        "{rounds}"
    );
    let next = r["next"].as_str().unwrap();
    assert!(
        next.ends_with(":00:00") || next.ends_with(":30:00"),
        "{next}"
    );
}

/// A player's page: its games and results counted by reason, and — once the rating list
/// rates it (15 games with a win and a loss) — its rating over time, kept each time the
/// list changed.
#[test]
fn a_players_page_has_its_games_results_and_rating_over_time() {
    let server = TestServer::start("player");
    let names = ["ann", "ben", "cal"];
    let mut clients: Vec<Csa> = names
        .iter()
        .map(|n| {
            let mut c = Csa::connect(server.csa);
            c.say(&format!("LOGIN {n} pw-{n} x1"));
            c.until("##[LOGIN]");
            c
        })
        .collect();
    // 30 games, ten for each pair; Black resigns, except that ann also resigns as White
    // now and then: everyone wins and loses.
    let mut played = 0;
    for round in 0..10 {
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            let game = format!("rated{round}{a}{b}-600-10");
            clients[a].say(&format!("%%GAME {game} +"));
            clients[b].say(&format!("%%GAME {game} -"));
            for k in [a, b] {
                clients[k].until("END Game_Summary");
                clients[k].say("AGREE");
            }
            for k in [a, b] {
                clients[k].until("START:");
            }
            let loser = if a == 2 && round % 3 == 0 { b } else { a };
            if loser == b {
                // White resigns on its turn: Black moves first.
                clients[a].say("+7776FU");
                for k in [a, b] {
                    clients[k].until("+7776FU");
                }
            }
            clients[loser].say("%TORYO");
            for k in [a, b] {
                clients[k].until("#");
                clients[k].until(if k == loser { "#LOSE" } else { "#WIN" });
            }
            played += 1;
        }
    }
    assert_eq!(played, 30);
    let page = gyoku_testdata::wait_for(
        Duration::from_secs(30),
        || format!("ann to be rated: {}", server.get("/api/players/ann").1),
        || {
            let (status, v) = server.get("/api/players/ann");
            assert_eq!(status, 200, "{v}");
            v["history"]
                .as_array()
                .is_some_and(|h| !h.is_empty())
                .then_some(v)
        },
    );
    assert_eq!(page["rating"]["rated"], true, "{page}");
    let rate = page["rating"]["rate"].as_i64().unwrap();
    assert_eq!(
        page["history"].as_array().unwrap().last().unwrap()["rate"],
        rate
    );
    let r = &page["results"];
    assert_eq!(
        r["win"].as_u64().unwrap() + r["loss"].as_u64().unwrap(),
        20,
        "{page}"
    );
    // ann wins as White against cal but in rounds 0, 3, 6 and 9, where it resigns.
    assert_eq!(r["win"], 6, "{page}");
    assert_eq!(
        page["by_reason"],
        json!([{"outcome": "loss", "reason": "resignation", "games": 14},
               {"outcome": "win", "reason": "resignation", "games": 6}])
    );
    assert_eq!(page["games"].as_array().unwrap().len(), 20);
    assert!(page["games"][0]["id"].as_str().unwrap().contains("rated9"));
    // Someone who never played: an empty page, not an error.
    let (status, v) = server.get("/api/players/nobody");
    assert_eq!(
        (status, v["games"].clone(), v["rating"].clone()),
        (200, json!([]), Value::Null)
    );
    // Too long a name is refused and named.
    let (status, v) = server.get(&format!("/api/players/{}", "x".repeat(300)));
    assert_eq!((status, error_code(&v)), (400, "bad_name"));
}

impl TestServer {
    /// One request with `headers`: the status, the answer's head and its body as JSON.
    fn request_head(
        &self,
        method: &str,
        path: &str,
        headers: &str,
        body: &Value,
    ) -> (u16, String, Value) {
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let mut s = TcpStream::connect(self.http).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.http,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body.as_bytes()).unwrap();
        let mut answer = Vec::new();
        s.read_to_end(&mut answer).unwrap();
        let (status, value) = parse_answer(&answer);
        let text = String::from_utf8_lossy(&answer);
        let head = text
            .split_once("\r\n\r\n")
            .map_or(&*text, |(h, _)| h)
            .to_string();
        (status, head, value)
    }
}

/// The `Cookie` header line that carries the session a `Set-Cookie` in `head` opened.
fn session_cookie(head: &str) -> String {
    let line = head
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap_or_else(|| panic!("no Set-Cookie in {head}"));
    let pair = line
        .split_once(':')
        .unwrap()
        .1
        .trim()
        .split(';')
        .next()
        .unwrap();
    assert!(
        pair.starts_with("gyoku_session=") && pair.len() == "gyoku_session=".len() + 32,
        "{line}"
    );
    format!("Cookie: {pair}\r\n")
}

/// Issue 46, item 1: accounts on the page (register, log out, log in, change the password,
/// the same account on the CSA port), and a game between two accounts rated with Glicko-2
/// as a reference computes it (`pyglicko2` 0.0.1a2 from PyPI, τ 0.5: two new players,
/// 1500/350/0.06 each, Black wins: 1662.310894 and 1337.689106, both RD 290.318964).
#[test]
fn accounts_log_in_and_their_games_are_rated_with_glicko2() {
    let server = TestServer::start("accounts");
    let call = |method: &str, path: &str, cookie: &str, body: Value| {
        server.request_head(method, path, cookie, &body)
    };
    // Bad names and passwords are refused, each by its code.
    for (body, code) in [
        (
            json!({"name": "a b", "password": "long enough"}),
            "invalid_name",
        ),
        (
            json!({"name": "ann", "password": "short"}),
            "invalid_password",
        ),
    ] {
        let (status, _, v) = call("POST", "/api/accounts", "", body);
        assert_eq!((status, error_code(&v)), (400, code), "{v}");
    }
    // Registering logs in: the cookie is HttpOnly, SameSite=Lax, not Secure over HTTP.
    let (status, head, v) = call(
        "POST",
        "/api/accounts",
        "",
        json!({"name": "ann", "password": "ann-password"}),
    );
    assert_eq!((status, &v["name"]), (201, &json!("ann")), "{v}");
    assert!(
        head.contains("HttpOnly") && head.contains("SameSite=Lax") && !head.contains("Secure"),
        "{head}"
    );
    let ann = session_cookie(&head);
    let (_, _, v) = call("GET", "/api/session", &ann, Value::Null);
    assert_eq!(v["name"], "ann", "{v}");
    let (_, _, v) = call("GET", "/api/session", "", Value::Null);
    assert!(v["name"].is_null() && v["accounts"] == true, "{v}");
    let (status, _, v) = call(
        "POST",
        "/api/accounts",
        "",
        json!({"name": "ann", "password": "another-one"}),
    );
    assert_eq!((status, error_code(&v)), (409, "name_taken"), "{v}");
    // Logging out ends the session on the server, not only in the browser.
    let (status, head, _) = call("DELETE", "/api/session", &ann, Value::Null);
    assert_eq!(status, 204);
    assert!(head.contains("Max-Age=0"), "{head}");
    let (_, _, v) = call("GET", "/api/session", &ann, Value::Null);
    assert!(v["name"].is_null(), "{v}");
    let (status, _, v) = call(
        "POST",
        "/api/session",
        "",
        json!({"name": "ann", "password": "wrong-password"}),
    );
    assert_eq!((status, error_code(&v)), (401, "wrong_password"), "{v}");
    let (status, head, _) = call(
        "POST",
        "/api/session",
        "",
        json!({"name": "ann", "password": "ann-password"}),
    );
    assert_eq!(status, 200);
    let ann = session_cookie(&head);
    let (status, head, _) = call(
        "POST",
        "/api/accounts",
        "",
        json!({"name": "ben", "password": "ben-password"}),
    );
    assert_eq!(status, 201);
    let ben = session_cookie(&head);

    // Ann (Black) invites, Ben joins, Ben resigns.
    let (status, _, a) = call(
        "POST",
        "/api/play",
        &ann,
        json!({"opponent": "person", "color": "black", "name": "ignored"}),
    );
    assert_eq!(status, 201, "{a}");
    let invite = a["invite"].as_str().unwrap().to_string();
    let (status, _, b) = call(
        "POST",
        &format!("/api/seats/{invite}/join"),
        &ben,
        json!({}),
    );
    assert_eq!(status, 200, "{b}");
    let white = b["token"].as_str().unwrap().to_string();
    let playing = server.until(&white, |v| v["seat"]["phase"] == "playing");
    assert_eq!(
        (&playing["game"]["black"], &playing["game"]["white"]),
        (&json!("ann"), &json!("ben")),
        "{playing}"
    );
    let black = a["token"].as_str().unwrap().to_string();
    let (status, v) = server.post_json(
        &format!("/api/seats/{black}/move"),
        &json!({"move": "7g7f"}),
    );
    assert_eq!(status, 200, "{v}");
    let (status, v) = server.post_json(&format!("/api/seats/{white}/resign"), &json!({}));
    assert_eq!(status, 200, "{v}");
    let ratings = gyoku_testdata::wait_for(
        Duration::from_secs(15),
        || "the accounts to be rated".to_string(),
        || {
            let (_, v) = server.get("/api/ratings");
            (v["people"].as_array().is_some_and(|p| p.len() == 2)).then_some(v)
        },
    );
    let people = &ratings["people"];
    let close = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() < 0.006;
    assert_eq!(
        (&people[0]["name"], &people[1]["name"]),
        (&json!("ann"), &json!("ben")),
        "{ratings}"
    );
    assert!(
        close(&people[0]["rating"], 1_662.310_894) && close(&people[1]["rating"], 1_337.689_106),
        "{ratings}"
    );
    assert!(
        close(&people[0]["deviation"], 290.318_964) && close(&people[1]["deviation"], 290.318_964),
        "{ratings}"
    );
    assert_eq!(
        (&people[0]["win"], &people[1]["loss"]),
        (&json!(1), &json!(1))
    );
    // Not on Floodgate's list, which is the CSA port's.
    assert!(
        ratings["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["name"] != "ann"),
        "{ratings}"
    );
    let (_, page) = server.get("/api/players/ben");
    let history = &page["glicko"]["history"];
    assert_eq!(
        history[0]["opponent"],
        "ben".replace("ben", "ann"),
        "{page}"
    );
    assert_eq!(history[0]["result"], "loss", "{page}");
    assert!(close(&history[0]["rating"], 1_337.689_106), "{page}");

    // A password changed ends the account's other sessions, and is the CSA port's too.
    let (_, head, _) = call(
        "POST",
        "/api/session",
        "",
        json!({"name": "ann", "password": "ann-password"}),
    );
    let other = session_cookie(&head);
    let (status, _, v) = call(
        "POST",
        "/api/account/password",
        &ann,
        json!({"password": "nope-nope", "new_password": "new-password-1"}),
    );
    assert_eq!((status, error_code(&v)), (401, "wrong_password"), "{v}");
    let (status, _, v) = call(
        "POST",
        "/api/account/password",
        &ann,
        json!({"password": "ann-password", "new_password": "new-password-1"}),
    );
    assert_eq!((status, &v["name"]), (200, &json!("ann")), "{v}");
    let (_, _, v) = call("GET", "/api/session", &other, Value::Null);
    assert!(v["name"].is_null(), "the other session ended: {v}");
    let (_, _, v) = call("GET", "/api/session", &ann, Value::Null);
    assert_eq!(v["name"], "ann", "this one goes on: {v}");
    let mut csa = Csa::connect(server.csa);
    csa.say("LOGIN ann ann-password x1");
    assert!(csa.until("LOGIN:").last().unwrap().contains("incorrect"));
    let mut csa = Csa::connect(server.csa);
    csa.say("LOGIN ann new-password-1 x1");
    assert_eq!(csa.until("LOGIN:").last().unwrap(), "LOGIN:ann OK");
}
