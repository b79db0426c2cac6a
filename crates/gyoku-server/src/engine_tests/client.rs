//! The API's client side, for `gyoku test` and `gyoku worker`: JSON over HTTP/1 to a
//! server's address, each request timed out, each answer bounded.

use std::time::Duration;

use axum::body::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::{Method, Request};
use serde_json::Value;

/// The largest answer read, bytes.
const MAX_ANSWER: usize = 8 << 20;

type Inner = hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    Full<Bytes>,
>;

/// A server's API.
#[derive(Clone, Debug)]
pub struct Client {
    base: String,
    inner: Inner,
    timeout: Duration,
}

/// An answer: its status and its JSON (`Null` when it had none).
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The body as JSON.
    pub body: Value,
}

impl Answer {
    /// The error's code (`{"error": {"code"}}`), if the answer is one.
    pub fn code(&self) -> Option<&str> {
        self.body["error"]["code"].as_str()
    }

    /// The error's message, or the status.
    pub fn message(&self) -> String {
        self.body["error"]["message"]
            .as_str()
            .map_or_else(|| format!("HTTP {}", self.status), str::to_string)
    }
}

impl Client {
    /// A client of the server at `url` (`http://HOST:PORT`, a path ignored), each request
    /// given `timeout`. Call it inside a tokio runtime.
    ///
    /// # Errors
    /// When `url` is not an `http://` address.
    pub fn new(url: &str, timeout: Duration) -> Result<Client, String> {
        let rest = url.trim().strip_prefix("http://").ok_or_else(|| {
            format!(
                "{url}: an http://HOST:PORT address (for HTTPS, reach the server through a \
                 local TLS tunnel or proxy)"
            )
        })?;
        let host = rest.split('/').next().unwrap_or_default();
        if host.is_empty() {
            return Err(format!("{url}: no host"));
        }
        let mut connector = hyper_util::client::legacy::connect::HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(Duration::from_secs(5)));
        let inner =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .pool_max_idle_per_host(8)
                .pool_idle_timeout(Duration::from_secs(30))
                .pool_timer(hyper_util::rt::TokioTimer::new())
                .build(connector);
        Ok(Client {
            base: format!("http://{host}"),
            inner,
            timeout,
        })
    }

    /// `GET path`.
    ///
    /// # Errors
    /// When the server cannot be reached or does not answer in time.
    pub async fn get(&self, path: &str, bearer: Option<&str>) -> Result<Answer, String> {
        self.send(Method::GET, path, bearer, None).await
    }

    /// `POST path` with a JSON body.
    ///
    /// # Errors
    /// When the server cannot be reached or does not answer in time.
    pub async fn post(
        &self,
        path: &str,
        bearer: Option<&str>,
        body: &Value,
    ) -> Result<Answer, String> {
        self.send(Method::POST, path, bearer, Some(body)).await
    }

    /// `POST path` with `bytes` as the body (`application/octet-stream`), given
    /// `timeout` whatever the client's.
    ///
    /// # Errors
    /// When the server cannot be reached or does not answer in time.
    pub async fn post_bytes(
        &self,
        path: &str,
        bearer: &str,
        bytes: Vec<u8>,
        timeout: Duration,
    ) -> Result<Answer, String> {
        let body = (Some("application/octet-stream"), Bytes::from(bytes));
        self.exchange(Method::POST, path, Some(bearer), body, timeout)
            .await
    }

    /// `GET path` written to `to` as it comes (at most `limit` bytes, within `timeout`):
    /// the body's SHA-256, or the server's answer when it is not 200.
    ///
    /// # Errors
    /// When the server cannot be reached, the body is too large or late, or `to` cannot be
    /// written.
    pub async fn download(
        &self,
        path: &str,
        bearer: &str,
        to: &std::path::Path,
        (limit, timeout): (u64, Duration),
    ) -> Result<Result<String, Answer>, String> {
        use sha2::Digest;
        use tokio::io::AsyncWriteExt;
        let uri = format!("{}{path}", self.base);
        let request = Request::builder()
            .method(Method::GET)
            .uri(&uri)
            .header(hyper::header::AUTHORIZATION, format!("Bearer {bearer}"))
            .body(Full::new(Bytes::new()))
            .map_err(|e| format!("{uri}: {e}"))?;
        let exchange = async {
            let response = self
                .inner
                .request(request)
                .await
                .map_err(|e| format!("{uri}: {e}"))?;
            let status = response.status().as_u16();
            let mut body = response.into_body();
            if status != 200 {
                let bytes = Limited::new(body, MAX_ANSWER)
                    .collect()
                    .await
                    .map_err(|e| format!("{uri}: the answer: {e}"))?
                    .to_bytes();
                return Ok(Err(Answer {
                    status,
                    body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                }));
            }
            let mut file = tokio::fs::File::create(to)
                .await
                .map_err(|e| format!("{}: {e}", to.display()))?;
            let mut hasher = sha2::Sha256::new();
            let mut got = 0u64;
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| format!("{uri}: {e}"))?;
                if let Ok(data) = frame.into_data() {
                    got += data.len() as u64;
                    if got > limit {
                        return Err(format!("{uri}: more than {limit} bytes"));
                    }
                    hasher.update(&data);
                    file.write_all(&data)
                        .await
                        .map_err(|e| format!("{}: {e}", to.display()))?;
                }
            }
            file.sync_all()
                .await
                .map_err(|e| format!("{}: {e}", to.display()))?;
            Ok(Ok(hasher
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()))
        };
        tokio::time::timeout(timeout, exchange)
            .await
            .map_err(|_| format!("{uri}: not all within {} s", timeout.as_secs()))?
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        bearer: Option<&str>,
        body: Option<&Value>,
    ) -> Result<Answer, String> {
        let body = match body {
            Some(v) => (Some("application/json"), Bytes::from(v.to_string())),
            None => (None, Bytes::new()),
        };
        self.exchange(method, path, bearer, body, self.timeout)
            .await
    }

    /// One request, its body of the given type, answered within `timeout`.
    async fn exchange(
        &self,
        method: Method,
        path: &str,
        bearer: Option<&str>,
        (content_type, bytes): (Option<&str>, Bytes),
        timeout: Duration,
    ) -> Result<Answer, String> {
        let uri = format!("{}{path}", self.base);
        let mut request = Request::builder().method(method).uri(&uri);
        if let Some(token) = bearer {
            request = request.header(hyper::header::AUTHORIZATION, format!("Bearer {token}"));
        }
        if let Some(t) = content_type {
            request = request.header(hyper::header::CONTENT_TYPE, t);
        }
        let request = request
            .body(Full::new(bytes))
            .map_err(|e| format!("{uri}: {e}"))?;
        let exchange = async {
            let response = self
                .inner
                .request(request)
                .await
                .map_err(|e| format!("{uri}: {e}"))?;
            let status = response.status().as_u16();
            let body = Limited::new(response.into_body(), MAX_ANSWER)
                .collect()
                .await
                .map_err(|e| format!("{uri}: the answer: {e}"))?
                .to_bytes();
            let body = if body.is_empty() {
                Value::Null
            } else {
                serde_json::from_slice(&body).unwrap_or(Value::Null)
            };
            Ok(Answer { status, body })
        };
        tokio::time::timeout(timeout, exchange)
            .await
            .map_err(|_| format!("{uri}: no answer within {} s", timeout.as_secs()))?
    }
}
