//! The ML-KEM internal algorithms (FIPS 203 §6): KeyGen_internal, Encaps_internal
//! and Decaps_internal, generic over the backend and the parameter set, on parsed keys.

use crate::backend::KemBackend;
use crate::hash;
use crate::kpke::{self, PublicKey};
use crate::secret::SharedSecret;
use lattice_poly_ntt::mlkem::{CachedNttVector, NttVector};
use lattice_sampling::keccak::{SHAKE_DOMAIN, SHAKE256_RATE, Sponge};
use lattice_sampling::{Batch, Digest32};
use subtle::{ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// The largest ciphertext of the three parameter sets (ML-KEM-1024).
pub(crate) const MAX_CIPHERTEXT_SIZE: usize = 1568;

/// A parsed encapsulation key: the K-PKE public key with A-hat expanded, and H(ek).
///
/// `pub` only because the sealed parameter-set trait names it as an associated type; this
/// module is private, so no user can name it.
#[derive(Clone)]
#[allow(unreachable_pub)]
pub struct EkState<const K: usize> {
    pub(crate) pk: PublicKey<K>,
    pub(crate) h: [u8; 32],
}

impl<const K: usize> EkState<K> {
    /// An all-zero state, for key generation to overwrite in place.
    pub(crate) const fn zero() -> Self {
        Self {
            pk: PublicKey::zero(),
            h: [0; 32],
        }
    }

    /// Parses `ek` (length already checked) into `self`: the modulus check of
    /// FIPS 203 §7.2, then A-hat and H(ek), computed once for every later encapsulation.
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
    /// `self`: the hash check of FIPS 203 §7.3, then the modulus check.
    #[inline(always)]
    pub(crate) fn parse_checking_hash_into<B: KemBackend>(
        &mut self,
        b: B,
        ek: &[u8],
        h: &[u8; 32],
    ) -> Result<(), crate::Error> {
        self.pk.parse_checking_hash_into(b, ek, h)?;
        self.h = *h;
        Ok(())
    }
}

/// The modulus check of FIPS 203 §7.2 alone on `ByteEncode_12(t-hat)`, without
/// building the parsed key (no A-hat, no hashing).
#[inline(always)]
pub(crate) fn t_hat_reduced<B: KemBackend, const K: usize>(b: B, t_bytes: &[u8]) -> bool {
    let mut t_hat = NttVector::<K>::zero();
    kpke::decode_vector_12_into(b, t_bytes, &mut t_hat)
}

/// Imports an expanded decapsulation key's parts (lengths checked by the caller) into the
/// caller's key: the hash check of FIPS 203 §7.3, the modulus check of the embedded
/// ek, then s-hat decoded (reduced mod q, which FIPS 203 does not check) and cached.
#[inline(always)]
pub(crate) fn import_expanded<B: KemBackend, const K: usize>(
    b: B,
    dk_pke: &[u8],
    ek: &[u8],
    h: &[u8; 32],
    state: &mut EkState<K>,
    s_hat: &mut CachedNttVector<K>,
) -> Result<(), crate::Error> {
    state.parse_checking_hash_into(b, ek, h)?;
    let mut decoded = NttVector::<K>::zero();
    kpke::decode_vector_12_reduced_into::<B, K>(b, dk_pke, &mut decoded);
    // In place: no unerased temporary of the cached s-hat.
    decoded.cached_into(b, s_hat);
    decoded.zeroize();
    Ok(())
}

/// `ByteEncode_12(s-hat)` into `out`: the `dk_pke` part of the expanded encoding.
#[inline(always)]
pub(crate) fn export_s_hat<B: KemBackend, const K: usize>(
    b: B,
    s_hat: &CachedNttVector<K>,
    out: &mut [u8],
) {
    let mut plain = s_hat.to_vector();
    kpke::encode_vector_12(b, &plain, out);
    plain.zeroize();
}

/// Constant-time equality of two byte strings of equal (public) length: the OR of all byte
/// differences, tested once with `subtle` (a `subtle` comparison per byte would pass every
/// byte through its optimization barrier, a measurable cost over a whole ciphertext).
fn ct_eq_bytes(a: &[u8], b: &[u8]) -> subtle::Choice {
    debug_assert_eq!(a.len(), b.len());
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    diff.ct_eq(&0)
}

/// `ML-KEM.KeyGen_internal(d, z)` (FIPS 203 Alg. 16), minus the byte encoding of dk which the
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

/// `ML-KEM.Encaps_internal(ek, m)` (FIPS 203 Alg. 17). Writes c to `ct_out`, returns K.
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
    r.as_mut_slice().zeroize();
    // `[u8; 32]` is `Copy`: wrapping it leaves this copy behind, so erase it.
    let shared = SharedSecret::new(key);
    key.as_mut_slice().zeroize();
    shared
}

/// The one-shot encapsulation to an encoded key (length checked by the caller): the modulus
/// check of FIPS 203 §7.2, then `ML-KEM.Encaps_internal`, with the parsed key on the
/// stack only.
#[inline(always)]
pub(crate) fn encaps_encoded<
    B: KemBackend,
    const K: usize,
    const ETA1: usize,
    const ETA2: usize,
    const DU: usize,
    const DV: usize,
>(
    b: B,
    ek: &[u8],
    m: &[u8; 32],
    ct_out: &mut [u8],
) -> Result<SharedSecret, crate::Error> {
    let mut state = EkState::<K>::zero();
    if !state.parse_into(b, ek) {
        return Err(crate::Error::EncapsulationKeyNotReduced);
    }
    Ok(encaps_internal::<B, K, ETA1, ETA2, DU, DV>(
        b, &state, m, ct_out,
    ))
}

/// `ML-KEM.Decaps_internal(dk, c)` (FIPS 203 Alg. 18) on a parsed key. Never fails: a
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
    z: &[u8; 32],
    ct: &[u8],
) -> SharedSecret {
    // Line 7: m' = K-PKE.Decrypt(dk_pke, c).
    let mut m_prime = kpke::decrypt::<B, K, DU, DV>(b, s_hat, ct);
    // Line 9: K-bar = J(z || c) depends on nothing else, and nothing needs it before line
    // 11: it is the longest serial chain (6 to 12 permutations), so each other hash rides
    // beside one of its blocks. Its first block goes with line 8's G ...
    let mut j = Sponge::<SHAKE256_RATE>::new();
    let mut first = [0u8; SHAKE256_RATE];
    let (ct_head, ct_rest) = ct.split_at(SHAKE256_RATE - z.len());
    first[..z.len()].copy_from_slice(z);
    first[z.len()..].copy_from_slice(ct_head);
    // Line 8: (K', r') = G(m' || h).
    let mut g = [0u8; 64];
    let mut batch = Batch::new(b);
    batch.absorb(&mut j, &first);
    batch.sha3_512([&m_prime, &ek.h], &mut g);
    batch.run();
    first.as_mut_slice().zeroize();
    let (mut key_prime, mut r_prime) = hash::split_g(&mut g);
    // ... the next with the re-encryption's noise, and the rest after it. Line 10:
    // c' = K-PKE.Encrypt(ek_pke, m', r').
    let mut buf = [0u8; MAX_CIPHERTEXT_SIZE];
    let ct_prime = &mut buf[..ct.len()];
    kpke::encrypt::<B, K, ETA1, ETA2, DU, DV>(
        b,
        &ek.pk,
        &m_prime,
        &r_prime,
        ct_prime,
        Some((&mut j, ct_rest)),
    );
    let mut k_bar = [0u8; 32];
    j.finalize(b, SHAKE_DOMAIN);
    j.squeeze(b, &mut k_bar);
    drop(j);
    let key = select_shared_secret(&mut key_prime, &mut k_bar, ct, ct_prime);
    m_prime.as_mut_slice().zeroize();
    r_prime.as_mut_slice().zeroize();
    buf.as_mut_slice().zeroize();
    key
}

/// FIPS 203 Alg. 18 l. 11-13: `K'` if `c = c'`, else `K-bar`, in constant time. Erases
/// both candidates.
#[inline(always)]
fn select_shared_secret(
    key_prime: &mut [u8; 32],
    k_bar: &mut [u8; 32],
    ct: &[u8],
    ct_prime: &[u8],
) -> SharedSecret {
    let rejected = !ct_eq_bytes(ct, ct_prime);
    for (k, &r) in key_prime.iter_mut().zip(k_bar.iter()) {
        k.conditional_assign(&r, rejected);
    }
    // Built in the return value, never borrowed (a borrowed local is returned through a
    // copy nothing erases); `[u8; 32]` is `Copy`, so erase the sources.
    let key = SharedSecret::new(*key_prime);
    key_prime.as_mut_slice().zeroize();
    k_bar.as_mut_slice().zeroize();
    key
}

/// `ML-KEM.Decaps` (FIPS 203 Alg. 21) from the expanded encoding `dk_pke || ek || h || z`
/// (lengths checked by the caller), with the input checks of FIPS 203 §7.3, for a
/// key used once: nothing is kept.
///
/// The steps of FIPS 203 Alg. 18 are reordered so that all Keccak work but G runs in one batch:
/// decryption and `G(m' || h)` first (they need only `dk_pke`, `c` and the stored `h`),
/// then `H(ek)` for the hash check, `J(z || c)`, A-hat's streams and the re-encryption's
/// noise side by side; the hash and modulus checks come before anything is returned, and
/// a key that fails them yields only the error. The values are those of FIPS 203 Alg. 18.
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
    // Built in place: no unerased temporary of the cached s-hat.
    let mut s_hat_raw = NttVector::<K>::zero();
    kpke::decode_vector_12_reduced_into::<B, K>(b, dk_pke, &mut s_hat_raw);
    let mut s_hat = CachedNttVector::<K>::zero();
    s_hat_raw.cached_into(b, &mut s_hat);
    s_hat_raw.zeroize();
    // Line 7: m' = K-PKE.Decrypt(dk_pke, c).
    let mut m_prime = kpke::decrypt::<B, K, DU, DV>(b, &s_hat, ct);
    s_hat.zeroize();
    // Line 8: (K', r') = G(m' || h), with the stored h (checked below).
    let (mut key_prime, mut r_prime) = hash::g(b, &m_prime, h);
    // On the stack, filled in place (no copy of A-hat through return values).
    let mut pk = PublicKey::<K>::zero();
    let mut noise = kpke::EncryptNoise::<K>::zero();
    let (mut ek_hash, mut k_bar) = ([0u8; 32], [0u8; 32]);
    let mut batch = Batch::new(b);
    // The two hashes are the longest jobs (6 to 12 permutations): they go first (J here,
    // H(ek) first of the parse's jobs).
    batch.digest(Digest32::shake256([z, ct], &mut k_bar));
    pk.hash_and_expand_into(&mut batch, ek, &mut ek_hash);
    noise.sample_into::<B, ETA1, ETA2>(&mut batch, &r_prime);
    batch.run();
    r_prime.as_mut_slice().zeroize();
    let checked = pk.finish_checking_hash(b, ek, &ek_hash, h);
    let key = match checked {
        Ok(()) => {
            // Line 10: c' = K-PKE.Encrypt(ek_pke, m', r').
            let mut buf = [0u8; MAX_CIPHERTEXT_SIZE];
            let ct_prime = &mut buf[..ct.len()];
            kpke::encrypt_sampled::<B, K, DU, DV>(b, &pk, &m_prime, &noise, ct_prime);
            let key = select_shared_secret(&mut key_prime, &mut k_bar, ct, ct_prime);
            buf.as_mut_slice().zeroize();
            Ok(key)
        }
        Err(e) => Err(e),
    };
    m_prime.as_mut_slice().zeroize();
    key_prime.as_mut_slice().zeroize();
    k_bar.as_mut_slice().zeroize();
    key
}
