//! Files of secrets for their owner only (the operator's token, an event's keys).

use std::path::Path;

/// Writes `bytes` to `path`, a new file readable by its owner only: through a temporary
/// file linked into place, so it is never half written and never over another file.
///
/// # Errors
/// When `path` exists, or the file cannot be written.
pub fn write_new_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::hard_link(&tmp, path)
    };
    let made = write();
    let _ = std::fs::remove_file(&tmp);
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_file_is_new_and_its_owners() {
        let dir = std::env::temp_dir().join(format!("gyoku-private-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("secret");
        write_new_private(&path, b"one\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = write_new_private(&path, b"two\n").unwrap_err();
        assert_eq!(again.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&path).unwrap(), b"one\n");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
