//! `gyoku test create|stop|list` and `gyoku worker`: engine tests a server keeps and
//! workers on any machine play (the server's side is `gyoku_server::engine_tests`).

use std::time::Duration;

use gyoku_server::engine_tests::client::{Answer, Client};
use gyoku_server::engine_tests::spec::{TestEngine, TestSpec};
use gyoku_server::engine_tests::worker::{self, WorkerOptions};
use serde_json::Value;

use crate::Failure;
use crate::args::{TestAction, TestArgs, TestCreateArgs, WorkerArgs};

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Run(format!("cannot start the runtime: {e}")))
}

/// A token file's token (its first line, trimmed).
fn token(path: &std::path::Path, flag: &str) -> Result<String, Failure> {
    let bytes = gyoku_kifu::files::read_regular(path, 4096)
        .map_err(|e| Failure::Input(format!("{flag} {e}")))?;
    let text = String::from_utf8_lossy(&bytes);
    let t = text.lines().next().unwrap_or_default().trim().to_string();
    if t.is_empty() {
        return Err(Failure::Input(format!("{flag} {}: empty", path.display())));
    }
    Ok(t)
}

fn client(url: &str) -> Result<Client, Failure> {
    Client::new(url, Duration::from_secs(30)).map_err(|e| Failure::Input(format!("--server {e}")))
}

/// The server's refusal as a failure: its own words, exit 2 for what the request asked,
/// 1 for the rest.
fn refused(a: &Answer) -> Failure {
    let message = format!(
        "the server refused: {} ({})",
        a.message(),
        a.code().unwrap_or("?")
    );
    if (400..500).contains(&a.status) {
        Failure::Input(message)
    } else {
        Failure::Run(message)
    }
}

/// `gyoku test …`.
pub fn run_test(args: TestArgs) -> Result<(), Failure> {
    match args.action {
        TestAction::Create(a) => create(&a),
        TestAction::Stop {
            name,
            server,
            admin_token,
            json,
        } => {
            let bearer = token(&admin_token, "--admin-token")?;
            let rt = runtime()?;
            let a = rt.block_on(async {
                client(&server.server)?
                    .post(
                        &format!("/api/tests/{name}/stop"),
                        Some(&bearer),
                        &serde_json::json!({}),
                    )
                    .await
                    .map_err(Failure::Run)
            })?;
            if a.status != 200 {
                return Err(refused(&a));
            }
            if json {
                crate::emit(&format!("{}\n", a.body));
            } else {
                crate::emit(&format!(
                    "{name}: {}\n",
                    a.body["status"].as_str().unwrap_or("?")
                ));
            }
            Ok(())
        }
        TestAction::List { server, json } => {
            let rt = runtime()?;
            let a = rt.block_on(async {
                client(&server.server)?
                    .get("/api/tests", None)
                    .await
                    .map_err(Failure::Run)
            })?;
            if a.status != 200 {
                return Err(refused(&a));
            }
            if json {
                crate::emit(&format!("{:#}\n", a.body));
                return Ok(());
            }
            let mut out = String::new();
            for t in a.body["tests"].as_array().into_iter().flatten() {
                out.push_str(&summary_line(t));
                out.push('\n');
            }
            if out.is_empty() {
                out.push_str("no tests\n");
            }
            crate::emit(&out);
            Ok(())
        }
    }
}

/// One test in a line: name, status, engines, games, LLR and Elo.
fn summary_line(t: &Value) -> String {
    let mut line = format!(
        "{} [{}] {} vs {}: {}/{} games",
        t["name"].as_str().unwrap_or("?"),
        t["status"].as_str().unwrap_or("?"),
        t["engines"][0].as_str().unwrap_or("?"),
        t["engines"][1].as_str().unwrap_or("?"),
        t["games"],
        t["games_total"],
    );
    if let Some(s) = t["sprt"].as_object() {
        line.push_str(&format!(
            ", LLR {:.2} ({:.2}, {:.2}){}",
            s["llr"].as_f64().unwrap_or(0.0),
            s["lower"].as_f64().unwrap_or(0.0),
            s["upper"].as_f64().unwrap_or(0.0),
            s["decision"]
                .as_str()
                .map_or(String::new(), |d| format!(" {d} accepted")),
        ));
    }
    if let (Some(e), Some(err)) = (t["elo"].as_f64(), t["elo_error"].as_f64()) {
        line.push_str(&format!(", Elo {e:+.1} ± {err:.1}"));
    }
    if t["disagreements"].as_u64().unwrap_or(0) > 0 {
        line.push_str(&format!(", {} disagreements", t["disagreements"]));
    }
    line
}

fn create(a: &TestCreateArgs) -> Result<(), Failure> {
    if a.engines.len() != 2 {
        return Err(Failure::Input(format!(
            "--engine: a test has two engines ({} given)",
            a.engines.len()
        )));
    }
    let bearer = token(&a.admin_token, "--admin-token")?;
    let rt = runtime()?;
    let server = rt.block_on(async { client(&a.server.server) })?;
    let mut engines: Vec<TestEngine> = Vec::with_capacity(2);
    for e in &a.engines {
        let (name, command) = match e.split_once('=') {
            Some((name, command)) => (name.trim().to_string(), Some(command.to_string())),
            None => (e.trim().to_string(), None),
        };
        // `NAME=@FILE`: the build is uploaded, and the test names it by digest.
        let artefact = match command.as_deref().and_then(|c| c.strip_prefix('@')) {
            Some(file) => Some(upload_artefact(
                &rt,
                &server,
                &bearer,
                std::path::Path::new(file),
            )?),
            None => None,
        };
        engines.push(TestEngine {
            name,
            command: if artefact.is_some() { None } else { command },
            options: Vec::new(),
            artefact,
        });
    }
    for o in &a.options {
        let (who, rest) = match o.split_once(':') {
            Some((who, rest)) if !who.contains('=') => (Some(who), rest),
            _ => (None, o.as_str()),
        };
        let (name, value) = rest
            .split_once('=')
            .filter(|(n, _)| !n.is_empty())
            .ok_or_else(|| {
                Failure::Input(format!("--option '{o}': NAME=VALUE or ENGINE:NAME=VALUE"))
            })?;
        let mut matched = false;
        for (k, e) in engines.iter_mut().enumerate() {
            if who.is_none_or(|w| w == e.name || w == (k + 1).to_string()) {
                e.options.push((name.to_string(), value.to_string()));
                matched = true;
            }
        }
        if !matched {
            return Err(Failure::Input(format!("--option '{o}': no such engine")));
        }
    }
    let preset: gyoku::Preset = a
        .rules
        .parse()
        .map_err(|_| Failure::Input(format!("--rules {}: not a preset (gyoku rules)", a.rules)))?;
    let openings = match &a.openings {
        Some(path) => gyoku_arena::openings::load(
            path,
            a.opening_plies,
            &gyoku_arena::executor::match_rules(preset.rules()),
            crate::records::max_file_bytes(),
        )
        .map_err(Failure::Input)?
        .iter()
        .map(gyoku_arena::openings::Opening::usi_line)
        .collect(),
        None => Vec::new(),
    };
    let [e1, e2]: [TestEngine; 2] = engines
        .try_into()
        .map_err(|_| Failure::Input("--engine: two engines".into()))?;
    let spec = TestSpec {
        name: a.name.clone(),
        engines: [e1, e2],
        preset: a.rules.clone(),
        time: a.time.clone(),
        byoyomi: a.byoyomi.clone(),
        openings,
        pairs: a.pairs,
        sprt: a.sprt.clone(),
        batch_pairs: a.batch_pairs,
    };
    // Checked here first: a mistake is said before anything is sent.
    spec.check().map_err(Failure::Input)?;
    let body = serde_json::to_value(&spec).map_err(|e| Failure::Run(e.to_string()))?;
    let answer = rt.block_on(async {
        server
            .post("/api/tests", Some(&bearer), &body)
            .await
            .map_err(Failure::Run)
    })?;
    if answer.status != 201 {
        return Err(refused(&answer));
    }
    if a.json {
        crate::emit(&format!("{:#}\n", answer.body));
    } else {
        crate::emit(&format!(
            "{}\nrules digest {}\n",
            summary_line(&answer.body),
            answer.body["digest"].as_str().unwrap_or("?")
        ));
    }
    Ok(())
}

/// Uploads an engine build to the server: its digest.
fn upload_artefact(
    rt: &tokio::runtime::Runtime,
    server: &Client,
    bearer: &str,
    file: &std::path::Path,
) -> Result<String, Failure> {
    let max = gyoku_server::engine_tests::artefacts::MAX_ARTEFACT_BYTES;
    let bytes = gyoku_kifu::files::read_regular(file, max)
        .map_err(|e| Failure::Input(format!("--engine @{e}")))?;
    let digest = gyoku_server::engine_tests::artefacts::digest_of(&bytes);
    let answer =
        rt.block_on(server.post_bytes("/api/artefacts", bearer, bytes, Duration::from_secs(600)));
    let answer = answer.map_err(Failure::Run)?;
    if answer.status != 200 {
        return Err(refused(&answer));
    }
    if answer.body["artefact"].as_str() != Some(digest.as_str()) {
        return Err(Failure::Run(format!(
            "the server kept {} as {} (its SHA-256 is {digest})",
            file.display(),
            answer.body["artefact"]
        )));
    }
    Ok(digest)
}

/// `gyoku worker`.
pub fn run_worker(args: WorkerArgs) -> Result<(), Failure> {
    let mut engines = Vec::new();
    for e in &args.engines {
        let (name, command) = e
            .split_once('=')
            .filter(|(n, c)| !n.is_empty() && !c.trim().is_empty())
            .ok_or_else(|| Failure::Input(format!("--engine '{e}': NAME=COMMAND")))?;
        engines.push((name.to_string(), command.to_string()));
    }
    if args.concurrency == 0 || args.concurrency > 1024 {
        return Err(Failure::Input("--concurrency: 1 to 1024".into()));
    }
    let name = args.name.clone().unwrap_or_else(|| {
        std::fs::read_to_string("/etc/hostname")
            .ok()
            .map(|h| h.trim().to_string())
            .filter(|h| gyoku_server::engine_tests::spec::valid_name(h, 32))
            .unwrap_or_else(|| "worker".into())
    });
    let builtin = std::env::current_exe()
        .ok()
        .map(|me| format!("{} engine", worker::shell_word(&me.display().to_string())));
    let options = WorkerOptions {
        server: args.server.server.clone(),
        token: token(&args.token, "--token")?,
        name,
        concurrency: args.concurrency,
        engines,
        builtin,
        exit_when_idle: args.exit_when_idle,
        cache_dir: args
            .cache_dir
            .clone()
            .unwrap_or_else(gyoku_server::engine_tests::artefacts::worker_cache_dir),
    };
    let rt = runtime()?;
    let summary = rt
        .block_on(worker::run(options, |line| {
            eprintln!("gyoku worker: {line}")
        }))
        .map_err(Failure::Run)?;
    eprintln!(
        "gyoku worker: {} batches, {} games counted, {} disagreements, {} refused",
        summary.batches, summary.counted, summary.disagreements, summary.refused
    );
    Ok(())
}
