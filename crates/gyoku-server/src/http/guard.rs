//! What every request passes before a handler sees it, and the headers every answer
//! carries: the `Host` it names is this server's (no DNS rebinding of a loopback server);
//! a request that acts comes from this server's own page, not another origin's; a JSON body
//! says it is JSON (so another site cannot send one without a CORS preflight); and requests
//! are capped at once, in all and from one address.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use super::error::ApiError;

/// The HTTP side's bounds and the names it answers to (`gyoku serve --http-host`).
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The analysis engine and its time a position (none: no analysis).
    pub analysis: Option<super::AnalysisOptions>,
    /// Host names this server answers to besides its own address (and `localhost` when it
    /// listens on loopback); `*` answers to any.
    pub hosts: Vec<String>,
    /// Connections at once.
    pub max_connections: usize,
    /// Connections at once from one address.
    pub max_connections_per_address: usize,
    /// Requests being answered at once (an event stream counts until it starts).
    pub max_in_flight: usize,
    /// Requests being answered at once for one address.
    pub max_in_flight_per_address: usize,
    /// Record files being uploaded or worked on at once (`POST /api/judge`,
    /// `/api/convert`): a lane of their own, so slow uploads never take the places of
    /// players' moves and the page's views (issue 43).
    pub max_uploads_in_flight: usize,
    /// Record files being uploaded or worked on at once for one address.
    pub max_uploads_per_address: usize,
    /// On a web instance, requests relayed to the referee at once (each from one address
    /// at most [`HttpOptions::max_in_flight_per_address`]): a lane of their own, so a
    /// referee that does not answer costs these places only, never the instance's reads.
    pub max_relayed_in_flight: usize,
    /// Event streams open at once, in all.
    pub max_watchers: usize,
    /// Event streams open at once from one address.
    pub max_watchers_per_address: usize,
    /// How long a request's head may take to arrive, and how long a connection may stay
    /// idle between requests.
    pub header_timeout: Duration,
    /// How long a JSON body may take to arrive.
    pub body_timeout: Duration,
    /// How long a record file (judge, convert) may take to arrive.
    pub upload_timeout: Duration,
    /// How long a request waits for a place among [`HttpOptions::max_in_flight`].
    pub queue_timeout: Duration,
    /// How long a web page's seat may go unasked and its person still be here (the page
    /// asks every second, but a browser runs a tab in the background once a minute after
    /// five minutes): past it, or once the page says it leaves, the person is away.
    pub presence_silence: Duration,
    /// The operator's token for events' admin endpoint (`None`: the endpoint is off).
    pub admin_token: Option<super::AdminToken>,
    /// The operator's token workers register with (`gyoku serve --worker-token-file`;
    /// `None`: no worker can register).
    pub worker_token: Option<super::AdminToken>,
    /// How long a batch is a worker's without a heartbeat before it is handed out again.
    pub worker_lease: Duration,
    /// Where engine builds uploaded for tests are kept (`None`: none can be).
    pub artefacts_dir: Option<std::path::PathBuf>,
    /// A web instance's referee: the requests that act, and what only the referee holds,
    /// are relayed to it (`gyoku serve --role web`; see docs/scale-out.md).
    pub relay_to: Option<super::Relay>,
    /// The deployment's relay secret, on the referee: a request relayed by a web instance
    /// that carries it is taken as the client's (its address as the relay names it).
    pub relay_secret: Option<super::RelaySecret>,
    /// The certificate and key the port serves HTTPS with (`--tls-cert`, `--tls-key`);
    /// plain HTTP when none.
    pub tls: Option<super::Tls>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            analysis: None,
            hosts: Vec::new(),
            max_connections: 4_096,
            max_connections_per_address: 128,
            max_in_flight: 256,
            max_in_flight_per_address: 32,
            max_uploads_in_flight: 16,
            max_uploads_per_address: 4,
            max_relayed_in_flight: 128,
            max_watchers: super::MAX_WATCHERS,
            max_watchers_per_address: 32,
            header_timeout: Duration::from_secs(15),
            body_timeout: Duration::from_secs(10),
            upload_timeout: Duration::from_secs(120),
            queue_timeout: Duration::from_secs(10),
            presence_silence: Duration::from_secs(90),
            admin_token: None,
            worker_token: None,
            worker_lease: crate::engine_tests::ledger::DEFAULT_LEASE,
            artefacts_dir: None,
            relay_to: None,
            relay_secret: None,
            tls: None,
        }
    }
}

/// Counts what each address holds at once (connections, requests, streams), up to a cap.
#[derive(Debug)]
pub(crate) struct PerAddress {
    max: usize,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One place held by an address; given back when dropped.
#[derive(Debug)]
pub(crate) struct AddressSlot {
    ip: IpAddr,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl PerAddress {
    pub(crate) fn new(max: usize) -> PerAddress {
        PerAddress {
            max,
            held: Arc::default(),
        }
    }

    /// A place for `ip`, or `None` when it holds [`PerAddress::max`] already.
    pub(crate) fn take(&self, ip: IpAddr) -> Option<AddressSlot> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let n = held.entry(ip).or_insert(0);
        if *n >= self.max {
            return None;
        }
        *n += 1;
        Some(AddressSlot {
            ip,
            held: Arc::clone(&self.held),
        })
    }

    /// The most one address may hold.
    pub(crate) fn max(&self) -> usize {
        self.max
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = held.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.ip);
            }
        }
    }
}

/// Requests answered at once in one lane, in all and by address.
#[derive(Debug)]
struct Lane {
    in_flight: Semaphore,
    per_address: PerAddress,
    /// What a refusal calls the lane's requests.
    what: &'static str,
}

impl Lane {
    fn new(max: usize, per_address: usize, what: &'static str) -> Lane {
        Lane {
            in_flight: Semaphore::new(max.max(1)),
            per_address: PerAddress::new(per_address.max(1)),
            what,
        }
    }
}

/// The checks' state: the bound address, the names allowed, the request caps of each lane.
#[derive(Debug)]
pub(crate) struct Guard {
    bound: SocketAddr,
    hosts: Vec<String>,
    relay_secret: Option<super::RelaySecret>,
    /// Everything but record files: the players' moves, the page, the views.
    requests: Lane,
    /// Record files to judge or convert.
    uploads: Lane,
    /// On a web instance: what is relayed to the referee (`None` elsewhere).
    relayed: Option<Lane>,
    queue_timeout: Duration,
}

/// Whether `request` sends a record file (judge, convert, a judged record's analysis): it
/// goes in the uploads' lane.
fn uploads_a_record(request: &Request) -> bool {
    let path = request.uri().path();
    request.method() == Method::POST
        && [
            super::JUDGE_ROUTE,
            super::CONVERT_ROUTE,
            super::JUDGE_ANALYSIS_ROUTE,
        ]
        .contains(&path)
}

impl Guard {
    pub(crate) fn new(bound: SocketAddr, options: &HttpOptions) -> Guard {
        Guard {
            bound,
            relay_secret: options.relay_secret.clone(),
            hosts: options
                .hosts
                .iter()
                .map(|h| h.trim().trim_end_matches('.').to_ascii_lowercase())
                .collect(),
            requests: Lane::new(
                options.max_in_flight,
                options.max_in_flight_per_address,
                "requests",
            ),
            uploads: Lane::new(
                options.max_uploads_in_flight,
                options.max_uploads_per_address,
                "record files",
            ),
            relayed: options.relay_to.as_ref().map(|_| {
                Lane::new(
                    options.max_relayed_in_flight,
                    options.max_in_flight_per_address,
                    "requests for the referee",
                )
            }),
            queue_timeout: options.queue_timeout,
        }
    }

    /// Whether a request naming `host` (a `Host` header's value) is for this server.
    pub(crate) fn host_allowed(&self, host: &str) -> bool {
        if self.hosts.iter().any(|h| h == "*") {
            return true;
        }
        let name = host_part(host).to_ascii_lowercase();
        let name = name.trim_end_matches('.');
        if self.hosts.iter().any(|h| h == name) {
            return true;
        }
        let bound = self.bound.ip();
        match name.parse::<IpAddr>() {
            Ok(ip) => bound.is_unspecified() || ip == bound,
            Err(_) => {
                (name == "localhost" || name.ends_with(".localhost"))
                    && (bound.is_loopback() || bound.is_unspecified())
            }
        }
    }
}

/// The host of a `Host` value or an origin's authority: `[::1]:8080` → `::1`,
/// `example.org:8080` → `example.org`.
fn host_part(authority: &str) -> &str {
    let authority = authority.trim();
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split_once(']').map_or(rest, |(ip, _)| ip);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// A request that changes something (anything but GET, HEAD and OPTIONS).
fn acts(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Why a request that acts comes from another origin, or `None` when it comes from this
/// server's page or from no browser at all (no `Origin`, no `Sec-Fetch-Site`: curl, a
/// program).
fn foreign_origin(headers: &HeaderMap) -> Option<String> {
    let text = |name: header::HeaderName| headers.get(name).map(|v| v.to_str().unwrap_or("?"));
    if let Some(site) = text(header::HeaderName::from_static("sec-fetch-site"))
        && !matches!(site, "same-origin" | "none")
    {
        return Some(format!("Sec-Fetch-Site: {site}"));
    }
    let origin = text(header::ORIGIN)?;
    let host = text(header::HOST).unwrap_or("");
    let authority = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    match authority {
        Some(a) if a.eq_ignore_ascii_case(host) => None,
        _ => Some(format!("Origin: {origin}")),
    }
}

/// Whether a body with these headers is declared as JSON (`application/json`, any
/// parameters); an empty body needs no type.
pub(crate) fn declared_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return false;
    };
    let Ok(text) = value.to_str() else {
        return false;
    };
    let media = text.split(';').next().unwrap_or("").trim();
    media.eq_ignore_ascii_case("application/json")
}

/// The checks, as middleware: host, origin, then a place among the requests at once.
pub(crate) async fn check(
    State(guard): State<Arc<Guard>>,
    mut request: Request,
    next: Next,
) -> Response {
    let admitted = match relayed_from(&guard, &request) {
        Some(Ok(client)) => {
            // Its host and origin were checked by the web instance that relayed it.
            request
                .extensions_mut()
                .insert(ConnectInfo(SocketAddr::new(client, 0)));
            Ok(())
        }
        Some(Err(e)) => Err(e),
        None => admit(&guard, &request),
    };
    let mut response = match admitted {
        Err(e) => e.into_response(),
        Ok(()) => {
            let ip = request
                .extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
            let lane = match &guard.relayed {
                _ if uploads_a_record(&request) => &guard.uploads,
                Some(relayed) if super::is_referees(request.uri().path()) => relayed,
                _ => &guard.requests,
            };
            match lane.per_address.take(ip) {
                None => ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_requests",
                    format!(
                        "{} {} from your address are being answered; wait for them",
                        lane.per_address.max(),
                        lane.what
                    ),
                )
                .into_response(),
                Some(_slot) => {
                    match tokio::time::timeout(guard.queue_timeout, lane.in_flight.acquire()).await
                    {
                        Ok(Ok(_permit)) => next.run(request).await,
                        _ => ApiError::new(
                            StatusCode::SERVICE_UNAVAILABLE,
                            "busy",
                            format!(
                                "the server is answering as many {} as it can; try again",
                                lane.what
                            ),
                        )
                        .into_response(),
                    }
                }
            }
        }
    };
    security_headers(response.headers_mut());
    response
}

/// For a request relayed by a web instance: the client's address it names, if the request
/// carries the deployment's relay secret (else refused); `None` for any other request.
fn relayed_from(guard: &Guard, request: &Request) -> Option<Result<IpAddr, ApiError>> {
    let given = request.headers().get(super::relay_secret::RELAY)?;
    let refused = |why: &str| {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "relay_refused",
            format!("a relayed request {why}"),
        )
    };
    let secret = guard.relay_secret.as_ref();
    if !secret.is_some_and(|s| s.admits(given.as_bytes())) {
        return Some(Err(refused("must carry this deployment's relay secret")));
    }
    Some(
        request
            .headers()
            .get(super::relay_secret::CLIENT)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<IpAddr>().ok())
            .ok_or_else(|| refused("must name its client's address")),
    )
}

/// Host and origin.
fn admit(guard: &Guard, request: &Request) -> Result<(), ApiError> {
    let headers = request.headers();
    if let Some(host) = headers.get(header::HOST) {
        let host = host.to_str().unwrap_or("");
        if !guard.host_allowed(host) {
            return Err(ApiError::new(
                StatusCode::MISDIRECTED_REQUEST,
                "unknown_host",
                format!(
                    "this server does not answer to the host '{}' (gyoku serve --http-host NAME adds a name)",
                    host.chars().take(100).collect::<String>()
                ),
            ));
        }
    }
    if acts(request.method())
        && let Some(why) = foreign_origin(headers)
    {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "cross_origin",
            format!(
                "a request that acts must come from this server's own page ({})",
                why.chars().take(100).collect::<String>()
            ),
        ));
    }
    Ok(())
}

/// The headers every answer carries: no sniffing, no framing by another site, scripts and
/// styles from this server only, no referrer (a seat's link is its key).
fn security_headers(headers: &mut HeaderMap) {
    let set = |headers: &mut HeaderMap, name: &'static str, value: &'static str| {
        headers.insert(
            header::HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    };
    set(headers, "x-content-type-options", "nosniff");
    set(headers, "x-frame-options", "DENY");
    set(
        headers,
        "content-security-policy",
        "default-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; \
         frame-ancestors 'none'; form-action 'self'",
    );
    set(headers, "referrer-policy", "no-referrer");
    set(headers, "cross-origin-opener-policy", "same-origin");
    set(headers, "cross-origin-resource-policy", "same-origin");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(bound: &str, hosts: &[&str]) -> Guard {
        let options = HttpOptions {
            hosts: hosts.iter().map(|h| (*h).to_string()).collect(),
            ..HttpOptions::default()
        };
        Guard::new(bound.parse().unwrap(), &options)
    }

    /// A request a web instance relays is taken as its client's only with the deployment's
    /// secret and the client's address; any other request is no relay at all.
    #[test]
    fn relayed_requests_need_the_secret() {
        let secret = "0123456789abcdef0123456789abcdef";
        let referee = Guard::new(
            "127.0.0.1:8080".parse().unwrap(),
            &HttpOptions {
                relay_secret: Some(super::super::RelaySecret::new(secret.into())),
                ..HttpOptions::default()
            },
        );
        let web = guard("127.0.0.1:8080", &[]);
        let with = |headers: &[(&str, &str)]| {
            let mut r = Request::new(axum::body::Body::empty());
            for (k, v) in headers {
                r.headers_mut().insert(
                    header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                    HeaderValue::from_str(v).unwrap(),
                );
            }
            r
        };
        let relayed = with(&[("x-gyoku-relay", secret), ("x-gyoku-client", "192.0.2.7")]);
        assert_eq!(
            relayed_from(&referee, &relayed).map(|r| r.ok()),
            Some(Some("192.0.2.7".parse().unwrap()))
        );
        for bad in [
            with(&[
                ("x-gyoku-relay", "0123456789abcdef0123456789abcdee"),
                ("x-gyoku-client", "192.0.2.7"),
            ]),
            with(&[("x-gyoku-relay", ""), ("x-gyoku-client", "192.0.2.7")]),
            with(&[("x-gyoku-relay", secret)]),
            with(&[("x-gyoku-relay", secret), ("x-gyoku-client", "somewhere")]),
        ] {
            assert!(matches!(relayed_from(&referee, &bad), Some(Err(_))));
        }
        // A web instance holds no secret: a client naming a relay is refused there.
        assert!(matches!(relayed_from(&web, &relayed), Some(Err(_))));
        assert!(relayed_from(&referee, &with(&[("x-gyoku-client", "192.0.2.7")])).is_none());
    }

    /// (bound address, --http-host names, Host header, answered)
    const HOSTS: &[(&str, &[&str], &str, bool)] = &[
        ("127.0.0.1:8080", &[], "127.0.0.1:8080", true),
        ("127.0.0.1:8080", &[], "localhost:8080", true),
        ("127.0.0.1:8080", &[], "LOCALHOST", true),
        ("127.0.0.1:8080", &[], "app.localhost:8080", true),
        ("127.0.0.1:8080", &[], "attacker.example:8080", false),
        ("127.0.0.1:8080", &[], "127.0.0.2:8080", false),
        ("127.0.0.1:8080", &[], "localhost.attacker.example", false),
        ("127.0.0.1:8080", &["shogi.example"], "shogi.example", true),
        (
            "127.0.0.1:8080",
            &["shogi.example"],
            "Shogi.Example.:443",
            true,
        ),
        ("127.0.0.1:8080", &["*"], "anything.example", true),
        ("[::1]:8080", &[], "[::1]:8080", true),
        ("[::1]:8080", &[], "localhost", true),
        ("0.0.0.0:8080", &[], "192.0.2.7:8080", true),
        ("0.0.0.0:8080", &[], "localhost:8080", true),
        ("0.0.0.0:8080", &[], "rebound.example:8080", false),
        ("192.0.2.7:8080", &[], "192.0.2.7:8080", true),
        ("192.0.2.7:8080", &[], "localhost:8080", false),
    ];

    #[test]
    fn hosts_answered() {
        for &(bound, names, host, answered) in HOSTS {
            assert_eq!(
                guard(bound, names).host_allowed(host),
                answered,
                "bound {bound}, --http-host {names:?}, Host: {host}"
            );
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                header::HeaderName::from_static(k),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn origins_that_may_act() {
        let same = [
            vec![],
            vec![("host", "127.0.0.1:8080")],
            vec![
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8080"),
            ],
            vec![
                ("host", "localhost:8080"),
                ("sec-fetch-site", "same-origin"),
            ],
            vec![("sec-fetch-site", "none")],
        ];
        for h in same {
            assert_eq!(foreign_origin(&headers(&h)), None, "{h:?}");
        }
        let foreign = [
            vec![
                ("host", "127.0.0.1:8080"),
                ("origin", "http://evil.example"),
            ],
            vec![("host", "127.0.0.1:8080"), ("origin", "null")],
            vec![
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:9090"),
            ],
            vec![("sec-fetch-site", "cross-site")],
            vec![("sec-fetch-site", "same-site")],
            vec![
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8080"),
                ("sec-fetch-site", "cross-site"),
            ],
        ];
        for h in foreign {
            assert!(foreign_origin(&headers(&h)).is_some(), "{h:?}");
        }
    }

    #[test]
    fn json_is_declared() {
        for (t, json) in [
            ("application/json", true),
            ("Application/JSON; charset=utf-8", true),
            ("text/plain;charset=UTF-8", false),
            ("application/x-www-form-urlencoded", false),
            ("multipart/form-data; boundary=x", false),
        ] {
            assert_eq!(declared_json(&headers(&[("content-type", t)])), json, "{t}");
        }
        assert!(!declared_json(&HeaderMap::new()));
    }

    #[test]
    fn an_address_holds_at_most_its_cap() {
        let caps = PerAddress::new(2);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let one = caps.take(a).unwrap();
        let _two = caps.take(a).unwrap();
        assert!(caps.take(a).is_none());
        assert!(caps.take(b).is_some());
        drop(one);
        assert!(caps.take(a).is_some());
    }
}
