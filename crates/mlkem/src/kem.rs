//! The ML-KEM internal algorithms (FIPS 203 section 6): KeyGen_internal, Encaps_internal
//! and Decaps_internal, generic over the backend and the parameter set, on parsed keys.

use crate::backend::KemBackend;
use crate::hash;
use crate::kpke::{self, PublicKey};
use crate::secret::SharedSecret;
use lattice_poly_ntt::mlkem::CachedNttVector;
use lattice_sampling::Digest32;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// The largest ciphertext of the three parameter sets (ML-KEM-1024).
pub(crate) const MAX_CIPHERTEXT_SIZE: usize = 1568;

/// A parsed encapsulation key: the K-PKE public key with A-hat expanded, and H(ek).
#[derive(Clone)]
pub(crate) struct EkState<const K: usize> {
    pub(crate) pk: PublicKey<K>,
    pub(crate) h: [u8; 32],
}

impl<const K: usize> EkState<K> {
    /// An all-zero state, for key generation to overwrite in place.
    pub(crate) const fn zero() -> Self {
        Self {
            pk: PublicKey {
                t_hat: lattice_poly_ntt::mlkem::NttVector::zero(),
                a_hat: lattice_poly_ntt::mlkem::Matrix::zero(),
            },
            h: [0; 32],
        }
    }

    /// Parses `ek` (length already checked) into `self`: the modulus check of FIPS 203
    /// section 7.2, then A-hat and H(ek), computed once for every later encapsulation.
    /// `false` if the modulus check fails.
    #[inline(always)]
    pub(crate) fn parse_into<B: KemBackend>(&mut self, b: B, ek: &[u8]) -> bool {
        match self.pk.parse_and_hash_into(b, ek) {
            Some(h) => {
                self.h = h;
                true
            }
            None => false,
        }
    }

    /// Parses the `ek` embedded in an expanded decapsulation key beside its hash `h` into
    /// `self`: the hash check of FIPS 203 section 7.3, then the modulus check. `extra` is
    /// an independent hash to run alongside (see `PublicKey::parse_checking_hash_into`).
    #[inline(always)]
    pub(crate) fn parse_checking_hash_into<B: KemBackend>(
        &mut self,
        b: B,
        ek: &[u8],
        h: &[u8; 32],
        extra: Option<Digest32<'_>>,
    ) -> Result<(), crate::Error> {
        self.pk.parse_checking_hash_into(b, ek, h, extra)?;
        self.h = *h;
        Ok(())
    }
}

/// Constant-time equality of two byte strings of equal (public) length: the OR of all byte
/// differences, tested once with `subtle` (a `subtle` comparison per byte would pass every
/// byte through its optimization barrier, a measurable cost over a whole ciphertext).
fn ct_eq_bytes(a: &[u8], b: &[u8]) -> subtle::Choice {
    debug_assert_eq!(a.len(), b.len());
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    diff.ct_eq(&0)
}

/// `ML-KEM.KeyGen_internal(d, z)` (Algorithm 16), minus the byte encoding of dk which the
/// caller assembles on export. Writes ek to `ek_out`, its parsed state (with `H(ek)`, which
/// K-PKE.KeyGen computes as it encodes ek) to `ek_state` and the cached s-hat to `s_hat`, in
/// the caller's key.
#[inline(always)]
pub(crate) fn key_gen_internal<B: KemBackend, const K: usize, const ETA1: usize>(
    b: B,
    d: &[u8; 32],
    ek_out: &mut [u8],
    ek_state: &mut EkState<K>,
    s_hat: &mut CachedNttVector<K>,
) {
    ek_state.h = kpke::key_gen::<B, K, ETA1>(b, d, ek_out, &mut ek_state.pk, s_hat);
}

/// `ML-KEM.Encaps_internal(ek, m)` (Algorithm 17). Writes c to `ct_out`, returns K.
#[inline(always)]
pub(crate) fn encaps_internal<
    B: KemBackend,
    const K: usize,
    const ETA1: usize,
    const ETA2: usize,
    const DU: usize,
    const DV: usize,
>(
    b: B,
    ek: &EkState<K>,
    m: &[u8; 32],
    ct_out: &mut [u8],
) -> SharedSecret {
    // Line 1: (K, r) = G(m || H(ek)).
    let (mut key, mut r) = hash::g(b, m, &ek.h);
    // Line 2: c = K-PKE.Encrypt(ek, m, r).
    kpke::encrypt::<B, K, ETA1, ETA2, DU, DV>(b, &ek.pk, m, &r, ct_out, None);
    r.zeroize();
    // `[u8; 32]` is `Copy`: wrapping it leaves this copy behind, so erase it.
    let shared = SharedSecret::new(key);
    key.zeroize();
    shared
}

/// Where decapsulation gets `K-bar = J(z || c)`, its implicit-rejection key.
#[derive(Clone, Copy)]
pub(crate) enum RejectionKey<'a> {
    /// Computed here from z, alongside the re-encryption's noise.
    FromZ(&'a [u8; 32]),
    /// Already computed (a one-shot decapsulation hashes it beside A-hat).
    Known(&'a [u8; 32]),
}

/// `ML-KEM.Decaps_internal(dk, c)` (Algorithm 18) on a parsed key. Never fails: a
/// ciphertext that does not re-encrypt to itself yields the implicit-rejection key
/// `K-bar = J(z || c)`. Compare and select are constant time.
#[inline(always)]
pub(crate) fn decaps_internal<
    B: KemBackend,
    const K: usize,
    const ETA1: usize,
    const ETA2: usize,
    const DU: usize,
    const DV: usize,
>(
    b: B,
    s_hat: &CachedNttVector<K>,
    ek: &EkState<K>,
    rejection_key: RejectionKey<'_>,
    ct: &[u8],
) -> SharedSecret {
    // Line 7: m' = K-PKE.Decrypt(dk_pke, c).
    let mut m_prime = kpke::decrypt::<B, K, DU, DV>(b, s_hat, ct);
    // Line 8: (K', r') = G(m' || h).
    let (mut key_prime, mut r_prime) = hash::g(b, &m_prime, &ek.h);
    let mut key = SharedSecret::new(key_prime);
    key_prime.zeroize();
    // Line 10: c' = K-PKE.Encrypt(ek_pke, m', r'), and line 9: K-bar = J(z || c), which
    // depends on neither and is computed alongside the encryption's noise.
    let mut buf = [0u8; MAX_CIPHERTEXT_SIZE];
    let ct_prime = &mut buf[..ct.len()];
    let mut k_bar = [0u8; 32];
    let j = match rejection_key {
        RejectionKey::FromZ(z) => Some(Digest32::shake256([z, ct], &mut k_bar)),
        RejectionKey::Known(known) => {
            k_bar = *known;
            None
        }
    };
    kpke::encrypt::<B, K, ETA1, ETA2, DU, DV>(b, &ek.pk, &m_prime, &r_prime, ct_prime, j);
    let rejection = SharedSecret::new(k_bar);
    k_bar.zeroize();
    // Lines 11-13: if c != c' then K' = K-bar, in constant time.
    let equal = ct_eq_bytes(ct, ct_prime);
    key.conditional_assign(&rejection, !equal);
    m_prime.zeroize();
    r_prime.zeroize();
    buf.as_mut_slice().zeroize();
    key
}

/// `ML-KEM.Decaps` (Algorithm 21) from the expanded encoding `dk_pke || ek || h || z`
/// (lengths checked by the caller), with the input checks of FIPS 203 section 7.3, for a
/// key used once: nothing is kept, and the three independent hashes of the operation,
/// `H(ek)` for the hash check, `J(z || c)` and A-hat's streams, share the 4-way Keccak.
#[inline(always)]
pub(crate) fn decaps_expanded<
    B: KemBackend,
    const K: usize,
    const ETA1: usize,
    const ETA2: usize,
    const DU: usize,
    const DV: usize,
>(
    b: B,
    dk_pke: &[u8],
    ek: &[u8],
    h: &[u8; 32],
    z: &[u8; 32],
    ct: &[u8],
) -> Result<SharedSecret, crate::Error> {
    let mut k_bar = [0u8; 32];
    // On the stack, filled in place (no copy of A-hat through return values).
    let mut ek_state = EkState::<K>::zero();
    let j = Digest32::shake256([z, ct], &mut k_bar);
    if let Err(e) = ek_state.parse_checking_hash_into(b, ek, h, Some(j)) {
        k_bar.zeroize();
        return Err(e);
    }
    // Built in place: no unerased temporary of the cached s-hat.
    let mut s_hat_raw = kpke::decode_vector_12_reduced::<B, K>(b, dk_pke);
    let mut s_hat = CachedNttVector::<K>::zero();
    s_hat_raw.cached_into(b, &mut s_hat);
    s_hat_raw.zeroize();
    let key = decaps_internal::<B, K, ETA1, ETA2, DU, DV>(
        b,
        &s_hat,
        &ek_state,
        RejectionKey::Known(&k_bar),
        ct,
    );
    s_hat.zeroize();
    k_bar.zeroize();
    Ok(key)
}
