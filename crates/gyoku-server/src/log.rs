//! What the server says about itself: `tracing` events on standard error, each inside the
//! spans it happened in (a `connection` with its id, address and player; a `game` with its
//! Game_ID), as text lines for people or JSON lines for machines.
//!
//! ```text
//! gyoku serve: connection{id=7 peer=127.0.0.1:53412 player=alice}: login: 5 wrong passwords …
//! {"timestamp":"…","level":"WARN","message":"login: …","target":"gyoku_server::csa_port::connection","spans":[{"name":"connection","id":7,…}]}
//! ```

use std::fmt;
use std::str::FromStr;

use tracing::level_filters::LevelFilter;
use tracing::{Event, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// How `gyoku serve` writes its log (`--log-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// One line per event for people: `gyoku serve: `, the spans it happened in, the message.
    #[default]
    Text,
    /// One JSON object per line: timestamp, level, target, message, fields and the spans
    /// (each with its fields) it happened in.
    Json,
}

impl FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            other => Err(format!("'{other}' is not a log format: text or json")),
        }
    }
}

/// The environment variable that chooses what is logged, as `tracing` target directives
/// (`gyoku_server=debug,warn`); by default Gyoku's own events from `info` and others' from
/// `warn`.
pub const FILTER_VARIABLE: &str = "GYOKU_LOG";

/// Sends this process's `tracing` events to standard error in `format`, filtered by
/// [`FILTER_VARIABLE`] when it is set. Errors when that variable cannot be read as
/// directives, or when the process has a subscriber already.
///
/// ```no_run
/// gyoku_server::log::init(gyoku_server::log::LogFormat::Text).unwrap();
/// tracing::info!("listening");
/// ```
pub fn init(format: LogFormat) -> Result<(), String> {
    let filter = match std::env::var(FILTER_VARIABLE) {
        Ok(directives) => directives
            .parse::<Targets>()
            .map_err(|e| format!("{FILTER_VARIABLE}='{directives}': {e}"))?,
        Err(_) => Targets::new()
            .with_target("gyoku", LevelFilter::INFO)
            .with_default(LevelFilter::WARN),
    };
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let registry = tracing_subscriber::registry().with(filter);
    let installed = match format {
        LogFormat::Text => registry.with(fmt.event_format(TextLine)).try_init(),
        LogFormat::Json => registry
            .with(
                fmt.json()
                    .flatten_event(true)
                    .with_current_span(false)
                    .with_span_list(true),
            )
            .try_init(),
    };
    installed.map_err(|e| format!("the log cannot be set up: {e}"))
}

/// The text line: `gyoku serve: `, each span it happened in from the outermost
/// (`connection{id=7 peer=…}: `), then the event's message and its other fields.
struct TextLine;

impl<S, N> FormatEvent<S, N> for TextLine
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        write!(writer, "gyoku serve: ")?;
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                write!(writer, "{}", span.name())?;
                let extensions = span.extensions();
                if let Some(fields) = extensions.get::<FormattedFields<N>>()
                    && !fields.is_empty()
                {
                    write!(writer, "{{{fields}}}")?;
                }
                write!(writer, ": ")?;
            }
        }
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_named_as_the_flag_takes_them() {
        assert_eq!("text".parse(), Ok(LogFormat::Text));
        assert_eq!("json".parse(), Ok(LogFormat::Json));
        assert!(
            "yaml"
                .parse::<LogFormat>()
                .unwrap_err()
                .contains("text or json")
        );
    }
}
