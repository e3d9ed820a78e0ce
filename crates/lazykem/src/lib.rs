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
//! `try_generate` and `try_encapsulate` take a [`rand_core::TryCryptoRng`]; with the
//! `getrandom` feature, `generate_with_os_rng` and `encapsulate_with_os_rng` use the
//! operating system's RNG. `EncapsulationKey::validate` and
//! `DecapsulationKey::validate_expanded` run the checks of FIPS 203 §7.2 and FIPS 203 §7.3 on
//! encodings without building a key.
//!
//! # Errors
//! One error type, [`Error`], for every fallible function of the crate, and each variant
//! names the failed check: a length (`expected`, `actual`), the modulus check, the hash check,
//! the pairwise-consistency check, a self-test, the OS RNG ([`Error::Rng`], feature
//! `getrandom`, carrying `getrandom`'s error), a key file ([`Error::KeyFile`], feature
//! `pkcs8`: the OID found and the one expected, the PEM label found and the one expected,
//! ...). `?` takes any of them into `lazykem::Error`. No input makes a function panic.
//!
//! The one rule beside it: a `try_*` function that takes the caller's fallible RNG
//! (`try_generate`, `try_encapsulate`, and `kem::Generate::try_generate_from_rng`) returns
//! that RNG's own error type, since it is the only way they fail and the caller chose it;
//! `From<getrandom::Error>` for [`Error`] lets `?` convert it when that RNG is
//! `getrandom::SysRng`. The encrypted key-file writers that take an RNG return [`Error`]
//! (an RNG failure is [`pkcs8::KeyFileError::EncryptionRng`]), since they fail in other ways
//! too. The RustCrypto trait impls (`kem`, `pkcs8`, `spki`) return the errors their traits
//! declare.
//!
//! # Features
//! Every feature is off by default; the crate is `#![no_std]` and allocates only for key
//! files.
//!
//! | feature | what it adds | needs |
//! |---|---|---|
//! | `getrandom` | `generate_with_os_rng`, `encapsulate_with_os_rng` (`getrandom` 0.4), [`Error::Rng`] | an OS (or a `getrandom` backend) |
//! | `kem` | the RustCrypto `kem` 0.3 traits, as RustCrypto `ml-kem` 0.3 implements them (module [`kem_traits`]), and the re-export [`kem`] | |
//! | `pkcs8` | key files, DER: PKCS#8 private keys (seed, expandedKey, both) and SPKI public keys in the IETF LAMPS format (module [`pkcs8`]; [`pkcs8::AnyDecapsulationKey`] / [`pkcs8::AnyEncapsulationKey`] for a set read from the file) | `alloc` |
//! | `pem` | the same in PEM, and the re-export [`LineEnding`]; implies `pkcs8` | `alloc` |
//! | `encryption` | password-encrypted PKCS#8 (PBES2, as OpenSSL writes it), read and written in every private form; implies `pkcs8` | `alloc` |
//! | `self-test` | FIPS 140-3-style self-tests: known answers on first use, a pairwise-consistency test after key generation (module `self_test`, the `*_checked` operations) | `core` atomics |
//! | `hazmat` | deterministic encapsulation (`Encaps_internal`), and every operation on a backend the caller picks ([`hazmat::OnBackend`], [`hazmat::AnyBackend`]); for known-answer tests and benchmarks only | |
//! | `ct-validation` | workspace tooling (`cargo xtask ct`), not for users | |
//! | `bounds-probe` | workspace tooling (`cargo xtask bounds`), hidden, not API | |
//!
//! Combinations:
//!
//! | features | what they give together |
//! |---|---|
//! | `getrandom` + `kem` | the `kem` traits' OS-RNG methods: `Kem::generate_keypair()`, `Encapsulate::encapsulate()`, `Generate::generate()` (this turns on `kem`'s own `getrandom` feature), as code ported from RustCrypto `ml-kem` calls them |
//! | `pem` + `encryption` | encrypted PEM files (`ENCRYPTED PRIVATE KEY`): `from_pkcs8_encrypted_pem`, `to_pkcs8_encrypted_pem_as` |
//! | `encryption` + `getrandom` | the encrypted writers without an RNG argument, `to_pkcs8_encrypted_der` (and `_pem` with `pem`), inherent and the `pkcs8` trait's (`getrandom` also turns on `pkcs8`'s own `getrandom` feature, which brings in its encryption dependencies when `pkcs8` is on) |
//! | `no_std` + `alloc` (any of `pkcs8`, `pem`, `encryption`, without `getrandom`) | every key-file reader, encrypted ones included, and the writers that take an RNG; no OS needed (checked on `thumbv7em-none-eabihf`) |
//! | no feature | the KEM with the caller's RNG, no allocation |
//!
//! # Key files
//! With `pkcs8`, each inherent function has the name of the RustCrypto `pkcs8` / `spki`
//! trait method it stands for and returns [`Error`]; the same functions exist on
//! [`pkcs8::AnyDecapsulationKey`] / [`pkcs8::AnyEncapsulationKey`]. The traits are
//! implemented too (module [`pkcs8`]).
//!
//! | function | format | feature |
//! |---|---|---|
//! | `DecapsulationKey::from_pkcs8_der` | PKCS#8 `PrivateKeyInfo`, DER, any private form | `pkcs8` |
//! | `DecapsulationKey::from_pkcs8_pem` | the same, PEM `PRIVATE KEY` | `pem` |
//! | `DecapsulationKey::from_pkcs8_encrypted_der` | `EncryptedPrivateKeyInfo` (PBES2), DER, and a password | `encryption` |
//! | `DecapsulationKey::from_pkcs8_encrypted_pem` | the same, PEM `ENCRYPTED PRIVATE KEY` | `encryption` + `pem` |
//! | `DecapsulationKey::to_pkcs8_der`, `to_pkcs8_der_as(form)` | PKCS#8 DER: the seed form (the expanded form for a key without a seed), or the form given | `pkcs8` |
//! | `DecapsulationKey::to_pkcs8_pem(line_ending)`, `to_pkcs8_pem_as(form, line_ending)` | PEM `PRIVATE KEY` | `pem` |
//! | `DecapsulationKey::to_pkcs8_encrypted_der_as(form, rng, password)` | encrypted DER, salt and IV from `rng` | `encryption` |
//! | `DecapsulationKey::to_pkcs8_encrypted_pem_as(form, rng, password, line_ending)` | PEM `ENCRYPTED PRIVATE KEY` | `encryption` + `pem` |
//! | `DecapsulationKey::to_pkcs8_encrypted_der(password)`, `to_pkcs8_encrypted_pem(password, line_ending)` | the same in the default form, the OS RNG | `encryption` + `getrandom` (+ `pem`) |
//! | `EncapsulationKey::from_public_key_der`, `to_public_key_der` | SPKI `SubjectPublicKeyInfo`, DER | `pkcs8` |
//! | `EncapsulationKey::from_public_key_pem`, `to_public_key_pem(line_ending)` | the same, PEM `PUBLIC KEY` | `pem` |
//!
//! The encrypted readers refuse, before deriving a key, a key derivation over
//! [`pkcs8::MAX_PBKDF2_ITERATIONS`] PBKDF2 iterations or scrypt memory over
//! [`pkcs8::MAX_SCRYPT_MEMORY`] (or p over [`pkcs8::MAX_SCRYPT_PARALLELIZATION`]), with
//! [`pkcs8::KeyFileError::KdfCost`]: generous for every common tool's defaults, and a
//! bound on what a hostile file can cost.
//!
//! ```
//! # #[cfg(all(feature = "pem", feature = "encryption"))] {
//! use lazykem::ml_kem_768::DecapsulationKey;
//! use lazykem::{Error, LineEnding, pkcs8::KeyFileError, pkcs8::PrivateKeyForm};
//!
//! let dk = DecapsulationKey::from_seed(&[1; 64]);
//! let mut rng = rand::rng();
//! let file = dk.to_pkcs8_encrypted_pem_as(PrivateKeyForm::Seed, &mut rng, "pw", LineEnding::LF)?;
//! let again = DecapsulationKey::from_pkcs8_encrypted_pem(&file, "pw")?;
//! assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
//! // A file of the wrong kind says what it is and which function reads it.
//! let err = DecapsulationKey::from_pkcs8_pem(&file).unwrap_err();
//! assert!(matches!(err, Error::KeyFile(KeyFileError::PemLabel { .. })));
//! # }
//! # Ok::<(), lazykem::Error>(())
//! ```
//!
//! # Coming from RustCrypto `ml-kem`
//! With the `kem` feature the key types implement the RustCrypto `kem` 0.3 traits as
//! RustCrypto `ml-kem` 0.3 does, and this crate re-exports [`kem`] (and, with `pem`,
//! [`LineEnding`]), so no extra dependency is needed; with `getrandom` too, the traits'
//! OS-RNG methods exist. With `pkcs8`, the parameter sets implement `AssociatedOid` and the
//! sets and key types `AssociatedAlgorithmIdentifier`, as there. Where the same call
//! differs:
//!
//! | call | RustCrypto `ml-kem` | this crate |
//! |---|---|---|
//! | `ek.encapsulate(..)` | trait `Encapsulate` (no argument, OS RNG) | inherent, takes the RNG: `ek.encapsulate(&mut rng)` returns `(Ciphertext, SharedSecret)`; the trait's by path: `Encapsulate::encapsulate(&ek)` |
//! | `dk.decapsulate(&ct)` | trait `Decapsulate`, `ct` a `hybrid_array::Array` | inherent, `ct` a [`Ciphertext`]; never fails |
//! | key generation | `Generate::generate_from_rng`, `Kem::generate_keypair` | inherent [`DecapsulationKey::generate`] (or the traits) |
//! | key files | `DecodePrivateKey::from_pkcs8_der` and so on, `pkcs8::Error` | inherent functions of the same names, [`Error`]; the traits by path |
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
//! With `getrandom` and `kem`, the code of a RustCrypto `ml-kem` user:
//!
//! ```
//! # #[cfg(all(feature = "getrandom", feature = "kem"))] {
//! use lazykem::kem::{Decapsulate, Encapsulate, Kem};
//!
//! let (dk, ek) = lazykem::MlKem768::generate_keypair();
//! let (ct, sender) = Encapsulate::encapsulate(&ek);
//! assert_eq!(Decapsulate::decapsulate(&dk, &ct), sender);
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
mod compress;
mod decapsulation_key;
mod encapsulation_key;
mod encode;
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

pub use backend::{BackendKind, backend};
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

/// Not part of the API: the one entry point the `lazykem-hybrid` crate needs below the public
/// API, so that depending on `lazykem-hybrid` does not turn on this crate's `hazmat` feature. No
/// semver guarantee; do not call it.
#[doc(hidden)]
pub mod __hybrid_internal {
    use crate::backend::AnyBackend;
    use crate::{Ciphertext, EncapsulationKey, ParameterSet, SharedSecret};

    /// `ML-KEM.Encaps_internal` (FIPS 203 Alg. 17) with the message a hybrid KEM draws from
    /// its own randomness (draft-irtf-cfrg-hybrid-kems, `EncapsDerand`).
    #[must_use]
    pub fn encapsulate<P: ParameterSet>(
        ek: &EncapsulationKey<P>,
        m: &[u8; 32],
    ) -> (Ciphertext<P>, SharedSecret) {
        ek.encapsulate_internal(AnyBackend::best(), m)
    }

    /// A hybrid KEM's combined secret in this crate's type (same size, erasure, comparison).
    #[must_use]
    pub const fn shared_secret(bytes: [u8; 32]) -> SharedSecret {
        SharedSecret::new(bytes)
    }
}

/// Not part of the API: what `cargo xtask bounds` reads to prove Compress/Decompress exact
/// (the reciprocal constants and the two functions on every input). Compiled only with the
/// hidden `bounds-probe` feature; no semver guarantee.
#[cfg(feature = "bounds-probe")]
#[doc(hidden)]
pub mod __bounds {
    pub use crate::compress::{
        COMPRESS_D_MAX, COMPRESS_MULTIPLIER, COMPRESS_NUMERATOR_MAX, COMPRESS_SHIFT, compress,
        decompress,
    };
}

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;
