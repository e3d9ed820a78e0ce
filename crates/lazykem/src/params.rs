//! The parameter sets (FIPS 203 Table 2) as types: [`ParameterSet`], sealed, implemented by
//! [`MlKem512`], [`MlKem768`] and [`MlKem1024`].
//!
//! The key types ([`crate::EncapsulationKey`], [`crate::DecapsulationKey`], [`crate::Ciphertext`]) are generic over the set. Stable Rust cannot size an
//! array by a trait's constant (`[u8; P::CIPHERTEXT_SIZE]`) nor pass one as a const
//! generic argument, so each set names its arrays as associated types and provides the
//! algorithms, monomorphized for its `k`, `eta1`, `eta2`, `du`, `dv`, through the hidden
//! supertrait [`sealed::Sealed`]; one small macro writes those impls, which only pick the
//! backend and forward to the algorithms of `kem` and `kpke`.

use crate::Error;
use crate::backend::{AnyBackend, with_backend};
use crate::ml_kem::{self, EkState};
use crate::secret::SharedSecret;
use lattice_poly_ntt::mlkem::CachedNttVector;
use zeroize::Zeroize;

/// An ML-KEM parameter set (FIPS 203 Table 2). Sealed: implemented by [`MlKem512`],
/// [`MlKem768`] and [`MlKem1024`] only.
///
/// Generic code over the three sets:
///
/// ```
/// use lazykem::{DecapsulationKey, MlKem512, MlKem1024, ParameterSet};
///
/// fn round_trip<P: ParameterSet>() -> usize {
///     let dk = DecapsulationKey::<P>::from_seed(&[1; 64]);
///     let (ct, ss) = dk.encapsulation_key().encapsulate(&mut rand::rng());
///     assert_eq!(dk.decapsulate(&ct), ss);
///     ct.as_ref().len()
/// }
/// assert_eq!(round_trip::<MlKem512>(), MlKem512::CIPHERTEXT_SIZE);
/// assert_eq!(round_trip::<MlKem1024>(), 1568);
/// ```
///
/// With the `pkcs8` feature every set also implements `AssociatedOid` and
/// `AssociatedAlgorithmIdentifier` (re-exported in [`crate::pkcs8`]; the hidden supertrait
/// `sealed::Algorithm` requires them), so generic code reads the set's object identifier
/// as `P::OID` and writes its key files without another bound.
pub trait ParameterSet:
    sealed::Sealed
    + sealed::Algorithm
    + Copy
    + core::fmt::Debug
    + Default
    + Eq
    + Ord
    + core::hash::Hash
    + Send
    + Sync
    + 'static
{
    /// "ML-KEM-768" and so on.
    const NAME: &'static str;
    /// The module rank k.
    const K: usize;
    /// eta1, the noise parameter of s, e and y.
    const ETA1: usize;
    /// eta2, the noise parameter of e1 and e2.
    const ETA2: usize;
    /// du, the bits per coefficient of u in the ciphertext.
    const DU: usize;
    /// dv, the bits per coefficient of v in the ciphertext.
    const DV: usize;
    /// Size in bytes of an encoded encapsulation key: `384 k + 32`.
    const ENCAPSULATION_KEY_SIZE: usize;
    /// Size in bytes of an expanded (FIPS 203) decapsulation key: `768 k + 96`.
    const DECAPSULATION_KEY_SIZE: usize;
    /// Size in bytes of a ciphertext: `32 (du k + dv)`.
    const CIPHERTEXT_SIZE: usize;

    /// `[u8; ENCAPSULATION_KEY_SIZE]`.
    type EncapsulationKeyBytes: ByteArray;
    /// `[u8; DECAPSULATION_KEY_SIZE]`.
    type DecapsulationKeyBytes: ByteArray;
    /// `[u8; CIPHERTEXT_SIZE]`.
    type CiphertextBytes: ByteArray;
}

/// A byte array `[u8; N]`, as the parameter sets name their encodings. Sealed.
pub trait ByteArray:
    sealed::SealedBytes
    + Copy
    + Eq
    + core::hash::Hash
    + core::fmt::Debug
    + AsRef<[u8]>
    + AsMut<[u8]>
    + Zeroize
    + Send
    + Sync
    + 'static
{
    /// All zero.
    fn zeroed() -> Self;
}

impl<const N: usize> sealed::SealedBytes for [u8; N] {}

impl<const N: usize> ByteArray for [u8; N] {
    fn zeroed() -> Self {
        [0; N]
    }
}

pub(crate) mod sealed {
    use super::{AnyBackend, Error, SharedSecret};

    /// Seals [`super::ByteArray`].
    pub trait SealedBytes {}

    /// With the `pkcs8` feature: the set's algorithm identifier (IETF LAMPS ML-KEM), as the
    /// RustCrypto `const-oid` / `spki` traits name it. Without it, nothing.
    #[cfg(feature = "pkcs8")]
    pub trait Algorithm:
        ::pkcs8::AssociatedOid
        + ::pkcs8::spki::AssociatedAlgorithmIdentifier<Params = ::pkcs8::der::AnyRef<'static>>
    {
    }

    #[cfg(feature = "pkcs8")]
    impl<T> Algorithm for T where
        T: ::pkcs8::AssociatedOid
            + ::pkcs8::spki::AssociatedAlgorithmIdentifier<Params = ::pkcs8::der::AnyRef<'static>>
    {
    }

    /// Without the `pkcs8` feature: nothing.
    #[cfg(not(feature = "pkcs8"))]
    pub trait Algorithm {}

    #[cfg(not(feature = "pkcs8"))]
    impl<T> Algorithm for T {}

    /// The algorithms of one parameter set, for the generic key types: each one
    /// dispatches on the backend and calls the const-generic internals with the set's
    /// constants. Hidden: not part of the API.
    pub trait Sealed {
        /// The parsed encapsulation key: `ml_kem::EkState<K>`.
        type EkState: Clone + Send + Sync;
        /// The cached s-hat: `CachedNttVector<K>`.
        type SHat: Clone + Send + Sync + zeroize::Zeroize;

        /// An all-zero parsed key, to be filled in place.
        fn ek_state_zero() -> Self::EkState;
        /// An all-zero s-hat, to be filled in place.
        fn s_hat_zero() -> Self::SHat;
        /// `H(ek)` of a parsed key.
        fn ek_hash(state: &Self::EkState) -> &[u8; 32];
        /// Parses `ek` (length checked) into `state`; `false` if the modulus check fails.
        fn parse_ek(backend: AnyBackend, state: &mut Self::EkState, ek: &[u8]) -> bool;
        /// The modulus check alone on `ByteEncode_12(t-hat)`.
        fn t_hat_reduced(backend: AnyBackend, t_bytes: &[u8]) -> bool;
        /// `ML-KEM.KeyGen_internal`, into the caller's key.
        fn key_gen(
            backend: AnyBackend,
            d: &[u8; 32],
            ek_out: &mut [u8],
            state: &mut Self::EkState,
            s_hat: &mut Self::SHat,
        );
        /// `ML-KEM.Encaps_internal`: the ciphertext into `ct_out`, the shared secret out.
        fn encaps(
            backend: AnyBackend,
            state: &Self::EkState,
            m: &[u8; 32],
            ct_out: &mut [u8],
        ) -> SharedSecret;
        /// Imports an expanded key's parts (lengths checked): hash check, modulus check,
        /// s-hat decoded into the caller's key.
        fn import_dk(
            backend: AnyBackend,
            dk_pke: &[u8],
            ek: &[u8],
            h: &[u8; 32],
            state: &mut Self::EkState,
            s_hat: &mut Self::SHat,
        ) -> Result<(), Error>;
        /// `ByteEncode_12(s-hat)` into `out`.
        fn export_s_hat(backend: AnyBackend, s_hat: &Self::SHat, out: &mut [u8]);
        /// `ML-KEM.Decaps_internal` on a parsed key.
        fn decaps(
            backend: AnyBackend,
            s_hat: &Self::SHat,
            state: &Self::EkState,
            z: &[u8; 32],
            ct: &[u8],
        ) -> SharedSecret;
        /// The one-shot encapsulation to an encoded key (length checked): the modulus
        /// check, then `ML-KEM.Encaps_internal`, with the parsed key on the stack only.
        fn encaps_encoded(
            backend: AnyBackend,
            ek: &[u8],
            m: &[u8; 32],
            ct_out: &mut [u8],
        ) -> Result<SharedSecret, Error>;
        /// The one-shot decapsulation of an expanded key's parts (lengths checked).
        fn decaps_expanded(
            backend: AnyBackend,
            dk_pke: &[u8],
            ek: &[u8],
            h: &[u8; 32],
            z: &[u8; 32],
            ct: &[u8],
        ) -> Result<SharedSecret, Error>;
    }
}

/// Defines one parameter set's marker type and its [`ParameterSet`] impl (FIPS 203 Table 2).
macro_rules! parameter_set {
    (
        $(#[$meta:meta])*
        $ty:ident, name: $name:literal,
        k: $k:literal, eta1: $eta1:literal, eta2: $eta2:literal, du: $du:literal, dv: $dv:literal,
        sizes: ($ek_size:literal, $dk_size:literal, $ct_size:literal)
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $ty;

        const _: () = {
            assert!($ek_size == 384 * $k + 32);
            assert!($dk_size == 768 * $k + 96);
            assert!($ct_size == 32 * ($du * $k + $dv));
            assert!($ct_size <= ml_kem::MAX_CIPHERTEXT_SIZE);
        };

        impl ParameterSet for $ty {
            const NAME: &'static str = $name;
            const K: usize = $k;
            const ETA1: usize = $eta1;
            const ETA2: usize = $eta2;
            const DU: usize = $du;
            const DV: usize = $dv;
            const ENCAPSULATION_KEY_SIZE: usize = $ek_size;
            const DECAPSULATION_KEY_SIZE: usize = $dk_size;
            const CIPHERTEXT_SIZE: usize = $ct_size;
            type EncapsulationKeyBytes = [u8; $ek_size];
            type DecapsulationKeyBytes = [u8; $dk_size];
            type CiphertextBytes = [u8; $ct_size];
        }

        /// Forwarding only: each algorithm is in `kem` / `kpke`, generic over the backend
        /// and the set's constants; this picks the backend and passes the constants.
        impl sealed::Sealed for $ty {
            type EkState = EkState<$k>;
            type SHat = CachedNttVector<$k>;

            fn ek_state_zero() -> Self::EkState {
                EkState::zero()
            }

            fn s_hat_zero() -> Self::SHat {
                CachedNttVector::zero()
            }

            fn ek_hash(state: &Self::EkState) -> &[u8; 32] {
                &state.h
            }

            fn parse_ek(backend: AnyBackend, state: &mut Self::EkState, ek: &[u8]) -> bool {
                with_backend!(backend, |b| state.parse_into(b, ek))
            }

            fn t_hat_reduced(backend: AnyBackend, t_bytes: &[u8]) -> bool {
                with_backend!(backend, |b| ml_kem::t_hat_reduced::<_, $k>(b, t_bytes))
            }

            fn key_gen(
                backend: AnyBackend,
                d: &[u8; 32],
                ek_out: &mut [u8],
                state: &mut Self::EkState,
                s_hat: &mut Self::SHat,
            ) {
                with_backend!(backend, |b| ml_kem::key_gen_internal::<_, $k, $eta1>(
                    b, d, ek_out, state, s_hat,
                ));
            }

            fn encaps(
                backend: AnyBackend,
                state: &Self::EkState,
                m: &[u8; 32],
                ct_out: &mut [u8],
            ) -> SharedSecret {
                with_backend!(backend, |b| ml_kem::encaps_internal::<_, $k, $eta1, $eta2, $du, $dv>(
                    b, state, m, ct_out,
                ))
            }

            fn import_dk(
                backend: AnyBackend,
                dk_pke: &[u8],
                ek: &[u8],
                h: &[u8; 32],
                state: &mut Self::EkState,
                s_hat: &mut Self::SHat,
            ) -> Result<(), Error> {
                with_backend!(backend, |b| ml_kem::import_expanded::<_, $k>(
                    b, dk_pke, ek, h, state, s_hat,
                ))
            }

            fn export_s_hat(backend: AnyBackend, s_hat: &Self::SHat, out: &mut [u8]) {
                with_backend!(backend, |b| ml_kem::export_s_hat::<_, $k>(b, s_hat, out));
            }

            fn decaps(
                backend: AnyBackend,
                s_hat: &Self::SHat,
                state: &Self::EkState,
                z: &[u8; 32],
                ct: &[u8],
            ) -> SharedSecret {
                with_backend!(backend, |b| ml_kem::decaps_internal::<_, $k, $eta1, $eta2, $du, $dv>(
                    b, s_hat, state, z, ct,
                ))
            }

            fn encaps_encoded(
                backend: AnyBackend,
                ek: &[u8],
                m: &[u8; 32],
                ct_out: &mut [u8],
            ) -> Result<SharedSecret, Error> {
                with_backend!(backend, |b| ml_kem::encaps_encoded::<_, $k, $eta1, $eta2, $du, $dv>(
                    b, ek, m, ct_out,
                ))
            }

            fn decaps_expanded(
                backend: AnyBackend,
                dk_pke: &[u8],
                ek: &[u8],
                h: &[u8; 32],
                z: &[u8; 32],
                ct: &[u8],
            ) -> Result<SharedSecret, Error> {
                with_backend!(backend, |b| ml_kem::decaps_expanded::<_, $k, $eta1, $eta2, $du, $dv>(
                    b, dk_pke, ek, h, z, ct,
                ))
            }
        }
    };
}

parameter_set!(
    /// ML-KEM-512 (FIPS 203 Table 2: k = 2, eta1 = 3, eta2 = 2, du = 10, dv = 4): security
    /// category 1.
    MlKem512, name: "ML-KEM-512",
    k: 2, eta1: 3, eta2: 2, du: 10, dv: 4,
    sizes: (800, 1632, 768)
);

parameter_set!(
    /// ML-KEM-768 (FIPS 203 Table 2: k = 3, eta1 = 2, eta2 = 2, du = 10, dv = 4): security
    /// category 3, the recommended default.
    MlKem768, name: "ML-KEM-768",
    k: 3, eta1: 2, eta2: 2, du: 10, dv: 4,
    sizes: (1184, 2400, 1088)
);

parameter_set!(
    /// ML-KEM-1024 (FIPS 203 Table 2: k = 4, eta1 = 2, eta2 = 2, du = 11, dv = 5): security
    /// category 5.
    MlKem1024, name: "ML-KEM-1024",
    k: 4, eta1: 2, eta2: 2, du: 11, dv: 5,
    sizes: (1568, 3168, 1568)
);
