//! The server crate's integration-test kit (issue 40, step 4): `gyoku_server::run` started
//! in a thread of its own on loopback ports chosen by the system, waited for until it
//! listens, and stopped (its thread joined) with the test. Each test file keeps its own
//! clients and takes what it uses (`mod kit;`).
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gyoku_server::lobby::Config;
use gyoku_server::{Options, run};

/// A directory of its own for a test's server, emptied: `<temp>/<prefix>-<name>-<pid>`.
pub fn fresh_dir(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a test server starts with unless the test says otherwise: the CSA port on
/// loopback (any free port), no HTTP port, SQLite and the record files in `dir`, the
/// lobby's defaults, 100 connections (50 from one address), 1,000 new names an hour from
/// one address, ratings every second.
pub fn options(dir: &Path) -> Options {
    Options {
        csa: "127.0.0.1:0".parse().unwrap(),
        db: gyoku_server::store::DbUrl::Sqlite(dir.join("gyoku.sqlite3")),
        records: dir.join("records"),
        lobby: Config::default(),
        max_connections: 100,
        max_per_address: 50,
        new_names_per_address: 1_000,
        http: None,
        md5_rating_ids: false,
        http_options: gyoku_server::http::HttpOptions::default(),
        engines: Vec::new(),
        ratings_every: Duration::from_secs(1),
        events: Vec::new(),
        standby: false,
        metrics: None,
    }
}

/// A server running in a thread of its own (its own two-thread runtime), stopped and
/// joined when dropped.
pub struct Running {
    /// The CSA port's address.
    pub csa: SocketAddr,
    /// The HTTP port's address, when it has one.
    pub http: Option<SocketAddr>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// Starts a server with `options` and waits (10 s at most) until it listens.
    pub fn start(options: Options) -> Running {
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                run(
                    options,
                    |s| addr_tx.send((s.csa, s.http)).unwrap(),
                    async move {
                        let _ = stop_rx.await;
                    },
                )
                .await
                .unwrap();
            });
        });
        let (csa, http) = addr_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the test server listens within 10 s");
        Running {
            csa,
            http,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// Stops the server and waits for its thread (at once if it has stopped already).
    pub fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}
