//! Request bodies: read within their bound and time, JSON checked to be JSON.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use serde_json::{Value, json};

use super::error::ApiError;
use super::guard::{self, HttpOptions};

/// The largest body accepted (a record file to judge or convert), bytes.
pub const MAX_UPLOAD: usize = 16 * 1024 * 1024;

/// The largest JSON body accepted (a request to play, a move, a position), bytes.
pub const MAX_JSON: usize = 64 * 1024;

/// A body read whole: at most `limit` bytes, all of it within `within` (a client that
/// sends slowly is cut off, not waited for).
pub(super) async fn read_body(
    body: Body,
    limit: usize,
    within: std::time::Duration,
) -> Result<Bytes, ApiError> {
    match tokio::time::timeout(within, axum::body::to_bytes(body, limit)).await {
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "body_timeout",
            format!("the body did not arrive within {} s", within.as_secs()),
        )),
        Ok(Err(e)) => {
            let too_large = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            if too_large {
                Err(too_large_for(limit))
            } else {
                Err(ApiError::input(
                    "invalid_body",
                    format!("the body could not be read: {e}"),
                ))
            }
        }
        Ok(Ok(bytes)) => Ok(bytes),
    }
}

/// A record file sent as the body (judge, convert): any type, at most [`MAX_UPLOAD`].
pub(super) async fn upload_body(options: &HttpOptions, body: Body) -> Result<Bytes, ApiError> {
    read_body(body, MAX_UPLOAD, options.upload_timeout).await
}

/// A JSON object body. It must say it is JSON (`Content-Type: application/json`): a page of
/// another site cannot send that without asking first (a CORS preflight, which this
/// server never grants). An empty body (`Content-Length: 0`) needs no type.
async fn json_body(
    options: &HttpOptions,
    headers: &HeaderMap,
    body: Body,
) -> Result<Value, ApiError> {
    let empty = headers
        .get(header::CONTENT_LENGTH)
        .is_some_and(|v| v.as_bytes() == b"0");
    if !empty && !guard::declared_json(headers) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as JSON, with Content-Type: application/json",
        ));
    }
    let bytes = read_body(body, MAX_JSON, options.body_timeout).await?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(ApiError::input(
            "invalid_json",
            "the body must be a JSON object",
        )),
        Err(e) => Err(ApiError::input("invalid_json", format!("the body: {e}"))),
    }
}

/// A request's JSON body, typed: read once into `T`, each field of the wrong shape
/// answered as `T` says ([`Request::invalid`]).
pub(super) async fn typed_body<T: Request>(
    options: &HttpOptions,
    headers: &HeaderMap,
    body: Body,
) -> Result<T, ApiError> {
    let value = json_body(options, headers, body).await?;
    serde_path_to_error::deserialize(value).map_err(|e| T::invalid(&e.path().to_string()))
}

/// A typed request body.
pub(super) trait Request: serde::de::DeserializeOwned {
    /// The answer to a field of the wrong shape, by its path (`time.total`): by default
    /// `invalid_json`, a string having been expected.
    fn invalid(path: &str) -> ApiError {
        ApiError::input("invalid_json", format!("{path}: a string was expected"))
    }
}

/// 413 `too_large`, with the limit in bytes.
pub(super) fn too_large_for(limit: usize) -> ApiError {
    let size = if limit >= 1 << 20 {
        format!("{} MiB", limit >> 20)
    } else {
        format!("{} KiB", limit >> 10)
    };
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "too_large",
        format!("the body is larger than {size}"),
    )
    .with("limit", json!(limit))
}
