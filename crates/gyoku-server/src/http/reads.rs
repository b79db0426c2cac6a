//! The API's storage connections for reading (issue 40, step 6): several, so that one slow
//! read (a long game's record, a busy database) does not hold every other request's. A
//! read takes whichever connection is free, on a blocking thread.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Semaphore;

use crate::store::{Archive, StoreError};

/// Connections an instance opens for its HTTP reads.
pub const READERS: usize = 4;

/// Opens `n` connections to `db` for reading, besides `first` (one opened already).
pub(crate) fn open_readers(
    db: &crate::store::DbUrl,
    first: Box<dyn Archive>,
    n: usize,
) -> Result<Vec<Box<dyn Archive>>, StoreError> {
    let mut conns = vec![first];
    while conns.len() < n {
        conns.push(crate::store::open(db)?);
    }
    Ok(conns)
}

/// A pool of read connections.
pub(crate) struct Reads {
    conns: Arc<Vec<Mutex<Box<dyn Archive>>>>,
    /// One place per connection: a read holds one while it runs.
    free: Arc<Semaphore>,
}

/// Why a read did not run.
#[derive(Debug)]
pub(crate) enum ReadFailed {
    /// The storage said no.
    Store(StoreError),
    /// Its blocking thread did not finish (a panic, or the runtime going down).
    Thread(String),
}

impl Reads {
    /// A pool over `conns` (at least one).
    pub(crate) fn new(conns: Vec<Box<dyn Archive>>) -> Reads {
        assert!(!conns.is_empty(), "a read pool needs a connection");
        let n = conns.len();
        Reads {
            conns: Arc::new(conns.into_iter().map(Mutex::new).collect()),
            free: Arc::new(Semaphore::new(n)),
        }
    }

    /// Runs `f` on a free connection, on a blocking thread; waits for one while all are
    /// busy.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Archive) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, ReadFailed> {
        let place = Arc::clone(&self.free)
            .acquire_owned()
            .await
            .map_err(|e| ReadFailed::Thread(e.to_string()))?;
        let conns = Arc::clone(&self.conns);
        tokio::task::spawn_blocking(move || {
            let _place = place;
            // With a place held, a connection is free: at most as many reads run as there
            // are connections. The first one free is taken.
            let mut db = conns
                .iter()
                .find_map(|c| match c.try_lock() {
                    Ok(guard) => Some(guard),
                    Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
                    Err(std::sync::TryLockError::WouldBlock) => None,
                })
                .unwrap_or_else(|| conns[0].lock().unwrap_or_else(PoisonError::into_inner));
            f(&mut **db)
        })
        .await
        .map_err(|e| ReadFailed::Thread(e.to_string()))?
        .map_err(ReadFailed::Store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn sqlite(dir: &std::path::Path, k: usize) -> Box<dyn Archive> {
        Box::new(
            crate::store::sqlite::SqliteStore::open(&dir.join(format!("r{k}.sqlite3"))).unwrap(),
        )
    }

    /// Two reads run at once on two connections: each waits, inside its read, for the
    /// other to have started. On one connection the second would wait for the first to
    /// end, and the first would give up.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reads_run_at_once_on_their_own_connections() {
        let dir = std::env::temp_dir().join(format!("gyoku-reads-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let reads = Reads::new(vec![sqlite(&dir, 0), sqlite(&dir, 1)]);
        let (a_in, a_heard) = mpsc::channel::<()>();
        let (b_in, b_heard) = mpsc::channel::<()>();
        let a = reads.run(move |_db| {
            a_in.send(()).unwrap();
            Ok(b_heard.recv_timeout(Duration::from_secs(5)).is_ok())
        });
        let b = reads.run(move |_db| {
            b_in.send(()).unwrap();
            Ok(a_heard.recv_timeout(Duration::from_secs(5)).is_ok())
        });
        let (a, b) = tokio::join!(a, b);
        assert!(a.unwrap() && b.unwrap(), "the two reads did not overlap");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
