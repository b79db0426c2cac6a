//! The wall clock, where a time is stored for other instances to read: Unix milliseconds.
//! The lobby never reads it (its inputs carry the time, [`crate::lobby::Now`]); the driver
//! stamps them, and a view measures against it how long a stored clock has been running.

/// Unix time now, in milliseconds.
pub(crate) fn utc_now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
