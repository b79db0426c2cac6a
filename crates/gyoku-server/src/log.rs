//! What the server says about itself on standard error.

/// One line on standard error, `gyoku serve: ` first.
pub(crate) fn note(msg: &str) {
    eprintln!("gyoku serve: {msg}");
}
