//! `gyoku serve`: the CSA game server.

use std::path::PathBuf;

use gyoku::Preset;
use gyoku_arena::engine::EngineConfig;
use gyoku_server::Options;
use gyoku_server::lobby::Config;
use gyoku_server::play::EngineChoice;
use gyoku_server::store::DbUrl;

use crate::Failure;
use crate::args::{Role, ServeArgs};

/// `$XDG_DATA_HOME/gyoku`, else `~/.local/share/gyoku`, else `./gyoku-data`.
pub(crate) fn default_data_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(x).join("gyoku");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h).join(".local/share/gyoku");
    }
    PathBuf::from("gyoku-data")
}

/// The engines of `--engine NAME=COMMAND`, and `builtin` (this program's `engine`
/// command) unless one is given that name.
fn engine_choices(given: &[String], levels: &[String]) -> Result<Vec<EngineChoice>, Failure> {
    let mut engines = Vec::new();
    for text in given {
        let Some((name, command)) = text.split_once('=') else {
            return Err(Failure::Input(format!(
                "--engine: '{text}' is not NAME=COMMAND"
            )));
        };
        let name = name.trim();
        if name.is_empty()
            || name == "person"
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(Failure::Input(format!(
                "--engine: '{name}' is not a name (letters, digits, _; not 'person')"
            )));
        }
        if engines.iter().any(|e: &EngineChoice| e.name == name) {
            return Err(Failure::Input(format!("--engine: '{name}' given twice")));
        }
        engines.push(EngineChoice {
            name: name.to_string(),
            engine: EngineConfig::new(command.trim()),
            levels: Vec::new(),
        });
    }
    if !engines.iter().any(|e| e.name == "builtin")
        && let Ok(me) = std::env::current_exe()
    {
        let quoted = format!(
            "'{}' engine",
            me.display().to_string().replace('\'', r"'\''")
        );
        engines.insert(
            0,
            EngineChoice {
                name: "builtin".into(),
                engine: EngineConfig::new(quoted),
                levels: Vec::new(),
            },
        );
    }
    for text in levels {
        let (name, level) = gyoku_server::engine_levels::parse_engine_level(text)
            .map_err(|e| Failure::Input(format!("--engine-level: {e}")))?;
        let Some(engine) = engines.iter_mut().find(|e| e.name == name) else {
            return Err(Failure::Input(format!(
                "--engine-level: no --engine named '{name}'"
            )));
        };
        if engine.levels.iter().any(|l| l.level == level.level) {
            return Err(Failure::Input(format!(
                "--engine-level: {name}'s level {} given twice",
                level.level
            )));
        }
        engine.levels.push(level);
        engine.levels.sort_by_key(|l| l.level);
    }
    Ok(engines)
}

/// The analysis engine `--analysis-engine` names (one of the `--engine`s), at `ms` a
/// position.
fn analysis_options(
    name: Option<&str>,
    ms: u64,
    engines: &[EngineChoice],
) -> Result<Option<gyoku_server::http::AnalysisOptions>, Failure> {
    let Some(name) = name else {
        return Ok(None);
    };
    if !(10..=60_000).contains(&ms) {
        return Err(Failure::Input(format!(
            "--analysis-ms: {ms} is not 10 to 60000"
        )));
    }
    let engine = engines
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| Failure::Input(format!("--analysis-engine: no --engine named '{name}'")))?;
    Ok(Some(gyoku_server::http::AnalysisOptions {
        name: name.to_string(),
        engine: engine.engine.clone(),
        movetime_ms: ms,
    }))
}

/// Runs the server until Ctrl-C or SIGTERM.
pub fn run_serve(a: ServeArgs) -> Result<(), Failure> {
    gyoku_server::log::init(a.log_format).map_err(Failure::Input)?;
    let engines = engine_choices(&a.engines, &a.engine_levels)?;
    let rules: Preset = a
        .rules
        .parse()
        .map_err(|e| Failure::Input(format!("--rules: {e}")))?;
    let data = a.data_dir.unwrap_or_else(default_data_dir);
    let db = match &a.db {
        Some(d) => DbUrl::parse(d).ok_or_else(|| {
            Failure::Input("--db: give an SQLite file or a postgres:// URL".into())
        })?,
        None => DbUrl::Sqlite(data.join("gyoku.sqlite3")),
    };
    let records = a.records.unwrap_or_else(|| data.join("records"));
    let db_dir = match &db {
        DbUrl::Sqlite(p) => p.parent().map(PathBuf::from),
        DbUrl::Postgres(_) => None,
    };
    for dir in [db_dir, Some(records.clone())].into_iter().flatten() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(&dir)
                .map_err(|e| Failure::Run(format!("{}: {e}", dir.display())))?;
        }
    }
    if a.max_connections == Some(0)
        || a.max_connections_per_address == 0
        || a.http_max_connections == 0
        || a.http_max_connections_per_address == 0
        || a.http_max_watchers == 0
        || a.http_max_watchers_per_address == 0
    {
        return Err(Failure::Input(
            "connection limits must be at least 1".into(),
        ));
    }
    let http = match a.http.as_str() {
        "off" => None,
        text => Some(text.parse().map_err(|e| {
            Failure::Input(format!("--http: '{text}' is not an address (or off): {e}"))
        })?),
    };
    // The HTTP port's connections come out of the same open-file budget.
    let http_connections = if http.is_some() {
        a.http_max_connections
    } else {
        0
    };
    let (max_connections, lowered) = connections_the_system_allows(
        a.max_connections.unwrap_or(DEFAULT_MAX_CONNECTIONS),
        http_connections,
    );
    // Said only to whoever asked for more: the default quietly fits the limit.
    let lowered = lowered.filter(|_| a.max_connections.is_some());
    let events = event_files(&a.event_files)?;
    let options = Options {
        csa: a.csa,
        db: db.clone(),
        records: records.clone(),
        lobby: Config {
            event: a.event,
            rules,
            max_moves: a.max_moves,
            least_time_per_move: a.least_time_per_move,
            reconnect_grace_ms: a.reconnect_grace,
            strict_csa_server: a.strict_csa_server,
            schedules: schedules_apart_from_events(schedules(&a.schedules)?, &events)?,
            events: Vec::new(),
            // Colours tossed at random, differently each run.
            seed: None,
        },
        ratings_every: std::time::Duration::from_secs(a.ratings_every.max(1)),
        max_connections,
        max_per_address: a.max_connections_per_address,
        new_names_per_address: a.new_names_per_address,
        http,
        http_options: gyoku_server::http::HttpOptions {
            tls: match (&a.tls_cert, &a.tls_key) {
                (Some(cert), Some(key)) => Some(
                    gyoku_server::http::Tls::from_pem_files(cert, key)
                        .map_err(|e| Failure::Input(format!("--tls-cert/--tls-key: {e}")))?,
                ),
                _ => None,
            },
            hosts: a.http_hosts.clone(),
            max_connections: a.http_max_connections,
            max_connections_per_address: a.http_max_connections_per_address,
            max_watchers: a.http_max_watchers,
            max_watchers_per_address: a.http_max_watchers_per_address,
            admin_token: a
                .admin_token_file
                .as_deref()
                .map(|p| admin_token(p, "--admin-token-file"))
                .transpose()?,
            worker_token: a
                .worker_token_file
                .as_deref()
                .map(|p| admin_token(p, "--worker-token-file"))
                .transpose()?,
            worker_lease: worker_lease(&a.worker_lease)?,
            artefacts_dir: Some(data.join("artefacts")),
            analysis: analysis_options(a.analysis_engine.as_deref(), a.analysis_ms, &engines)?,
            ..gyoku_server::http::HttpOptions::default()
        },
        md5_rating_ids: a.md5_rating_ids,
        engines,
        events,
        standby: a.standby,
        metrics: a.metrics,
    };
    if a.role == Role::Web {
        return run_web(options, a.referee.as_deref());
    }
    if a.referee.is_some() {
        return Err(Failure::Input(
            "--referee names a web instance's referee: give --role web too".into(),
        ));
    }
    let admin_file = a.admin_token_file.clone();
    let scheme = scheme_of(&options.http_options);
    serve_until_stopped(|shutdown| {
        gyoku_server::run(
            options,
            |s| {
                if let Some(metrics) = s.metrics {
                    tracing::info!("metrics on http://{metrics}/metrics");
                }
                if let Some(http) = s.http {
                    tracing::info!(
                        "open {scheme}://{http}/ to play, watch games and judge records \
                             (the HTTP API is under {scheme}://{http}/api/)"
                    );
                }
                tracing::info!(
                    "CSA protocol on {} (rules {}, database {}, records in {}){}",
                    s.csa,
                    rules.name(),
                    db,
                    records.display(),
                    if s.suspended > 0 {
                        format!(
                            "; {} suspended games ({} interrupted when it last stopped) resume when both players log in again",
                            s.suspended, s.interrupted
                        )
                    } else {
                        String::new()
                    }
                );
                if let Some(note) = &lowered {
                    tracing::info!("{note}");
                }
                if let Some(file) = &admin_file {
                    tracing::info!(
                        "the events' admin endpoint answers to the token in {}",
                        file.display()
                    );
                }
                if s.records_restored > 0 {
                    tracing::info!(
                        "{} record files were missing and were written again from the database",
                        s.records_restored
                    );
                }
            },
            shutdown,
        )
    })
}

/// `gyoku serve --role web`: the web page, the API and the event streams from the
/// referee's PostgreSQL, until Ctrl-C or SIGTERM.
fn run_web(options: Options, referee: Option<&str>) -> Result<(), Failure> {
    let Some(referee) = referee else {
        return Err(Failure::Input(
            "--role web relays players' actions to its referee: give --referee HOST:PORT (the \
             referee instance's --http)"
                .into(),
        ));
    };
    let referee = std::net::ToSocketAddrs::to_socket_addrs(referee)
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| Failure::Input(format!("--referee: '{referee}' is not HOST:PORT")))?;
    let Some(http) = options.http else {
        return Err(Failure::Input(
            "--role web serves HTTP: give --http ADDRESS, not off".into(),
        ));
    };
    let web = gyoku_server::WebOptions {
        db: options.db.clone(),
        http,
        http_options: options.http_options,
        referee,
        metrics: options.metrics,
    };
    let db = options.db;
    let scheme = scheme_of(&web.http_options);
    serve_until_stopped(|shutdown| {
        gyoku_server::run_web(
            web,
            move |at, metrics| {
                if let Some(metrics) = metrics {
                    tracing::info!("metrics on http://{metrics}/metrics");
                }
                tracing::info!(
                    "web instance on {scheme}://{at}/ (database {db}, players' \
                     actions relayed to the referee at {referee})"
                );
            },
            shutdown,
        )
    })
}

/// `https` where the HTTP port serves TLS, else `http`.
fn scheme_of(http: &gyoku_server::http::HttpOptions) -> &'static str {
    if http.tls.is_some() { "https" } else { "http" }
}

/// Runs `server` (given the shutdown signal, installed before it listens) on a runtime of
/// its own until it stops, and says so.
fn serve_until_stopped<F>(
    server: impl FnOnce(std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>) -> F,
) -> Result<(), Failure>
where
    F: std::future::Future<Output = Result<(), gyoku_server::ServeError>>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Run(e.to_string()))?;
    runtime
        .block_on(async {
            let shutdown = Box::pin(shutdown_signal());
            server(shutdown).await
        })
        .map_err(|e| Failure::Run(e.to_string()))?;
    tracing::info!("stopped");
    Ok(())
}

/// Connections at once when `--max-connections` is not given (fewer where the open-file
/// limit holds fewer).
const DEFAULT_MAX_CONNECTIONS: usize = 20_000;

/// Open files the server keeps for itself beyond its connections: the database and its
/// log, the checkpoint thread's connection, record files being written, the runtime's own.
const FILES_KEPT: u64 = 64;

/// Raises the open-file limit as far as the system lets a process, and lowers
/// `--max-connections` to what it can then hold beside `http` HTTP connections, with a
/// note saying so: past it, a connection gets `too many connections` rather than the
/// server failing to open a record file.
fn connections_the_system_allows(asked: usize, http: usize) -> (usize, Option<String>) {
    let limit = rlimit::increase_nofile_limit(u64::MAX)
        .or_else(|_| rlimit::Resource::NOFILE.get().map(|(soft, _)| soft));
    let Ok(limit) = limit else {
        return (asked, None);
    };
    let fit = usize::try_from(limit.saturating_sub(FILES_KEPT + http as u64))
        .unwrap_or(usize::MAX)
        .max(1);
    if asked > fit {
        let note = format!(
            "the open-file limit ({limit}) holds {fit} connections beside {http} on the HTTP \
             port; --max-connections lowered from {asked} to {fit} (raise the limit with ulimit -n)"
        );
        return (fit, Some(note));
    }
    (asked, None)
}

/// Completes on SIGINT or SIGTERM. The handlers are installed when this is called, not when
/// the future is first polled, so a signal that comes as soon as the server says it listens
/// stops it cleanly instead of killing it. Call it inside the runtime.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    async move {
        let (Ok(mut interrupt), Ok(mut terminate)) = (interrupt, terminate) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    }
}

/// `--event-file`s, read and checked: no two events share a name or a game name.
fn event_files(
    paths: &[std::path::PathBuf],
) -> Result<Vec<gyoku_server::event::EventFile>, Failure> {
    use gyoku_server::event::EventFile;
    use gyoku_server::event::file::MAX_EVENT_FILE;
    let mut events: Vec<EventFile> = Vec::new();
    for path in paths {
        let shown = path.display();
        let bytes = gyoku_kifu::files::read_regular(path, MAX_EVENT_FILE as u64)
            .map_err(|e| Failure::Input(format!("--event-file {e}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Failure::Input(format!("--event-file {shown}: not UTF-8 text")))?;
        let event = EventFile::parse(&text)
            .map_err(|e| Failure::Input(format!("--event-file {shown}: {e}")))?;
        if let Some(other) = events
            .iter()
            .find(|e| e.name == event.name || e.game == event.game)
        {
            return Err(Failure::Input(format!(
                "--event-file {shown}: the event {} has the name or game name of the event {} already",
                event.name, other.name
            )));
        }
        events.push(event);
    }
    Ok(events)
}

/// The operator's token from `path`, made there first when missing (64 hex digits,
/// readable by its owner only, written to a temporary file and linked into place: never
/// half written, never over another file).
fn admin_token(
    path: &std::path::Path,
    flag: &str,
) -> Result<gyoku_server::http::AdminToken, Failure> {
    let shown = path.display();
    if !path.exists() {
        let token = gyoku_server::http::AdminToken::random_text()
            .map_err(|e| Failure::Run(format!("{flag}: {e}")))?;
        let made = crate::private_file::write_new_private(path, format!("{token}\n").as_bytes());
        made.map_err(|e| Failure::Run(format!("{flag} {shown}: {e}")))?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| Failure::Input(format!("{flag} {shown}: {e}")))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(Failure::Input(format!(
                "{flag} {shown}: others may read it (mode {:o}); chmod 600 it",
                mode & 0o777
            )));
        }
    }
    let bytes = gyoku_kifu::files::read_regular(path, 4096)
        .map_err(|e| Failure::Input(format!("{flag} {e}")))?;
    let text = String::from_utf8_lossy(&bytes);
    gyoku_server::http::AdminToken::new(text.trim().to_string())
        .map_err(|e| Failure::Input(format!("{flag} {shown}: {e}")))
}

/// `--worker-lease`: at least 3 s, at most a day.
fn worker_lease(text: &str) -> Result<std::time::Duration, Failure> {
    let ms = gyoku_arena::timecontrol::parse_duration(text)
        .map_err(|e| Failure::Input(format!("--worker-lease {text}: {e}")))?;
    if !(3_000..=86_400_000).contains(&ms) {
        return Err(Failure::Input(format!(
            "--worker-lease {text}: from 3s to a day"
        )));
    }
    Ok(std::time::Duration::from_millis(ms))
}

/// Refuses a `--schedule` for an organised event's game (its rounds are the event's: no
/// one would be waiting for the scheduled ones) and two for one game (the second would
/// silently replace the first): issue 43.
fn schedules_apart_from_events(
    schedules: Vec<(String, gyoku_server::lobby::Schedule)>,
    events: &[gyoku_server::event::EventFile],
) -> Result<Vec<(String, gyoku_server::lobby::Schedule)>, Failure> {
    for (k, (game, _)) in schedules.iter().enumerate() {
        if schedules[..k].iter().any(|(g, _)| g == game) {
            return Err(Failure::Input(format!(
                "--schedule {game}: given twice; put every time in one --schedule \
                 ({game}=:00,:30)"
            )));
        }
        if let Some(e) = events.iter().find(|e| e.game == *game) {
            return Err(Failure::Input(format!(
                "--schedule {game}: that is the game of the event {} (--event-file), whose \
                 rounds the event file sets",
                e.name
            )));
        }
    }
    Ok(schedules)
}

/// `--schedule GAME=TIMES` or `GAME=@FILE`.
fn schedules(specs: &[String]) -> Result<Vec<(String, gyoku_server::lobby::Schedule)>, Failure> {
    specs
        .iter()
        .map(|spec| {
            let (game, times) = spec.split_once('=').ok_or_else(|| {
                Failure::Input(format!("--schedule {spec}: GAME=TIMES or GAME=@FILE"))
            })?;
            if gyoku_proto::csa::GameName::parse(game).is_none_or(|g| g.name != game) {
                return Err(Failure::Input(format!(
                    "--schedule {spec}: '{game}' is not a game name (floodgate-300-10F)"
                )));
            }
            let text = match times.strip_prefix('@') {
                Some(path) => {
                    let bytes =
                        gyoku_kifu::files::read_regular(std::path::Path::new(path), 1 << 20)
                            .map_err(Failure::Input)?;
                    String::from_utf8_lossy(&bytes).into_owned()
                }
                None => times.to_string(),
            };
            let schedule = gyoku_server::lobby::Schedule::parse(&text)
                .map_err(|e| Failure::Input(format!("--schedule {spec}: {e}")))?;
            Ok((game.to_string(), schedule))
        })
        .collect()
}
