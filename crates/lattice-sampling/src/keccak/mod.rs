//! Keccak (FIPS 202): the permutation Keccak-f\[1600\] on one state ([`KeccakF1600`], the
//! portable [`f1600_portable`]) and on `W` interleaved states (`PermuteLanes`, the
//! abstraction the lane scheduler runs on, with portable implementations for one and two
//! states), the sponge ([`Sponge`]) and the hashes ML-KEM and ML-DSA use (SHA3-256,
//! SHA3-512, SHAKE128, SHAKE256).
//!
//! | module | what |
//! |---|---|
//! | `f1600` | the scalar Keccak-f\[1600\]: one unrolled round computed plane by plane, two rounds per loop iteration |
//! | `interleaved` | the same rounds on `W` states at once in portable code (each step a loop over the states, which the compiler may vectorize) |
//! | this module | the permutation traits, the sponge (absorb, pad, squeeze, any rate) and the one-shot hashes |
//!
//! Nothing here knows what the output is for: SampleNTT, CBD and the KEM live above, and the
//! instruction-set permutations (AVX2, AVX-512) live in the backend tree, behind the same
//! traits. The hashes that cannot be batched across streams (H(ek) over the whole
//! encapsulation key, J(z || c) over the whole ciphertext, G) are about ten sequential
//! permutations per KEM operation, so the scalar permutation is written for speed. Every
//! permutation and sponge is tested against the `sha3` crate.

pub(crate) mod f1600;
mod interleaved;

pub use f1600::f1600_portable;
pub(crate) use interleaved::PortableX1;
#[cfg(all(test, target_arch = "aarch64"))]
pub(crate) use interleaved::PortableX2;

/// Number of 64-bit words in a Keccak-f\[1600\] state.
pub(crate) const WORDS: usize = 25;

/// Keccak-f\[1600\] on one state (FIPS 202 §3.3, 24 rounds): what a [`Sponge`]
/// runs on. The backend tokens of `lattice-poly-ntt` implement it, each with its fastest
/// single-state code (`Portable`: [`f1600_portable`]); every implementation gives the same
/// result.
pub trait KeccakF1600: Copy {
    /// Permutes `state` (word `x + 5y` is lane `(x, y)` of FIPS 202).
    fn f1600(self, state: &mut [u64; 25]);
}

/// Keccak-f\[1600\] on `W` states at once, interleaved word by word: word `i` of state `l`
/// is `states[i][l]`, the layout of a `W`-lane SIMD register file. The lane scheduler
/// (`crate::scheduler`) runs on one; its single-state [`KeccakF1600`] is what a job left
/// alone finishes on.
pub(crate) trait PermuteLanes<const W: usize>: KeccakF1600 {
    /// Whether [`Self::permute_copying`] has a form of its own that copies every state out
    /// (transposed in registers); if not, the scheduler copies only the states it reads,
    /// word by word, after [`Self::permute`].
    const COPIES_OUT: bool = false;

    /// Permutes the `W` states.
    fn permute(self, states: &mut [[u64; W]; WORDS]);

    /// Permutes the `W` states and writes each to `out[l]` in little-endian byte order
    /// (see [`read_lane`]). Used only where [`Self::COPIES_OUT`].
    #[inline(always)]
    fn permute_copying(self, states: &mut [[u64; W]; WORDS], out: &mut [[u64; WORDS]; W]) {
        self.permute(states);
        for (l, o) in out.iter_mut().enumerate() {
            read_lane(states, l, o);
        }
    }

    /// XORs `block` (whole little-endian words) into the first words of state `lane`.
    #[inline(always)]
    fn xor_lane(self, states: &mut [[u64; W]; WORDS], lane: usize, block: &[u8]) {
        for (word, b) in states.iter_mut().zip(block.as_chunks::<8>().0) {
            word[lane] ^= u64::from_le_bytes(*b);
        }
    }
}

/// Copies state `lane` of `states` to `out`, word by word, each in little-endian byte order
/// (`u64::to_le`: a no-op on little-endian targets), so that the bytes of `out` in memory
/// are the state's bytes in Keccak's order (`zerocopy::IntoBytes::as_bytes` reads them).
#[inline(always)]
pub(crate) fn read_lane<const W: usize>(states: &[[u64; W]; WORDS], lane: usize, out: &mut [u64]) {
    for (o, word) in out.iter_mut().zip(states) {
        *o = word[lane].to_le();
    }
}

/// Keccak-f\[1600\] on one state (FIPS 202 §3.3, 24 rounds), on `backend`.
#[inline]
pub fn f1600<B: KeccakF1600>(backend: B, state: &mut [u64; 25]) {
    backend.f1600(state);
}

/// A Keccak sponge with a rate of `RATE` bytes, for inputs and outputs of any length.
///
/// Secrets may pass through it (sigma, m, z): the state is erased on drop.
#[derive(Clone)]
pub struct Sponge<const RATE: usize> {
    state: [u64; 25],
    /// Bytes absorbed into the current block, or squeezed from it.
    offset: usize,
}

impl<const RATE: usize> Default for Sponge<RATE> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const RATE: usize> Drop for Sponge<RATE> {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(self.state.as_mut_slice());
    }
}

impl<const RATE: usize> Sponge<RATE> {
    // A whole number of lanes, at least one (absorbing and squeezing move a block per
    // permutation), and less than the 200-byte state (room for a capacity).
    const ASSERT_RATE: () = assert!(RATE.is_multiple_of(8) && RATE >= 8 && RATE < 200);

    /// An empty sponge.
    #[must_use]
    pub const fn new() -> Self {
        let () = Self::ASSERT_RATE;
        Self {
            state: [0; 25],
            offset: 0,
        }
    }

    fn xor_byte(&mut self, pos: usize, byte: u8) {
        self.state[pos / 8] ^= u64::from(byte) << (8 * (pos % 8));
    }

    /// Bytes still to absorb before the current block is full, 0 between blocks.
    pub(crate) fn bytes_to_block_end(&self) -> usize {
        if self.offset == 0 {
            0
        } else {
            RATE - self.offset
        }
    }

    /// The state, for a multi-way Keccak to continue this sponge between blocks (absorbing
    /// whole blocks only, so the offset stays 0).
    pub(crate) fn state_between_blocks(&mut self) -> &mut [u64; 25] {
        debug_assert_eq!(self.offset, 0, "between blocks");
        &mut self.state
    }

    /// XORs `bytes` into the rate at byte position `pos` (`pos + bytes.len() <= RATE`):
    /// byte by byte up to a word boundary, then whole little-endian words, then the rest.
    fn xor_bytes(&mut self, mut pos: usize, bytes: &[u8]) {
        debug_assert!(pos + bytes.len() <= RATE);
        let head = bytes.len().min((8 - pos % 8) % 8);
        let (head, rest) = bytes.split_at(head);
        for &byte in head {
            self.xor_byte(pos, byte);
            pos += 1;
        }
        let (words, tail) = rest.as_chunks::<8>();
        for word in words {
            self.state[pos / 8] ^= u64::from_le_bytes(*word);
            pos += 8;
        }
        for &byte in tail {
            self.xor_byte(pos, byte);
            pos += 1;
        }
    }

    /// Absorbs `data`.
    pub fn absorb<B: KeccakF1600>(&mut self, backend: B, mut data: &[u8]) {
        // Finish a partial block, then whole blocks, then keep the rest in a new block.
        if self.offset != 0 {
            let n = data.len().min(RATE - self.offset);
            let (head, rest) = data.split_at(n);
            self.xor_bytes(self.offset, head);
            self.offset += n;
            if self.offset < RATE {
                return;
            }
            backend.f1600(&mut self.state);
            self.offset = 0;
            data = rest;
        }
        let mut blocks = data.chunks_exact(RATE);
        for block in &mut blocks {
            self.xor_bytes(0, block);
            backend.f1600(&mut self.state);
        }
        let tail = blocks.remainder();
        self.xor_bytes(0, tail);
        self.offset = tail.len();
    }

    /// Pads with the domain-separation bits `domain` (0x06 for SHA-3, 0x1f for SHAKE) and
    /// switches to squeezing.
    pub fn finalize<B: KeccakF1600>(&mut self, backend: B, domain: u8) {
        self.xor_byte(self.offset, domain);
        self.xor_byte(RATE - 1, 0x80);
        backend.f1600(&mut self.state);
        self.offset = 0;
    }

    /// Squeezes `out.len()` bytes (after [`Self::finalize`]).
    pub fn squeeze<B: KeccakF1600>(&mut self, backend: B, mut out: &mut [u8]) {
        while !out.is_empty() {
            if self.offset == RATE {
                backend.f1600(&mut self.state);
                self.offset = 0;
            }
            let n = out.len().min(RATE - self.offset);
            let (head, rest) = out.split_at_mut(n);
            if self.offset.is_multiple_of(8) && n.is_multiple_of(8) {
                // Whole lanes.
                let lanes = &self.state[self.offset / 8..(self.offset + n) / 8];
                for (bytes, lane) in head.chunks_exact_mut(8).zip(lanes) {
                    bytes.copy_from_slice(&lane.to_le_bytes());
                }
            } else {
                for (i, byte) in head.iter_mut().enumerate() {
                    let pos = self.offset + i;
                    *byte = (self.state[pos / 8] >> (8 * (pos % 8))) as u8;
                }
            }
            self.offset += n;
            out = rest;
        }
    }

    /// Squeezes one whole block of `RATE` bytes (after [`Self::finalize`], when the
    /// previous squeezes ended on a block boundary).
    pub fn squeeze_block<B: KeccakF1600>(&mut self, backend: B, out: &mut [u8; RATE]) {
        if self.offset == RATE {
            backend.f1600(&mut self.state);
        }
        for (bytes, lane) in out.chunks_exact_mut(8).zip(&self.state) {
            bytes.copy_from_slice(&lane.to_le_bytes());
        }
        self.offset = RATE;
    }
}

/// SHA3-256 rate in bytes.
pub const SHA3_256_RATE: usize = 136;
/// SHAKE128 rate in bytes: what one Keccak-f\[1600\] permutation squeezes.
pub const SHAKE128_RATE: usize = 168;
/// SHA3-512 rate in bytes.
pub const SHA3_512_RATE: usize = 72;
/// SHAKE256 rate in bytes.
pub const SHAKE256_RATE: usize = 136;

/// Domain-separation bits of SHA-3 (`01`) with the first padding bit.
pub const SHA3_DOMAIN: u8 = 0x06;
/// Domain-separation bits of SHAKE (`1111`) with the first padding bit.
pub const SHAKE_DOMAIN: u8 = 0x1f;

/// SHA3-256 of the concatenation of `parts` (FIPS 203's H).
#[must_use]
pub fn sha3_256<B: KeccakF1600>(backend: B, parts: &[&[u8]]) -> [u8; 32] {
    let mut sponge = Sponge::<SHA3_256_RATE>::new();
    for part in parts {
        sponge.absorb(backend, part);
    }
    sponge.finalize(backend, SHA3_DOMAIN);
    let mut out = [0u8; 32];
    sponge.squeeze(backend, &mut out);
    out
}

/// SHA3-512 of the concatenation of `parts` (FIPS 203's G).
#[must_use]
pub fn sha3_512<B: KeccakF1600>(backend: B, parts: &[&[u8]]) -> [u8; 64] {
    let mut sponge = Sponge::<SHA3_512_RATE>::new();
    for part in parts {
        sponge.absorb(backend, part);
    }
    sponge.finalize(backend, SHA3_DOMAIN);
    let mut out = [0u8; 64];
    sponge.squeeze(backend, &mut out);
    out
}

/// SHAKE256 of the concatenation of `parts`, `out.len()` bytes (FIPS 203's J and PRF).
pub fn shake256<B: KeccakF1600>(backend: B, parts: &[&[u8]], out: &mut [u8]) {
    let mut sponge = Sponge::<SHAKE256_RATE>::new();
    for part in parts {
        sponge.absorb(backend, part);
    }
    sponge.finalize(backend, SHAKE_DOMAIN);
    sponge.squeeze(backend, out);
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use lattice_poly_ntt::backend::Portable;
    const P: Portable = Portable;
    use sha3::digest::{Digest, ExtendableOutput, Update, XofReader};
    use std::vec::Vec;

    fn message(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + 7) as u8).collect()
    }

    #[test]
    fn permutation_builds_agree() {
        let mut a: [u64; 25] =
            core::array::from_fn(|i| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut b = a;
        for _ in 0..10 {
            lattice_poly_ntt::dispatch!(lattice_poly_ntt::backend::AnyBackend::best(), |be| f1600(
                be, &mut a
            ));
            f1600_portable(&mut b);
            assert_eq!(a, b);
        }
    }

    proptest::proptest! {
        #[test]
        fn absorbing_in_pieces_matches_sha3_crate(
            msg in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..700),
            cuts in proptest::collection::vec(0usize..700, 0..6),
        ) {
            // Any split of the message into absorb calls gives the same digest (every
            // alignment of the partial-block and word paths).
            let mut cuts: std::vec::Vec<usize> = cuts.into_iter().map(|c| c.min(msg.len())).collect();
            cuts.sort_unstable();
            let mut sponge = Sponge::<SHA3_256_RATE>::new();
            let mut start = 0;
            for cut in cuts.into_iter().chain([msg.len()]) {
                sponge.absorb(P, &msg[start..cut]);
                start = cut;
            }
            sponge.finalize(P, SHA3_DOMAIN);
            let mut ours = [0u8; 32];
            sponge.squeeze(P, &mut ours);
            proptest::prop_assert_eq!(ours, <[u8; 32]>::from(sha3::Sha3_256::digest(&msg)));
        }
    }

    #[test]
    fn hashes_match_sha3_crate() {
        // Lengths around every rate boundary used here (72, 136, 168) and the ML-KEM sizes.
        let lengths = [
            0, 1, 7, 8, 33, 64, 71, 72, 73, 135, 136, 137, 167, 168, 169, 272, 800, 1088, 1184,
            1600,
        ];
        for len in lengths {
            let msg = message(len);
            let (head, tail) = msg.split_at(len / 3);
            assert_eq!(
                sha3_256(P, &[head, tail]),
                <[u8; 32]>::from(sha3::Sha3_256::digest(&msg)),
                "H, {len}"
            );
            assert_eq!(
                sha3_512(P, &[head, tail])[..],
                sha3::Sha3_512::digest(&msg)[..],
                "G, {len}"
            );
            for out_len in [32, 128, 136, 137, 300] {
                let mut ours = std::vec![0u8; out_len];
                shake256(P, &[head, tail], &mut ours);
                let mut reference = std::vec![0u8; out_len];
                let mut x = sha3::Shake256::default();
                x.update(&msg);
                x.finalize_xof().read(&mut reference);
                assert_eq!(ours, reference, "SHAKE256, {len} -> {out_len}");
            }
            let mut sponge = Sponge::<168>::new();
            sponge.absorb(P, head);
            sponge.absorb(P, tail);
            sponge.finalize(P, SHAKE_DOMAIN);
            let mut blocks = [[0u8; 168]; 3];
            for block in &mut blocks {
                sponge.squeeze_block(P, block);
            }
            let mut reference = [0u8; 504];
            let mut x = sha3::Shake128::default();
            x.update(&msg);
            x.finalize_xof().read(&mut reference);
            assert_eq!(blocks.concat(), reference, "SHAKE128, {len}");
        }
    }
}
