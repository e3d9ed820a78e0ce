//! K-PKE, the CPA-secure public-key encryption scheme inside ML-KEM (FIPS 203 §5).
//!
//! Everything here is generic over the backend `B` and the parameters
//! `K, ETA1, ETA2, DU, DV` (FIPS 203 Table 2); byte strings are slices whose lengths the
//! parameter-set wrappers fix at compile time.
//!
//! The two techniques of the design are used here: every product is lazily accumulated
//! (`lattice-poly-ntt`), and the `b*zeta` cache of `r` is built once and shared by `A^T r`
//! and `t^T r` in [`encrypt`]; the cache of `s` is built once per key and kept in it.

use crate::Error;
use crate::backend::KemBackend;
use crate::encode::encoded_len;
use lattice_poly_ntt::backend::DOT_CHUNK;
use lattice_poly_ntt::mlkem::{CachedNttVector, PolyVector};
use lattice_poly_ntt::mlkem::{Matrix, N, NttPoly, NttVector, Poly};
use lattice_sampling::keccak::{SHA3_256_RATE, SHA3_DOMAIN, Sponge};
use lattice_sampling::{Batch, Digest32, Eta, Feed, FeedingBatch};
use zeroize::Zeroize;

/// Bytes of one ByteEncode_12'd polynomial.
pub(crate) const POLY_BYTES: usize = encoded_len(12);

/// The parsed public key of K-PKE: what every encryption under it needs, computed once.
#[derive(Clone)]
pub(crate) struct PublicKey<const K: usize> {
    /// t-hat, decoded from the key (each coefficient checked < q).
    pub(crate) t_hat: NttVector<K>,
    /// A-hat, expanded from rho (FIPS 203 Alg. 13 l. 3-7 / FIPS 203 Alg. 14 l. 4-8).
    pub(crate) a_hat: Matrix<K>,
}

const fn eta<const ETA: usize>() -> Eta {
    const { assert!(ETA == 2 || ETA == 3) };
    if ETA == 2 { Eta::Two } else { Eta::Three }
}

/// Decodes `ByteDecode_12` of a vector into `out` (every entry written); `false` if a
/// coefficient is `>= q` (the modulus check of FIPS 203 §7.2).
#[inline(always)]
pub(crate) fn decode_vector_12_into<B: KemBackend, const K: usize>(
    b: B,
    bytes: &[u8],
    out: &mut NttVector<K>,
) -> bool {
    debug_assert_eq!(bytes.len(), K * POLY_BYTES);
    let mut ok = true;
    for (p, chunk) in out.0.iter_mut().zip(poly_chunks(bytes)) {
        let mut raw = [0u16; N];
        b.byte_decode::<12>(chunk, &mut raw);
        if let Some(decoded) = NttPoly::from_coeffs(raw) {
            *p = decoded;
        } else {
            ok = false;
            *p = NttPoly::zero();
        }
    }
    ok
}

/// `ByteDecode_12` of a secret vector into `out`, each value taken mod q as FIPS 203 Alg. 6
/// specifies for d = 12 (values up to 4095 < 2q, so one conditional subtraction, in
/// constant time). In place: no polynomial of s-hat passes through a return value, whose
/// copy nothing could erase.
#[inline(always)]
pub(crate) fn decode_vector_12_reduced_into<B: KemBackend, const K: usize>(
    b: B,
    bytes: &[u8],
    out: &mut NttVector<K>,
) {
    debug_assert_eq!(bytes.len(), K * POLY_BYTES);
    let mut raw = [0u16; N];
    for (p, chunk) in out.0.iter_mut().zip(poly_chunks(bytes)) {
        b.byte_decode::<12>(chunk, &mut raw);
        for (c, &x) in p
            .coeffs_mut(lattice_poly_ntt::__private::WORKSPACE)
            .iter_mut()
            .zip(&raw)
        {
            // x < 2^12 <= REDUCE_ONCE_INPUT_MAX = 2q - 1.
            *c = lattice_field::gf3329::reduce_once(x);
        }
    }
    raw.as_mut_slice().zeroize();
}

/// The consecutive `POLY_BYTES`-byte slices of `bytes` (`384 K` bytes), split off one by
/// one instead of by `chunks_exact`, whose chunk count is a division of the length: public
/// here, but at opt-level z it stays a `udiv`/`div` instruction, which the division scan
/// cannot tell from a secret one.
#[inline(always)]
fn poly_chunks(mut bytes: &[u8]) -> impl Iterator<Item = &[u8; POLY_BYTES]> {
    core::iter::from_fn(move || {
        let (chunk, rest) = bytes.split_first_chunk::<POLY_BYTES>()?;
        bytes = rest;
        Some(chunk)
    })
}

/// [`poly_chunks`] of a mutable buffer.
#[inline(always)]
fn poly_chunks_mut(mut bytes: &mut [u8]) -> impl Iterator<Item = &mut [u8; POLY_BYTES]> {
    core::iter::from_fn(move || {
        let (chunk, rest) = core::mem::take(&mut bytes).split_first_chunk_mut::<POLY_BYTES>()?;
        bytes = rest;
        Some(chunk)
    })
}

/// `ByteEncode_12` of a vector into `out` (`384 K` bytes).
#[inline(always)]
pub(crate) fn encode_vector_12<B: KemBackend, const K: usize>(
    b: B,
    v: &NttVector<K>,
    out: &mut [u8],
) {
    for (p, chunk) in v.0.iter().zip(poly_chunks_mut(out)) {
        b.byte_encode::<12>(p.coeffs(), chunk);
    }
}

impl<const K: usize> PublicKey<K> {
    /// All zero, to be parsed or generated into in place.
    pub(crate) const fn zero() -> Self {
        Self {
            t_hat: NttVector::zero(),
            a_hat: Matrix::zero(),
        }
    }

    /// Parses `ek_pke = ByteEncode_12(t-hat) || rho` into `self` (every entry overwritten:
    /// the caller's key is filled in place, with no copy of A-hat) and expands A-hat; returns
    /// `H(ek_pke)`, computed alongside A-hat in the same Keccak batch. `None` if a
    /// coefficient of t-hat is `>= q` (checked first: a bad key costs no hashing).
    #[inline(always)]
    pub(crate) fn parse_and_hash_into<B: KemBackend>(
        &mut self,
        b: B,
        ek: &[u8],
    ) -> Option<[u8; 32]> {
        let (t_bytes, rho) = split_ek::<K>(ek);
        if !decode_vector_12_into(b, t_bytes, &mut self.t_hat) {
            return None;
        }
        let mut h = [0u8; 32];
        let mut batch = Batch::new(b);
        // The hash is the longest job (6 to 12 permutations, a stream ~3): it goes first.
        batch.digest(Digest32::sha3_256(ek, &mut h));
        batch.matrix_rows::<K>(rho, 0, &mut self.a_hat.rows);
        batch.run();
        Some(h)
    }

    /// Like [`Self::parse_and_hash_into`], for a key whose hash `expected` is stored beside
    /// it (FIPS 203 §7.3): the hash is compared before the modulus check.
    #[inline(always)]
    pub(crate) fn parse_checking_hash_into<B: KemBackend>(
        &mut self,
        b: B,
        ek: &[u8],
        expected: &[u8; 32],
    ) -> Result<(), Error> {
        let mut h = [0u8; 32];
        let mut batch = Batch::new(b);
        self.hash_and_expand_into(&mut batch, ek, &mut h);
        batch.run();
        self.finish_checking_hash(b, ek, &h, expected)
    }

    /// The Keccak half of [`Self::parse_checking_hash_into`], for a caller with more
    /// independent work for the same batch: adds `H(ek_pke)` (into `h`, the longest job:
    /// it goes first) and A-hat's streams (into `self`) to `batch`. After the batch has run,
    /// [`Self::finish_checking_hash`] completes the parse.
    #[inline(always)]
    pub(crate) fn hash_and_expand_into<'a, B: KemBackend>(
        &'a mut self,
        batch: &mut Batch<'a, B>,
        ek: &'a [u8],
        h: &'a mut [u8; 32],
    ) {
        let (_, rho) = split_ek::<K>(ek);
        batch.digest(Digest32::sha3_256(ek, h));
        batch.matrix_rows::<K>(rho, 0, &mut self.a_hat.rows);
    }

    /// The rest of [`Self::parse_checking_hash_into`] once `h = H(ek_pke)` is known: the
    /// hash check against `expected`, then the modulus check as t-hat is decoded into
    /// `self`.
    #[inline(always)]
    pub(crate) fn finish_checking_hash<B: KemBackend>(
        &mut self,
        b: B,
        ek: &[u8],
        h: &[u8; 32],
        expected: &[u8; 32],
    ) -> Result<(), Error> {
        // Public values (H of the public ek, bytes stored beside it): a plain comparison.
        if h != expected {
            return Err(Error::DecapsulationKeyHashMismatch);
        }
        let (t_bytes, _) = split_ek::<K>(ek);
        if !decode_vector_12_into(b, t_bytes, &mut self.t_hat) {
            return Err(Error::EncapsulationKeyNotReduced);
        }
        Ok(())
    }
}

/// Splits `ek_pke` (length `384 K + 32`, checked by the caller) into t-hat's bytes and rho.
fn split_ek<const K: usize>(ek: &[u8]) -> (&[u8], &[u8; 32]) {
    let (t_bytes, rho) = ek.split_at(K * POLY_BYTES);
    (t_bytes, rho.try_into().expect("ek_pke is 384 K + 32 bytes"))
}

/// FIPS 203 Alg. 13 l. 1: `(rho, sigma) = G(d || k)`.
///
/// rho is public from here on: line 19 puts it into ek, and lines 3-7 (SampleNTT's
/// rejection sampling, which branches on its XOF output) may depend on it. Only the
/// constant-time validation build says so to valgrind; sigma stays secret.
#[inline(always)]
fn g_of_seed<B: KemBackend, const K: usize>(b: B, d: &[u8; 32]) -> ([u8; 32], [u8; 32]) {
    let (rho, sigma) = crate::hash::g(b, d, &[K as u8]);
    #[cfg(feature = "ct-validation")]
    let rho = {
        let mut rho = rho;
        lattice_sampling::ct_validation::declassify(&mut rho);
        rho
    };
    (rho, sigma)
}

/// Rows of A-hat that key generation samples with the noise, before `H(ek)` can start: the
/// rest are sampled while `H` absorbs the encoded first rows of t-hat (see [`key_gen`]).
/// For k = 2 the last row would leave lanes idle, so everything is sampled at once.
const fn rows_with_noise(k: usize) -> usize {
    if k <= 2 { k } else { 2 }
}

/// K-PKE.KeyGen (FIPS 203 Alg. 13) from the 32-byte seed d, and `H(ek_pke)` for ML-KEM.
///
/// Writes `ek_pke` (`384 K + 32` bytes) to `ek_out`, the parsed public key to `pk` and the
/// secret `s-hat` (its multiplication cache built) to `s_hat_out`, overwriting every entry,
/// and returns `H(ek_pke)`. Writing into the caller's key spares copies of A-hat (up to
/// 8 KB) through the return values.
///
/// The Keccak work is ordered so that a multi-way Keccak has several independent jobs at
/// every step: first the first [`rows_with_noise`] rows of A-hat together with all of `s`
/// and `e`; then the remaining rows of A-hat while `H` absorbs the encoding of the rows of
/// t-hat computed from the first ones; `H` finishes with the last rows and rho. The values
/// are those of FIPS 203 Alg. 13; only the order of independent steps differs. A backend with
/// a chunked product kernel (`FEEDS_KEY_GENERATION`) goes further: [`key_gen_fed`].
#[inline(always)]
pub(crate) fn key_gen<B: KemBackend, const K: usize, const ETA1: usize>(
    b: B,
    d: &[u8; 32],
    ek_out: &mut [u8],
    pk: &mut PublicKey<K>,
    s_hat_out: &mut CachedNttVector<K>,
) -> [u8; 32] {
    // Public: a property of the backend.
    if B::FEEDS_KEY_GENERATION {
        return key_gen_fed::<B, K, ETA1>(b, d, ek_out, pk, s_hat_out);
    }
    let first = const { rows_with_noise(K) };
    let (rho, mut sigma) = g_of_seed::<B, K>(b, d);
    let PublicKey { t_hat, a_hat } = pk;
    // Lines 3-7 for the first rows, and lines 8-15: s and e from PRF_eta1(sigma, N),
    // N = 0 .. 2k-1, in one batch.
    let (mut s, mut e) = (PolyVector::<K>::zero(), PolyVector::<K>::zero());
    let mut batch = Batch::new(b);
    batch.matrix_rows::<K>(&rho, 0, &mut a_hat.rows[..first]);
    for (p, n) in s.0.iter_mut().chain(e.0.iter_mut()).zip(0u8..) {
        batch.noise(&sigma, eta::<ETA1>(), n, p);
    }
    batch.run();
    sigma.as_mut_slice().zeroize();
    // Lines 16-18: t-hat = A-hat o s-hat + e-hat; s-hat keeps its b*zeta cache for decryption.
    s.ntt_cached_into(b, s_hat_out);
    let s_hat = &*s_hat_out;
    s.zeroize();
    let mut e_hat = e.ntt(b);
    e.zeroize();
    a_hat.mul_vector_rows(b, s_hat, 0..first, t_hat);
    // Line 19: ek = ByteEncode_12(t-hat) || rho, and H(ek), row by row.
    let (t_bytes, rho_out) = ek_out.split_at_mut(K * POLY_BYTES);
    let (t_first, t_last) = t_bytes.split_at_mut(first * POLY_BYTES);
    add_and_encode(b, &mut t_hat.0[..first], &e_hat.0[..first], t_first);
    let mut h = Sponge::<SHA3_256_RATE>::new();
    if first < K {
        // Lines 3-7 for the last rows, while H absorbs the first rows of t-hat.
        let mut batch = Batch::new(b);
        batch.absorb(&mut h, t_first);
        batch.matrix_rows::<K>(&rho, first, &mut a_hat.rows[first..]);
        batch.run();
    } else {
        h.absorb(b, t_first);
    }
    a_hat.mul_vector_rows(b, s_hat, first..K, t_hat);
    add_and_encode(b, &mut t_hat.0[first..], &e_hat.0[first..], t_last);
    e_hat.zeroize();
    rho_out.copy_from_slice(&rho);
    h.absorb(b, t_last);
    h.absorb(b, &rho);
    h.finalize(b, SHA3_DOMAIN);
    let mut ek_hash = [0u8; 32];
    h.squeeze(b, &mut ek_hash);
    ek_hash
}

/// [`key_gen`] with `H(ek)` absorbing `ek` block by block as it is computed, in the batch
/// that samples A-hat (a [`FeedingBatch`]): `H` is the longest chain of Keccak
/// permutations (6 to 12 of them, one after another), and the first block of `ek` is known
/// once s, e_0 and about two SHAKE128 blocks of each entry of A-hat's row 0 are.
///
/// The batch samples s, e_0, row 0 of A-hat, the rest of e, then the other rows, all into
/// a [`KeyGenFeed`]; each job's progress (a noise polynomial done, a block of an entry
/// parsed) reaches the feed during the run, which computes the NTTs of the noise as they
/// come and each 32-coefficient chunk of `t-hat = A-hat s-hat + e-hat` (lines 16-18) as
/// soon as every entry of its row has it, and encodes it into `ek` (line 19); the batch's
/// lanes give `H` each block of `ek` as soon as it is encoded. The values are those of
/// FIPS 203 Alg. 13; only the order of independent steps differs.
#[inline(always)]
fn key_gen_fed<B: KemBackend, const K: usize, const ETA1: usize>(
    b: B,
    d: &[u8; 32],
    ek_out: &mut [u8],
    pk: &mut PublicKey<K>,
    s_hat: &mut CachedNttVector<K>,
) -> [u8; 32] {
    const { assert!(K <= MAX_RANK) };
    let (rho, mut sigma) = g_of_seed::<B, K>(b, d);
    let PublicKey { t_hat, a_hat } = pk;
    let (t_bytes, rho_out) = ek_out.split_at_mut(K * POLY_BYTES);
    let (mut s, mut e) = (PolyVector::<K>::zero(), PolyVector::<K>::zero());
    let mut e_hat = NttVector::<K>::zero();
    let mut h = Sponge::<SHA3_256_RATE>::new();
    let mut feed = KeyGenFeed {
        b,
        s: &mut s,
        e: &mut e,
        a_hat,
        s_hat,
        e_hat: &mut e_hat,
        t_hat,
        t_bytes,
        s_done: 0,
        e_done: [false; K],
        filled: [[0; K]; K],
        row: 0,
        chunk: 0,
    };
    // Lines 3-15: s (N = 0 .. k-1), e_0, row 0 of A-hat, e_1 .. e_{k-1}, the other rows.
    let fed = {
        let mut batch = FeedingBatch::new(b, &mut h, &mut feed);
        for n in 0..K {
            batch.fed_noise(
                &sigma,
                eta::<ETA1>(),
                n as u8,
                KeyGenFeed::<B, K>::s_slot(n),
            );
        }
        // e_n has nonce k + n.
        let e_slot = |n: usize| ((K + n) as u8, KeyGenFeed::<B, K>::e_slot(n));
        let (nonce, slot) = e_slot(0);
        batch.fed_noise(&sigma, eta::<ETA1>(), nonce, slot);
        for i in 0..K {
            for j in 0..K {
                // i, j < K <= 4: the casts are exact.
                batch.fed_matrix_entry(&rho, i as u8, j as u8, KeyGenFeed::<B, K>::a_slot(i, j));
            }
            if i == 0 {
                // The rest of e after row 0: they fill the lanes its streams leave.
                for (nonce, slot) in (1..K).map(e_slot) {
                    batch.fed_noise(&sigma, eta::<ETA1>(), nonce, slot);
                }
            }
        }
        batch.run()
    };
    sigma.as_mut_slice().zeroize();
    // Every job reported its end (N coefficients), so every chunk was computed then.
    debug_assert_eq!(feed.row, K, "every row of t-hat encoded");
    s.zeroize();
    e.zeroize();
    e_hat.zeroize();
    // Line 19: ek = ByteEncode_12(t-hat) || rho; H(ek) goes on from the blocks it took.
    rho_out.copy_from_slice(&rho);
    h.absorb(b, &ek_out[fed..]);
    h.finalize(b, SHA3_DOMAIN);
    let mut ek_hash = [0u8; 32];
    h.squeeze(b, &mut ek_hash);
    ek_hash
}

/// The largest rank (ML-KEM-1024), the stride of A-hat's slots in [`KeyGenFeed`].
const MAX_RANK: usize = 4;

/// What a slot of [`KeyGenFeed`] holds: `s[j]`, `e[i]` or A-hat`[i][j]`.
#[derive(Clone, Copy)]
enum Slot {
    S(usize),
    E(usize),
    A(usize, usize),
}

/// The feed of [`key_gen_fed`]'s batch: owner of the noise polynomials, A-hat, and the
/// values computed from them as they come (s-hat, e-hat, t-hat and its encoding).
struct KeyGenFeed<'k, B: KemBackend, const K: usize> {
    b: B,
    s: &'k mut PolyVector<K>,
    e: &'k mut PolyVector<K>,
    a_hat: &'k mut Matrix<K>,
    s_hat: &'k mut CachedNttVector<K>,
    e_hat: &'k mut NttVector<K>,
    t_hat: &'k mut NttVector<K>,
    /// `ByteEncode_12(t-hat)`: the first `384 K` bytes of ek.
    t_bytes: &'k mut [u8],
    /// Entries of s done (s-hat computed for them).
    s_done: usize,
    e_done: [bool; K],
    /// Coefficients of each entry of A-hat parsed so far.
    filled: [[usize; K]; K],
    /// The chunk of t-hat (`DOT_CHUNK` coefficients, 48 bytes of ek) to compute next.
    row: usize,
    chunk: usize,
}

impl<B: KemBackend, const K: usize> KeyGenFeed<'_, B, K> {
    /// Chunks of 32 coefficients per polynomial.
    const CHUNKS: usize = N / DOT_CHUNK;

    const fn s_slot(n: usize) -> usize {
        n
    }

    const fn e_slot(n: usize) -> usize {
        MAX_RANK + n
    }

    const fn a_slot(i: usize, j: usize) -> usize {
        2 * MAX_RANK + MAX_RANK * i + j
    }

    /// The polynomial behind a slot of [`Self::s_slot`], [`Self::e_slot`] or
    /// [`Self::a_slot`] (A-hat's decoded by shifts: `MAX_RANK` = 4). Indices are clamped
    /// to the rank, so no slot panics.
    fn slot(slot: usize) -> Slot {
        const { assert!(MAX_RANK == 4) };
        let clamp = |i: usize| i.min(K - 1);
        if slot < MAX_RANK {
            Slot::S(clamp(slot))
        } else if slot < 2 * MAX_RANK {
            Slot::E(clamp(slot - MAX_RANK))
        } else {
            let at = slot - 2 * MAX_RANK;
            Slot::A(clamp(at >> 2), clamp(at & 3))
        }
    }

    /// Computes and encodes every chunk of t-hat whose inputs are all in, in order.
    fn advance(&mut self) {
        if self.s_done < K {
            return;
        }
        while self.row < K && self.e_done[self.row] {
            let row = self.row;
            // Chunks every entry of the row has (counts are public: rejection sampling of
            // the public rho).
            let ready = self.filled[row].iter().min().map_or(0, |&f| f / DOT_CHUNK);
            if ready <= self.chunk {
                return;
            }
            let chunks = self.chunk..ready;
            self.a_hat.mul_vector_row_plus_chunks(
                self.b,
                self.s_hat,
                row,
                &self.e_hat.0[row],
                chunks.clone(),
                &mut self.t_hat.0[row],
            );
            let bytes = &mut self.t_bytes[row * POLY_BYTES..(row + 1) * POLY_BYTES];
            self.b
                .byte_encode_12_chunks(self.t_hat.0[row].coeffs(), bytes, chunks);
            self.chunk = ready;
            if ready == Self::CHUNKS {
                self.row += 1;
                self.chunk = 0;
            }
        }
    }
}

impl<B: KemBackend, const K: usize> Feed for KeyGenFeed<'_, B, K> {
    fn output(&mut self, slot: usize) -> &mut [u16; N] {
        // The parser and CBD write only canonical values: the invariant holds.
        let ws = lattice_poly_ntt::__private::WORKSPACE;
        match Self::slot(slot) {
            Slot::S(j) => self.s.0[j].coeffs_mut(ws),
            Slot::E(i) => self.e.0[i].coeffs_mut(ws),
            Slot::A(i, j) => self.a_hat.rows[i][j].coeffs_mut(ws),
        }
    }

    fn progress(&mut self, slot: usize, filled: usize) {
        match Self::slot(slot) {
            // Line 16: s-hat (with its b*zeta cache) as each s_j is done.
            Slot::S(j) => {
                self.s_hat.0[j].set_ntt_of(self.b, &self.s.0[j]);
                self.s_done += 1;
            }
            // Line 17: e-hat.
            Slot::E(i) => {
                self.e.0[i].ntt_into(self.b, &mut self.e_hat.0[i]);
                self.e_done[i] = true;
            }
            Slot::A(i, j) => self.filled[i][j] = filled,
        }
        self.advance();
    }

    fn ready(&self) -> &[u8] {
        let end = self.row * POLY_BYTES + self.chunk * DOT_CHUNK * 3 / 2;
        &self.t_bytes[..end.min(self.t_bytes.len())]
    }
}

/// Rows of FIPS 203 Alg. 13 l. 18-19: `t[i] += e[i]`, then `ByteEncode_12(t[i])` into the
/// matching 384 bytes of `out`.
#[inline(always)]
fn add_and_encode<B: KemBackend>(b: B, t: &mut [NttPoly], e: &[NttPoly], out: &mut [u8]) {
    for ((t, e), out) in t.iter_mut().zip(e).zip(poly_chunks_mut(out)) {
        t.add_assign(b, e);
        b.byte_encode::<12>(t.coeffs(), out);
    }
}

/// Compress_d then ByteEncode_d of one polynomial.
#[inline(always)]
fn compress_encode<B: KemBackend, const D: usize>(b: B, p: &Poly, out: &mut [u8]) {
    let mut c = [0u16; N];
    b.compress::<D>(p.coeffs(), &mut c);
    b.byte_encode::<D>(&c, out);
    c.as_mut_slice().zeroize();
}

/// ByteDecode_d then Decompress_d of one polynomial, into `out` (built in place: a returned
/// polynomial is copied to its place).
#[inline(always)]
fn decode_decompress_into<B: KemBackend, const D: usize>(b: B, bytes: &[u8], out: &mut Poly) {
    let mut values = [0u16; N];
    b.byte_decode::<D>(bytes, &mut values);
    // Decompress_d returns values below q, as `coeffs_mut` requires.
    b.decompress::<D>(
        &values,
        out.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
    );
    values.as_mut_slice().zeroize();
}

/// The noise of K-PKE.Encrypt (FIPS 203 Alg. 14 l. 9-17): `y`, `e1` and `e2`, sampled from
/// `PRF(r, N)` for N = 0 .. 2k. Erased on drop.
pub(crate) struct EncryptNoise<const K: usize> {
    y: PolyVector<K>,
    e1: PolyVector<K>,
    e2: Poly,
}

impl<const K: usize> EncryptNoise<K> {
    /// All zero, to be sampled into.
    pub(crate) const fn zero() -> Self {
        Self {
            y: PolyVector::zero(),
            e1: PolyVector::zero(),
            e2: Poly::zero(),
        }
    }

    /// Adds lines 9-17's 2k + 1 PRF streams to `batch` (a multi-way Keccak fills its lanes
    /// across them and whatever else the batch holds).
    #[inline(always)]
    pub(crate) fn sample_into<'a, B: KemBackend, const ETA1: usize, const ETA2: usize>(
        &'a mut self,
        batch: &mut Batch<'a, B>,
        r: &'a [u8; 32],
    ) {
        let requests = (self.y.0.iter_mut().map(|p| (eta::<ETA1>(), p)))
            .chain(self.e1.0.iter_mut().map(|p| (eta::<ETA2>(), p)))
            .chain([(eta::<ETA2>(), &mut self.e2)]);
        for ((eta, p), n) in requests.zip(0u8..) {
            batch.noise(r, eta, n, p);
        }
    }
}

impl<const K: usize> Drop for EncryptNoise<K> {
    fn drop(&mut self) {
        self.y.zeroize();
        self.e1.zeroize();
        self.e2.zeroize();
    }
}

/// K-PKE.Encrypt (FIPS 203 Alg. 14) of the 32-byte message `m` with randomness `r`,
/// written to `ct_out` (`32 (DU K + DV)` bytes).
///
/// `absorb`, if any, is independent sponge input absorbed alongside the noise
/// (decapsulation's `J(z || c)` after its first block), on a Keccak lane the noise leaves
/// idle.
#[inline(always)]
pub(crate) fn encrypt<
    B: KemBackend,
    const K: usize,
    const ETA1: usize,
    const ETA2: usize,
    const DU: usize,
    const DV: usize,
>(
    b: B,
    pk: &PublicKey<K>,
    m: &[u8; 32],
    r: &[u8; 32],
    ct_out: &mut [u8],
    absorb: Option<(&mut Sponge<SHA3_256_RATE>, &[u8])>,
) {
    let mut noise = EncryptNoise::<K>::zero();
    let mut batch = Batch::new(b);
    // A hash is longer than any PRF stream (one or two permutations): it goes first.
    if let Some((sponge, data)) = absorb {
        batch.absorb(sponge, data);
    }
    noise.sample_into::<B, ETA1, ETA2>(&mut batch, r);
    batch.run();
    encrypt_sampled::<B, K, DU, DV>(b, pk, m, &noise, ct_out);
}

/// K-PKE.Encrypt (FIPS 203 Alg. 14 l. 18-23), with the noise of l. 9-17 already sampled.
#[inline(always)]
pub(crate) fn encrypt_sampled<B: KemBackend, const K: usize, const DU: usize, const DV: usize>(
    b: B,
    pk: &PublicKey<K>,
    m: &[u8; 32],
    noise: &EncryptNoise<K>,
    ct_out: &mut [u8],
) {
    // Line 18: y-hat, with its b*zeta cache built once for both products below. (The
    // vectors here are built in place with the `_into` forms: a returned vector is copied
    // to its place.)
    let mut y_hat = CachedNttVector::<K>::zero();
    noise.y.ntt_cached_into(b, &mut y_hat);
    // Line 19: u = NTT^-1(A-hat^T o y-hat) + e1.
    let mut u_hat = NttVector::<K>::zero();
    pk.a_hat.transpose_mul_vector_into(b, &y_hat, &mut u_hat);
    let mut u = PolyVector::<K>::zero();
    u_hat.inverse_ntt_into(b, &mut u);
    u_hat.zeroize();
    u.add_assign(b, &noise.e1);
    // Lines 20-21: mu = Decompress_1(ByteDecode_1(m)); v = NTT^-1(t-hat^T o y-hat) + e2 + mu.
    let mut v_hat = NttPoly::zero();
    pk.t_hat.dot_into(b, &y_hat, &mut v_hat);
    let mut v = Poly::zero();
    v_hat.inverse_ntt_into(b, &mut v);
    v_hat.zeroize();
    y_hat.zeroize();
    v.add_assign(b, &noise.e2);
    let mut mu = Poly::zero();
    decode_decompress_into::<B, 1>(b, m, &mut mu);
    v.add_assign(b, &mu);
    // Lines 22-23: c1 = ByteEncode_du(Compress_du(u)), c2 = ByteEncode_dv(Compress_dv(v)).
    let (c1, c2) = ct_out.split_at_mut(K * encoded_len(DU));
    for (p, chunk) in u.0.iter().zip(c1.chunks_exact_mut(encoded_len(DU))) {
        compress_encode::<B, DU>(b, p, chunk);
    }
    compress_encode::<B, DV>(b, &v, c2);
    mu.zeroize();
    v.zeroize();
    u.zeroize();
}

/// K-PKE.Decrypt (FIPS 203 Alg. 15) of `ct` (`32 (DU K + DV)` bytes) with the cached `s-hat`.
#[inline(always)]
pub(crate) fn decrypt<B: KemBackend, const K: usize, const DU: usize, const DV: usize>(
    b: B,
    s_hat: &CachedNttVector<K>,
    ct: &[u8],
) -> [u8; 32] {
    let (c1, c2) = ct.split_at(K * encoded_len(DU));
    // Lines 3-4: u' and v'.
    // (Built in place: an array of returned polynomials was copied three times.)
    let mut u = PolyVector::<K>::zero();
    for (p, bytes) in u.0.iter_mut().zip(c1.chunks_exact(encoded_len(DU))) {
        decode_decompress_into::<B, DU>(b, bytes, p);
    }
    let mut w = Poly::zero();
    decode_decompress_into::<B, DV>(b, c2, &mut w);
    // Lines 5-6: w = v' - NTT^-1(s-hat^T o NTT(u')).
    let mut u_hat = NttVector::<K>::zero();
    u.ntt_into(b, &mut u_hat);
    let mut su_hat = NttPoly::zero();
    u_hat.dot_into(b, s_hat, &mut su_hat);
    let mut su = Poly::zero();
    su_hat.inverse_ntt_into(b, &mut su);
    su_hat.zeroize();
    w.sub_assign(b, &su);
    su.zeroize();
    // Line 7: m = ByteEncode_1(Compress_1(w)).
    let mut m = [0u8; 32];
    compress_encode::<B, 1>(b, &w, &mut m);
    w.zeroize();
    m
}
