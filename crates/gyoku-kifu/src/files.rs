//! Reading record files and writing outputs safely: only regular files are read, never more
//! than a size cap, and never by blocking on a FIFO; outputs replace a regular file
//! atomically and never replace anything else (a symlink is followed to its target, a
//! device is written in place, a FIFO or a directory is refused).

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The default cap on the size of one record file: 64 MiB (the largest real archive files
/// of many games are a few MiB).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 << 20;

/// How many symbolic links a path may go through before it is refused as a loop.
const MAX_LINKS: usize = 40;

/// Reads the whole of the regular file at `path`, at most `max_bytes` of it.
///
/// # Errors
/// `path: message` when the file cannot be opened, is not a regular file (a FIFO, a device,
/// a directory: nothing is read from it, and opening never blocks), or is larger than
/// `max_bytes` (the message names the cap and how to raise it).
///
/// ```
/// let dir = std::env::temp_dir().join(format!("gyoku-files-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let file = dir.join("game.usi");
/// std::fs::write(&file, "startpos moves 7g7f\n").unwrap();
/// assert_eq!(gyoku_kifu::files::read_regular(&file, 1024).unwrap().len(), 20);
/// let err = gyoku_kifu::files::read_regular(&file, 10).unwrap_err();
/// assert!(err.contains("larger than the 10-byte limit"), "{err}");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn read_regular(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let file = open_regular(path)?;
    let meta = file.metadata().map_err(|e| format!("{shown}: {e}"))?;
    if meta.len() > max_bytes {
        return Err(too_large(path, max_bytes));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The size may grow while it is read: never take more than the cap.
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{shown}: {e}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(path, max_bytes));
    }
    Ok(bytes)
}

/// Opens `path` for reading if it is a regular file, without ever blocking (a FIFO is
/// opened non-blocking, then refused).
///
/// # Errors
/// `path: message` when it cannot be opened or is not a regular file.
pub fn open_regular(path: &Path) -> Result<File, String> {
    let shown = path.display();
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A FIFO with no writer would block in open(2); non-blocking, it opens at once and
        // is refused below as not a regular file.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| format!("{shown}: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "{shown}: not a regular file ({}); only regular files are read",
            kind_of(&meta.file_type())
        ));
    }
    Ok(file)
}

/// Reads the records of the regular file at `path` (at most `max_bytes`) one at a time,
/// handing each to `each` as soon as it is read. A many-record file (CSA games separated
/// by `/`, USI lines) is read one game at a time, so memory holds one game however many the
/// file has; any other file is read whole (it holds one record). The encoding is the
/// first non-ASCII part's, for the whole file; errors keep the file's line numbers.
/// Returns how many records there were.
///
/// # Errors
/// `path:line:column: message` (or `path: message`), after the records before the fault
/// have been handed over.
pub fn read_records_each(
    path: &Path,
    max_bytes: u64,
    each: &mut dyn FnMut(crate::Record),
) -> Result<usize, String> {
    read_records_each_with(path, max_bytes, crate::ReadOptions::default(), each)
}

/// [`read_records_each`] with [`crate::ReadOptions`].
///
/// # Errors
/// As [`read_records_each`].
pub fn read_records_each_with(
    path: &Path,
    max_bytes: u64,
    options: crate::ReadOptions,
    each: &mut dyn FnMut(crate::Record),
) -> Result<usize, String> {
    use std::io::BufRead;
    let shown = path.display();
    let mut file = open_regular(path)?;
    let len = file.metadata().map_err(|e| format!("{shown}: {e}"))?.len();
    if len > max_bytes {
        return Err(too_large(path, max_bytes));
    }
    // The format: the file's extension, or what its beginning looks like.
    let mut head = Vec::with_capacity(4096);
    (&mut file)
        .take(4096)
        .read_to_end(&mut head)
        .map_err(|e| format!("{shown}: {e}"))?;
    let format = crate::Format::from_path(path)
        .or_else(|| crate::Format::sniff(&crate::encoding::decode(&head).0));
    if !matches!(format, Some(crate::Format::Csa | crate::Format::Usi)) {
        let mut bytes = head;
        file.take(max_bytes + 1 - bytes.len() as u64)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{shown}: {e}"))?;
        if bytes.len() as u64 > max_bytes {
            return Err(too_large(path, max_bytes));
        }
        return crate::read_bytes_each_with(&bytes, format, options, each)
            .map_err(|e| format!("{shown}:{e}"));
    }
    let format = format.unwrap_or(crate::Format::Csa);
    let mut reader = std::io::BufReader::new(std::io::Cursor::new(head).chain(file));
    let mut encoding: Option<crate::encoding::Encoding> = None;
    let (mut count, mut read_bytes, mut line_no) = (0usize, 0u64, 0usize);
    let mut part = Vec::new();
    let mut part_first_line = 1;
    let mut line = Vec::new();
    let mut only_space = true;
    loop {
        line.clear();
        let n = reader
            .by_ref()
            .take(max_bytes + 1 - read_bytes)
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("{shown}: {e}"))?;
        read_bytes += n as u64;
        if read_bytes > max_bytes {
            return Err(too_large(path, max_bytes));
        }
        let end = n == 0;
        if !end {
            line_no += 1;
            only_space &= line
                .iter()
                .all(|b| b.is_ascii_whitespace() || *b == 0xEF || *b == 0xBB || *b == 0xBF);
            part.extend_from_slice(&line);
        }
        // A part ends at a CSA `/` line, at each USI line, and at the end of the file.
        let boundary = match format {
            crate::Format::Csa => line.trim_ascii() == b"/",
            _ => true,
        };
        if (boundary || end) && !part.is_empty() {
            let text = match encoding {
                Some(enc) => enc.decode(&part),
                None => {
                    let (text, enc) = crate::encoding::decode(&part);
                    if !part.is_ascii() {
                        encoding = Some(enc);
                    }
                    text
                }
            };
            count += crate::read_part(&text, format, part_first_line, options, each)
                .map_err(|e| format!("{shown}:{e}"))?;
            part.clear();
            part_first_line = line_no + 1;
        }
        if end {
            break;
        }
    }
    if count == 0 {
        let message = if only_space {
            "empty file: no game in it"
        } else {
            "no game in the file"
        };
        return Err(format!("{shown}:1:1: {message} ({})", format.name()));
    }
    Ok(count)
}

fn too_large(path: &Path, max_bytes: u64) -> String {
    format!(
        "{}: larger than the {max_bytes}-byte limit for one record file (raise it with \
         --max-file-size)",
        path.display()
    )
}

/// A file type in words.
pub fn kind_of(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Follows symbolic links from `path` to the path they end at (which may not exist yet).
fn resolve_links(path: &Path) -> Result<PathBuf, String> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target =
                    fs::read_link(&current).map_err(|e| format!("{}: {e}", current.display()))?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(format!(
        "{}: too many levels of symbolic links",
        path.display()
    ))
}

/// Writes `bytes` to `path` so that no reader ever sees half of it and a failure leaves the
/// old file (or nothing) behind: through a temporary file in the same directory, synced and
/// renamed over a regular file or a new one (keeping an existing file's permissions). A
/// symbolic link is followed and its target written; a character or block device
/// (`/dev/null`, a terminal) is written in place and never replaced; a FIFO, a socket or a
/// directory is refused.
///
/// # Errors
/// `path: message`; the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let target = resolve_links(path)?;
    let shown = target.display();
    let existing = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{shown}: {e}")),
    };
    if let Some(meta) = &existing {
        let t = meta.file_type();
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_char_device() || t.is_block_device() {
                let mut f = OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| format!("{shown}: {e}"))?;
                return f
                    .write_all(bytes)
                    .and_then(|()| f.flush())
                    .map_err(|e| format!("{shown}: {e}"));
            }
        }
        if !t.is_file() {
            return Err(format!(
                "{shown}: not a regular file ({}); refusing to replace it",
                kind_of(&t)
            ));
        }
    }
    let tmp = temporary_beside(&target);
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        if let Some(meta) = &existing {
            f.set_permissions(meta.permissions())?;
        }
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, &target)?;
        // The rename itself is durable once the directory is synced.
        if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        Ok::<(), std::io::Error>(())
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("{shown}: {e}")
    })
}

/// A fresh temporary name in `target`'s directory.
fn temporary_beside(target: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = target
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    target.with_file_name(format!(".{name}.{}-{n}.gyoku-tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gyoku-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    }

    #[test]
    fn a_fifo_is_refused_at_once_not_read() {
        let dir = scratch("fifo");
        let fifo = dir.join("game.kif");
        mkfifo(&fifo);
        let err = read_regular(&fifo, 1 << 20).unwrap_err();
        assert!(err.contains("not a regular file (a FIFO)"), "{err}");
        let err = write_atomic(&fifo, b"x").unwrap_err();
        assert!(err.contains("refusing to replace it"), "{err}");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn size_cap_and_devices() {
        let err = read_regular(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(err.contains("a character device"), "{err}");
        let dir = scratch("cap");
        let file = dir.join("big.csa");
        fs::write(&file, vec![b'x'; 2000]).unwrap();
        assert!(
            read_regular(&file, 1999)
                .unwrap_err()
                .contains("1999-byte limit")
        );
        assert_eq!(read_regular(&file, 2000).unwrap().len(), 2000);
        // A device is written in place and stays a device.
        write_atomic(Path::new("/dev/null"), b"gone").unwrap();
        assert!(!fs::symlink_metadata("/dev/null").unwrap().is_file());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_symlink_is_followed_and_stays_a_symlink() {
        let dir = scratch("link");
        let real = dir.join("real.kif");
        fs::write(&real, "old").unwrap();
        let link = dir.join("link.kif");
        std::os::unix::fs::symlink("real.kif", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // A dangling link creates its target.
        let dangling = dir.join("dangling.kif");
        std::os::unix::fs::symlink("made.kif", &dangling).unwrap();
        write_atomic(&dangling, b"made").unwrap();
        assert_eq!(fs::read_to_string(dir.join("made.kif")).unwrap(), "made");
        // No temporary file is left, and a failed write leaves none either.
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 4, "{names:?}");
        assert!(write_atomic(&dir.join("missing/out.kif"), b"x").is_err());
        assert!(
            write_atomic(&dir, b"x")
                .unwrap_err()
                .contains("a directory")
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
