//! Post-quantum key exchange for [rustls] 0.23 on the `lazykem` ML-KEM (FIPS 203): the
//! hybrid groups of draft-ietf-tls-ecdhe-mlkem (`X25519MLKEM768`, `SecP256r1MLKEM768`,
//! `SecP384r1MLKEM1024`) and the pure ML-KEM groups of draft-ietf-tls-mlkem (`MLKEM512`,
//! `MLKEM768`, `MLKEM1024`), each a `&'static dyn SupportedKxGroup` that any rustls
//! `CryptoProvider` can take, and [`ring_provider()`] / [`aws_lc_rs_provider()`], rustls's
//! providers with these groups, X25519MLKEM768 preferred.
//!
//! # Example
//! A TLS 1.3 server and client on 127.0.0.1 with a self-signed certificate (from the `rcgen`
//! crate), both on [`ring_provider()`]: each side prints the group it negotiated,
//! X25519MLKEM768. This is the crate's `loopback` example; it needs
//! `rustls = { version = "0.23", default-features = false, features = ["std"] }` and
//! `rcgen = "0.14"` beside this crate in `[dependencies]`.
//!
//! ```
#![doc = include_str!("../examples/loopback.rs")]
//! ```
//!
//! # Features
//! | feature | gives | enables in rustls |
//! |---|---|---|
//! | `ring` (default) | [`ring_provider()`]: rustls's `ring` cipher suites, signature verification, key loading and these groups | `ring` (and `rustls-webpki`'s `ring`) |
//! | `aws-lc-rs` | [`aws_lc_rs_provider()`]: rustls's `aws-lc-rs` provider with these groups instead of AWS-LC's (builds AWS-LC: needs a C compiler) | `aws_lc_rs` |
//!
//! rustls is always taken with `default-features = false, features = ["std"]`.
//! - default (`ring`): [`ring_provider()`] and everything below.
//! - `default-features = false, features = ["aws-lc-rs"]`: [`aws_lc_rs_provider()`], no
//!   `ring` in the build.
//! - `features = ["aws-lc-rs"]` (with the default): both providers.
//! - `default-features = false`: no provider of its own; the group statics,
//!   [`ALL_KX_GROUPS`] and [`provider_with`], which puts the groups into any
//!   `CryptoProvider` (a third-party one, or rustls's own).
//!
//! A provider's TLS 1.2 cipher suites are present when rustls's `tls12` feature is on in
//! the build; the post-quantum groups are for TLS 1.3 only.
//!
//! # Checking the group
//! `negotiated_key_exchange_group()` on a `ClientConnection` or `ServerConnection` names
//! the group after the handshake (the example asserts X25519MLKEM768). A peer without
//! post-quantum support negotiates a plain group of [`ALL_KX_GROUPS`]; a provider whose
//! `kx_groups` holds only post-quantum groups refuses such peers.
//!
//! # One key exchange by hand
//! What rustls does with a group during a handshake:
//!
//! ```
//! use rustls_lazykem::X25519MLKEM768;
//!
//! // The client's key share, the server's answer, the client's end.
//! let client = X25519MLKEM768.start()?;
//! assert_eq!(client.pub_key().len(), 1184 + 32); // ML-KEM-768 ek || X25519 share
//! let server = X25519MLKEM768.start_and_complete(client.pub_key())?;
//! assert_eq!(server.pub_key.len(), 1088 + 32); // ML-KEM-768 ciphertext || X25519 share
//! let secret = client.complete(&server.pub_key)?;
//! assert_eq!(secret.secret_bytes(), server.secret.secret_bytes()); // 64 bytes
//!
//! // In a client configuration that trusts no certificate yet (add yours to `roots`).
//! # #[cfg(feature = "ring")] {
//! let roots = rustls::RootCertStore::empty();
//! let provider = std::sync::Arc::new(rustls_lazykem::ring_provider());
//! let config = rustls::ClientConfig::builder_with_provider(provider)
//!     .with_safe_default_protocol_versions()?
//!     .with_root_certificates(roots)
//!     .with_no_client_auth();
//! # let _ = config; }
//! # Ok::<(), rustls::Error>(())
//! ```
//!
//! # Groups
//! | static | code point | client share | server share | shared secret |
//! |---|---|---|---|---|
//! | [`X25519MLKEM768`] | 0x11EC | ek (1184) ‖ X25519 (32) | ct (1088) ‖ X25519 (32) | K (32) ‖ X25519 (32) |
//! | [`SECP256R1MLKEM768`] | 0x11EB | P-256 (65) ‖ ek (1184) | P-256 (65) ‖ ct (1088) | P-256 (32) ‖ K (32) |
//! | [`SECP384R1MLKEM1024`] | 0x11ED | P-384 (97) ‖ ek (1568) | P-384 (97) ‖ ct (1568) | P-384 (48) ‖ K (32) |
//! | [`MLKEM512`] | 0x0200 | ek (800) | ct (768) | K (32) |
//! | [`MLKEM768`] | 0x0201 | ek (1184) | ct (1088) | K (32) |
//! | [`MLKEM1024`] | 0x0202 | ek (1568) | ct (1568) | K (32) |
//! | [`X25519`], [`SECP256R1`], [`SECP384R1`] | 0x001D, 0x0017, 0x0018 | the hybrids' classical halves on their own | | |
//!
//! NIST points are uncompressed (`0x04 ‖ X ‖ Y`, RFC 8446 section 4.2.8.2) and their secret
//! is the x-coordinate (section 7.4.2). The hybrids and the pure groups are TLS 1.3 only.
//!
//! A client using a hybrid offers its ECDH half as the hybrid's classical component
//! (rustls's `hybrid_component`), so when the configuration also lists the plain group
//! (as [`ALL_KX_GROUPS`] does), the ClientHello carries both shares for the price of one
//! ECDH key, and a server that picks plain X25519 completes without a HelloRetryRequest.
//! The server side of every ML-KEM group encapsulates to the client's key in
//! `start_and_complete`: it generates no ML-KEM key pair.
//!
//! # Errors and alerts
//! A malformed peer share (a length other than the table's, an encapsulation key with a
//! coefficient >= q (FIPS 203 §7.2), a NIST point that is compressed, off the curve
//! or the identity, an X25519 share that gives the all-zero secret (RFC 8446 section 7.4.2))
//! is `Error::PeerMisbehaved(PeerMisbehaved::InvalidKeyShare)`, the error rustls's own
//! aws-lc-rs groups return, and rustls ends the handshake with an `illegal_parameter` alert.
//! No input makes these functions panic. A ciphertext of the right length is never rejected:
//! ML-KEM decapsulation then returns its implicit-rejection key and the handshake fails at
//! the Finished message (`decrypt_error` / `bad_record_mac`), as with every ML-KEM stack.
//! A failing operating-system RNG is `Error::FailedToGetRandomBytes`.
//!
//! # Secrets
//! The ephemeral curve scalars (`lazykem_hybrid::group` scalars, drawn from an OS-RNG seed
//! in a buffer that is erased after use) and the ML-KEM decapsulation key
//! (`lazykem::DecapsulationKey`) erase themselves when dropped (after `complete`, or unused
//! after `complete_hybrid_component`); every shared secret is built in one exactly-sized
//! buffer that is erased on failure and otherwise handed to rustls's `SharedSecret`, which
//! erases it when dropped. No type of this crate prints a secret in its `Debug` output.
//!
//! # Which implementations run
//! - ML-KEM: `lazykem`, on the best backend the CPU has (detected at run time).
//! - X25519, P-256 and P-384: `lazykem_hybrid::group`, the curves of the `lazykem-hybrid`
//!   crate: graviola 0.4's formally verified s2n-bignum assembly where graviola's CPU check
//!   passes, tested at run time (x86-64 with AES-NI, PCLMULQDQ, BMI1, ADX, AVX and AVX2;
//!   aarch64 with the AES, PMULL and SHA-2 extensions); x25519-dalek 3 and RustCrypto's
//!   `p256` / `p384` elsewhere, including every other architecture. graviola's because the
//!   curves are most of a hybrid exchange's time and it is the fastest of them. Its P-384
//!   key generation is slower than AWS-LC's (it multiplies the base point as any other
//!   point, without AWS-LC's precomputed tables), which makes SecP384r1MLKEM1024 slower
//!   than AWS-LC's exchange; the other groups are on par or faster (figures in the
//!   repository's `docs/performance-history.md`).
//! - Cipher suites and signatures: the provider's (`ring` or `aws-lc-rs`). Key shares draw
//!   from the operating system's RNG (`getrandom`), and so does the rest of the handshake
//!   with [`ring_provider()`]; [`aws_lc_rs_provider()`] keeps AWS-LC's RNG.
//!
//! [rustls]: https://docs.rs/rustls/0.23
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate alloc;

use lazykem::{MlKem512, MlKem768, MlKem1024};
use rustls::crypto::{CryptoProvider, GetRandomFailed, SupportedKxGroup};
use rustls::{Error, NamedGroup, PeerMisbehaved};

mod classical;
mod hybrid;
mod kem;
#[cfg(feature = "ring")]
mod ring_base;

use classical::EcdhGroup;
use hybrid::{HybridGroup, Order};
use kem::KemGroup;
use lazykem_hybrid::group::{self, P256, P384};

/// X25519MLKEM768 (0x11EC, draft-ietf-tls-ecdhe-mlkem): ML-KEM-768 and X25519, ML-KEM first.
/// The hybrid that browsers, OpenSSL 3.5+, Go and Cloudflare negotiate by default.
pub static X25519MLKEM768: &dyn SupportedKxGroup =
    &HybridGroup::<group::X25519, MlKem768>::new(NamedGroup::X25519MLKEM768, Order::KemFirst);

/// SecP256r1MLKEM768 (0x11EB, draft-ietf-tls-ecdhe-mlkem): P-256 and ML-KEM-768, P-256 first.
pub static SECP256R1MLKEM768: &dyn SupportedKxGroup =
    &HybridGroup::<P256, MlKem768>::new(NamedGroup::secp256r1MLKEM768, Order::EcdhFirst);

/// The code point of SecP384r1MLKEM1024 (draft-ietf-tls-ecdhe-mlkem), which rustls 0.23's
/// `NamedGroup` has no name for (it is `NamedGroup::Unknown(0x11ed)` there).
pub const SECP384R1MLKEM1024_CODE_POINT: u16 = 0x11ed;

/// SecP384r1MLKEM1024 (0x11ED, draft-ietf-tls-ecdhe-mlkem): P-384 and ML-KEM-1024, P-384
/// first.
pub static SECP384R1MLKEM1024: &dyn SupportedKxGroup = &HybridGroup::<P384, MlKem1024>::new(
    NamedGroup::Unknown(SECP384R1MLKEM1024_CODE_POINT),
    Order::EcdhFirst,
);

/// MLKEM512 (0x0200, draft-ietf-tls-mlkem): ML-KEM-512 alone.
pub static MLKEM512: &dyn SupportedKxGroup = &KemGroup::<MlKem512>::new(NamedGroup::MLKEM512);

/// MLKEM768 (0x0201, draft-ietf-tls-mlkem): ML-KEM-768 alone.
pub static MLKEM768: &dyn SupportedKxGroup = &KemGroup::<MlKem768>::new(NamedGroup::MLKEM768);

/// MLKEM1024 (0x0202, draft-ietf-tls-mlkem): ML-KEM-1024 alone.
pub static MLKEM1024: &dyn SupportedKxGroup = &KemGroup::<MlKem1024>::new(NamedGroup::MLKEM1024);

/// Plain X25519 (0x001D, RFC 8446 / RFC 7748): the classical half of [`X25519MLKEM768`]
/// (see "Which implementations run" above).
pub static X25519: &dyn SupportedKxGroup = &EcdhGroup::<group::X25519>::new();

/// Plain secp256r1 (0x0017) ECDHE: the classical half of [`SECP256R1MLKEM768`] (see "Which
/// implementations run" above).
pub static SECP256R1: &dyn SupportedKxGroup = &EcdhGroup::<P256>::new();

/// Plain secp384r1 (0x0018) ECDHE: the classical half of [`SECP384R1MLKEM1024`] (see "Which
/// implementations run" above).
pub static SECP384R1: &dyn SupportedKxGroup = &EcdhGroup::<P384>::new();

/// Every group of this crate in preference order: the hybrids (X25519MLKEM768 first), the
/// plain ECDHE groups (their classical halves, which rustls needs in the list to send a
/// hybrid's component share beside it), then the pure ML-KEM groups.
pub static ALL_KX_GROUPS: &[&dyn SupportedKxGroup] = &[
    X25519MLKEM768,
    SECP256R1MLKEM768,
    SECP384R1MLKEM1024,
    X25519,
    SECP256R1,
    SECP384R1,
    MLKEM768,
    MLKEM1024,
    MLKEM512,
];

/// `base` with its key-exchange groups replaced by [`ALL_KX_GROUPS`] (X25519MLKEM768
/// preferred); its cipher suites, signature algorithms, RNG and key loader are kept.
///
/// ```
/// // rustls's aws-lc-rs provider (rustls's `aws_lc_rs` feature) with these groups instead of
/// // AWS-LC's: the same as `aws_lc_rs_provider()`.
/// let provider = rustls_lazykem::provider_with(rustls::crypto::aws_lc_rs::default_provider());
/// assert_eq!(provider.kx_groups[0].name(), rustls::NamedGroup::X25519MLKEM768);
/// ```
#[must_use]
pub fn provider_with(base: CryptoProvider) -> CryptoProvider {
    CryptoProvider {
        kx_groups: ALL_KX_GROUPS.to_vec(),
        ..base
    }
}

/// rustls's `ring` cipher suites, signature verification and private-key loading with this
/// crate's groups, X25519MLKEM768 preferred, and the operating system's RNG (`getrandom`, the
/// source `ring` uses too). Enabled by the `ring` feature (default).
///
/// The same provider as rustls's `crypto::ring::default_provider` but for the groups, built
/// from rustls's and webpki's public `ring` items: rustls 0.23.48 deprecated that function
/// for its lack of post-quantum groups, which this one has.
///
/// ```
/// let provider = rustls_lazykem::ring_provider();
/// assert_eq!(provider.kx_groups[0].name(), rustls::NamedGroup::X25519MLKEM768);
/// ```
#[cfg(feature = "ring")]
#[cfg_attr(docsrs, doc(cfg(feature = "ring")))]
#[must_use]
pub fn ring_provider() -> CryptoProvider {
    ring_base::provider()
}

/// rustls's `aws-lc-rs` provider (ciphers, signatures, RNG) with this crate's groups in
/// place of AWS-LC's, X25519MLKEM768 preferred. Enabled by the `aws-lc-rs` feature.
///
/// ```
/// let provider = rustls_lazykem::aws_lc_rs_provider();
/// assert_eq!(provider.kx_groups[0].name(), rustls::NamedGroup::X25519MLKEM768);
/// ```
#[cfg(feature = "aws-lc-rs")]
#[cfg_attr(docsrs, doc(cfg(feature = "aws-lc-rs")))]
#[must_use]
pub fn aws_lc_rs_provider() -> CryptoProvider {
    provider_with(rustls::crypto::aws_lc_rs::default_provider())
}

/// What a malformed peer share is: the error rustls's aws-lc-rs groups return, which rustls
/// answers with an `illegal_parameter` alert.
pub(crate) const INVALID_KEY_SHARE: Error = Error::PeerMisbehaved(PeerMisbehaved::InvalidKeyShare);

/// The operating system's RNG failed.
pub(crate) fn random_failed() -> Error {
    Error::from(GetRandomFailed)
}

/// The README's examples (the loopback server and client, the post-quantum-only provider),
/// compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    use super::*;

    /// (group, client share, server share, secret) lengths of the table in the crate docs.
    const SIZES: [(&dyn SupportedKxGroup, usize, usize, usize); 9] = [
        (X25519MLKEM768, 1216, 1120, 64),
        (SECP256R1MLKEM768, 1249, 1153, 64),
        (SECP384R1MLKEM1024, 1665, 1665, 80),
        (MLKEM512, 800, 768, 32),
        (MLKEM768, 1184, 1088, 32),
        (MLKEM1024, 1568, 1568, 32),
        (X25519, 32, 32, 32),
        (SECP256R1, 65, 65, 32),
        (SECP384R1, 97, 97, 48),
    ];

    #[test]
    fn every_group_agrees_with_itself_at_the_documented_sizes() {
        for (group, client_len, server_len, secret_len) in SIZES {
            let client = group.start().expect("start");
            assert_eq!(client.group(), group.name());
            assert_eq!(client.pub_key().len(), client_len, "{group:?}");
            let server = group.start_and_complete(client.pub_key()).expect("server");
            assert_eq!(server.group, group.name());
            assert_eq!(server.pub_key.len(), server_len, "{group:?}");
            let secret = client.complete(&server.pub_key).expect("client");
            assert_eq!(secret.secret_bytes().len(), secret_len, "{group:?}");
            assert_eq!(
                secret.secret_bytes(),
                server.secret.secret_bytes(),
                "{group:?}"
            );
        }
    }

    #[test]
    fn empty_and_truncated_shares_are_invalid_key_shares() {
        for (group, client_len, server_len, _) in SIZES {
            let client = group.start().expect("start");
            for len in [0, 1, client_len - 1] {
                let err = group.start_and_complete(&client.pub_key()[..len]).err();
                assert_eq!(err, Some(INVALID_KEY_SHARE), "{group:?}, {len}");
            }
            for len in [0, 1, server_len - 1] {
                let client = group.start().expect("start");
                let err = client.complete(&vec![4; len]).err();
                assert_eq!(err, Some(INVALID_KEY_SHARE), "{group:?}, {len}");
            }
        }
    }

    /// The hybrid's classical component is exactly the plain group's share inside the
    /// combined share, and completes against the plain group's server side.
    #[test]
    fn hybrid_components_complete_against_the_plain_groups() {
        for (hybrid, plain, at) in [
            (X25519MLKEM768, X25519, 1184),
            (SECP256R1MLKEM768, SECP256R1, 0),
            (SECP384R1MLKEM1024, SECP384R1, 0),
        ] {
            let client = hybrid.start().expect("start");
            let (name, share) = client.hybrid_component().expect("a component");
            assert_eq!(name, plain.name());
            assert_eq!(share, &client.pub_key()[at..at + share.len()]);
            let server = plain.start_and_complete(share).expect("server");
            let secret = client
                .complete_hybrid_component(&server.pub_key)
                .expect("client");
            assert_eq!(secret.secret_bytes(), server.secret.secret_bytes());
        }
        for group in [MLKEM512, MLKEM768, MLKEM1024, X25519] {
            assert!(group.start().expect("start").hybrid_component().is_none());
        }
    }

    #[test]
    fn post_quantum_groups_are_tls13_only() {
        use rustls::ProtocolVersion::{TLSv1_2, TLSv1_3};
        for (group, ..) in &SIZES[..6] {
            assert!(group.usable_for_version(TLSv1_3) && !group.usable_for_version(TLSv1_2));
        }
        for (group, ..) in &SIZES[6..] {
            assert!(group.usable_for_version(TLSv1_2));
        }
    }

    #[test]
    fn debug_output_names_the_groups_only() {
        let text = format!("{ALL_KX_GROUPS:?}");
        assert!(
            text.contains("X25519MLKEM768") && text.contains("ML-KEM-1024"),
            "{text}"
        );
        assert!(
            text.contains("NamedGroup(0x11ed)"),
            "SecP384r1MLKEM1024 by number: {text}"
        );
    }
}
