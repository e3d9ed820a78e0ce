//! A TLS 1.3 server and client on 127.0.0.1 with a self-signed certificate, both on
//! `rustls_lazykem::ring_provider()`: the handshake agrees on X25519MLKEM768, and both sides
//! print the group they negotiated.
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;

use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ClientConfig, ClientConnection, NamedGroup, RootCertStore, ServerConfig};
use rustls::{ServerConnection, Stream};

type Error = Box<dyn std::error::Error + Send + Sync>;

fn main() -> Result<(), Error> {
    // rustls's `ring` ciphers and signatures with the post-quantum groups, X25519MLKEM768 first.
    let provider = Arc::new(rustls_lazykem::ring_provider());

    // The server: a self-signed certificate for "localhost", TLS 1.3.
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])?;
    let cert = certified.cert.der().clone();
    let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());
    let server_config = ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(vec![cert.clone()], PrivateKeyDer::Pkcs8(key))?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = listener.local_addr()?;

    let server = thread::spawn(move || -> Result<NamedGroup, Error> {
        let (mut socket, _) = listener.accept()?;
        let mut conn = ServerConnection::new(Arc::new(server_config))?;
        while conn.is_handshaking() {
            conn.complete_io(&mut socket)?;
        }
        let group = conn
            .negotiated_key_exchange_group()
            .ok_or("no group")?
            .name();
        let mut tls = Stream::new(&mut conn, &mut socket);
        let mut request = [0u8; 5];
        tls.read_exact(&mut request)?;
        writeln!(tls, "hello over {group:?}")?;
        tls.conn.send_close_notify();
        tls.flush()?;
        Ok(group)
    });

    // The client: trusts that one certificate, TLS 1.3.
    let mut roots = RootCertStore::empty();
    roots.add(cert)?;
    let client_config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut socket = TcpStream::connect(address)?;
    let mut conn = ClientConnection::new(Arc::new(client_config), "localhost".try_into()?)?;
    while conn.is_handshaking() {
        conn.complete_io(&mut socket)?;
    }
    let group = conn
        .negotiated_key_exchange_group()
        .ok_or("no group")?
        .name();
    println!("client: negotiated {group:?}");
    assert_eq!(group, NamedGroup::X25519MLKEM768);

    let mut tls = Stream::new(&mut conn, &mut socket);
    tls.write_all(b"hello")?;
    let mut reply = String::new();
    tls.read_to_string(&mut reply)?;
    print!("client: the server says {reply}");

    let group = server.join().expect("the server thread")?;
    println!("server: negotiated {group:?}");
    assert_eq!(group, NamedGroup::X25519MLKEM768);
    Ok(())
}
