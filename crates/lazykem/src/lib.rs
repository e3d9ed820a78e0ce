//! ML-KEM (FIPS 203): the module-lattice key-encapsulation mechanism, in
//! ML-KEM-512, ML-KEM-768 and ML-KEM-1024.
//!
//! ```
//! use lazykem::ml_kem_768::{Ciphertext, DecapsulationKey, EncapsulationKey};
//!
//! # fn main() -> Result<(), lazykem::Error> {
//! # let mut rng = rand::rng();
//! // Alice: generate a key pair and publish the encapsulation key.
//! let dk = DecapsulationKey::generate(&mut rng);
//! let ek_bytes = dk.encapsulation_key().as_bytes().to_vec();
//!
//! // Bob: parse (and check) Alice's key, encapsulate a fresh shared secret.
//! let ek = EncapsulationKey::from_bytes(&ek_bytes)?;
//! let (ct, bob_secret) = ek.encapsulate(&mut rng);
//!
//! // Alice: decapsulate the ciphertext Bob sent.
//! let ct = Ciphertext::from_bytes(ct.as_bytes())?;
//! let alice_secret = dk.decapsulate(&ct);
//! assert_eq!(alice_secret, bob_secret);
//!
//! // Store the 64-byte seed: it regenerates the same key.
//! let seed = dk.seed().expect("generated keys keep their seed");
//! let again = DecapsulationKey::from_seed(seed.as_bytes());
//! assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
//! # Ok(())
//! # }
//! ```
//!
//! # What this crate owns
//! The parameter sets, ByteEncode/ByteDecode and Compress/Decompress, K-PKE
//! (FIPS 203 Alg. 13-15), the ML-KEM algorithms (FIPS 203 Alg. 16-21), the input checks of
//! sections 7.2 and 7.3, and the public API. The arithmetic comes from `lattice-poly-ntt`
//! (lazy accumulation, cached `b*zeta`) and the sampling from `lattice-sampling`.
//!
//! # API
//! [`EncapsulationKey`], [`DecapsulationKey`] and [`Ciphertext`] are generic over the
//! [`ParameterSet`] ([`MlKem512`], [`MlKem768`], [`MlKem1024`]; sealed), which carries the
//! sizes as associated constants, so code can be written once for all three
//! (`fn f<P: ParameterSet>(dk: &DecapsulationKey<P>)`). The modules [`ml_kem_512`],
//! [`ml_kem_768`] and [`ml_kem_1024`] name each set's types (`ml_kem_768::EncapsulationKey`
//! is `EncapsulationKey<MlKem768>`) and sizes. [`SharedSecret`], [`Seed`] and [`Error`] are
//! shared. Parsed keys keep what every operation would recompute (t-hat, the
//! expanded matrix A-hat, H(ek), the cached s-hat), so repeated operations on one key skip
//! that work. For a decapsulation key stored in the expanded FIPS 203 encoding and used once,
//! `DecapsulationKey::decapsulate_expanded` imports and decapsulates in one call (same checks,
//! nothing kept, faster than the two steps). Deterministic encapsulation (`Encaps_internal`)
//! is behind the `hazmat` feature.
//!
//! `generate` and `encapsulate` take an infallible [`rand_core::CryptoRng`];
//! `try_generate` and `try_encapsulate` take a [`rand_core::TryCryptoRng`] and return its
//! error; with the `getrandom` feature, `generate_with_os_rng` and `encapsulate_with_os_rng`
//! use the operating system's RNG. `EncapsulationKey::validate` and
//! `DecapsulationKey::validate_expanded` run the checks of FIPS 203 §7.2 and FIPS 203 §7.3 on
//! encodings without building a key.
//!
//! # Features
//! | feature | default | what it adds |
//! |---|---|---|
//! | `hazmat` | no | deterministic encapsulation, and every operation on a chosen backend ([`hazmat::OnBackend`]) |
//! | `getrandom` | no | the OS-RNG conveniences above (`getrandom` 0.4) |
//! | `pkcs8` | no | PKCS#8 private keys (seed, expandedKey, both) and SPKI public keys in the IETF LAMPS format, DER (module `pkcs8`; uses `alloc`) |
//! | `pem` | no | the same in PEM |
//! | `encryption` | no | password-encrypted PKCS#8 (PBES2), read and written in every private form (`DecapsulationKey::from_pkcs8_encrypted`, `to_pkcs8_encrypted_der_as`, and the `pkcs8` traits' `*_encrypted_*` methods) |
//! | `kem` | no | the RustCrypto `kem` 0.3 traits, as RustCrypto `ml-kem` 0.3 implements them (module `kem_traits`) |
//!
//! # Coming from RustCrypto `ml-kem`
//! With the `kem` feature the key types implement the RustCrypto `kem` 0.3 traits as
//! RustCrypto `ml-kem` 0.3 does, and this crate re-exports [`kem`] (and, with `pem`,
//! [`LineEnding`]), so no extra dependency is needed. Where the same call differs:
//!
//! | call | RustCrypto `ml-kem` | this crate |
//! |---|---|---|
//! | `ek.encapsulate(..)` | trait `Encapsulate` (no argument, OS RNG) | inherent, takes the RNG: `ek.encapsulate(&mut rng)` returns `(Ciphertext, SharedSecret)` |
//! | `dk.decapsulate(&ct)` | trait `Decapsulate`, `ct` a `hybrid_array::Array` | inherent, `ct` a [`Ciphertext`]; never fails |
//! | key generation | `Generate::generate_from_rng` | inherent [`DecapsulationKey::generate`] (or the trait) |
//!
//! Inherent methods win method resolution, so a trait method of the same name needs a
//! fully qualified call (otherwise E0061 or E0308):
//!
//! ```
//! # #[cfg(feature = "kem")] {
//! use lazykem::kem::{Decapsulate, Encapsulate, Generate};
//! use lazykem::ml_kem_768::DecapsulationKey;
//!
//! let mut rng = rand::rng();
//! let dk = <DecapsulationKey as Generate>::generate_from_rng(&mut rng);
//! let ek = dk.encapsulation_key();
//! let (ct, sender) = <_ as Encapsulate>::encapsulate_with_rng(ek, &mut rng);
//! let receiver = <DecapsulationKey as Decapsulate>::decapsulate(&dk, &ct);
//! assert_eq!(sender, receiver);
//! # }
//! ```
//!
//! # Secrets and how they are erased
//! | secret | where | erased by |
//! |---|---|---|
//! | the seed (d and z) | [`Seed`], inside `DecapsulationKey` | `ZeroizeOnDrop` |
//! | s-hat and its `b*zeta` cache, z | `DecapsulationKey` | `Drop` calls `zeroize` |
//! | shared secret K | [`SharedSecret`] | `ZeroizeOnDrop` |
//! | expanded dk export | `Zeroizing<[u8; N]>` | on drop |
//! | sigma, the noise vectors s, e, y, e1, e2 and their NTTs | stack temporaries | explicit `zeroize` after use |
//! | m, r, m', r', K-bar, c' in decapsulation | stack temporaries | explicit `zeroize` / `Zeroizing` |
//! | PRF outputs | `lattice-sampling` | explicit `zeroize` |
//!
//! Secrets never reach a branch, a memory index or a division: compression uses a
//! multiply-and-shift, the ciphertext comparison and key selection use `subtle`.
//!
//! # Memory
//! Parsed keys cache what every operation would recompute, so they are larger than their
//! encodings (bytes, `size_of`, x86-64):
//!
//! | type | ML-KEM-512 | ML-KEM-768 | ML-KEM-1024 |
//! |---|---:|---:|---:|
//! | `EncapsulationKey` (t-hat, A-hat, H(ek), the encoding) | 3,904 | 7,360 | 11,840 |
//! | `DecapsulationKey` (s-hat and its cache, z, seed, the `EncapsulationKey`) | 5,538 | 9,762 | 15,010 |
//! | `Ciphertext` | 768 | 1,088 | 1,568 |
//!
//! Peak stack of each operation (KiB, to within a 4 KiB page; measured on x86-64 with
//! AVX-512, default release profile, by `cargo run --release -p lazykem --example
//! stack_usage`, which prints the table for the machine it runs on):
//!
//! | set | `generate` | `encapsulate` | `from_bytes` + `encapsulate` | `decapsulate` | `decapsulate_expanded` |
//! |---|---:|---:|---:|---:|---:|
//! | ML-KEM-512 | 36 | 40 | 40 | 28 | 60 |
//! | ML-KEM-768 | 36 | 40 | 40 | 24 | 64 |
//! | ML-KEM-1024 | 48 | 52 | 52 | 28 | 84 |
//!
//! The one-shot `decapsulate_expanded` builds a whole parsed key on the stack; a key
//! imported once and kept lives wherever the caller puts it (a `Box` for the heap).
//!
#![doc = include_str!("../SPEC_MAP.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
// `unsafe` only in the `backend` tree (the SIMD encodings), each block after a
// `// SAFETY:` comment.
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg(test)]
extern crate std;

#[cfg(feature = "pkcs8")]
extern crate alloc;

mod backend;
mod ciphertext;
pub mod compress;
mod decapsulation_key;
mod encapsulation_key;
pub mod encode;
mod error;
mod hash;
#[cfg(feature = "hazmat")]
pub mod hazmat;
mod input;
#[cfg(feature = "kem")]
pub mod kem_traits;
mod kpke;
mod ml_kem;
mod params;
#[cfg(feature = "pkcs8")]
pub mod pkcs8;
mod secret;
#[cfg(feature = "self-test")]
pub mod self_test;

pub use backend::{AnyBackend, BackendKind, backend};
pub use ciphertext::Ciphertext;
pub use decapsulation_key::DecapsulationKey;
pub use encapsulation_key::EncapsulationKey;
pub use error::Error;
pub use params::{ByteArray, MlKem512, MlKem768, MlKem1024, ParameterSet};
pub use secret::{SEED_SIZE, SHARED_SECRET_SIZE, Seed, SharedSecret};

/// The RustCrypto `kem` crate (feature `kem`), whose traits [`kem_traits`] implements: code
/// written for RustCrypto `ml-kem` names `lazykem::kem::Encapsulate` without a dependency of its
/// own.
#[cfg(feature = "kem")]
pub use ::kem;
/// The line ending of PEM output (feature `pem`), for `to_pkcs8_pem` / `to_public_key_pem`.
#[cfg(feature = "pem")]
pub use ::pkcs8::LineEnding;

/// ML-KEM-512: the key and ciphertext types of [`MlKem512`] and their sizes, under the names
/// they had before the types became generic (`ml_kem_512::EncapsulationKey` is
/// `EncapsulationKey<MlKem512>`).
pub mod ml_kem_512 {
    use crate::{MlKem512, ParameterSet};

    /// An ML-KEM-512 encapsulation key (see [`crate::EncapsulationKey`]).
    pub type EncapsulationKey = crate::EncapsulationKey<MlKem512>;
    /// An ML-KEM-512 decapsulation key (see [`crate::DecapsulationKey`]).
    pub type DecapsulationKey = crate::DecapsulationKey<MlKem512>;
    /// An ML-KEM-512 ciphertext (see [`crate::Ciphertext`]).
    pub type Ciphertext = crate::Ciphertext<MlKem512>;

    /// Size in bytes of an encoded encapsulation key: `384 k + 32`.
    pub const ENCAPSULATION_KEY_SIZE: usize = MlKem512::ENCAPSULATION_KEY_SIZE;
    /// Size in bytes of an expanded (FIPS 203) decapsulation key: `768 k + 96`.
    pub const DECAPSULATION_KEY_SIZE: usize = MlKem512::DECAPSULATION_KEY_SIZE;
    /// Size in bytes of a ciphertext: `32 (du k + dv)`.
    pub const CIPHERTEXT_SIZE: usize = MlKem512::CIPHERTEXT_SIZE;
}

/// ML-KEM-768: the key and ciphertext types of [`MlKem768`] and their sizes, under the names
/// they had before the types became generic (`ml_kem_768::EncapsulationKey` is
/// `EncapsulationKey<MlKem768>`).
pub mod ml_kem_768 {
    use crate::{MlKem768, ParameterSet};

    /// An ML-KEM-768 encapsulation key (see [`crate::EncapsulationKey`]).
    pub type EncapsulationKey = crate::EncapsulationKey<MlKem768>;
    /// An ML-KEM-768 decapsulation key (see [`crate::DecapsulationKey`]).
    pub type DecapsulationKey = crate::DecapsulationKey<MlKem768>;
    /// An ML-KEM-768 ciphertext (see [`crate::Ciphertext`]).
    pub type Ciphertext = crate::Ciphertext<MlKem768>;

    /// Size in bytes of an encoded encapsulation key: `384 k + 32`.
    pub const ENCAPSULATION_KEY_SIZE: usize = MlKem768::ENCAPSULATION_KEY_SIZE;
    /// Size in bytes of an expanded (FIPS 203) decapsulation key: `768 k + 96`.
    pub const DECAPSULATION_KEY_SIZE: usize = MlKem768::DECAPSULATION_KEY_SIZE;
    /// Size in bytes of a ciphertext: `32 (du k + dv)`.
    pub const CIPHERTEXT_SIZE: usize = MlKem768::CIPHERTEXT_SIZE;
}

/// ML-KEM-1024: the key and ciphertext types of [`MlKem1024`] and their sizes, under the names
/// they had before the types became generic (`ml_kem_1024::EncapsulationKey` is
/// `EncapsulationKey<MlKem1024>`).
pub mod ml_kem_1024 {
    use crate::{MlKem1024, ParameterSet};

    /// An ML-KEM-1024 encapsulation key (see [`crate::EncapsulationKey`]).
    pub type EncapsulationKey = crate::EncapsulationKey<MlKem1024>;
    /// An ML-KEM-1024 decapsulation key (see [`crate::DecapsulationKey`]).
    pub type DecapsulationKey = crate::DecapsulationKey<MlKem1024>;
    /// An ML-KEM-1024 ciphertext (see [`crate::Ciphertext`]).
    pub type Ciphertext = crate::Ciphertext<MlKem1024>;

    /// Size in bytes of an encoded encapsulation key: `384 k + 32`.
    pub const ENCAPSULATION_KEY_SIZE: usize = MlKem1024::ENCAPSULATION_KEY_SIZE;
    /// Size in bytes of an expanded (FIPS 203) decapsulation key: `768 k + 96`.
    pub const DECAPSULATION_KEY_SIZE: usize = MlKem1024::DECAPSULATION_KEY_SIZE;
    /// Size in bytes of a ciphertext: `32 (du k + dv)`.
    pub const CIPHERTEXT_SIZE: usize = MlKem1024::CIPHERTEXT_SIZE;
}

/// Not part of the API: the one entry point the `lazykem-xwing` crate needs below the public API,
/// so that depending on `lazykem-xwing` does not turn on this crate's `hazmat` feature. No semver
/// guarantee; do not call it.
#[doc(hidden)]
pub mod __xwing_internal {
    use crate::{AnyBackend, SharedSecret, ml_kem_768};

    /// `ML-KEM.Encaps_internal` (FIPS 203 Alg. 17) with the message X-Wing derives
    /// from its own randomness (draft-connolly-cfrg-xwing-kem section 5.4).
    #[must_use]
    pub fn encapsulate_768(
        ek: &ml_kem_768::EncapsulationKey,
        m: &[u8; 32],
    ) -> (ml_kem_768::Ciphertext, SharedSecret) {
        ek.encapsulate_internal(AnyBackend::best(), m)
    }
}

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
