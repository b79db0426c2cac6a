//! Hearing the referee's commits on another instance: PostgreSQL's `LISTEN` on
//! [`CHANGES_CHANNEL`], each notice the Game_ID of a changed game, sent by the referee in
//! the transaction that changed it (so it is heard only once the change can be read).

use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::schema::CHANGES_CHANNEL;
use super::url::redact;

/// What a follower of the referee's commits hears: on the referee from its driver, on a
/// web instance from PostgreSQL's notices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Changed {
    /// A game (its Game_ID) changed: it started, a move was kept, it ended or was resumed.
    Game(String),
    /// Changes may have been missed (the follower has just connected, or connected again
    /// after losing PostgreSQL): every game it shows may have changed.
    MayHaveMissed,
}

/// How long a wait for a notice lasts before the follower looks whether it should stop.
const POLL: Duration = Duration::from_millis(250);

/// Notices handed on before the follower looks again whether it should stop.
const BURST: usize = 4096;

/// How often a quiet connection is asked whether it is still there.
const HEARTBEAT: Duration = Duration::from_secs(2);

/// How long the follower waits before connecting again, at first and at most (doubling).
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_MOST: Duration = Duration::from_secs(5);

/// Follows the changes committed to the PostgreSQL database at `url` until `stop` is told:
/// each notice's Game_ID goes to `changes`, and after each connection (the first, and every
/// one made again after PostgreSQL was lost) [`Changed::MayHaveMissed`]. Blocking: run
/// it on a thread of its own.
pub fn follow_changes(url: &str, changes: &broadcast::Sender<Changed>, stop: &CancellationToken) {
    let mut retry = RETRY_FIRST;
    let mut lost_said = false;
    while !stop.is_cancelled() {
        match listen(url) {
            Ok(mut client) => {
                retry = RETRY_FIRST;
                if lost_said {
                    tracing::info!("the change follower is connected to PostgreSQL again");
                    lost_said = false;
                }
                let _ = changes.send(Changed::MayHaveMissed);
                if let Err(e) = hear(&mut client, changes, stop) {
                    tracing::warn!("the change follower lost PostgreSQL ({e}); connecting again");
                    lost_said = true;
                }
            }
            Err(e) => {
                if !lost_said {
                    tracing::warn!(
                        "the change follower cannot reach {} ({e}); trying again",
                        redact(url)
                    );
                    lost_said = true;
                }
                std::thread::sleep(retry);
                retry = (retry * 2).min(RETRY_MOST);
            }
        }
    }
}

fn listen(url: &str) -> Result<Client, postgres::Error> {
    let mut client = Client::connect(url, NoTls)?;
    client.batch_execute(&format!("LISTEN {CHANGES_CHANNEL}"))?;
    Ok(client)
}

/// Hands on each notice until `stop` is told (`Ok`) or the connection fails (`Err`, why).
/// A connection that went quiet is asked a question every [`HEARTBEAT`]: a PostgreSQL that
/// went away without closing it is found out then.
fn hear(
    client: &mut Client,
    changes: &broadcast::Sender<Changed>,
    stop: &CancellationToken,
) -> Result<(), String> {
    let mut asked = std::time::Instant::now();
    while !stop.is_cancelled() {
        {
            let mut notices = client.notifications();
            let mut heard = notices.timeout_iter(POLL).take(BURST);
            while let Some(n) = heard.next().map_err(|e| e.to_string())? {
                let _ = changes.send(Changed::Game(n.payload().to_string()));
            }
        }
        if client.is_closed() {
            return Err("the connection closed".into());
        }
        if asked.elapsed() >= HEARTBEAT {
            client.simple_query("SELECT 1").map_err(|e| e.to_string())?;
            asked = std::time::Instant::now();
        }
    }
    Ok(())
}
