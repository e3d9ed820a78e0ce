//! A TLS 1.3 server on 127.0.0.1 with post-quantum key exchange (`rustls-lazykem`'s groups,
//! X25519MLKEM768 preferred, on rustls's `ring` provider). It makes a self-signed
//! certificate for "localhost", writes it to `target/tls-example-cert.der` for the client,
//! answers `connections` clients (default 1) with a line naming the negotiated group, and
//! prints each handshake's group and time.
//!
//! ```sh
//! cargo run -p rustls-lazykem --example tls_server -- 8443 &
//! cargo run -p rustls-lazykem --example tls_client -- 8443
//! ```
#![allow(missing_docs)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Instant;

use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().map_or(Ok(8443), |p| p.parse())?;
    let connections: usize = args.next().map_or(Ok(1), |n| n.parse())?;

    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])?;
    let cert = certified.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        certified.signing_key.serialize_der(),
    ));
    let cert_path = cert_path();
    std::fs::write(&cert_path, &cert)?;

    let config =
        rustls::ServerConfig::builder_with_provider(Arc::new(rustls_lazykem::ring_provider()))
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)?;
    let config = Arc::new(config);

    let listener = TcpListener::bind(("127.0.0.1", port))?;
    println!(
        "listening on 127.0.0.1:{port}; certificate in {}",
        cert_path.display()
    );
    for socket in listener.incoming().take(connections) {
        let mut socket = socket?;
        let mut conn = rustls::ServerConnection::new(config.clone())?;
        let start = Instant::now();
        while conn.is_handshaking() {
            conn.complete_io(&mut socket)?;
        }
        let elapsed = start.elapsed();
        let group = conn
            .negotiated_key_exchange_group()
            .map_or_else(|| "none".to_owned(), |g| format!("{:?}", g.name()));
        println!(
            "handshake: group {group}, {:.2} ms",
            elapsed.as_secs_f64() * 1e3
        );

        let mut tls = rustls::Stream::new(&mut conn, &mut socket);
        let mut request = [0u8; 5];
        tls.read_exact(&mut request)?;
        writeln!(tls, "hello over {group}")?;
        tls.conn.send_close_notify();
        tls.flush()?;
    }
    Ok(())
}

/// Where the server leaves its certificate for the client: `$CARGO_TARGET_DIR` or `target/`.
fn cert_path() -> std::path::PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        std::path::PathBuf::from,
    );
    dir.join("tls-example-cert.der")
}
