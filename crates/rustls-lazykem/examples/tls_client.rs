//! A TLS 1.3 client for the `tls_server` example: connects to 127.0.0.1, trusts the
//! certificate the server wrote, offers `rustls-lazykem`'s groups (X25519MLKEM768 first,
//! with its X25519 half as a second share) and prints the negotiated group, the handshake
//! time and the server's reply.
//!
//! ```sh
//! cargo run -p rustls-lazykem --example tls_server -- 8443 &
//! cargo run -p rustls-lazykem --example tls_client -- 8443
//! ```
#![allow(missing_docs)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::CertificateDer;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = std::env::args().nth(1).map_or(Ok(8443), |p| p.parse())?;

    // The server writes its certificate when it starts: wait for it briefly.
    let cert_path = cert_path();
    let mut cert = std::fs::read(&cert_path);
    for _ in 0..50 {
        if cert.is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        cert = std::fs::read(&cert_path);
    }
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from(cert?))?;

    let config =
        rustls::ClientConfig::builder_with_provider(Arc::new(rustls_lazykem::ring_provider()))
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .with_root_certificates(roots)
            .with_no_client_auth();

    let mut socket = TcpStream::connect(("127.0.0.1", port))?;
    socket.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut conn = rustls::ClientConnection::new(Arc::new(config), "localhost".try_into()?)?;
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
    tls.write_all(b"hello")?;
    let mut reply = String::new();
    tls.read_to_string(&mut reply)?;
    print!("server says: {reply}");
    Ok(())
}

/// Where the `tls_server` example leaves its certificate: `$CARGO_TARGET_DIR` or `target/`.
fn cert_path() -> std::path::PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        std::path::PathBuf::from,
    );
    dir.join("tls-example-cert.der")
}
