//! The API's error answer: `{"error": {"code", "message", …}}` with a status that says
//! whose fault it was.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::store::StoreError;

/// An error answer: its status, a stable code, and a message that says what and where.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    extra: serde_json::Map<String, Value>,
}

impl ApiError {
    /// A client's mistake (400).
    pub(super) fn input(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub(super) fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
    ) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            extra: serde_json::Map::new(),
        }
    }

    pub(super) fn with(mut self, key: &str, value: Value) -> ApiError {
        self.extra.insert(key.to_string(), value);
        self
    }

    pub(super) fn storage(e: impl std::fmt::Display) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage_unavailable",
            e.to_string(),
        )
    }
}

/// Storage's errors, answered by kind: a stored row that does not read is the server's
/// fault (500), a conflict with what is stored is 409, and anything else — the database
/// unreachable, taken, failing — is an outage (503). Each carries the kind's code in
/// `"storage"`.
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        let (status, code) = match &e {
            StoreError::Unreadable(_) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "stored_data_unreadable")
            }
            StoreError::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            StoreError::Unreachable(_)
            | StoreError::SchemaTooNew { .. }
            | StoreError::ClaimTaken(_)
            | StoreError::Sql(_)
            | StoreError::Internal(_) => (StatusCode::SERVICE_UNAVAILABLE, "storage_unavailable"),
        };
        ApiError::new(status, code, e.to_string()).with("storage", json!(e.code()))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut error = serde_json::Map::new();
        error.insert("code".into(), json!(self.code));
        error.insert("message".into(), json!(self.message));
        error.extend(self.extra);
        (self.status, Json(json!({ "error": error }))).into_response()
    }
}

pub(super) async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such resource")
}

pub(super) async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this resource does not take that method",
    )
}
