//! The PQ/T hybrid KEMs of draft-irtf-cfrg-concrete-hybrid-kems: MLKEM768-X25519 (which is
//! X-Wing), MLKEM768-P256 and MLKEM1024-P384, as draft-ietf-hpke-pq registers them for HPKE
//! and the LAMPS composite KEMs use them. One generic construction ([`HybridKem`]) on the
//! `lazykem` crate's parsed ML-KEM keys and the fastest constant-time curves ([`group`]).
//!
//! ```
//! use lazykem_hybrid::mlkem768_p256::{Ciphertext, DecapsulationKey, EncapsulationKey};
//!
//! # fn main() -> Result<(), lazykem_hybrid::Error> {
//! let mut rng = rand::rng();
//! // Receiver: a key pair; publish the 1249-byte encapsulation key.
//! let dk = DecapsulationKey::generate(&mut rng);
//! let ek_bytes = dk.encapsulation_key().as_bytes();
//!
//! // Sender: parse the key once (ML-KEM's check, A-hat; the P-256 point), encapsulate.
//! let ek = EncapsulationKey::from_bytes(ek_bytes)?;
//! let (ct, sender) = ek.encapsulate(&mut rng);
//!
//! // Receiver: parse (the P-256 point is checked) and decapsulate the 1153-byte ciphertext.
//! let ct = Ciphertext::from_bytes(ct.as_bytes())?;
//! assert_eq!(dk.decapsulate(&ct), sender);
//!
//! // The 32-byte seed is the whole private key.
//! let again = DecapsulationKey::from_seed(dk.seed())?;
//! assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
//! # Ok(())
//! # }
//! ```
//!
//! # The construction (draft-irtf-cfrg-hybrid-kems §5.1, the CG framework)
//! | step | what it does |
//! |---|---|
//! | key | a 32-byte seed; `SHAKE256(seed, 64 + Nseed_T)` = ML-KEM's `d \|\| z` then the group's `RandomScalar` seed; `ek = ek_PQ \|\| Exp(g, sk_T)` |
//! | encapsulate | randomness = ML-KEM's message `m` (32 bytes) then a `RandomScalar` seed for the ephemeral `sk_E`; `ct = ct_PQ \|\| Exp(g, sk_E)` |
//! | combine | `ss = SHA3-256(ss_PQ \|\| ss_T \|\| ct_T \|\| ek_T \|\| label)` |
//!
//! | instance | module | ML-KEM | group | label | `Nek` | `Nct` | randomness |
//! |---|---|---|---|---|---|---|---|
//! | MLKEM768-X25519 (X-Wing) | [`x_wing`] | 768 | X25519 | `\.//^\` | 1216 | 1120 | 64 |
//! | MLKEM768-P256 | [`mlkem768_p256`] | 768 | P-256 | `MLKEM768-P256` | 1249 | 1153 | 160 |
//! | MLKEM1024-P384 | [`mlkem1024_p384`] | 1024 | P-384 | `MLKEM1024-P384` | 1665 | 1665 | 80 |
//!
//! # What this crate owns
//! The key expansion, the combiner, the encodings, the checks and the API. ML-KEM is the
//! `lazykem` crate's (its parsed encapsulation key keeps A-hat and H(ek), so a sender
//! encapsulating to one key many times parses it once); the curves are graviola's
//! formally verified assembly where the CPU runs it and `x25519-dalek` / `p256` / `p384`
//! elsewhere ([`group`]); SHAKE256 and SHA3-256 are `lattice-sampling`'s Keccak. No curve
//! arithmetic is written here.
//!
//! # Checks
//! Parsing an encapsulation key runs ML-KEM's modulus check (FIPS 203 §7.2) and checks a
//! NIST point (uncompressed, on the curve); parsing a ciphertext checks its NIST point, so
//! decapsulation cannot fail. X25519 takes every 32-byte string and the drafts do not
//! refuse an all-zero X25519 output: the shared secret then rests on ML-KEM alone, which
//! the combiner still binds.
//!
//! # Secrets
//! The seed, ML-KEM's key, the group scalars and the shared secrets are erased on drop or
//! after use; `Debug` prints none of them.
//!
//! # Errors
//! One error type, [`Error`], for every fallible function of the crate. The `try_*`
//! functions take the caller's fallible RNG and return that RNG's own error type.
//!
//! # Features
//! | feature | what it adds |
//! |---|---|
//! | `graviola` (default) | graviola's assembly for the curves on x86_64 / aarch64 CPUs that run it (links `std` there) |
//! | `std` | the fallback `p256` / `p384` with their precomputed base-point tables (for targets without graviola) |
//! | `getrandom` | `generate_with_os_rng`, `encapsulate_with_os_rng`, [`Error::Rng`] |
//! | `kem` | the RustCrypto `kem` 0.3 traits ([`kem_traits`]) and the re-export [`kem`] |
//! | `hazmat` | `EncapsulationKey::encapsulate_deterministic` (`EncapsDerand`), for known-answer tests only |
//!
//! Without default features the crate is `#![no_std]` and does not allocate.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

#[cfg(test)]
extern crate alloc;
#[cfg(test)]
extern crate std;

mod bytes;
mod ciphertext;
mod combiner;
mod decapsulation_key;
mod encapsulation_key;
mod error;
pub mod group;
mod params;

#[cfg(feature = "kem")]
pub mod kem_traits;

/// The RustCrypto `kem` crate (feature `kem`), whose traits [`kem_traits`] implements.
#[cfg(feature = "kem")]
pub use ::kem;

pub use bytes::ByteArray;
pub use ciphertext::Ciphertext;
pub use decapsulation_key::DecapsulationKey;
pub use encapsulation_key::EncapsulationKey;
pub use error::{Error, Part};
/// The 32-byte shared secret: `lazykem`'s type (erased on drop, compared in constant time,
/// not shown by `Debug`), the same for ML-KEM alone and for every hybrid.
pub use lazykem::SharedSecret;
pub use params::{
    HybridKem, MlKem768P256, MlKem1024P384, SEED_SIZE, SHARED_SECRET_SIZE, XWing,
    encapsulation_randomness_size,
};

macro_rules! instance {
    ($(#[$doc:meta])* $module:ident, $kem:ident) => {
        $(#[$doc])*
        pub mod $module {
            use crate::HybridKem;

            #[doc = concat!("The KEM marker: [`crate::", stringify!($kem), "`].")]
            pub type Kem = crate::$kem;
            #[doc = concat!("An encapsulation key (see [`crate::EncapsulationKey`]).")]
            pub type EncapsulationKey = crate::EncapsulationKey<crate::$kem>;
            #[doc = concat!("A decapsulation key (see [`crate::DecapsulationKey`]).")]
            pub type DecapsulationKey = crate::DecapsulationKey<crate::$kem>;
            #[doc = concat!("A ciphertext (see [`crate::Ciphertext`]).")]
            pub type Ciphertext = crate::Ciphertext<crate::$kem>;
            pub use crate::SharedSecret;

            /// Size in bytes of an encapsulation key (`Nek`).
            pub const ENCAPSULATION_KEY_SIZE: usize = crate::$kem::ENCAPSULATION_KEY_SIZE;
            /// Size in bytes of a decapsulation key: the seed (`Ndk`).
            pub const DECAPSULATION_KEY_SIZE: usize = crate::SEED_SIZE;
            /// Size in bytes of a ciphertext (`Nct`).
            pub const CIPHERTEXT_SIZE: usize = crate::$kem::CIPHERTEXT_SIZE;
            /// Size in bytes of a shared secret (`Nss`).
            pub const SHARED_SECRET_SIZE: usize = crate::SHARED_SECRET_SIZE;
            /// Bytes of randomness one encapsulation draws.
            pub const ENCAPSULATION_RANDOMNESS_SIZE: usize =
                crate::encapsulation_randomness_size::<crate::$kem>();
        }
    };
}

instance! {
    /// MLKEM768-X25519, which is X-Wing (draft-connolly-cfrg-xwing-kem -05 to -10).
    x_wing, XWing
}
instance! {
    /// MLKEM768-P256.
    mlkem768_p256, MlKem768P256
}
instance! {
    /// MLKEM1024-P384.
    mlkem1024_p384, MlKem1024P384
}

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
