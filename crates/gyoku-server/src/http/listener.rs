//! The HTTP port's connections: capped in all and from one address, a request's head timed
//! out (and a connection idle between requests closed after the same time), and one
//! shutdown that stops accepting and lets each connection finish the request it is
//! answering.

use std::sync::Arc;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tower::ServiceExt;

use super::guard::{HttpOptions, PerAddress};

/// A connection's stream, plain or TLS.
trait Io: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send {}

impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send> Io for T {}

/// Serves `router` on `listener` until `shutdown` completes, then waits for the
/// connections to finish what they are answering (the caller bounds that wait).
///
/// A connection past [`HttpOptions::max_connections`] or
/// [`HttpOptions::max_connections_per_address`] is closed at once, before anything is
/// read; one that sends no request head within [`HttpOptions::header_timeout`] (idle
/// between requests included) is closed.
/// A failed accept (out of descriptors, most likely) is waited out and retried.
pub async fn serve_connections(
    listener: TcpListener,
    router: Router,
    options: &HttpOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let total = Arc::new(Semaphore::new(options.max_connections.max(1)));
    crate::metrics::get().connections_open(
        "http",
        crate::metrics::permits_taken(&total, options.max_connections.max(1), |s| s),
    );
    let per_address = PerAddress::new(options.max_connections_per_address.max(1));
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            // Finished connections are let go as they end.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(_) => {
                    // Out of descriptors, most likely: wait, do not spin.
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = Arc::clone(&total).try_acquire_owned() else {
            crate::metrics::get().refuse("too_many_http_connections");
            drop(stream);
            continue;
        };
        let Some(slot) = per_address.take(peer.ip()) else {
            crate::metrics::get().refuse("too_many_http_from_address");
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let https = options.tls.is_some();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            if https {
                // Said by the server itself, whatever the client sent: the page was
                // reached over HTTPS (its session cookie is `Secure`).
                request.headers_mut().insert(
                    "x-forwarded-proto",
                    hyper::header::HeaderValue::from_static("https"),
                );
            }
            router.clone().oneshot(request)
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(options.header_timeout)
            .max_buf_size(64 * 1024);
        let mut stop = stop.clone();
        let (tls, handshake_timeout) = (options.tls.clone(), options.header_timeout);
        connections.spawn(async move {
            let _held = (permit, slot);
            let io: Box<dyn Io> = match tls {
                None => Box::new(stream),
                // A handshake that fails, or does not end within the time a request's
                // head has, closes the connection.
                Some(tls) => {
                    match tokio::time::timeout(handshake_timeout, tls.acceptor().accept(stream))
                        .await
                    {
                        Ok(Ok(stream)) => Box::new(stream),
                        _ => return,
                    }
                }
            };
            let connection = builder.serve_connection(TokioIo::new(io), service);
            tokio::pin!(connection);
            let stopping = async move {
                let _ = stop.wait_for(|s| *s).await;
            };
            tokio::select! {
                _ = connection.as_mut() => {}
                () = stopping => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    while connections.join_next().await.is_some() {}
}
