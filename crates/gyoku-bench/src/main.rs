//! `gyoku-bench`: Gyoku against its peers, side by side in one run.
//!
//! ```text
//! cargo run --release -p gyoku-bench -- [perft] [--rounds N] [--quick] [--no-cshogi] [--yaneuraou PATH]
//! cargo run --release -p gyoku-bench -- judge [--rounds N] [--games N] [--no-cshogi]
//! cargo run --release -p gyoku-bench -- records [--rounds N] [--games N] [--no-cshogi] [--before PATH]
//! cargo run --release -p gyoku-bench -- referee [--rounds N] [--games N]
//! cargo run --release -p gyoku-bench -- memory [--games N]
//! cargo run --release -p gyoku-bench -- ratings [--games N] [--players N] [--mk-rate-limit S]
//! cargo run --release -p gyoku-bench -- csa-load [--games N] [--plies N] [--peer-games N] [--think MS] [--before PATH] [--attack] [--drops N]
//! cargo run --release -p gyoku-bench -- chat-flood [--listeners N] [--seconds S] [--memory-limit BYTES] [--before PATH]
//! cargo run --release -p gyoku-bench -- login-flood [--names N] [--addresses N] [--before PATH]
//! cargo run --release -p gyoku-bench -- slow-uploads [--addresses N] [--per-address N] [--plies N] [--think MS] [--before PATH]
//! cargo run --release -p gyoku-bench -- watch-load --db postgres://ADMIN@HOST/DB [--games N] [--watchers N] [--plies N] [--think MS] [--before PATH]
//! cargo run --release -p gyoku-bench -- runner [--games N] [--rounds N] [--before PATH] [--shogitest PATH]
//! cargo run --release -p gyoku-bench -- mate [--nodes N] [--rounds N] [--no-cshogi] [--yaneuraou-mate PATH]
//! cargo run --release -p gyoku-bench -- workers [--workers N] [--seconds S] [--think MS]
//! cargo run --release -p gyoku-bench -- backup [--games N] [--plies N]
//! cargo run --release -p gyoku-bench -- training [--games N] [--plies N] [--rounds N] [--no-cshogi]
//! cargo run --release -p gyoku-bench -- metrics-cost [--games N] [--plies N] [--think MS] [--rounds N]
//! ```
//! `metrics-cost` (issue 50) plays N games at once (1,000) on `gyoku serve --metrics` with
//! each player thinking MS (2,000) on average, ROUNDS times (1) without and with a scraper
//! fetching `GET /metrics` every second (the order turned about each round): the echo's
//! p50 and p99, the server's CPU time a move, and the scrapes' time and size.
//! `training` (issue 49) writes N random games (2,000 of 120 moves) as CSA files and turns
//! them into cshogi's hcpe with `gyoku export-training` (judged) and with cshogi as its
//! users do (`peers/cshogi_hcpe.py`), each timed in-process, median of ROUNDS (5).
//! `backup` (issue 50) times `gyoku backup` and `gyoku restore` (built beside this one) on
//! a database of N finished games (1,000,000), each with its record and PLIES moves (80).
//! `workers` (issue 45) runs WORKERS simulated engine-test workers (1,000) against one
//! `gyoku serve` (built beside this one) from 64 loopback addresses: each asks for
//! batches, sends heartbeats and uploads real records (played first by `gyoku match`),
//! every one judged again by the server; S seconds (60) with each game taking MS on
//! average (10,000), then S/2 with uploads as fast as they are answered. It reports each
//! request kind's answer time (p50, p99, max), the uploads counted a second, what was not
//! answered 200, and the server's memory.
//! `mate` (issue 48) times the mate searches on `tests/data/mate/positions.tsv` beside
//! cshogi's (from Python, timed in-process there): mate in 1 and within 3 on every
//! position (median of ROUNDS rounds of 100 calls, 21 by default), and a df-pn search of at most N nodes
//! (3,000,000) on each longer mate: solved, median and p90 time, nodes per second, beside
//! YaneuraOu's mate engine (`--yaneuraou-mate PATH` or YANEURAOU_MATE: its
//! TANUKI_MATE_ENGINE edition, built as ../shared/peers/README.md says) given 60 s each.
//! `runner` (issue 44) measures the match runner's own cost: `gyoku match` (built beside
//! this one) plays N games (200) of the built-in engine against itself at 10 ms + 0.1 ms,
//! two at once, from the shipped opening suite, and so do an older `gyoku` binary
//! (`--before`) and shogitest (`--shogitest`, a binary you built) in the same run, each
//! round in turn; it reports games per second, the runner process's own CPU per game and
//! the games lost on time, with the ratios.
//! `watch-load` (issue 33) plays N games at once (1,000 by default) on a referee on
//! PostgreSQL while WATCHERS event streams (10,000) follow them, first all on the one
//! instance, then spread over two web instances (`--role web`) beside it, and reports the
//! movers' echo latency and the watchers' delivery latency side by side; `--before PATH`
//! runs another `gyoku` binary (an older build) the same two ways, after this one on one
//! instance and before it with web instances (neither build always runs first). `--db` names
//! a PostgreSQL user that may create databases; each run gets a database of its own.
//! `csa-load` plays N games at once (2N CSA clients) on `gyoku serve` (built beside this
//! one) and, with the same script and PEER-GAMES games (N, at most 45: shogi-server serves
//! 100 connections at once), on shogi-server (if `ruby` and
//! `../shared/peers/shogi-server` are there), and reports games held, moves per second
//! and the move-echo latency side by side: first as fast as the echoes come (throughput),
//! then with each player thinking MS on average before a move (latency at a given load;
//! default 2000 ms). `--before PATH` runs another `gyoku` binary (an older build) in the same
//! run, each load on it beside the same load on this one's `gyoku serve`, after it and before
//! it in turn (neither build always runs first). `--attack`
//! plays the N games with thinking once more while one client bursts x1 commands
//! (`%%WHO`, `%%LIST`, `%%VERSION`, `%%CHAT`) as fast as the server takes them and keeps
//! 256 slow request bodies open on the HTTP port, and reports the players' echo latency
//! beside the run without it. `--drops N` (issue 42) plays the games with thinking
//! twice on `gyoku serve`: as they are, then with the Black players of N of them cut at
//! mid-game and logging in again with their reconnect token half a second later; it
//! reports how many came back, the largest gap between a resumed player's time left as the
//! server said and as its own count gives it, and the other games' echo latency in both.
//! `chat-flood` (issue 43) logs in LISTENERS x1 clients (200) that never read and one
//! that writes `%%CHAT` lines of 16,000 bytes for S seconds (20), on `gyoku serve` started
//! under an address-space limit (4 GiB), and on `--before`'s build after it: the lines
//! written, the listeners the server dropped, its peak RSS and whether it still runs.
//! `login-flood` (issue 43) sends NAMES new names with passwords (3,200) at once from
//! ADDRESSES loopback addresses (8: 127.0.0.2 …) while a known player logs in from
//! 127.0.0.1, on `gyoku serve` at its own pace of new names and on `--before`'s build:
//! how long the known player waited, and how many of the crowd were let in or refused.
//! `slow-uploads` (issue 43) keeps PER-ADDRESS (32) `POST /api/judge` bodies from each of
//! ADDRESSES (8) loopback addresses arriving a byte a second, while two people play PLIES
//! moves (16) of a 10 s byoyomi game over the HTTP API, each thinking MS (1000) before a
//! move, on `gyoku serve` and on `--before`'s build: each move's answer time, the moves not
//! answered 200, how the uploads were answered, and how the game stood at the end.
//! `ratings` writes N games (1,000,000 by default) among PLAYERS players (1,000) as
//! Floodgate's `mk_game_results` lines and rates them with `gyoku ratings --floodgate`
//! (built beside this one) and with shogi-server's `mk_rate` (stopped after S seconds,
//! 1800 by default), side by side, then times the library's own work in-process.
//! `memory` runs `gyoku judge` (built beside this one) over N and 10×N records (10,000 and
//! 100,000 by default), as one CSA file and as a directory, and reports its peak memory.
//! `perft` (the default) counts perft side by side; `--quick` runs only the cells every
//! library can do in seconds. `judge` replays 300-move games with each library's referee
//! checks. `records` reads and judges CSA and KIF records side by side with rsshogi and
//! cshogi, then a mixed-format corpus of files, in-process and through `gyoku judge DIR`
//! (when the `gyoku` binary is built beside this one); `records --before PATH` instead
//! judges the real records (the repository's golden files and `../shared/data`) with this
//! build's `gyoku judge --json` and PATH's, in turn, median of 21 rounds or more, with the
//! ratio. `referee` measures the match referee's own work per engine move.

use gyoku_bench::{Library, PERFT_CELLS, cshogi_available, judge_matrix, markdown, perft_matrix};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 3;
    let mut quick = false;
    let mut cshogi = true;
    let mut judge = false;
    let mut records = false;
    let mut referee = false;
    let mut memory = false;
    let mut load = false;
    let mut plies = 60;
    let mut peer_games: Option<usize> = None;
    let mut think = 2000;
    let mut games = 1000;
    let mut before: Option<std::path::PathBuf> = None;
    let mut attack = false;
    let mut drops = 0usize;
    let mut ratings = false;
    let mut watch_load = false;
    let mut runner = false;
    let mut mate = false;
    // YaneuraOu's mate engine, for `mate` (also from YANEURAOU_MATE).
    let mut yaneuraou_mate: Option<String> = std::env::var("YANEURAOU_MATE").ok();
    let mut nodes: u64 = 3_000_000;
    let mut shogitest: Option<std::path::PathBuf> = None;
    let mut watchers = 10_000;
    let mut db: Option<String> = None;
    let mut players = 1000;
    let mut mk_rate_limit = 1800;
    let mut chat_flood = false;
    let mut login_flood = false;
    let mut slow_uploads = false;
    let mut workers_load = false;
    let mut backup_time = false;
    let mut training = false;
    let mut metrics_cost = false;
    let mut workers_n = 1000usize;
    let mut per_address = 32usize;
    let mut plies_given: Option<usize> = None;
    let mut think_given: Option<u64> = None;
    let mut names = 3200;
    let mut addresses: u8 = 8;
    let mut listeners = 200;
    let mut seconds = 20;
    let mut memory_limit: u64 = 4 << 30;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "perft" => {}
            "judge" => judge = true,
            "records" => records = true,
            "referee" => referee = true,
            "memory" => memory = true,
            "csa-load" => load = true,
            "chat-flood" => chat_flood = true,
            "login-flood" => login_flood = true,
            "slow-uploads" => slow_uploads = true,
            "workers" => workers_load = true,
            "backup" => backup_time = true,
            "training" => training = true,
            "metrics-cost" => metrics_cost = true,
            "--workers" => workers_n = it.next().and_then(|n| n.parse().ok()).unwrap_or(1000),
            "--per-address" => per_address = it.next().and_then(|n| n.parse().ok()).unwrap_or(32),
            "--names" => names = it.next().and_then(|n| n.parse().ok()).unwrap_or(3200),
            "--addresses" => addresses = it.next().and_then(|n| n.parse().ok()).unwrap_or(8),
            "--listeners" => listeners = it.next().and_then(|n| n.parse().ok()).unwrap_or(200),
            "--seconds" => seconds = it.next().and_then(|n| n.parse().ok()).unwrap_or(20),
            "--memory-limit" => {
                memory_limit = it.next().and_then(|n| n.parse().ok()).unwrap_or(4 << 30);
            }
            "watch-load" => watch_load = true,
            "runner" => runner = true,
            "mate" => mate = true,
            "--nodes" => nodes = it.next().and_then(|n| n.parse().ok()).unwrap_or(3_000_000),
            "--shogitest" => shogitest = it.next().map(std::path::PathBuf::from),
            "--watchers" => watchers = it.next().and_then(|n| n.parse().ok()).unwrap_or(10_000),
            "--db" => db = it.next().cloned(),
            "ratings" => ratings = true,
            "--players" => players = it.next().and_then(|n| n.parse().ok()).unwrap_or(1000),
            "--mk-rate-limit" => {
                mk_rate_limit = it.next().and_then(|n| n.parse().ok()).unwrap_or(1800);
            }
            "--plies" => {
                plies = it.next().and_then(|n| n.parse().ok()).unwrap_or(60);
                plies_given = Some(plies);
            }
            "--peer-games" => peer_games = it.next().and_then(|n| n.parse().ok()),
            "--think" => {
                think = it.next().and_then(|n| n.parse().ok()).unwrap_or(2000);
                think_given = Some(think);
            }
            "--games" => games = it.next().and_then(|n| n.parse().ok()).unwrap_or(1000),
            "--before" => before = it.next().map(std::path::PathBuf::from),
            "--attack" => attack = true,
            "--drops" => drops = it.next().and_then(|n| n.parse().ok()).unwrap_or(0),
            "--rounds" => rounds = it.next().and_then(|n| n.parse().ok()).unwrap_or(3),
            "--quick" => quick = true,
            "--no-cshogi" => cshogi = false,
            "--yaneuraou-mate" => yaneuraou_mate = it.next().cloned(),
            "--yaneuraou" => {
                if let Some(path) = it.next() {
                    gyoku_bench::use_yaneuraou(std::path::PathBuf::from(path));
                }
            }
            other => {
                eprintln!("gyoku-bench: unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    if mate {
        let rounds = if args.iter().any(|a| a == "--rounds") {
            rounds
        } else {
            21
        };
        let table = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/mate/positions.tsv");
        gyoku_bench::mate::run(
            &table,
            nodes,
            rounds,
            cshogi && cshogi_available(),
            yaneuraou_mate.as_deref(),
        );
        return;
    }
    if runner {
        let n = if args.iter().any(|a| a == "--games") {
            u32::try_from(games).unwrap_or(u32::MAX)
        } else {
            200
        };
        let cli = gyoku_required();
        let book = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../openings/gyoku-4ply.sfen");
        let mut runners = vec![(
            "gyoku match".to_string(),
            gyoku_bench::runner_cost::Runner::Gyoku(cli.clone()),
        )];
        if let Some(path) = &before {
            runners.push((
                format!("gyoku match before ({})", path.display()),
                gyoku_bench::runner_cost::Runner::Gyoku(path.clone()),
            ));
        }
        if let Some(path) = &shogitest {
            runners.push((
                "shogitest".to_string(),
                gyoku_bench::runner_cost::Runner::Shogitest(path.clone()),
            ));
        }
        gyoku_bench::runner_cost::run(
            &runners,
            &cli,
            &book,
            n.max(2),
            u32::try_from(rounds).unwrap_or(3),
        );
        return;
    }
    if ratings {
        let n = if args.iter().any(|a| a == "--games") {
            games
        } else {
            1_000_000
        };
        let cli = gyoku_required();
        let peers =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peers");
        gyoku_bench::ratings::run(
            n,
            players.max(2),
            &cli,
            &peers,
            std::time::Duration::from_secs(mk_rate_limit),
        );
        println!(
            "\n| tournament runner's own work (schedule and standings after each game, no engines) | games | µs per game |\n|---|---|---|"
        );
        for (format, games, us) in gyoku_bench::ratings::tournament_overhead(16, 4) {
            println!("| {format}, 16 engines, 2 games per encounter | {games} | {us:.1} |");
        }
        return;
    }
    if watch_load {
        let Some(db) = db else {
            eprintln!(
                "gyoku-bench: watch-load needs --db postgres://USER@HOST/DB (a user that may create databases)"
            );
            std::process::exit(2);
        };
        let plies = if args.iter().any(|a| a == "--plies") {
            plies
        } else {
            30
        };
        watch_load_runs(&db, (games, watchers, plies, think), before.as_deref());
        return;
    }
    if login_flood {
        run_login_flood(names, addresses, before.as_deref());
        return;
    }
    if training {
        let n = if args.iter().any(|a| a == "--games") {
            games
        } else {
            2000
        };
        let rounds = if args.iter().any(|a| a == "--rounds") {
            rounds
        } else {
            5
        };
        let run = gyoku_bench::training::run(
            &gyoku_required(),
            n,
            plies_given.unwrap_or(120),
            rounds,
            cshogi && cshogi_available(),
        );
        if let Err(e) = run {
            eprintln!("gyoku-bench: training: {e}");
            std::process::exit(1);
        }
        return;
    }
    if backup_time {
        let n = if args.iter().any(|a| a == "--games") {
            games as u64
        } else {
            1_000_000
        };
        let plies = plies_given.map_or(80, |p| p as u64);
        if let Err(e) = gyoku_bench::backup_time::run(&gyoku_required(), n, plies) {
            eprintln!("gyoku-bench: backup: {e}");
            std::process::exit(1);
        }
        return;
    }
    if workers_load {
        let _ = rlimit::increase_nofile_limit(65_536);
        let seconds = if args.iter().any(|a| a == "--seconds") {
            seconds
        } else {
            60
        };
        let think = std::time::Duration::from_millis(think_given.unwrap_or(10_000));
        if let Err(e) = gyoku_bench::workers_load::run(&gyoku_required(), workers_n, seconds, think)
        {
            eprintln!("gyoku-bench: workers: {e}");
            std::process::exit(1);
        }
        return;
    }
    if slow_uploads {
        run_slow_uploads(
            (addresses, per_address),
            plies_given.unwrap_or(16),
            think_given.unwrap_or(1000),
            before.as_deref(),
        );
        return;
    }
    if metrics_cost {
        let rounds = if args.iter().any(|a| a == "--rounds") {
            rounds
        } else {
            1
        };
        run_metrics_cost(games, plies, think, rounds);
        return;
    }
    if chat_flood {
        run_chat_flood(listeners, seconds, memory_limit, before.as_deref());
        return;
    }
    if load {
        let n = if args.iter().any(|a| a == "--games") {
            games
        } else {
            200
        };
        csa_load(
            n,
            plies,
            peer_games.unwrap_or(n.min(PEER_MAX_GAMES)),
            think,
            before.as_deref(),
            (attack, drops),
        );
        return;
    }
    if memory {
        let n = if args.iter().any(|a| a == "--games") {
            games
        } else {
            10_000
        };
        let cli = gyoku_required();
        let rows = gyoku_bench::judge_memory(&[n, 10 * n], 40, &cli);
        println!(
            "| input | records | peak RSS | × the smaller run | seconds |\n|---|---|---|---|---|"
        );
        for (name, count, peak, seconds) in &rows {
            let base = rows
                .iter()
                .find(|r| &r.0 == name)
                .map_or(f64::NAN, |r| r.2 as f64);
            println!(
                "| gyoku judge: {name} | {count} | {:.1} MiB | {:.2}× | {seconds:.2} |",
                *peak as f64 / (1 << 20) as f64,
                *peak as f64 / base
            );
        }
        return;
    }
    if referee {
        let (moves, seconds) = gyoku_bench::referee_overhead(games, 150, rounds);
        let us = seconds / moves as f64 * 1e6;
        println!(
            "| work | games | engine moves | median s | µs per move | share of a 100 ms move |\n|---|---|---|---|---|---|"
        );
        println!(
            "| referee: go + position (whole game) + clock + move check, repetition, impasse + KIF and CSA records | {games} | {moves} | {seconds:.3} | {us:.2} | {:.4} % |",
            us / 100_000.0 * 100.0
        );
        return;
    }
    if records && let Some(older) = &before {
        // Real records, this build's CLI against an older one's: the repository's golden
        // files and the shared data (when there).
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let dirs: Vec<std::path::PathBuf> =
            [root.join("tests/data/records"), root.join("../shared/data")]
                .into_iter()
                .filter(|d| d.exists())
                .collect();
        let builds = [
            ("gyoku judge (this build)".to_string(), gyoku_required()),
            (
                format!("gyoku judge (before: {})", older.display()),
                older.clone(),
            ),
        ];
        let rows = gyoku_bench::judge_corpus(&builds, &dirs, rounds.max(21));
        println!("| CLI | records | median s | its time ÷ this build's |\n|---|---|---|---|");
        for (name, n, seconds) in &rows {
            println!(
                "| {name} | {n} | {seconds:.3} | {:.3}× |",
                seconds / rows[0].2
            );
        }
        println!(
            "\nrecords: {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return;
    }
    if records {
        let cshogi = cshogi && cshogi_available();
        let rows = gyoku_bench::records_matrix(games.min(100_000), 120, rounds, cshogi);
        println!(
            "| format | library | records | plies | median s | plies/s | its time ÷ gyoku's |\n|---|---|---|---|---|---|---|"
        );
        for (format, name, plies, seconds) in &rows {
            let gyoku = rows
                .iter()
                .find(|r| &r.0 == format)
                .map_or(f64::NAN, |r| r.3);
            println!(
                "| {format} | {name} | {games} | {plies} | {seconds:.3} | {:.2} M | {:.2}× |",
                *plies as f64 / seconds / 1e6,
                seconds / gyoku
            );
        }
        // The same, from files of every format, and through the CLI on every core.
        let cli = gyoku_beside();
        if cli.is_none() {
            eprintln!(
                "gyoku-bench: the gyoku binary is not built beside this one \
                 (cargo build --release -p gyoku-cli): its row is left out"
            );
        }
        let mixed = gyoku_bench::records_mixed(games.min(100_000), 120, rounds, cli.as_deref());
        let one_core = mixed[0].2;
        for (name, plies, seconds) in &mixed {
            println!(
                "| mixed: csa, kif, ki2, jkf, usi files | {name} | {games} | {plies} | {seconds:.3} | {:.2} M | {:.2}× |",
                *plies as f64 / seconds / 1e6,
                seconds / one_core
            );
        }
        return;
    }
    if judge {
        let cshogi = cshogi && cshogi_available();
        let rows = judge_matrix(games, 300, rounds, cshogi);
        let gyoku = rows[0].2;
        println!(
            "| library | games | plies | median s | plies/s | its time ÷ gyoku's |\n|---|---|---|---|---|---|"
        );
        for (name, plies, seconds) in &rows {
            println!(
                "| {name} | {games} | {plies} | {seconds:.3} | {:.2} M | {:.2}× |",
                *plies as f64 / seconds / 1e6,
                seconds / gyoku
            );
        }
        return;
    }
    let cells: Vec<_> = PERFT_CELLS
        .iter()
        .copied()
        .filter(|c| !quick || c.slow_peers)
        .collect();
    let mut libraries: Vec<Library> = Library::ALL.to_vec();
    if !cshogi || !cshogi_available() {
        eprintln!("gyoku-bench: cshogi not used (pip install cshogi to include it)");
        libraries.retain(|&l| l != Library::Cshogi);
    }
    if !gyoku_bench::yaneuraou_named() {
        eprintln!(
            "gyoku-bench: YaneuraOu not used (--yaneuraou PATH: its MATERIAL edition, built as ../shared/peers/README.md says)"
        );
        libraries.retain(|&l| l != Library::Yaneuraou);
    }
    let rows = perft_matrix(&cells, &libraries, rounds, |line| eprintln!("{line}"));
    println!("{}", markdown(&rows));
}

/// This build's `gyoku serve` and, with `before`, an older one, named for the table.
fn builds_to_compare(before: Option<&std::path::Path>) -> Vec<(&'static str, std::path::PathBuf)> {
    let mut builds = vec![("gyoku serve", gyoku_required())];
    if let Some(path) = before {
        builds.push(("gyoku serve (before)", path.to_path_buf()));
    }
    builds
}

/// `login-flood`: `names` new names at once from `addresses` loopback addresses while a
/// known player logs in, on this build's `gyoku serve` and (`--before`) an older one.
fn run_login_flood(names: usize, addresses: u8, before: Option<&std::path::Path>) {
    use gyoku_bench::csa_load::ServerUnderTest;
    let _ = rlimit::increase_nofile_limit((2 * names + 1024) as u64);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let builds = builds_to_compare(before);
    println!(
        "| server | new names | from addresses | known player's login | let in | refused | unanswered | crowd answered in |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (name, binary) in builds {
        let server = match ServerUnderTest::gyoku_pacing(&binary, true) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("gyoku-bench: {name}: {e}");
                continue;
            }
        };
        eprintln!("{name}: {names} new names from {addresses} addresses…");
        let r = runtime.block_on(gyoku_bench::login_flood::flood(
            server.addr,
            names,
            addresses,
        ));
        println!(
            "| {name} | {} | {addresses} | {:.0} ms | {} | {} | {} | {:.1} s |",
            r.names, r.known_login_ms, r.admitted, r.refused, r.unanswered, r.crowd_seconds
        );
        drop(server);
    }
}

/// `slow-uploads`: slow record uploads from `addresses` × `per_address` while two people
/// play, on this build's `gyoku serve` and (`--before`) an older one.
fn run_slow_uploads(
    (addresses, per_address): (u8, usize),
    plies: usize,
    think: u64,
    before: Option<&std::path::Path>,
) {
    use gyoku_bench::csa_load::ServerUnderTest;
    let _ = rlimit::increase_nofile_limit(4096);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    println!(
        "| server | slow uploads | uploads answered early | moves | moves not answered 200 | move answer p50 | move answer max | game at the end |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (name, binary) in builds_to_compare(before) {
        let mut server = match ServerUnderTest::gyoku_with_http(&binary) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("gyoku-bench: {name}: {e}");
                continue;
            }
        };
        let Some(http) = server.http else {
            eprintln!("gyoku-bench: {name}: no HTTP port");
            continue;
        };
        eprintln!("{name}: {addresses} × {per_address} slow uploads, {plies} moves…");
        let run = runtime.block_on(gyoku_bench::slow_uploads::run(
            http,
            addresses,
            per_address,
            plies,
            std::time::Duration::from_millis(think),
            10,
        ));
        match run {
            Ok(r) => println!(
                "| {name} | {} | {} | {} | {} | {:.0} ms | {} ms | {} |",
                r.uploads,
                r.uploads_answered,
                r.moves,
                r.moves_failed,
                gyoku_bench::csa_load::percentile_ms(&r.move_ms, 50.0),
                r.move_ms.last().copied().unwrap_or(0),
                r.game,
            ),
            Err(e) => eprintln!("gyoku-bench: {name}: {e}"),
        }
        let _ = server.exited();
    }
}

/// `chat-flood`: one chatter against `listeners` silent x1 listeners for `seconds`, on
/// this build's `gyoku serve` and (`--before`) an older one, each started under an
/// address-space limit of `limit` bytes.
fn run_chat_flood(listeners: usize, seconds: u64, limit: u64, before: Option<&std::path::Path>) {
    use gyoku_bench::csa_load::ServerUnderTest;
    let want = (2 * listeners + 1024) as u64;
    let _ = rlimit::increase_nofile_limit(want);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let builds = builds_to_compare(before);
    println!(
        "| server | listeners | memory limit | chat lines written | seconds | listeners dropped | server peak RSS | server at the end |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (name, binary) in builds {
        // The server inherits this process's soft address-space limit; this process gets
        // its own back once the server runs.
        let (soft, hard) = rlimit::getrlimit(rlimit::Resource::AS).unwrap_or((u64::MAX, u64::MAX));
        let _ = rlimit::setrlimit(rlimit::Resource::AS, limit.min(hard), hard);
        let started = ServerUnderTest::gyoku(&binary);
        let _ = rlimit::setrlimit(rlimit::Resource::AS, soft, hard);
        let mut server = match started {
            Ok(s) => s,
            Err(e) => {
                eprintln!("gyoku-bench: {name}: {e}");
                continue;
            }
        };
        eprintln!("{name}: {listeners} silent listeners, one chatter, {seconds} s…");
        let r = runtime.block_on(gyoku_bench::chat_flood::flood(
            server.addr,
            listeners,
            seconds,
        ));
        let rss = server.peak_rss();
        let end = server.exited().unwrap_or_else(|| "running".to_string());
        println!(
            "| {name} | {} | {:.1} GiB | {} | {:.1} | {} | {:.1} MiB | {end} |",
            r.listeners,
            limit as f64 / f64::from(1u32 << 30),
            r.lines,
            r.seconds,
            r.dropped,
            rss as f64 / f64::from(1u32 << 20),
        );
    }
}

/// The most games shogi-server is given by default: it serves at most 100 connections at
/// once (WEBrick's `MaxClients`, which it does not raise), two a game and a few to spare.
const PEER_MAX_GAMES: usize = 45;

fn csa_load(
    games: usize,
    plies: usize,
    peer_games: usize,
    think: u64,
    before: Option<&std::path::Path>,
    (attack, drops): (bool, usize),
) {
    use gyoku_bench::csa_load::{LoadReport, ServerUnderTest, run_load};
    // Two sockets a game on each side of loopback, plus the server's own files.
    let want = (4 * games.max(peer_games) + 1024) as u64;
    let _ = rlimit::setrlimit(rlimit::Resource::NOFILE, want, want);
    let limit = rlimit::increase_nofile_limit(want).unwrap_or(0);
    let fit = limit.saturating_sub(64) / 2;
    if (games.max(peer_games) as u64) > fit {
        eprintln!(
            "gyoku-bench: the open-file limit here is {limit} (a process may not raise it): \
             each process (this one's clients, the server) holds two sockets a game, so at \
             most {fit} games fit; clients and the server will fail to open sockets past it"
        );
    }
    let cli = gyoku_required();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut rows: Vec<(String, LoadReport, u64)> = Vec::new();
    let peer = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/peers/shogi-server");
    // (which server, games, thinking ms): throughput side by side, then latency under a
    // load; an older gyoku beside this one under each load, after it and before it in
    // turn (a run's place in the sequence moved its figures: neither build is always
    // first).
    #[derive(Clone, Copy)]
    enum Which {
        Peer,
        Gyoku,
        Before,
    }
    // (which, games, thinking, attacked)
    let mut runs: Vec<(Which, usize, u64, bool)> = Vec::new();
    let mut pairs = 0usize;
    let mut gyoku_runs = |runs: &mut Vec<(Which, usize, u64, bool)>,
                          n: usize,
                          think: u64,
                          a: bool| {
        let this = (Which::Gyoku, n, think, a);
        match before {
            None => runs.push(this),
            Some(_) if pairs.is_multiple_of(2) => runs.extend([this, (Which::Before, n, think, a)]),
            Some(_) => runs.extend([(Which::Before, n, think, a), this]),
        }
        pairs += 1;
    };
    if drops > 0 {
        // The same load with thinking, without and then with DROPS players cut and back.
        let report = |n, think, drops, tag: &str| {
            let server = match ServerUnderTest::gyoku(&cli) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("gyoku-bench: {e}");
                    std::process::exit(1);
                }
            };
            eprintln!("gyoku serve: {n} games of {plies} moves, thinking {think} ms, {drops} cut…");
            let r = runtime.block_on(gyoku_bench::csa_load::run_load_with_drops(
                server.addr,
                n,
                drops,
                plies,
                think,
                tag,
            ));
            (r, server.peak_rss())
        };
        let (plain, plain_rss) = report(games, think, 0, "d0g");
        let (cut, cut_rss) = report(games, think, drops.min(games), "d1g");
        println!(
            "| gyoku serve | games at once | thinking | players cut | came back | clock gap max | others' echo p50 | others' echo p99 | others' echo max | failed clients | peak RSS |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|---|");
        for (r, rss) in [(&plain, plain_rss), (&cut, cut_rss)] {
            println!(
                "| {} | {} | {} ms | {} | {} | {:.0} ms | {:.2} ms | {:.2} ms | {:.2} ms | {} | {:.1} MiB |",
                if r.dropped == 0 {
                    "without drops"
                } else {
                    "with drops"
                },
                r.games,
                r.think_ms,
                r.dropped,
                r.resumed,
                r.clock_gap_ms,
                r.others_latency_ms[0],
                r.others_latency_ms[1],
                r.others_latency_ms[2],
                r.failures,
                rss as f64 / f64::from(1u32 << 20),
            );
        }
        println!(
            "\nothers' echo p99 with drops − without: {:+.2} ms",
            cut.others_latency_ms[1] - plain.others_latency_ms[1]
        );
        return;
    }
    if peer.exists() && peer_games > 0 {
        runs.push((Which::Peer, peer_games, 0, false));
        gyoku_runs(&mut runs, peer_games, 0, false);
        runs.push((Which::Peer, peer_games, think, false));
        gyoku_runs(&mut runs, peer_games, think, false);
    }
    if peer_games != games || runs.is_empty() {
        gyoku_runs(&mut runs, games, 0, false);
        gyoku_runs(&mut runs, games, think, false);
    }
    if attack {
        gyoku_runs(&mut runs, games, think, true);
    }
    for (i, (which, n, think, attacked)) in runs.into_iter().enumerate() {
        let server = match (which, before) {
            (Which::Peer, _) => ServerUnderTest::shogi_server(&peer),
            (Which::Before, Some(path)) => {
                let start = if attacked {
                    ServerUnderTest::gyoku_with_http
                } else {
                    ServerUnderTest::gyoku
                };
                start(path).map(|mut s| {
                    s.name = "gyoku serve (before)";
                    s
                })
            }
            _ if attacked => ServerUnderTest::gyoku_with_http(&cli),
            _ => ServerUnderTest::gyoku(&cli),
        };
        let server = match server {
            Ok(s) => s,
            Err(e) => {
                eprintln!("gyoku-bench: {e}");
                continue;
            }
        };
        eprintln!(
            "{}: {n} games of {plies} moves at once, thinking {think} ms{}…",
            server.name,
            if attacked {
                ", one client attacking"
            } else {
                ""
            }
        );
        let tag = format!("r{i}g");
        let report = runtime.block_on(async {
            if !attacked {
                return run_load(server.addr, n, plies, think, &tag).await;
            }
            let (stop, stopped) = tokio::sync::watch::channel(false);
            let attacker = tokio::spawn(gyoku_bench::csa_load::attack(
                server.addr,
                server.http,
                stopped,
            ));
            let report = run_load(server.addr, n, plies, think, &tag).await;
            let _ = stop.send(true);
            let (written, taken) = attacker.await.unwrap_or((0, 0));
            let seconds = (report.setup_seconds + report.play_seconds).max(1e-9);
            eprintln!(
                "  the attacker wrote {written} lines of x1 commands ({:.0} a second; most wait in the sockets' buffers); the server took about {taken} ({:.0} a second)",
                written as f64 / seconds,
                taken as f64 / seconds
            );
            report
        });
        let name = if attacked {
            format!("{} + attacker", server.name)
        } else {
            server.name.to_string()
        };
        rows.push((name, report, server.peak_rss()));
    }
    println!(
        "| server | games at once | thinking | all started in | moves | moves/s | echo p50 | echo p99 | echo max | server peak RSS | failed clients |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, r, rss) in &rows {
        println!(
            "| {name} | {} | {} | {:.2} s | {} | {:.0} | {:.2} ms | {:.2} ms | {:.2} ms | {:.1} MiB | {} |",
            r.games,
            if r.think_ms == 0 {
                "none".to_string()
            } else {
                format!("{} ms", r.think_ms)
            },
            r.setup_seconds,
            r.moves,
            r.moves_per_second(),
            r.latency_ms[0],
            r.latency_ms[1],
            r.latency_ms[2],
            *rss as f64 / (1 << 20) as f64,
            r.failures
        );
    }
    let throughput = |name: &str, games: usize| {
        rows.iter()
            .find(|(n, r, _)| n == name && r.games == games && r.think_ms == 0)
            .map(|(_, r, _)| r.moves_per_second())
    };
    let mut sizes = vec![peer_games, games];
    sizes.dedup();
    for games in sizes {
        let gyoku = throughput("gyoku serve", games);
        if let (Some(g), Some(p)) = (gyoku, throughput("shogi-server", games)) {
            println!(
                "\ngyoku serve / shogi-server throughput at {games} games: {:.1}×",
                g / p
            );
        }
        if let (Some(g), Some(b)) = (gyoku, throughput("gyoku serve (before)", games)) {
            println!(
                "gyoku serve / the build before, throughput at {games} games: {:.2}×",
                g / b
            );
        }
    }
}

/// `watch-load`: this build's `gyoku`, and `before`'s when one is given, each as one
/// instance and as a referee with two web instances, one after the other in one run.
fn watch_load_runs(
    admin: &str,
    (games, watchers, plies, think): (usize, usize, usize, u64),
    before: Option<&std::path::Path>,
) {
    use gyoku_bench::watch_load::{Deployment, run};
    // This process holds a socket per watcher and two per game; the referee (which
    // inherits the limit) as many on its side. Raised, never lowered.
    let want = (2 * games + watchers + 2048) as u64;
    let limit = rlimit::increase_nofile_limit(want).unwrap_or(0);
    if limit < want {
        eprintln!(
            "gyoku-bench: the open-file limit here is {limit}, below the {want} this load needs"
        );
    }
    let cli = gyoku_required();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    println!(
        "| deployment | games | watchers (followed to the end) | moves | echo p50 | echo p99 | delivered | delivery p50 | delivery p99 | delivery max |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    let this = (cli, "");
    let older = before.map(|b| (b.to_path_buf(), " (before)"));
    // One instance, then two web instances; with an older build, this one first on one
    // instance and the older first with web instances (neither always runs first).
    let runs: Vec<(&std::path::PathBuf, &str, usize)> = match &older {
        None => vec![(&this.0, this.1, 0), (&this.0, this.1, 2)],
        Some(b) => vec![
            (&this.0, this.1, 0),
            (&b.0, b.1, 0),
            (&b.0, b.1, 2),
            (&this.0, this.1, 2),
        ],
    };
    for (i, (gyoku, label, web)) in runs.into_iter().enumerate() {
        let deployment = match Deployment::start(gyoku, admin, web, watchers + 1024, i) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("gyoku-bench: {e}");
                continue;
            }
        };
        let r = runtime.block_on(run(
            deployment.csa,
            deployment.watched.clone(),
            games,
            watchers,
            plies,
            think,
            &format!("w{i}x"),
        ));
        println!(
            "| {}{label} | {} | {} ({}) | {} | {:.1} ms | {:.1} ms | {} | {:.1} ms | {:.1} ms | {:.1} ms |",
            deployment.name,
            r.load.games,
            r.watchers,
            r.followed,
            r.load.moves,
            r.load.latency_ms[0],
            r.load.latency_ms[1],
            r.delivered,
            r.delivery_ms[0],
            r.delivery_ms[1],
            r.delivery_ms[2],
        );
        drop(deployment);
    }
}

/// The `gyoku` binary built beside this one, if it is there.
fn gyoku_beside() -> Option<std::path::PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("gyoku")))
        .filter(|p| p.exists())
}

/// The `gyoku` binary built beside this one; without it, a message and exit status 2.
fn gyoku_required() -> std::path::PathBuf {
    gyoku_beside().unwrap_or_else(|| {
        eprintln!("gyoku-bench: build the gyoku binary first (cargo build --release -p gyoku-cli)");
        std::process::exit(2);
    })
}

/// `metrics-cost`: the same load without and with a scraper, `rounds` times each.
fn run_metrics_cost(games: usize, plies: usize, think: u64, rounds: usize) {
    let want = (4 * games + 1024) as u64;
    let _ = rlimit::setrlimit(rlimit::Resource::NOFILE, want, want);
    let limit = rlimit::increase_nofile_limit(want).unwrap_or(0);
    if (games as u64) > limit.saturating_sub(64) / 2 {
        eprintln!("gyoku-bench: the open-file limit here is {limit}: {games} games do not fit");
    }
    let cli = gyoku_required();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut runs = Vec::new();
    for round in 0..rounds.max(1) {
        let order = if round % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for scraped in order {
            eprintln!(
                "gyoku serve --metrics: {games} games of {plies} moves, thinking {think} ms, {}…",
                if scraped {
                    "scraped every second"
                } else {
                    "not scraped"
                }
            );
            let tag = format!("m{round}{}", u8::from(scraped));
            match runtime.block_on(gyoku_bench::metrics_cost::run(
                &cli, games, plies, think, scraped, &tag,
            )) {
                Ok(run) => runs.push(run),
                Err(e) => {
                    eprintln!("gyoku-bench: {e}");
                    std::process::exit(1);
                }
            }
        }
    }
    gyoku_bench::metrics_cost::report(&runs);
}
