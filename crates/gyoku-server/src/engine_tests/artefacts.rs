//! Engine builds a test names by digest (an *artefact*): the operator uploads a file
//! (`gyoku test create --engine NAME=@FILE`), the server keeps it under its SHA-256, and
//! each worker fetches it once, checks the digest, and runs it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;
use tokio::sync::Semaphore;

/// The largest artefact kept, bytes.
pub const MAX_ARTEFACT_BYTES: u64 = 256 << 20;
/// Artefacts sent to workers at once (more wait their turn).
pub const SENT_AT_ONCE: usize = 8;

/// Whether `s` is a SHA-256 in lowercase hex.
///
/// ```
/// use gyoku_server::engine_tests::artefacts::is_digest;
/// assert!(is_digest(&"a".repeat(64)));
/// assert!(!is_digest(&"A".repeat(64)) && !is_digest("../x"));
/// ```
pub fn is_digest(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The SHA-256 of `bytes`, lowercase hex.
pub fn digest_of(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The artefacts a server keeps, in a directory of their own.
#[derive(Debug, Clone)]
pub struct Artefacts {
    dir: PathBuf,
    /// Places for artefacts being sent.
    pub sending: Arc<Semaphore>,
}

/// A file being written, hashed as it comes: removed unless kept.
pub struct Incoming {
    file: tokio::fs::File,
    path: PathBuf,
    hasher: Sha256,
    bytes: u64,
    dir: PathBuf,
    kept: bool,
}

impl Artefacts {
    /// The artefacts kept in `dir` (made when missing).
    ///
    /// # Errors
    /// When the directory cannot be made.
    pub fn new(dir: PathBuf) -> Result<Artefacts, String> {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Artefacts {
            dir,
            sending: Arc::new(Semaphore::new(SENT_AT_ONCE)),
        })
    }

    /// The file of artefact `digest`, when it is kept.
    pub fn path(&self, digest: &str) -> Option<PathBuf> {
        let path = self.dir.join(digest);
        (is_digest(digest) && path.is_file()).then_some(path)
    }

    /// A new artefact's file, to write into.
    ///
    /// # Errors
    /// When it cannot be made.
    pub async fn incoming(&self) -> Result<Incoming, String> {
        let mut name = [0u8; 16];
        getrandom::fill(&mut name).map_err(|e| format!("the random source failed: {e}"))?;
        let path = self.dir.join(format!(".incoming-{}", hex(&name)));
        let file = tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .await
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Incoming {
            file,
            path,
            hasher: Sha256::new(),
            bytes: 0,
            dir: self.dir.clone(),
            kept: false,
        })
    }
}

impl std::fmt::Debug for Incoming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Incoming")
            .field("path", &self.path)
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

impl Incoming {
    /// Writes a chunk; refused past [`MAX_ARTEFACT_BYTES`].
    ///
    /// # Errors
    /// When it is too large or cannot be written.
    pub async fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.bytes += chunk.len() as u64;
        if self.bytes > MAX_ARTEFACT_BYTES {
            return Err(format!(
                "an artefact is at most {} MiB",
                MAX_ARTEFACT_BYTES >> 20
            ));
        }
        self.hasher.update(chunk);
        self.file
            .write_all(chunk)
            .await
            .map_err(|e| format!("writing the artefact: {e}"))
    }

    /// Keeps the file under its digest (synced, then linked into place; one kept already
    /// is left as it is): its digest and size.
    ///
    /// # Errors
    /// When it cannot be synced or moved.
    pub async fn keep(mut self) -> Result<(String, u64), String> {
        self.file
            .sync_all()
            .await
            .map_err(|e| format!("syncing the artefact: {e}"))?;
        let digest = hex(&std::mem::take(&mut self.hasher).finalize());
        let target = self.dir.join(&digest);
        if !target.is_file() {
            tokio::fs::rename(&self.path, &target)
                .await
                .map_err(|e| format!("keeping the artefact: {e}"))?;
            self.kept = true;
        }
        Ok((digest, self.bytes))
    }
}

impl Drop for Incoming {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Where a worker keeps the artefacts it fetched: `$XDG_CACHE_HOME/gyoku/artefacts`, else
/// `~/.cache/gyoku/artefacts`, else the temporary directory's.
pub fn worker_cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("gyoku").join("artefacts")
}
