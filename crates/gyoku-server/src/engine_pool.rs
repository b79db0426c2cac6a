//! The web page's engine processes kept between games: an engine that finished a game
//! waits here, idle, for the next game of the same engine at the same level (the same
//! options), so a person's next game does not pay the engine's start (a strong engine
//! loads its evaluation for seconds). At most [`MAX_IDLE`] wait; past that the one idle
//! longest is let go. One that failed is never kept (the bridge drops it).

use std::sync::Mutex;

use gyoku_arena::engine::Engine;

/// The most engine processes kept idle at once.
pub const MAX_IDLE: usize = 4;

/// The idle engines, each under its key (the engine's name and level), oldest first.
#[derive(Debug, Default)]
pub struct EnginePool {
    idle: Mutex<Vec<(String, Engine)>>,
}

impl EnginePool {
    /// An idle engine kept under `key`, taken out of the pool.
    pub fn take(&self, key: &str) -> Option<Engine> {
        let mut idle = self
            .idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let at = idle.iter().position(|(k, _)| k == key)?;
        Some(idle.remove(at).1)
    }

    /// Keeps `engine` under `key` for the next game; the one idle longest is let go (sent
    /// `quit`) when [`MAX_IDLE`] wait already.
    pub async fn give(&self, key: String, engine: Engine) {
        let evicted = {
            let mut idle = self
                .idle
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            idle.push((key, engine));
            (idle.len() > MAX_IDLE).then(|| idle.remove(0).1)
        };
        if let Some(e) = evicted {
            e.quit().await;
        }
    }

    /// How many engines wait.
    pub fn idle(&self) -> usize {
        self.idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }
}
