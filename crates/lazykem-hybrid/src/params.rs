//! [`HybridKem`]: what makes one hybrid KEM of the CG framework (draft-irtf-cfrg-hybrid-kems
//! §5.1) different from another: its ML-KEM parameter set, its group and its label. The
//! three instances of draft-irtf-cfrg-concrete-hybrid-kems §4.

use crate::bytes::ByteArray;
use crate::group::{NominalGroup, P256, P384, X25519};
use lazykem::{MlKem768, MlKem1024, ParameterSet};

/// A hybrid KEM: ML-KEM (`KEM_PQ`) with a nominal group (`Group_T`), SHAKE256 as the PRG
/// and SHA3-256 as the KDF. Sealed; the instances are [`XWing`], [`MlKem768P256`] and
/// [`MlKem1024P384`].
pub trait HybridKem:
    sealed::Sealed
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
    /// The name of the draft: "MLKEM768-X25519", "MLKEM768-P256", "MLKEM1024-P384".
    const NAME: &'static str;
    /// The combiner's domain separator (`Label`).
    const LABEL: &'static [u8];
    /// The ML-KEM parameter set.
    type Pq: ParameterSet;
    /// The traditional group.
    type Group: NominalGroup;

    /// `Nek`: ML-KEM's encapsulation key, then the group element.
    const ENCAPSULATION_KEY_SIZE: usize;
    /// `Nct`: ML-KEM's ciphertext, then the group element.
    const CIPHERTEXT_SIZE: usize;
    /// `[u8; Nek]`.
    type EncapsulationKeyBytes: ByteArray;
    /// `[u8; Nct]`.
    type CiphertextBytes: ByteArray;
}

/// `Ndk = Nseed`: a decapsulation key is a 32-byte seed, for every instance.
pub const SEED_SIZE: usize = 32;
/// `Nss`: 32 bytes, for every instance.
pub const SHARED_SECRET_SIZE: usize = 32;

/// Bytes of randomness one encapsulation draws: ML-KEM's 32-byte message, then the group's
/// `Nseed` (`RandomScalar`'s input for the ephemeral scalar): 64 (X-Wing), 160 (P-256),
/// 80 (P-384).
#[must_use]
pub const fn encapsulation_randomness_size<H: HybridKem>() -> usize {
    32 + <H::Group as NominalGroup>::SEED_SIZE
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

macro_rules! hybrid {
    (
        $(#[$doc:meta])*
        $kem:ident, $name:literal, label: $label:expr, pq: $pq:ty, group: $group:ty,
        ek: $nek:literal, ct: $nct:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $kem;

        impl sealed::Sealed for $kem {}

        impl HybridKem for $kem {
            const NAME: &'static str = $name;
            const LABEL: &'static [u8] = $label;
            type Pq = $pq;
            type Group = $group;
            const ENCAPSULATION_KEY_SIZE: usize = $nek;
            const CIPHERTEXT_SIZE: usize = $nct;
            type EncapsulationKeyBytes = [u8; $nek];
            type CiphertextBytes = [u8; $nct];
        }

        // The sizes are the sum of the parts (draft-irtf-cfrg-hybrid-kems §5.1).
        const _: () = assert!(
            $nek == <$pq as ParameterSet>::ENCAPSULATION_KEY_SIZE
                + <$group as NominalGroup>::ELEMENT_SIZE
                && $nct == <$pq as ParameterSet>::CIPHERTEXT_SIZE
                    + <$group as NominalGroup>::ELEMENT_SIZE
        );
    };
}

hybrid! {
    /// MLKEM768-X25519, which is X-Wing (draft-connolly-cfrg-xwing-kem): ML-KEM-768 and
    /// X25519, label `\.//^\`.
    XWing, "MLKEM768-X25519", label: b"\\.//^\\", pq: MlKem768, group: X25519,
    ek: 1216, ct: 1120
}

hybrid! {
    /// MLKEM768-P256: ML-KEM-768 and P-256, label `MLKEM768-P256`.
    MlKem768P256, "MLKEM768-P256", label: b"MLKEM768-P256", pq: MlKem768, group: P256,
    ek: 1249, ct: 1153
}

hybrid! {
    /// MLKEM1024-P384: ML-KEM-1024 and P-384, label `MLKEM1024-P384`.
    MlKem1024P384, "MLKEM1024-P384", label: b"MLKEM1024-P384", pq: MlKem1024, group: P384,
    ek: 1665, ct: 1665
}
