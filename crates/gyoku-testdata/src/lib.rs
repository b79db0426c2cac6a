//! Where Gyoku's tests find their data.
//!
//! Two places:
//! - [`repo_data`]: `tests/data` at the workspace root, in every clone. What it holds is
//!   written for this project or copied from MIT-licensed sources with their attribution.
//! - [`shared`]: `../shared/data` beside the repository, which CI and the project's machines
//!   have and a fresh clone does not (perft tables, lishogi games, python-shogi and cshogi
//!   cases, shogi-server records: data under licences the repository does not carry).
//!
//! A test that needs a shared file asks [`shared`] for it. When the file is missing the
//! test says in one line what it did not check and passes, unless `GYOKU_REQUIRE_SHARED=1`
//! is set (CI sets it), when it fails. Nothing skips silently.
//!
//! ```
//! // In a test: read the shared table if it is there, else say so and stop.
//! let Some(path) = gyoku_testdata::shared("perft/perft_misc.tsv", "python-shogi's perft cases") else {
//!     return;
//! };
//! assert!(path.is_file());
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable that turns a missing shared file into a failure.
pub const REQUIRE_SHARED: &str = "GYOKU_REQUIRE_SHARED";

/// `tests/data` at the workspace root: the data every clone carries.
///
/// ```
/// assert!(gyoku_testdata::repo_data().join("legality/moves.tsv").is_file());
/// ```
pub fn repo_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

/// `../shared/data` beside the repository, whether or not it is there.
pub fn shared_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

/// Whether `GYOKU_REQUIRE_SHARED=1` is set: every shared file must then be there.
pub fn shared_required() -> bool {
    std::env::var(REQUIRE_SHARED).is_ok_and(|v| v == "1")
}

/// `../shared/data/<rel>` (a file or a folder), or `None` after one line on standard error
/// that names `what` was not checked.
///
/// The line is written to the process's standard error directly, so `cargo test` shows it
/// for a test that passes (the test harness captures only `eprintln!`).
///
/// # Panics
///
/// When the path is missing and `GYOKU_REQUIRE_SHARED=1` is set.
pub fn shared(rel: &str, what: &str) -> Option<PathBuf> {
    let stderr = &mut std::io::stderr().lock();
    match locate(&shared_root(), rel, what, shared_required(), stderr) {
        Ok(path) => path,
        Err(message) => panic!("{message}"),
    }
}

/// Says, in one line on the process's standard error (past the test harness's capture),
/// that a check did not run and why: `skipped (WHY): WHAT`. For checks that need something
/// outside the repository other than `../shared` (a database server, installed engines).
///
/// ```
/// gyoku_testdata::skipped("GYOKU_TEST_POSTGRES is not set", "the storage contract on PostgreSQL");
/// ```
pub fn skipped(why: &str, what: &str) {
    let line = format!("skipped ({why}): {what}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// The decision behind [`shared`], on any root: `Ok(Some(path))` when it is there,
/// `Ok(None)` after the skip line written to `out`, `Err(message)` when it is required and
/// missing.
fn locate(
    root: &Path,
    rel: &str,
    what: &str,
    required: bool,
    out: &mut dyn Write,
) -> Result<Option<PathBuf>, String> {
    let path = root.join(rel);
    if path.exists() {
        return Ok(Some(path));
    }
    if required {
        return Err(format!(
            "{REQUIRE_SHARED}=1 and ../shared/data/{rel} is missing ({}): {what} cannot be checked",
            path.display()
        ));
    }
    let line = format!(
        "skipped (no ../shared/data/{rel} beside the repository): {what}; {REQUIRE_SHARED}=1 makes this a failure\n"
    );
    // One write, so that lines of tests running at once do not interleave.
    let _ = out.write_all(line.as_bytes());
    Ok(None)
}

/// Waits until `done` holds, polling it every 20 ms; fails naming `what` if it does not
/// within `within`. The condition ends the wait, not the poll's interval: the tests' one
/// way to wait for something to happen (never a fixed sleep).
///
/// # Panics
/// When `done` does not hold within `within`.
///
/// ```
/// let mut n = 0;
/// gyoku_testdata::wait_until(std::time::Duration::from_secs(1), "three polls", || {
///     n += 1;
///     n == 3
/// });
/// ```
pub fn wait_until(within: std::time::Duration, what: &str, mut done: impl FnMut() -> bool) {
    wait_for(within, || what.to_string(), || done().then_some(()));
}

/// Waits until `found` finds something, polling it every 20 ms, and gives it back; fails
/// with what `what` says then (made only on failure: it may show the state waited on) if
/// nothing is found within `within`.
///
/// # Panics
/// When nothing is found within `within`.
///
/// ```
/// let mut n = 0;
/// let found = gyoku_testdata::wait_for(std::time::Duration::from_secs(1), || "n".into(), || {
///     n += 1;
///     (n == 3).then_some(n * 10)
/// });
/// assert_eq!(found, 30);
/// ```
pub fn wait_for<T>(
    within: std::time::Duration,
    what: impl Fn() -> String,
    mut found: impl FnMut() -> Option<T>,
) -> T {
    let deadline = std::time::Instant::now() + within;
    loop {
        if let Some(t) = found() {
            return t;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{}: not within {within:?}",
            what()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_present_path_is_returned() {
        let root = repo_data();
        assert_eq!(
            locate(&root, "legality/moves.tsv", "x", true, &mut Vec::new()),
            Ok(Some(root.join("legality/moves.tsv")))
        );
    }

    #[test]
    fn a_missing_path_is_skipped_unless_required() {
        let root = repo_data();
        let mut said = Vec::new();
        assert_eq!(
            locate(&root, "no/such.tsv", "a check", false, &mut said),
            Ok(None)
        );
        assert_eq!(
            String::from_utf8(said).unwrap(),
            "skipped (no ../shared/data/no/such.tsv beside the repository): a check; \
             GYOKU_REQUIRE_SHARED=1 makes this a failure\n"
        );
        let mut said = Vec::new();
        let err = locate(&root, "no/such.tsv", "a check", true, &mut said).unwrap_err();
        assert!(said.is_empty());
        assert!(
            err.contains("../shared/data/no/such.tsv is missing"),
            "{err}"
        );
        assert!(err.contains("a check cannot be checked"), "{err}");
    }

    #[test]
    fn the_repository_carries_its_mit_data() {
        let data = repo_data();
        for rel in [
            "records/kifu-for-js/LICENSE",
            "records/tsshogi-jkf/LICENSE",
            "csa-protocol/shogihome-bridge-scenarios/LICENSE",
            "csa-protocol/shogihome-bridge-scenarios/34/csa.log",
        ] {
            assert!(data.join(rel).is_file(), "{rel}");
        }
    }
}
