//! Full TLS 1.3 handshakes, in memory and over loopback TCP, for every group of the crate:
//! our client against a server on AWS-LC's implementation of the group, an AWS-LC client
//! against our server, and ours against ours, with application data both ways; then the
//! HelloRetryRequest and classical-fallback paths.

mod common;

use common::{
    AWS_MLKEM512, AWS_SECP384R1MLKEM1024, Group, Outcome, Stack, client, in_memory, over_tcp,
    server,
};
use rustls::HandshakeKind;
use rustls::crypto::aws_lc_rs::kx_group as aws;

fn check(outcome: &Outcome, group: Group, kind: HandshakeKind) {
    assert_eq!(outcome.client_group, group.name(), "{outcome:?}");
    assert_eq!(outcome.server_group, group.name(), "{outcome:?}");
    assert_eq!(outcome.client_kind, kind, "{outcome:?}");
    assert_eq!(outcome.server_kind, kind, "{outcome:?}");
}

/// Six tests per group: (ours -> AWS-LC, AWS-LC -> ours, ours -> ours) x (memory, TCP).
macro_rules! every_pairing {
    ($($module:ident: ours $ours:expr, aws_lc $aws:expr;)*) => {$(
        mod $module {
            use super::*;

            #[test]
            fn our_client_aws_lc_server_in_memory() {
                let outcome = in_memory(client(Stack::Ring, &[$ours]), server(Stack::AwsLc, &[$aws]))
                    .expect("handshake");
                check(&outcome, $ours, HandshakeKind::Full);
            }

            #[test]
            fn aws_lc_client_our_server_in_memory() {
                let outcome = in_memory(client(Stack::AwsLc, &[$aws]), server(Stack::Ring, &[$ours]))
                    .expect("handshake");
                check(&outcome, $ours, HandshakeKind::Full);
            }

            #[test]
            fn ours_both_sides_in_memory() {
                let outcome = in_memory(client(Stack::Ring, &[$ours]), server(Stack::Ring, &[$ours]))
                    .expect("handshake");
                check(&outcome, $ours, HandshakeKind::Full);
            }

            #[test]
            fn our_client_aws_lc_server_over_tcp() {
                let outcome = over_tcp(client(Stack::Ring, &[$ours]), server(Stack::AwsLc, &[$aws]));
                check(&outcome, $ours, HandshakeKind::Full);
            }

            #[test]
            fn aws_lc_client_our_server_over_tcp() {
                let outcome = over_tcp(client(Stack::AwsLc, &[$aws]), server(Stack::Ring, &[$ours]));
                check(&outcome, $ours, HandshakeKind::Full);
            }

            #[test]
            fn ours_both_sides_over_tcp() {
                let outcome = over_tcp(client(Stack::Ring, &[$ours]), server(Stack::Ring, &[$ours]));
                check(&outcome, $ours, HandshakeKind::Full);
            }
        }
    )*};
}

every_pairing! {
    x25519mlkem768: ours rustls_lazykem::X25519MLKEM768, aws_lc aws::X25519MLKEM768;
    secp256r1mlkem768: ours rustls_lazykem::SECP256R1MLKEM768, aws_lc aws::SECP256R1MLKEM768;
    secp384r1mlkem1024: ours rustls_lazykem::SECP384R1MLKEM1024, aws_lc AWS_SECP384R1MLKEM1024;
    mlkem512: ours rustls_lazykem::MLKEM512, aws_lc AWS_MLKEM512;
    mlkem768: ours rustls_lazykem::MLKEM768, aws_lc aws::MLKEM768;
    mlkem1024: ours rustls_lazykem::MLKEM1024, aws_lc aws::MLKEM1024;
    x25519: ours rustls_lazykem::X25519, aws_lc aws::X25519;
    secp256r1: ours rustls_lazykem::SECP256R1, aws_lc aws::SECP256R1;
    secp384r1: ours rustls_lazykem::SECP384R1, aws_lc aws::SECP384R1;
}

/// The crate's providers, as a user would take them, against AWS-LC's default server.
#[test]
fn ring_provider_prefers_x25519mlkem768() {
    let provider = rustls_lazykem::ring_provider();
    let outcome = in_memory(
        client(Stack::Ring, &provider.kx_groups),
        server(Stack::AwsLc, rustls::crypto::aws_lc_rs::DEFAULT_KX_GROUPS),
    )
    .expect("handshake");
    check(
        &outcome,
        rustls_lazykem::X25519MLKEM768,
        HandshakeKind::Full,
    );
}

/// A client whose first share is plain X25519 meets a server that only takes X25519MLKEM768:
/// the server asks again (HelloRetryRequest) and the second ClientHello's hybrid share is
/// completed.
#[test]
fn hello_retry_our_client_aws_lc_server() {
    let outcome = in_memory(
        client(
            Stack::Ring,
            &[rustls_lazykem::X25519, rustls_lazykem::X25519MLKEM768],
        ),
        server(Stack::AwsLc, &[aws::X25519MLKEM768]),
    )
    .expect("handshake");
    check(
        &outcome,
        rustls_lazykem::X25519MLKEM768,
        HandshakeKind::FullWithHelloRetryRequest,
    );
}

#[test]
fn hello_retry_aws_lc_client_our_server() {
    let outcome = in_memory(
        client(Stack::AwsLc, &[aws::X25519, aws::X25519MLKEM768]),
        server(Stack::Ring, &[rustls_lazykem::X25519MLKEM768]),
    )
    .expect("handshake");
    check(
        &outcome,
        rustls_lazykem::X25519MLKEM768,
        HandshakeKind::FullWithHelloRetryRequest,
    );
}

#[test]
fn hello_retry_ours_both_sides_over_tcp() {
    let outcome = over_tcp(
        client(
            Stack::Ring,
            &[rustls_lazykem::X25519, rustls_lazykem::X25519MLKEM768],
        ),
        server(Stack::Ring, &[rustls_lazykem::X25519MLKEM768]),
    );
    check(
        &outcome,
        rustls_lazykem::X25519MLKEM768,
        HandshakeKind::FullWithHelloRetryRequest,
    );
}

/// Our X25519MLKEM768 client also sends its X25519 half as a plain X25519 share; a server
/// that supports only X25519 takes that one, with no HelloRetryRequest, and the client
/// completes through `complete_hybrid_component`.
#[test]
fn fallback_to_x25519_aws_lc_server() {
    let outcome = in_memory(
        client(
            Stack::Ring,
            &[rustls_lazykem::X25519MLKEM768, rustls_lazykem::X25519],
        ),
        server(Stack::AwsLc, &[aws::X25519]),
    )
    .expect("handshake");
    check(&outcome, rustls_lazykem::X25519, HandshakeKind::Full);
}

#[test]
fn fallback_to_x25519_our_server() {
    let outcome = in_memory(
        client(
            Stack::Ring,
            &[rustls_lazykem::X25519MLKEM768, rustls_lazykem::X25519],
        ),
        server(Stack::Ring, &[rustls_lazykem::X25519]),
    )
    .expect("handshake");
    check(&outcome, rustls_lazykem::X25519, HandshakeKind::Full);
}

#[test]
fn fallback_to_x25519_over_tcp() {
    let outcome = over_tcp(
        client(
            Stack::Ring,
            &[rustls_lazykem::X25519MLKEM768, rustls_lazykem::X25519],
        ),
        server(Stack::AwsLc, &[aws::X25519]),
    );
    check(&outcome, rustls_lazykem::X25519, HandshakeKind::Full);
}

/// The same for the NIST hybrids: their P-256 / P-384 half is the component.
#[test]
fn fallback_to_secp256r1_aws_lc_server() {
    let outcome = in_memory(
        client(
            Stack::Ring,
            &[rustls_lazykem::SECP256R1MLKEM768, rustls_lazykem::SECP256R1],
        ),
        server(Stack::AwsLc, &[aws::SECP256R1]),
    )
    .expect("handshake");
    check(&outcome, rustls_lazykem::SECP256R1, HandshakeKind::Full);
}

#[test]
fn fallback_to_secp384r1_aws_lc_server() {
    let outcome = in_memory(
        client(
            Stack::Ring,
            &[
                rustls_lazykem::SECP384R1MLKEM1024,
                rustls_lazykem::SECP384R1,
            ],
        ),
        server(Stack::AwsLc, &[aws::SECP384R1]),
    )
    .expect("handshake");
    check(&outcome, rustls_lazykem::SECP384R1, HandshakeKind::Full);
}

/// AWS-LC's hybrid client falls back the same way to our plain X25519 server.
#[test]
fn fallback_aws_lc_client_our_x25519_server() {
    let outcome = in_memory(
        client(Stack::AwsLc, &[aws::X25519MLKEM768, aws::X25519]),
        server(Stack::Ring, &[rustls_lazykem::X25519]),
    )
    .expect("handshake");
    check(&outcome, rustls_lazykem::X25519, HandshakeKind::Full);
}

/// The aws-lc-rs-based provider (feature `aws-lc-rs`): AWS-LC's ciphers and signatures, our
/// groups, against our ring-based server.
#[test]
fn aws_lc_rs_provider_prefers_x25519mlkem768() {
    let provider = rustls_lazykem::aws_lc_rs_provider();
    let outcome = in_memory(
        client(Stack::AwsLc, &provider.kx_groups),
        server(Stack::Ring, &rustls_lazykem::ring_provider().kx_groups),
    )
    .expect("handshake");
    check(
        &outcome,
        rustls_lazykem::X25519MLKEM768,
        HandshakeKind::Full,
    );
}
