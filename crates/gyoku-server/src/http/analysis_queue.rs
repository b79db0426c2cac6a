//! The analysis queue's handle, as the handlers share it: how games are analysed, the
//! games sent to the worker ([`super::analysis`]), and the addresses with one queued or
//! being analysed.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use gyoku_arena::engine::EngineConfig;
use tokio::sync::mpsc;

/// How the server analyses games: which engine, how long a position.
#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    /// The engine's name on this server (as stored with each analysis).
    pub name: String,
    /// How to run it.
    pub engine: EngineConfig,
    /// Its time for each position, in milliseconds.
    pub movetime_ms: u64,
}

/// The analysis queue: the games sent to the worker, and the addresses with one queued
/// or being analysed.
pub(crate) struct Analyst {
    pub(super) options: AnalysisOptions,
    pub(super) jobs: mpsc::Sender<(String, Option<IpAddr>)>,
    pub(super) busy: Arc<Mutex<HashSet<IpAddr>>>,
}
