//! Where the server stores its games: `--db`'s value, and how it is shown.

/// Where the server stores its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbUrl {
    /// An SQLite file.
    Sqlite(std::path::PathBuf),
    /// A PostgreSQL connection string (`postgres://user:password@host/db`).
    Postgres(String),
}

impl DbUrl {
    /// Reads `--db`: `postgres://…` or `postgresql://…`, else an SQLite file path (with or
    /// without `sqlite://`).
    ///
    /// ```
    /// use gyoku_server::store::DbUrl;
    /// assert_eq!(DbUrl::parse("sqlite:///tmp/g.db"), Some(DbUrl::Sqlite("/tmp/g.db".into())));
    /// assert!(matches!(DbUrl::parse("postgres://localhost/gyoku"), Some(DbUrl::Postgres(_))));
    /// assert_eq!(DbUrl::parse(""), None);
    /// ```
    pub fn parse(text: &str) -> Option<DbUrl> {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Some(DbUrl::Postgres(text.to_string()));
        }
        let path = text.strip_prefix("sqlite://").unwrap_or(text);
        (!path.is_empty()).then(|| DbUrl::Sqlite(path.into()))
    }
}

impl std::fmt::Display for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbUrl::Sqlite(p) => write!(f, "{}", p.display()),
            DbUrl::Postgres(u) => f.write_str(&redact(u)),
        }
    }
}

/// A database URL with its password hidden, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..s + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_are_hidden_in_messages() {
        assert_eq!(
            super::redact("postgres://gyoku:secret@db.example/gyoku"),
            "postgres://gyoku:***@db.example/gyoku"
        );
        assert_eq!(
            super::redact("postgres://localhost/g"),
            "postgres://localhost/g"
        );
    }
}
