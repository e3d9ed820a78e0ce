//! Shared by the integration tests: a certificate made at run time, client and server
//! configurations on our groups or on AWS-LC's, an in-memory and a loopback-TCP handshake
//! driver, AWS-LC peers for the groups rustls's aws-lc-rs provider lacks, and wrappers that
//! corrupt a key share on its way out.
#![allow(dead_code, unreachable_pub, missing_docs)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::Duration;

use aws_lc_rs::{agreement, kem, rand::SystemRandom};
use rustls::crypto::{
    ActiveKeyExchange, CompletedKeyExchange, CryptoProvider, SharedSecret, SupportedKxGroup,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{
    ClientConfig, ClientConnection, Error, HandshakeKind, NamedGroup, PeerMisbehaved,
    ProtocolVersion, RootCertStore, ServerConfig, ServerConnection,
};

pub type Group = &'static dyn SupportedKxGroup;

/// A corruption of an outgoing key share.
pub type Corruption = Box<dyn Fn(&mut Vec<u8>) + Send + Sync>;

/// A self-signed ECDSA P-256 certificate for "localhost", generated once per test binary.
fn identity() -> &'static (CertificateDer<'static>, PrivatePkcs8KeyDer<'static>) {
    static IDENTITY: OnceLock<(CertificateDer<'static>, PrivatePkcs8KeyDer<'static>)> =
        OnceLock::new();
    IDENTITY.get_or_init(|| {
        let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])
            .expect("rcgen makes a certificate");
        let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());
        (certified.cert.der().clone(), key)
    })
}

/// Which stack's ciphers, signatures and RNG a configuration uses.
#[derive(Clone, Copy, Debug)]
pub enum Stack {
    /// rustls's ring ciphers and signatures, as `rustls_lazykem::ring_provider` assembles them.
    Ring,
    /// rustls's aws-lc-rs provider (AWS-LC, an independent ML-KEM and X25519).
    AwsLc,
}

fn provider(stack: Stack, groups: &[Group]) -> Arc<CryptoProvider> {
    let base = match stack {
        Stack::Ring => rustls_lazykem::ring_provider(),
        Stack::AwsLc => rustls::crypto::aws_lc_rs::default_provider(),
    };
    Arc::new(CryptoProvider {
        kx_groups: groups.to_vec(),
        ..base
    })
}

/// A TLS 1.3-only client trusting [`identity`]'s certificate, offering `groups` in order.
pub fn client(stack: Stack, groups: &[Group]) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots
        .add(identity().0.clone())
        .expect("a valid certificate");
    Arc::new(
        ClientConfig::builder_with_provider(provider(stack, groups))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .expect("TLS 1.3 with these groups")
            .with_root_certificates(roots)
            .with_no_client_auth(),
    )
}

/// A TLS 1.3-only server with [`identity`], accepting `groups` in order of preference.
pub fn server(stack: Stack, groups: &[Group]) -> Arc<ServerConfig> {
    let (cert, key) = identity();
    Arc::new(
        ServerConfig::builder_with_provider(provider(stack, groups))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .expect("TLS 1.3 with these groups")
            .with_no_client_auth()
            .with_single_cert(vec![cert.clone()], PrivateKeyDer::Pkcs8(key.clone_key()))
            .expect("the key matches the certificate"),
    )
}

/// What both sides saw of a completed handshake.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub client_group: NamedGroup,
    pub server_group: NamedGroup,
    pub client_kind: HandshakeKind,
    pub server_kind: HandshakeKind,
}

/// The errors each side ended with when a handshake failed.
#[derive(Debug)]
pub struct Failure {
    pub client: Option<Error>,
    pub server: Option<Error>,
}

/// Runs a handshake between two connections in memory, then sends application data both
/// ways. `Err` carries each side's error when the handshake fails.
pub fn in_memory(
    client_cfg: Arc<ClientConfig>,
    server_cfg: Arc<ServerConfig>,
) -> Result<Outcome, Box<Failure>> {
    let name = "localhost".try_into().expect("a DNS name");
    let mut client = ClientConnection::new(client_cfg, name).expect("client starts");
    let mut server = ServerConnection::new(server_cfg).expect("server starts");
    let mut client_err = None;
    let mut server_err = None;
    let mut buf = Vec::new();
    // Each round moves the client's flight to the server and the server's back; a
    // handshake takes at most three rounds (with HRR), alerts one more.
    for _ in 0..10 {
        buf.clear();
        while client.wants_write() {
            client.write_tls(&mut buf).expect("write to a Vec");
        }
        let mut moved = !buf.is_empty();
        let mut slice = buf.as_slice();
        while !slice.is_empty() && server_err.is_none() {
            server.read_tls(&mut slice).expect("read from a slice");
            if let Err(e) = server.process_new_packets() {
                server_err = Some(e);
            }
        }
        buf.clear();
        while server.wants_write() {
            server.write_tls(&mut buf).expect("write to a Vec");
        }
        moved |= !buf.is_empty();
        let mut slice = buf.as_slice();
        while !slice.is_empty() && client_err.is_none() {
            client.read_tls(&mut slice).expect("read from a slice");
            if let Err(e) = client.process_new_packets() {
                client_err = Some(e);
            }
        }
        if !moved {
            break;
        }
    }
    if client_err.is_some()
        || server_err.is_some()
        || client.is_handshaking()
        || server.is_handshaking()
    {
        return Err(Box::new(Failure {
            client: client_err,
            server: server_err,
        }));
    }
    let outcome = Outcome {
        client_group: client
            .negotiated_key_exchange_group()
            .expect("negotiated")
            .name(),
        server_group: server
            .negotiated_key_exchange_group()
            .expect("negotiated")
            .name(),
        client_kind: client.handshake_kind().expect("done"),
        server_kind: server.handshake_kind().expect("done"),
    };

    // Application data both ways, through the traffic keys the shared secret gave.
    client
        .writer()
        .write_all(b"ping from the client")
        .expect("buffered");
    let mut wire = Vec::new();
    while client.wants_write() {
        client.write_tls(&mut wire).expect("write to a Vec");
    }
    server.read_tls(&mut wire.as_slice()).expect("read");
    server.process_new_packets().expect("the server decrypts");
    let mut got = [0u8; 20];
    server.reader().read_exact(&mut got).expect("plaintext");
    assert_eq!(&got, b"ping from the client");

    server
        .writer()
        .write_all(b"pong from the server")
        .expect("buffered");
    wire.clear();
    while server.wants_write() {
        server.write_tls(&mut wire).expect("write to a Vec");
    }
    client.read_tls(&mut wire.as_slice()).expect("read");
    client.process_new_packets().expect("the client decrypts");
    client.reader().read_exact(&mut got).expect("plaintext");
    assert_eq!(&got, b"pong from the server");
    Ok(outcome)
}

/// The same over a loopback TCP socket (127.0.0.1, an ephemeral port), the server in a
/// thread; every read and write is bounded by a 10 s timeout.
pub fn over_tcp(client_cfg: Arc<ClientConfig>, server_cfg: Arc<ServerConfig>) -> Outcome {
    const TIMEOUT: Option<Duration> = Some(Duration::from_secs(10));
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("bound");
    let server = thread::spawn(move || {
        let (socket, _) = listener.accept().expect("accept");
        socket.set_read_timeout(TIMEOUT).expect("timeout");
        socket.set_write_timeout(TIMEOUT).expect("timeout");
        let conn = ServerConnection::new(server_cfg).expect("server starts");
        let mut tls = rustls::StreamOwned::new(conn, socket);
        let mut got = [0u8; 20];
        tls.read_exact(&mut got).expect("the client's data");
        assert_eq!(&got, b"ping from the client");
        tls.write_all(b"pong from the server").expect("send");
        tls.flush().expect("flush");
        let group = tls
            .conn
            .negotiated_key_exchange_group()
            .expect("negotiated")
            .name();
        let kind = tls.conn.handshake_kind().expect("done");
        tls.conn.send_close_notify();
        let _ = tls.flush();
        (group, kind)
    });

    let socket = TcpStream::connect(addr).expect("connect");
    socket.set_read_timeout(TIMEOUT).expect("timeout");
    socket.set_write_timeout(TIMEOUT).expect("timeout");
    let conn = ClientConnection::new(client_cfg, "localhost".try_into().expect("a DNS name"))
        .expect("client starts");
    let mut tls = rustls::StreamOwned::new(conn, socket);
    tls.write_all(b"ping from the client").expect("send");
    let mut got = [0u8; 20];
    tls.read_exact(&mut got).expect("the server's data");
    assert_eq!(&got, b"pong from the server");
    let client_group = tls
        .conn
        .negotiated_key_exchange_group()
        .expect("negotiated")
        .name();
    let client_kind = tls.conn.handshake_kind().expect("done");
    let (server_group, server_kind) = server.join().expect("server thread");
    Outcome {
        client_group,
        server_group,
        client_kind,
        server_kind,
    }
}

/// A group of AWS-LC primitives (aws-lc-rs's `kem` and `agreement`), for the two groups
/// rustls's aws-lc-rs provider does not have (MLKEM512, SecP384r1MLKEM1024): an
/// independent implementation of the primitives, composed here by the draft's layout.
#[derive(Debug)]
pub struct AwsLcGroup {
    pub name: NamedGroup,
    pub kem: &'static kem::Algorithm<kem::AlgorithmId>,
    /// The NIST curve and its share length, first in shares and secrets, if any.
    pub ecdh: Option<(&'static agreement::Algorithm, usize)>,
    pub ek_len: usize,
    pub ct_len: usize,
}

pub static AWS_MLKEM512: &dyn SupportedKxGroup = &AwsLcGroup {
    name: NamedGroup::MLKEM512,
    kem: &kem::ML_KEM_512,
    ecdh: None,
    ek_len: 800,
    ct_len: 768,
};

pub static AWS_SECP384R1MLKEM1024: &dyn SupportedKxGroup = &AwsLcGroup {
    name: NamedGroup::Unknown(0x11ed),
    kem: &kem::ML_KEM_1024,
    ecdh: Some((&agreement::ECDH_P384, 97)),
    ek_len: 1568,
    ct_len: 1568,
};

const BAD_SHARE: Error = Error::PeerMisbehaved(PeerMisbehaved::InvalidKeyShare);

fn aws_ecdh(
    alg: &'static agreement::Algorithm,
    own: agreement::EphemeralPrivateKey,
    peer: &[u8],
) -> Result<Vec<u8>, Error> {
    agreement::agree_ephemeral(
        own,
        agreement::UnparsedPublicKey::new(alg, peer),
        BAD_SHARE,
        |s| Ok(s.to_vec()),
    )
}

impl SupportedKxGroup for AwsLcGroup {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let dk = kem::DecapsulationKey::generate(self.kem).expect("AWS-LC keygen");
        let ek = dk
            .encapsulation_key()
            .expect("ek")
            .key_bytes()
            .expect("ek bytes");
        let mut share = Vec::new();
        let ecdh = match self.ecdh {
            Some((alg, _)) => {
                let own = agreement::EphemeralPrivateKey::generate(alg, &SystemRandom::new())
                    .expect("AWS-LC ECDH keygen");
                share.extend_from_slice(own.compute_public_key().expect("public").as_ref());
                Some((alg, own))
            }
            None => None,
        };
        share.extend_from_slice(ek.as_ref());
        Ok(Box::new(AwsLcActive {
            dk,
            ecdh,
            share,
            name: self.name,
            ecdh_len: self.ecdh.map_or(0, |(_, len)| len),
            ct_len: self.ct_len,
        }))
    }

    fn start_and_complete(&self, client_share: &[u8]) -> Result<CompletedKeyExchange, Error> {
        let ecdh_len = self.ecdh.map_or(0, |(_, len)| len);
        if client_share.len() != ecdh_len + self.ek_len {
            return Err(BAD_SHARE);
        }
        let (peer_ecdh, ek) = client_share.split_at(ecdh_len);
        let ek = kem::EncapsulationKey::new(self.kem, ek).map_err(|_| BAD_SHARE)?;
        let (ct, kem_secret) = ek.encapsulate().map_err(|_| BAD_SHARE)?;
        let mut share = Vec::new();
        let mut secret = Vec::new();
        if let Some((alg, _)) = self.ecdh {
            let own = agreement::EphemeralPrivateKey::generate(alg, &SystemRandom::new())
                .expect("AWS-LC ECDH keygen");
            share.extend_from_slice(own.compute_public_key().expect("public").as_ref());
            secret.extend(aws_ecdh(alg, own, peer_ecdh)?);
        }
        share.extend_from_slice(ct.as_ref());
        secret.extend_from_slice(kem_secret.as_ref());
        Ok(CompletedKeyExchange {
            group: self.name,
            pub_key: share,
            secret: SharedSecret::from(secret),
        })
    }

    fn name(&self) -> NamedGroup {
        self.name
    }

    fn usable_for_version(&self, version: ProtocolVersion) -> bool {
        version == ProtocolVersion::TLSv1_3
    }
}

struct AwsLcActive {
    dk: kem::DecapsulationKey<kem::AlgorithmId>,
    ecdh: Option<(
        &'static agreement::Algorithm,
        agreement::EphemeralPrivateKey,
    )>,
    share: Vec<u8>,
    name: NamedGroup,
    ecdh_len: usize,
    ct_len: usize,
}

impl ActiveKeyExchange for AwsLcActive {
    fn complete(self: Box<Self>, peer: &[u8]) -> Result<SharedSecret, Error> {
        let ecdh_len = self.ecdh_len;
        if peer.len() != ecdh_len + self.ct_len {
            return Err(BAD_SHARE);
        }
        let (peer_ecdh, ct) = peer.split_at(ecdh_len);
        let mut secret = Vec::new();
        if let Some((alg, own)) = self.ecdh {
            secret.extend(aws_ecdh(alg, own, peer_ecdh)?);
        }
        let kem_secret = self.dk.decapsulate(ct.into()).map_err(|_| BAD_SHARE)?;
        secret.extend_from_slice(kem_secret.as_ref());
        Ok(SharedSecret::from(secret))
    }

    fn pub_key(&self) -> &[u8] {
        &self.share
    }

    fn group(&self) -> NamedGroup {
        self.name
    }
}

/// A group whose outgoing key share is corrupted by `mangle`: as a client, the share in its
/// ClientHello (`start`); as a server, the share in its ServerHello (`start_and_complete`).
pub struct Mangled {
    pub inner: Group,
    pub mangle: Corruption,
}

impl std::fmt::Debug for Mangled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Mangled").field(&self.inner).finish()
    }
}

/// `inner` with its outgoing shares corrupted by `mangle`, leaked to be `'static`.
pub fn mangled(inner: Group, mangle: impl Fn(&mut Vec<u8>) + Send + Sync + 'static) -> Group {
    Box::leak(Box::new(Mangled {
        inner,
        mangle: Box::new(mangle),
    }))
}

impl SupportedKxGroup for Mangled {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let inner = self.inner.start()?;
        let mut share = inner.pub_key().to_vec();
        (self.mangle)(&mut share);
        Ok(Box::new(MangledActive { inner, share }))
    }

    fn start_and_complete(&self, client_share: &[u8]) -> Result<CompletedKeyExchange, Error> {
        let mut done = self.inner.start_and_complete(client_share)?;
        (self.mangle)(&mut done.pub_key);
        Ok(done)
    }

    fn name(&self) -> NamedGroup {
        self.inner.name()
    }

    fn usable_for_version(&self, version: ProtocolVersion) -> bool {
        self.inner.usable_for_version(version)
    }
}

struct MangledActive {
    inner: Box<dyn ActiveKeyExchange>,
    share: Vec<u8>,
}

impl ActiveKeyExchange for MangledActive {
    fn complete(self: Box<Self>, peer: &[u8]) -> Result<SharedSecret, Error> {
        self.inner.complete(peer)
    }

    fn pub_key(&self) -> &[u8] {
        &self.share
    }

    fn group(&self) -> NamedGroup {
        self.inner.group()
    }
}
