//! `gyoku serve --tls-cert FILE --tls-key FILE` (issue 50, item 4), through the real
//! binary: the page, the API and an event stream over HTTPS (rustls, a certificate made
//! for the test), the session cookie `Secure`, plain HTTP on the port answered by nothing,
//! and a key that is not the certificate's refused at start, naming what is wrong.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

mod kit;

/// A self-signed certificate for `localhost` and 127.0.0.1: its PEM and its key's.
fn certificate() -> (String, String) {
    let made =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    (made.cert.pem(), made.key_pair.serialize_pem())
}

/// A TLS connection to `at` that trusts `cert_pem` alone.
fn connect(
    at: SocketAddr,
    cert_pem: &str,
) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(cert_pem.as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let client = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let tcp = TcpStream::connect(at).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    rustls::StreamOwned::new(client, tcp)
}

/// One request over TLS: the status, the head and the JSON body.
fn request(
    at: SocketAddr,
    cert_pem: &str,
    method: &str,
    path: &str,
    body: &Value,
) -> (u16, String, Value) {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let mut s = connect(at, cert_pem);
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {at}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    let mut answer = Vec::new();
    // The server may close without close_notify after its answer: what was read counts.
    let _ = s.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let (head, json) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (
        status,
        head.to_string(),
        serde_json::from_str(json).unwrap_or(Value::Null),
    )
}

#[test]
fn the_page_the_api_and_an_event_stream_over_https() {
    let dir = std::env::temp_dir().join(format!("gyoku-tls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = certificate();
    let (cert_file, key_file) = (dir.join("fullchain.pem"), dir.join("privkey.pem"));
    std::fs::write(&cert_file, &cert).unwrap();
    std::fs::write(&key_file, &key).unwrap();
    let data = dir.join("data").display().to_string();
    let server = kit::Instance::start(&[
        "--csa",
        "127.0.0.1:0",
        "--http",
        "127.0.0.1:0",
        "--tls-cert",
        &cert_file.display().to_string(),
        "--tls-key",
        &key_file.display().to_string(),
        "--data-dir",
        &data,
    ]);
    let at = server.address("open https://");

    let (status, _, health) = request(at, &cert, "GET", "/api/health", &Value::Null);
    assert_eq!(status, 200, "{health}");
    let (status, head, _) = request(at, &cert, "GET", "/", &Value::Null);
    assert_eq!(status, 200, "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/html"),
        "{head}"
    );

    // The session's cookie is Secure over HTTPS (the request names no origin: the server
    // knows it itself).
    let (status, head, v) = request(
        at,
        &cert,
        "POST",
        "/api/accounts",
        &json!({"name": "hanako", "password": "a long password"}),
    );
    assert_eq!(status, 201, "{head}\n{v}");
    let cookie = head
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap_or_else(|| panic!("no cookie: {head}"));
    assert!(cookie.contains("; Secure"), "{cookie}");

    // A game against the built-in engine, watched over an event stream.
    let (_, game) = kit::game_against("builtin", 6, |method, path, body| {
        let (status, _, v) = request(at, &cert, method, path, body);
        (status, v)
    });
    let mut stream = connect(at, &cert);
    let path = format!("/api/games/{}/events", game.replace('+', "%2B"));
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: {at}\r\n\r\n").as_bytes())
        .unwrap();
    let mut lines = BufReader::new(stream).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    let data = lines
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("data: ").map(str::to_string))
        .expect("a game view on the stream");
    let view: Value = serde_json::from_str(&data).unwrap();
    assert_eq!(view["id"], game.as_str(), "{view}");

    // Plain HTTP on the TLS port: no HTTP answer.
    let mut plain = TcpStream::connect(at).unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    plain
        .write_all(
            format!("GET /api/health HTTP/1.1\r\nHost: {at}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .unwrap();
    let mut said = Vec::new();
    let _ = plain.read_to_end(&mut said);
    assert!(
        !said.starts_with(b"HTTP/1.1"),
        "{:?}",
        String::from_utf8_lossy(&said)
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_key_that_is_not_the_certificates_is_refused_at_start() {
    let dir = std::env::temp_dir().join(format!("gyoku-tls-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, _) = certificate();
    let (_, other_key) = certificate();
    std::fs::write(dir.join("cert.pem"), &cert).unwrap();
    std::fs::write(dir.join("key.pem"), &other_key).unwrap();
    std::fs::write(dir.join("empty.pem"), "").unwrap();
    for (cert_name, key_name, expected) in [
        ("cert.pem", "key.pem", "the certificate and its key"),
        ("empty.pem", "key.pem", "no certificate"),
        ("cert.pem", "empty.pem", "no private key"),
    ] {
        let out = kit::output_within(
            std::process::Command::new(kit::gyoku()).args([
                "serve",
                "--csa",
                "127.0.0.1:0",
                "--http",
                "127.0.0.1:0",
                "--tls-cert",
                &dir.join(cert_name).display().to_string(),
                "--tls-key",
                &dir.join(key_name).display().to_string(),
                "--data-dir",
                &dir.join("data").display().to_string(),
            ]),
            Duration::from_secs(30),
            "gyoku serve with a bad certificate or key",
        );
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{said}");
        assert!(said.contains(expected), "{cert_name} {key_name}: {said}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
