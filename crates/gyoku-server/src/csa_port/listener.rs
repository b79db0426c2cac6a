//! The CSA port's listener: a deep accept queue, connections capped in all and per address.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tracing::Instrument;

use gyoku_proto::csa_line::ServerLine;

use super::Limits;
use super::connection::connection;
use crate::accounts::Accounts;
use crate::driver::Handle;

/// Listens on `addr` with a deep accept queue: thousands of clients connecting at once
/// (a tournament's start, a reconnecting crowd) are queued, not refused.
pub(crate) fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(4096)
}

/// Accepts connections until `stop` is told, each within the limits, each read by a task of
/// its own.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    driver: Handle,
    accounts: Accounts,
    limits: Arc<Limits>,
    stop: crate::supervisor::Stop,
) {
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stop.cancelled() => return,
        };
        let Ok((mut socket, peer)) = accepted else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = socket.set_nodelay(true);
        let Ok(permit) = limits.total.try_acquire() else {
            crate::metrics::get().refuse("too_many_connections");
            let refused = ServerLine::Error("too many connections".into());
            let _ = socket.write_all(format!("{refused}\n").as_bytes()).await;
            continue;
        };
        let admitted = {
            let mut map = limits
                .per_address
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let n = map.entry(peer.ip()).or_insert(0);
            let ok = *n < limits.max_per_address;
            if ok {
                *n += 1;
            }
            ok
        };
        if !admitted {
            crate::metrics::get().refuse("too_many_from_address");
            let refused = ServerLine::Error("too many connections from your address".into());
            let _ = socket.write_all(format!("{refused}\n").as_bytes()).await;
            continue;
        }
        permit.forget();
        crate::metrics::get().connections_accepted.inc();
        let id = driver.next_id();
        let driver = driver.clone();
        let accounts = accounts.clone();
        let limits = Arc::clone(&limits);
        let span = tracing::info_span!(
            "connection",
            id,
            peer = %peer,
            player = tracing::field::Empty
        );
        tokio::spawn(async move {
            connection(id, socket, driver, accounts, &limits)
                .instrument(span)
                .await;
            let mut map = limits
                .per_address
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(n) = map.get_mut(&peer.ip()) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&peer.ip());
                }
            }
            drop(map);
            limits.total.add_permits(1);
        });
    }
}
