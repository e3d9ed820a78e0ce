//! The library calls the harness makes, one `#[inline(never)]` wrapper per operation and
//! parameter set.
//!
//! Each operation that computes goes through the `hazmat` entry point that takes its
//! backend (`lazykem::hazmat::OnBackend`), so the harness runs it on every backend in turn. The
//! library runs it inside `lattice_poly_ntt::dispatch!`: on AVX2, in a closure passed to
//! `lattice_poly_ntt::backend::x86_64::avx2::with_features`, so the library code lands in that
//! function's monomorphizations too (named after `lattice_poly_ntt`, and scanned as ours).
//!
//! Every call into `lazykem` goes through these wrappers (apart from choosing the backends,
//! `AnyBackend::of` and `lazykem::backend`, which only detect CPU features), so the library
//! code the optimizer inlines lands in functions named
//! `<lazykem::params::MlKem768 as ct_harness::ops::Kem>::...` and nowhere else in the
//! harness. The division scan of `cargo xtask ct` looks at the
//! functions of the `mlkem*` crates and at these wrappers (everything under
//! `ct_harness::ops`); the driver code in `main.rs` only moves bytes and compares
//! declassified results.

use lazykem::hazmat::AnyBackend;
use lazykem::{Error, SharedSecret};

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

    /// `lazykem::ml_kem_*::DecapsulationKey`.
    type Dk: Clone;
    /// `lazykem::ml_kem_*::EncapsulationKey`.
    type Ek;
    /// `lazykem::ml_kem_*::Ciphertext`.
    type Ct: Clone;

    /// `OnBackend::decapsulation_key_from_seed` (KeyGen_internal).
    fn key_gen(backend: AnyBackend, seed: &[u8; 64]) -> Self::Dk;
    /// `DecapsulationKey::set_from_seed` (KeyGen_internal into an existing key).
    fn set_from_seed(dk: &mut Self::Dk, seed: &[u8; 64]);
    /// A copy of the encoded encapsulation key of `dk`.
    fn ek_bytes(dk: &Self::Dk) -> Vec<u8>;
    /// A copy of `OnBackend::to_expanded_bytes`.
    fn expanded_bytes(backend: AnyBackend, dk: &Self::Dk) -> Vec<u8>;
    /// `OnBackend::encapsulation_key_from_bytes` (modulus check, H(ek), A-hat).
    fn parse_ek(backend: AnyBackend, bytes: &[u8]) -> Result<Self::Ek, Error>;
    /// `OnBackend::encapsulate_deterministic` (Encaps_internal).
    fn encapsulate(backend: AnyBackend, ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, SharedSecret);
    /// `OnBackend::encapsulate_encoded_deterministic` (one-shot parse and
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
    /// `OnBackend::decapsulation_key_from_expanded_bytes` (hash check, ek parse, dk_pke decode).
    fn import_dk(backend: AnyBackend, bytes: &[u8]) -> Result<Self::Dk, Error>;
    /// `OnBackend::decapsulate` (Decaps_internal).
    fn decapsulate(backend: AnyBackend, dk: &Self::Dk, ct: &Self::Ct) -> SharedSecret;
    /// `OnBackend::decapsulate_expanded` (one-shot import and decapsulation).
    fn decapsulate_expanded(
        backend: AnyBackend,
        bytes: &[u8],
        ct: &Self::Ct,
    ) -> Result<SharedSecret, Error>;
}

pub(crate) use lazykem::{MlKem512, MlKem768, MlKem1024};

/// Every parameter set, through the library's generic types ([`lazykem::ParameterSet`]): one
/// `#[inline(never)]` instance of each wrapper per set.
impl<P: lazykem::ParameterSet> Kem for P {
    const NAME: &'static str = P::NAME;
    const EK_SIZE: usize = P::ENCAPSULATION_KEY_SIZE;
    const DK_SIZE: usize = P::DECAPSULATION_KEY_SIZE;
    const CT_SIZE: usize = P::CIPHERTEXT_SIZE;
    const K: usize = P::K;
    const ETA1: usize = P::ETA1;
    const ETA2: usize = P::ETA2;

    type Dk = lazykem::DecapsulationKey<P>;
    type Ek = lazykem::EncapsulationKey<P>;
    type Ct = lazykem::Ciphertext<P>;

    #[inline(never)]
    fn key_gen(backend: AnyBackend, seed: &[u8; 64]) -> Self::Dk {
        lazykem::hazmat::OnBackend::new(backend).decapsulation_key_from_seed(seed)
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
        lazykem::hazmat::OnBackend::new(backend)
            .to_expanded_bytes(dk)
            .as_ref()
            .to_vec()
    }

    #[inline(never)]
    fn parse_ek(backend: AnyBackend, bytes: &[u8]) -> Result<Self::Ek, Error> {
        lazykem::hazmat::OnBackend::new(backend).encapsulation_key_from_bytes(bytes)
    }

    #[inline(never)]
    fn encapsulate(backend: AnyBackend, ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, SharedSecret) {
        lazykem::hazmat::OnBackend::new(backend).encapsulate_deterministic(ek, m)
    }

    #[inline(never)]
    fn encapsulate_encoded(
        backend: AnyBackend,
        ek: &[u8],
        m: &[u8; 32],
    ) -> Result<(Self::Ct, SharedSecret), Error> {
        lazykem::hazmat::OnBackend::new(backend).encapsulate_encoded_deterministic(ek, m)
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
        lazykem::hazmat::OnBackend::new(backend).decapsulation_key_from_expanded_bytes(bytes)
    }

    #[inline(never)]
    fn decapsulate(backend: AnyBackend, dk: &Self::Dk, ct: &Self::Ct) -> SharedSecret {
        lazykem::hazmat::OnBackend::new(backend).decapsulate(dk, ct)
    }

    #[inline(never)]
    fn decapsulate_expanded(
        backend: AnyBackend,
        bytes: &[u8],
        ct: &Self::Ct,
    ) -> Result<SharedSecret, Error> {
        lazykem::hazmat::OnBackend::new(backend).decapsulate_expanded(bytes, ct)
    }
}
