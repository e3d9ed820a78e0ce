//! The non-key-exchange half of [`crate::ring_provider`]: rustls's `ring` cipher suites, the
//! signature verification algorithms webpki implements on `ring`, a private-key loader and
//! an RNG, assembled from public, non-deprecated items. rustls 0.23.48 deprecated
//! `rustls::crypto::ring::default_provider` because its groups have no post-quantum member;
//! this crate replaces the groups, so it builds the rest itself instead of calling it. The
//! unit test below checks that the result equals rustls's own in everything but the groups.

use alloc::sync::Arc;

use rustls::SignatureScheme;
use rustls::crypto::{
    CryptoProvider, GetRandomFailed, KeyProvider, SecureRandom, WebPkiSupportedAlgorithms,
};
use rustls::pki_types::PrivateKeyDer;
use rustls::sign::SigningKey;
use webpki::ring as alg;
use zeroize::Zeroizing;

use crate::ALL_KX_GROUPS;

/// rustls's `ring` provider with [`ALL_KX_GROUPS`]: see [`crate::ring_provider`].
pub(crate) fn provider() -> CryptoProvider {
    CryptoProvider {
        cipher_suites: rustls::crypto::ring::DEFAULT_CIPHER_SUITES.to_vec(),
        kx_groups: ALL_KX_GROUPS.to_vec(),
        signature_verification_algorithms: SIGNATURES,
        secure_random: &OsRandom,
        key_provider: &RingKeys,
    }
}

/// The signature algorithms webpki verifies with `ring`: every one for certificate chains
/// (`all`), and per TLS `SignatureScheme` the ones a peer's handshake signature may use
/// (`mapping`, in our order of preference, which the ClientHello and CertificateRequest
/// advertise; TLS 1.3 tries only the first entry, TLS 1.2 each: RFC 8446 section 4.2.3).
static SIGNATURES: WebPkiSupportedAlgorithms = WebPkiSupportedAlgorithms {
    all: &[
        alg::ECDSA_P256_SHA256,
        alg::ECDSA_P256_SHA384,
        alg::ECDSA_P384_SHA256,
        alg::ECDSA_P384_SHA384,
        alg::ED25519,
        alg::RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
        alg::RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
        alg::RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
        alg::RSA_PKCS1_2048_8192_SHA256,
        alg::RSA_PKCS1_2048_8192_SHA384,
        alg::RSA_PKCS1_2048_8192_SHA512,
        alg::RSA_PKCS1_2048_8192_SHA256_ABSENT_PARAMS,
        alg::RSA_PKCS1_2048_8192_SHA384_ABSENT_PARAMS,
        alg::RSA_PKCS1_2048_8192_SHA512_ABSENT_PARAMS,
    ],
    mapping: &[
        // TLS 1.3 binds the ECDSA scheme to its curve, TLS 1.2 does not: the matching curve
        // first, the other for TLS 1.2 peers.
        (
            SignatureScheme::ECDSA_NISTP384_SHA384,
            &[alg::ECDSA_P384_SHA384, alg::ECDSA_P256_SHA384],
        ),
        (
            SignatureScheme::ECDSA_NISTP256_SHA256,
            &[alg::ECDSA_P256_SHA256, alg::ECDSA_P384_SHA256],
        ),
        (SignatureScheme::ED25519, &[alg::ED25519]),
        (
            SignatureScheme::RSA_PSS_SHA512,
            &[alg::RSA_PSS_2048_8192_SHA512_LEGACY_KEY],
        ),
        (
            SignatureScheme::RSA_PSS_SHA384,
            &[alg::RSA_PSS_2048_8192_SHA384_LEGACY_KEY],
        ),
        (
            SignatureScheme::RSA_PSS_SHA256,
            &[alg::RSA_PSS_2048_8192_SHA256_LEGACY_KEY],
        ),
        (
            SignatureScheme::RSA_PKCS1_SHA512,
            &[alg::RSA_PKCS1_2048_8192_SHA512],
        ),
        (
            SignatureScheme::RSA_PKCS1_SHA384,
            &[alg::RSA_PKCS1_2048_8192_SHA384],
        ),
        (
            SignatureScheme::RSA_PKCS1_SHA256,
            &[alg::RSA_PKCS1_2048_8192_SHA256],
        ),
    ],
};

/// rustls's randomness (hello randoms, session identifiers and tickets) from the operating
/// system's RNG, the source the key shares of this crate use too.
#[derive(Debug)]
struct OsRandom;

impl SecureRandom for OsRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        getrandom::fill(buf).map_err(|_| GetRandomFailed)
    }
}

/// Loads a certificate's private key (RSA, ECDSA P-256 / P-384 or Ed25519; PKCS#8, PKCS#1 or
/// SEC1) as a `ring` signing key; the DER is erased once parsed.
#[derive(Debug)]
struct RingKeys;

impl KeyProvider for RingKeys {
    fn load_private_key(
        &self,
        key_der: PrivateKeyDer<'static>,
    ) -> Result<Arc<dyn SigningKey>, rustls::Error> {
        rustls::crypto::ring::sign::any_supported_type(&Zeroizing::new(key_der))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rustls's own `ring` provider, which this module replaces (deprecated since rustls
    /// 0.23.48 for its lack of post-quantum groups): named here only to compare with it.
    #[allow(deprecated)]
    fn rustls_ring() -> CryptoProvider {
        rustls::crypto::ring::default_provider()
    }

    fn names<T: core::fmt::Debug>(items: &[T]) -> Vec<String> {
        items.iter().map(|item| format!("{item:?}")).collect()
    }

    #[test]
    fn same_as_rustls_ring_provider_but_the_groups() {
        let ours = provider();
        let theirs = rustls_ring();
        assert_eq!(names(&ours.cipher_suites), names(&theirs.cipher_suites));
        let (ours, theirs) = (
            &ours.signature_verification_algorithms,
            &theirs.signature_verification_algorithms,
        );
        assert_eq!(names(ours.all), names(theirs.all));
        assert_eq!(ours.mapping.len(), theirs.mapping.len());
        for ((scheme, algs), (their_scheme, their_algs)) in ours.mapping.iter().zip(theirs.mapping)
        {
            assert_eq!(scheme, their_scheme);
            assert_eq!(names(algs), names(their_algs), "{scheme:?}");
        }
        assert!(!ours.fips());
    }

    #[test]
    fn groups_are_ours_and_x25519mlkem768_first() {
        let groups = provider().kx_groups;
        assert_eq!(names(&groups), names(ALL_KX_GROUPS));
        assert_eq!(groups[0].name(), rustls::NamedGroup::X25519MLKEM768);
    }

    #[test]
    fn rng_fills_and_keys_load() {
        let mut bytes = [0u8; 64];
        OsRandom.fill(&mut bytes).expect("the OS RNG");
        assert_ne!(bytes, [0u8; 64]);

        let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])
            .expect("rcgen makes a key");
        let der = PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
        let key = RingKeys.load_private_key(der).expect("an ECDSA P-256 key");
        assert_eq!(key.algorithm(), rustls::SignatureAlgorithm::ECDSA);
        assert!(
            RingKeys
                .load_private_key(PrivateKeyDer::Pkcs8(vec![0; 8].into()))
                .is_err()
        );
    }
}
