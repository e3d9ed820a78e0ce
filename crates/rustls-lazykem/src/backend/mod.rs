//! The X25519 implementations, the only code of this crate that names an instruction set:
//! graviola's formally verified assembly where the target is x86_64 or aarch64 and
//! graviola's run-time CPU check passes, x25519-dalek everywhere else. graviola's because it
//! is the faster (figures: docs/performance-history.md, "TLS key exchange").

use alloc::vec::Vec;

use rustls::Error;
use zeroize::Zeroizing;

use crate::{INVALID_KEY_SHARE, random_failed};

/// An X25519 private key of either implementation; each erases itself when dropped.
pub(crate) enum X25519Secret {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    Graviola(graviola::key_agreement::x25519::PrivateKey),
    Dalek(x25519_dalek::StaticSecret),
}

/// Which X25519 implementation a key pair is made with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum X25519Impl {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    Graviola,
    Dalek,
}

impl X25519Impl {
    /// graviola where this CPU has the features its assembly needs, else x25519-dalek.
    pub(crate) fn best() -> Self {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        if graviola::util::is_cpu_supported() {
            return Self::Graviola;
        }
        Self::Dalek
    }

    /// Every implementation this CPU runs (for the tests that pair them).
    #[cfg(test)]
    pub(crate) fn available() -> Vec<Self> {
        let mut impls = alloc::vec![Self::Dalek];
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        if graviola::util::is_cpu_supported() {
            impls.push(Self::Graviola);
        }
        impls
    }

    /// A fresh key pair: the private key, its public share appended to `share`.
    pub(crate) fn generate(self, share: &mut Vec<u8>) -> Result<X25519Secret, Error> {
        match self {
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            Self::Graviola => {
                use graviola::key_agreement::x25519::PrivateKey;
                let own = PrivateKey::new_random().map_err(|_| random_failed())?;
                share.extend_from_slice(&own.public_key().as_bytes());
                Ok(X25519Secret::Graviola(own))
            }
            Self::Dalek => {
                // 32 uniform bytes; clamping happens in the scalar multiplication (RFC 7748).
                let mut scalar = Zeroizing::new([0u8; 32]);
                getrandom::fill(scalar.as_mut()).map_err(|_| random_failed())?;
                let own = x25519_dalek::StaticSecret::from(*scalar);
                share.extend_from_slice(x25519_dalek::PublicKey::from(&own).as_bytes());
                Ok(X25519Secret::Dalek(own))
            }
        }
    }
}

impl X25519Secret {
    /// X25519 with the peer's public key, consuming the private key; the shared secret is
    /// appended to `secret`. An all-zero result (a small-order peer point) is
    /// [`INVALID_KEY_SHARE`].
    pub(crate) fn agree(self, peer: &[u8; 32], secret: &mut Vec<u8>) -> Result<(), Error> {
        // RFC 8446 section 7.4.2: an all-zero X25519 result (a small-order peer point) must
        // abort the handshake. Both implementations test for it in constant time.
        match self {
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            Self::Graviola(own) => {
                use graviola::key_agreement::x25519::PublicKey;
                let shared = own
                    .diffie_hellman(&PublicKey::from_array(peer))
                    .map_err(|_| INVALID_KEY_SHARE)?;
                secret.extend_from_slice(&shared.0);
            }
            Self::Dalek(own) => {
                let shared = own.diffie_hellman(&x25519_dalek::PublicKey::from(*peer));
                if !shared.was_contributory() {
                    return Err(INVALID_KEY_SHARE);
                }
                secret.extend_from_slice(shared.as_bytes());
            }
        }
        Ok(())
    }
}
