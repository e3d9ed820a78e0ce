//! The library calls the harness makes, one `#[inline(never)]` wrapper per operation and
//! parameter set.
//!
//! Each operation that computes goes through the `hazmat` entry point that takes its
//! backend (`*_on(AnyBackend, ..)`), so the harness runs it on every backend in turn. The
//! library runs it inside `lattice_poly_ntt::dispatch!`: on AVX2, in a closure passed to
//! `lattice_poly_ntt::backend::avx2::with_features`, so the library code lands in that
//! function's monomorphizations too (named after `lattice_poly_ntt`, and scanned as ours).
//!
//! Every call into `mlkem` goes through these wrappers (apart from choosing the backends,
//! `AnyBackend::of` and `mlkem::backend`, which only detect CPU features), so the library
//! code the optimizer inlines lands in functions named
//! `<mlkem::params::MlKem768 as ct_harness::ops::Kem>::...` and nowhere else in the
//! harness. The division scan of `cargo xtask ct` looks at the
//! functions of the `mlkem*` crates and at these wrappers (everything under
//! `ct_harness::ops`); the driver code in `main.rs` only moves bytes and compares
//! declassified results.

use mlkem::{AnyBackend, Error, SharedSecret};

/// One ML-KEM parameter set, as the harness drives it.
pub(crate) trait Kem {
    /// "ML-KEM-768" and so on.
    const NAME: &'static str;
    /// Encapsulation key size.
    const EK_SIZE: usize;
    /// Expanded decapsulation key size (`dk_pke || ek || H(ek) || z`).
    const DK_SIZE: usize;
    /// Ciphertext size.
    const CT_SIZE: usize;
    /// The module rank k.
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "read by the x86_64-only residue report")
    )]
    const K: usize;
    /// eta1 (noise of s, e and y).
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "read by the x86_64-only residue report")
    )]
    const ETA1: usize;
    /// eta2 (noise of e1, e2).
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "read by the x86_64-only residue report")
    )]
    const ETA2: usize;

    /// `mlkem::ml_kem_*::DecapsulationKey`.
    type Dk: Clone;
    /// `mlkem::ml_kem_*::EncapsulationKey`.
    type Ek;
    /// `mlkem::ml_kem_*::Ciphertext`.
    type Ct: Clone;

    /// `DecapsulationKey::from_seed_on` (KeyGen_internal).
    fn key_gen(backend: AnyBackend, seed: &[u8; 64]) -> Self::Dk;
    /// `DecapsulationKey::set_from_seed` (KeyGen_internal into an existing key).
    fn set_from_seed(dk: &mut Self::Dk, seed: &[u8; 64]);
    /// A copy of the encoded encapsulation key of `dk`.
    fn ek_bytes(dk: &Self::Dk) -> Vec<u8>;
    /// A copy of `DecapsulationKey::to_expanded_bytes_on`.
    fn expanded_bytes(backend: AnyBackend, dk: &Self::Dk) -> Vec<u8>;
    /// `EncapsulationKey::from_bytes_on` (modulus check, H(ek), A-hat).
    fn parse_ek(backend: AnyBackend, bytes: &[u8]) -> Result<Self::Ek, Error>;
    /// `EncapsulationKey::encapsulate_deterministic_on` (Encaps_internal).
    fn encapsulate(backend: AnyBackend, ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, SharedSecret);
    /// `EncapsulationKey::encapsulate_encoded_deterministic_on` (one-shot parse and
    /// encapsulation).
    fn encapsulate_encoded(
        backend: AnyBackend,
        ek: &[u8],
        m: &[u8; 32],
    ) -> Result<(Self::Ct, SharedSecret), Error>;
    /// A copy of the ciphertext bytes.
    fn ct_bytes(ct: &Self::Ct) -> Vec<u8>;
    /// `Ciphertext::from_bytes`.
    fn parse_ct(bytes: &[u8]) -> Result<Self::Ct, Error>;
    /// `DecapsulationKey::from_expanded_bytes_on` (hash check, ek parse, dk_pke decode).
    fn import_dk(backend: AnyBackend, bytes: &[u8]) -> Result<Self::Dk, Error>;
    /// `DecapsulationKey::decapsulate_on` (Decaps_internal).
    fn decapsulate(backend: AnyBackend, dk: &Self::Dk, ct: &Self::Ct) -> SharedSecret;
    /// `DecapsulationKey::decapsulate_expanded_on` (one-shot import and decapsulation).
    fn decapsulate_expanded(
        backend: AnyBackend,
        bytes: &[u8],
        ct: &Self::Ct,
    ) -> Result<SharedSecret, Error>;
}

pub(crate) use mlkem::{MlKem512, MlKem768, MlKem1024};

/// Every parameter set, through the library's generic types ([`mlkem::ParameterSet`]): one
/// `#[inline(never)]` instance of each wrapper per set.
impl<P: mlkem::ParameterSet> Kem for P {
    const NAME: &'static str = P::NAME;
    const EK_SIZE: usize = P::ENCAPSULATION_KEY_SIZE;
    const DK_SIZE: usize = P::DECAPSULATION_KEY_SIZE;
    const CT_SIZE: usize = P::CIPHERTEXT_SIZE;
    const K: usize = P::K;
    const ETA1: usize = P::ETA1;
    const ETA2: usize = P::ETA2;

    type Dk = mlkem::DecapsulationKey<P>;
    type Ek = mlkem::EncapsulationKey<P>;
    type Ct = mlkem::Ciphertext<P>;

    #[inline(never)]
    fn key_gen(backend: AnyBackend, seed: &[u8; 64]) -> Self::Dk {
        Self::Dk::from_seed_on(backend, seed)
    }

    #[inline(never)]
    fn set_from_seed(dk: &mut Self::Dk, seed: &[u8; 64]) {
        dk.set_from_seed(seed);
    }

    #[inline(never)]
    fn ek_bytes(dk: &Self::Dk) -> Vec<u8> {
        dk.encapsulation_key().as_bytes().as_ref().to_vec()
    }

    #[inline(never)]
    fn expanded_bytes(backend: AnyBackend, dk: &Self::Dk) -> Vec<u8> {
        dk.to_expanded_bytes_on(backend).as_ref().to_vec()
    }

    #[inline(never)]
    fn parse_ek(backend: AnyBackend, bytes: &[u8]) -> Result<Self::Ek, Error> {
        Self::Ek::from_bytes_on(backend, bytes)
    }

    #[inline(never)]
    fn encapsulate(backend: AnyBackend, ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, SharedSecret) {
        ek.encapsulate_deterministic_on(backend, m)
    }

    #[inline(never)]
    fn encapsulate_encoded(
        backend: AnyBackend,
        ek: &[u8],
        m: &[u8; 32],
    ) -> Result<(Self::Ct, SharedSecret), Error> {
        Self::Ek::encapsulate_encoded_deterministic_on(backend, ek, m)
    }

    #[inline(never)]
    fn ct_bytes(ct: &Self::Ct) -> Vec<u8> {
        ct.as_bytes().as_ref().to_vec()
    }

    #[inline(never)]
    fn parse_ct(bytes: &[u8]) -> Result<Self::Ct, Error> {
        Self::Ct::from_bytes(bytes)
    }

    #[inline(never)]
    fn import_dk(backend: AnyBackend, bytes: &[u8]) -> Result<Self::Dk, Error> {
        Self::Dk::from_expanded_bytes_on(backend, bytes)
    }

    #[inline(never)]
    fn decapsulate(backend: AnyBackend, dk: &Self::Dk, ct: &Self::Ct) -> SharedSecret {
        dk.decapsulate_on(backend, ct)
    }

    #[inline(never)]
    fn decapsulate_expanded(
        backend: AnyBackend,
        bytes: &[u8],
        ct: &Self::Ct,
    ) -> Result<SharedSecret, Error> {
        Self::Dk::decapsulate_expanded_on(backend, bytes, ct)
    }
}
