//! TLS for the HTTP port (`gyoku serve --tls-cert FILE --tls-key FILE`): the page, the API
//! and the event streams served over HTTPS by rustls, with no proxy in front.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

/// The HTTP port's certificate and key, ready to accept connections.
#[derive(Clone)]
pub struct Tls(TlsAcceptor);

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls(..)")
    }
}

impl Tls {
    /// The certificate chain in `cert` and its private key in `key`, both PEM (as a
    /// certificate authority such as Let's Encrypt writes them: `fullchain.pem`,
    /// `privkey.pem`). TLS 1.2 and 1.3, HTTP/1.1.
    ///
    /// # Errors
    /// What is wrong, naming the file: unreadable, no certificate, no key, or a key that
    /// is not the certificate's.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Tls, String> {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
            .map_err(|e| format!("{}: {e}", cert.display()))?
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}: {e}", cert.display()))?;
        if certs.is_empty() {
            return Err(format!("{}: no certificate (PEM) in it", cert.display()));
        }
        let key = PrivateKeyDer::from_pem_file(key)
            .map_err(|e| format!("{}: no private key (PEM) read: {e}", key.display()))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|e| format!("the certificate and its key: {e}"))?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls(TlsAcceptor::from(Arc::new(config))))
    }

    /// The acceptor that runs each connection's handshake.
    pub(super) fn acceptor(&self) -> &TlsAcceptor {
        &self.0
    }
}
