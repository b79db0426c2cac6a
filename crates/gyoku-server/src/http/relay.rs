//! Requests a web instance (`gyoku serve --role web`) hands to the referee instance: the
//! ones that act on a game or read what only the referee holds (the web page's seats and
//! invitations, the events' admin endpoint, the rating list, the rounds and the events).
//!
//! An internal HTTP call rather than a queue in PostgreSQL: a seat is a connection to the
//! referee's lobby, its secret known only there, and a person's action wants the lobby's
//! answer at once (the move refused, the invitation taken); relayed, the request meets the
//! referee's own handlers and checks, and its answer comes back unchanged. The web
//! instance has checked the request's `Host` and `Origin` and holds a place in the relayed
//! requests' own lane before relaying it (a referee that hangs costs those places, never
//! the instance's reads); its connections to the referee are pooled. The referee takes the
//! client's address from the relay (for its per-address caps) only when the request
//! carries the deployment's relay secret, which both read from the database they share.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, Full, Limited};

use super::body::MAX_JSON;
use super::error::ApiError;
use super::relay_secret::{CLIENT, RELAY, RelaySecret};

/// How long a relayed request may take, the referee's answer included: longer than the
/// lobby's own wait for an answer ([`crate::play::ANSWER_WAIT`]).
pub const RELAY_TIMEOUT: Duration = Duration::from_secs(20);

/// The largest answer relayed back (the referee's answers are small JSON).
const MAX_ANSWER: usize = 8 << 20;

/// The largest body relayed: what the referee takes on every route it is relayed (JSON
/// bodies). A web instance held bodies of up to 16 MiB the referee would refuse (256 at
/// once: 1.2 GiB, most answered 502 instead of 413: issue 43).
const MAX_RELAYED_BODY: usize = MAX_JSON;

/// Headers that belong to one connection (RFC 9110 §7.6.1), never relayed, besides those
/// the `Connection` header names.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "proxy-authorization",
    "proxy-authenticate",
];

fn too_large() -> Response {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "too_large",
        format!("a body of at most {MAX_RELAYED_BODY} bytes"),
    )
    .into_response()
}

/// The most idle connections to the referee a web instance keeps open for the next
/// relayed requests.
const POOLED_CONNECTIONS: usize = 32;

/// How long an idle pooled connection to the referee is kept.
const POOL_IDLE: Duration = Duration::from_secs(30);

/// The pooled HTTP/1 client a web instance relays with.
type PooledClient = hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    Full<axum::body::Bytes>,
>;

/// Where a web instance relays to, and what it signs with; the connections to the referee
/// are pooled (kept open and used again), not opened for each request.
#[derive(Clone, Debug)]
pub struct Relay {
    /// The referee instance's HTTP address.
    referee: SocketAddr,
    /// The deployment's secret.
    secret: RelaySecret,
    client: PooledClient,
}

impl Relay {
    /// Relays to the referee at `referee`, signing with `secret`. Call it inside a tokio
    /// runtime (the pool's timers run on it).
    pub fn new(referee: SocketAddr, secret: RelaySecret) -> Relay {
        let mut connector = hyper_util::client::legacy::connect::HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(Duration::from_secs(5)));
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .pool_max_idle_per_host(POOLED_CONNECTIONS)
                .pool_idle_timeout(POOL_IDLE)
                .pool_timer(hyper_util::rt::TokioTimer::new())
                .build(connector);
        Relay {
            referee,
            secret,
            client,
        }
    }

    /// The referee's address.
    pub fn referee(&self) -> SocketAddr {
        self.referee
    }
}

/// Relays the request to the referee and hands back its answer.
pub(super) async fn forward(
    State(options): State<Arc<super::HttpOptions>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let Some(relay) = options.relay_to.clone() else {
        return ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint here")
            .into_response();
    };
    let sent = std::time::Instant::now();
    let answer = tokio::time::timeout(RELAY_TIMEOUT, send(&relay, peer.ip(), request)).await;
    crate::metrics::get()
        .relay_seconds
        .observe(sent.elapsed().as_secs_f64());
    match answer {
        Ok(Ok(answer)) => answer,
        Ok(Err(why)) => ApiError::new(
            StatusCode::BAD_GATEWAY,
            "referee_unreachable",
            format!("the game server's referee did not answer: {why}; try again"),
        )
        .into_response(),
        Err(_) => ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            "referee_timeout",
            format!(
                "the game server's referee did not answer within {} s; try again",
                RELAY_TIMEOUT.as_secs()
            ),
        )
        .into_response(),
    }
}

async fn send(relay: &Relay, client: IpAddr, request: Request) -> Result<Response, String> {
    let (mut parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_RELAYED_BODY as u64) {
        return Ok(too_large());
    }
    let body = match Limited::new(body, MAX_RELAYED_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e)
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            return Ok(too_large());
        }
        Err(e) => return Err(format!("the request's body: {e}")),
    };
    // Hop-by-hop headers, and those the request's `Connection` names, stay here.
    let named: Vec<String> = parts
        .headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|h| h.trim().to_ascii_lowercase()))
        .filter(|h| !h.is_empty())
        .collect();
    for hop in HOP_BY_HOP
        .iter()
        .copied()
        .chain(named.iter().map(String::as_str))
    {
        parts.headers.remove(hop);
    }
    for ours in [RELAY, CLIENT] {
        parts.headers.remove(ours);
    }
    let secret = HeaderValue::from_str(relay.secret.text()).map_err(|e| e.to_string())?;
    parts.headers.insert(RELAY, secret);
    let client = HeaderValue::from_str(&client.to_string()).map_err(|e| e.to_string())?;
    parts.headers.insert(CLIENT, client);
    let uri = format!(
        "http://{}{}",
        relay.referee,
        parts.uri.path_and_query().map_or("/", |p| p.as_str())
    );
    parts.uri = uri.parse().map_err(|e| format!("{uri}: {e}"))?;
    let answer = relay
        .client
        .request(hyper::Request::from_parts(parts, Full::new(body)))
        .await
        .map_err(|e| format!("{}: {e}", relay.referee))?;
    let (mut parts, body) = answer.into_parts();
    for hop in [header::CONNECTION, header::TRANSFER_ENCODING] {
        parts.headers.remove(hop);
    }
    let body = Limited::new(body, MAX_ANSWER)
        .collect()
        .await
        .map_err(|e| format!("the answer's body: {e}"))?
        .to_bytes();
    Ok(Response::from_parts(parts, Body::from(body)))
}
