//! The web page's files, built into the binary (no build step: `crates/gyoku-server/web/`):
//! `index.html` at `/`, the style sheet and the ES modules under `/assets/`.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";

/// Each file under `/assets/`: its path there, its type, its bytes.
const FILES: &[(&str, &str, &str)] = &[
    ("style.css", CSS, include_str!("../../web/style.css")),
    ("js/main.js", JS, include_str!("../../web/js/main.js")),
    ("js/page.js", JS, include_str!("../../web/js/page.js")),
    ("js/account.js", JS, include_str!("../../web/js/account.js")),
    ("js/evals.js", JS, include_str!("../../web/js/evals.js")),
    (
        "js/analysis.js",
        JS,
        include_str!("../../web/js/analysis.js"),
    ),
    ("js/dom.js", JS, include_str!("../../web/js/dom.js")),
    ("js/i18n.js", JS, include_str!("../../web/js/i18n.js")),
    (
        "js/position.js",
        JS,
        include_str!("../../web/js/position.js"),
    ),
    ("js/glyphs.js", JS, include_str!("../../web/js/glyphs.js")),
    ("js/pieces.js", JS, include_str!("../../web/js/pieces.js")),
    ("js/board.js", JS, include_str!("../../web/js/board.js")),
    ("js/impasse.js", JS, include_str!("../../web/js/impasse.js")),
    ("js/games.js", JS, include_str!("../../web/js/games.js")),
    ("js/league.js", JS, include_str!("../../web/js/league.js")),
    ("js/events.js", JS, include_str!("../../web/js/events.js")),
    ("js/sprt.js", JS, include_str!("../../web/js/sprt.js")),
    ("js/tests.js", JS, include_str!("../../web/js/tests.js")),
    ("js/game.js", JS, include_str!("../../web/js/game.js")),
    ("js/seat.js", JS, include_str!("../../web/js/seat.js")),
    ("js/play.js", JS, include_str!("../../web/js/play.js")),
    ("js/tools.js", JS, include_str!("../../web/js/tools.js")),
];

fn file(content_type: &'static str, body: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `GET /`: the page.
pub(super) async fn index() -> Response {
    file(HTML, include_str!("../../web/index.html"))
}

/// `GET /assets/{path}`: one of the page's files, or 404.
pub(super) async fn asset(Path(path): Path<String>) -> Result<Response, ApiError> {
    FILES
        .iter()
        .find(|(name, _, _)| *name == path)
        .map(|&(_, content_type, body)| file(content_type, body))
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                format!("no such file: /assets/{path}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule set the server offers has its name in words on the page, in both
    /// languages (`RULES` in `i18n.js`): none shows as its slug.
    /// Every module the page has is served (one left out broke the page's imports in the
    /// browser only).
    #[test]
    fn every_page_module_is_served() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/js");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".js") && !name.ends_with(".test.js") {
                let path = format!("js/{name}");
                assert!(
                    FILES.iter().any(|(served, _, _)| *served == path),
                    "{path} is not among the served files"
                );
            }
        }
    }

    #[test]
    fn every_preset_has_a_name_in_words() {
        let i18n = FILES
            .iter()
            .find(|(name, _, _)| *name == "js/i18n.js")
            .map(|&(_, _, body)| body)
            .unwrap();
        let table = &i18n[i18n.find("export const RULES = {").unwrap()..];
        let table = &table[..table.find("};").unwrap()];
        for preset in gyoku::Preset::ALL {
            let name = preset.name();
            let line = table
                .lines()
                .find(|l| {
                    let key = l.trim_start();
                    key.starts_with(&format!("{name}: ["))
                        || key.starts_with(&format!("'{name}': ["))
                })
                .unwrap_or_else(|| panic!("{name} has no name in words in i18n.js's RULES"));
            // [English, Japanese]: two strings.
            assert_eq!(line.matches('\'').count() % 2, 0, "{line}");
            assert!(line.matches("', '").count() == 1, "{line}");
        }
    }
}
