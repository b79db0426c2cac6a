//! One supervisor for the server's long-running tasks. Each is started with the one stop
//! they all heed ([`Stop`]) and with how it ends when the server stops ([`Ending`]):
//! played out, given a grace and then cut off, or cut off at once. [`Supervisor::stop`]
//! tells them all at once, then ends each as it was started to end. A new long-running
//! part (a rating job, an analysis worker) is one more [`Supervisor::spawn`].

use std::future::Future;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The stop every task heeds: told once, for all (`stop.cancelled().await` in a task,
/// `stop.is_cancelled()` on a thread).
pub(crate) type Stop = CancellationToken;

/// How a task ends once the server stops.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ending {
    /// It is waited for: it heeds the stop and finishes what it holds (the record writer
    /// writes every file it was handed).
    PlayedOut,
    /// It is waited for this long, then cut off (the HTTP API's open streams).
    Grace(Duration),
    /// It is cut off at once (work that is done again at the next start).
    CutOff,
}

/// The server's long-running tasks, and the stop they heed.
#[derive(Debug, Default)]
pub(crate) struct Supervisor {
    stop: Stop,
    tasks: Vec<(&'static str, JoinHandle<()>, Ending)>,
}

impl Supervisor {
    /// The stop its tasks heed, for a task started otherwise (the driver, run in place).
    pub(crate) fn stop_signal(&self) -> Stop {
        self.stop.clone()
    }

    /// Starts `task` (which heeds [`Supervisor::stop_signal`]), to end as `ending` says.
    pub(crate) fn spawn(
        &mut self,
        name: &'static str,
        ending: Ending,
        task: impl Future<Output = ()> + Send + 'static,
    ) {
        self.tasks.push((name, tokio::spawn(task), ending));
    }

    /// Starts `work` on a blocking thread, to end as `ending` says (a blocking thread
    /// cannot be cut off: it is waited for).
    pub(crate) fn spawn_blocking(
        &mut self,
        name: &'static str,
        ending: Ending,
        work: impl FnOnce() + Send + 'static,
    ) {
        self.tasks
            .push((name, tokio::task::spawn_blocking(work), ending));
    }

    /// Tells every task to stop, then ends each as it was started to end, in the order
    /// they were started.
    pub(crate) async fn stop(mut self) {
        self.stop.cancel();
        for (name, mut task, ending) in std::mem::take(&mut self.tasks) {
            match ending {
                Ending::PlayedOut => {
                    let _ = task.await;
                }
                Ending::Grace(grace) => {
                    if tokio::time::timeout(grace, &mut task).await.is_err() {
                        tracing::warn!("{name}: cut off after {} s", grace.as_secs());
                        task.abort();
                    }
                }
                Ending::CutOff => task.abort(),
            }
        }
    }
}

impl Drop for Supervisor {
    /// A server that returns early (it could not start a part) tells the parts it had
    /// started to stop: none is left running without it.
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[tokio::test]
    async fn each_task_ends_as_it_was_started_to_end() {
        let mut s = Supervisor::default();
        let played_out = Arc::new(AtomicBool::new(false));
        let (stop, done) = (s.stop_signal(), Arc::clone(&played_out));
        s.spawn("heeds the stop", Ending::PlayedOut, async move {
            stop.cancelled().await;
            tokio::task::yield_now().await;
            done.store(true, Ordering::SeqCst);
        });
        let (stop, thread_done) = (s.stop_signal(), Arc::new(AtomicBool::new(false)));
        let seen = Arc::clone(&thread_done);
        s.spawn_blocking("a thread", Ending::PlayedOut, move || {
            while !stop.is_cancelled() {
                std::thread::yield_now();
            }
            seen.store(true, Ordering::SeqCst);
        });
        s.spawn(
            "never stops",
            Ending::Grace(Duration::from_millis(50)),
            std::future::pending(),
        );
        s.spawn("cut off", Ending::CutOff, std::future::pending());
        tokio::time::timeout(Duration::from_secs(10), s.stop())
            .await
            .expect("the supervisor stops within the graces");
        assert!(played_out.load(Ordering::SeqCst));
        assert!(thread_done.load(Ordering::SeqCst));
    }
}
