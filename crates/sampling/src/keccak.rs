//! Keccak-f\[1600\] (FIPS 202) for one state, and the sponges ML-KEM uses: SHA3-256 (H),
//! SHA3-512 (G), SHAKE128 (XOF) and SHAKE256 (J, PRF).
//!
//! The hashes that cannot be batched across streams (H(ek) over the whole encapsulation key,
//! J(z || c) over the whole ciphertext, G) are about ten sequential permutations per KEM
//! operation, so this permutation is written for speed: one fully unrolled round computed
//! plane by plane, two rounds per loop iteration. On x86-64 CPUs with BMI1/BMI2 (every AVX2 CPU) the
//! same code is compiled with `andn` and `rorx` available, selected at run time; elsewhere the
//! portable build runs. Both are tested against the `sha3` crate.

/// The 24 round constants of Keccak-f\[1600\] (FIPS 202, section 3.2.5).
const RC: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808a,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808b,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008a,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000a,
    0x0000_0000_8000_808b,
    0x8000_0000_0000_008b,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800a,
    0x8000_0000_8000_000a,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// One round (theta, rho, pi, chi, iota) from lanes `a[x + 5y]` into `e`, fully unrolled.
///
/// Generated from the FIPS 202 step mappings, one output plane at a time (only five rho-pi
/// outputs are live at once, which keeps the lanes in registers): output lane
/// `X + 5Y` takes `rot(a[x + 5y] ^ d[x], r[x + 5y])` with `X = y`, `Y = 2x + 3y mod 5`, and
/// chi combines each plane as `b[X] ^ (!b[X + 1] & b[X + 2])`.
#[inline(always)]
fn round(a: &[u64; 25], e: &mut [u64; 25], rc: u64) {
    let c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20];
    let c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21];
    let c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22];
    let c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23];
    let c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24];
    let d0 = c4 ^ c1.rotate_left(1);
    let d1 = c0 ^ c2.rotate_left(1);
    let d2 = c1 ^ c3.rotate_left(1);
    let d3 = c2 ^ c4.rotate_left(1);
    let d4 = c3 ^ c0.rotate_left(1);
    // Plane y = 0.
    {
        let b0 = (a[0] ^ d0).rotate_left(0);
        let b1 = (a[6] ^ d1).rotate_left(44);
        let b2 = (a[12] ^ d2).rotate_left(43);
        let b3 = (a[18] ^ d3).rotate_left(21);
        let b4 = (a[24] ^ d4).rotate_left(14);
        e[0] = b0 ^ (!b1 & b2) ^ rc;
        e[1] = b1 ^ (!b2 & b3);
        e[2] = b2 ^ (!b3 & b4);
        e[3] = b3 ^ (!b4 & b0);
        e[4] = b4 ^ (!b0 & b1);
    }
    // Plane y = 1.
    {
        let b0 = (a[3] ^ d3).rotate_left(28);
        let b1 = (a[9] ^ d4).rotate_left(20);
        let b2 = (a[10] ^ d0).rotate_left(3);
        let b3 = (a[16] ^ d1).rotate_left(45);
        let b4 = (a[22] ^ d2).rotate_left(61);
        e[5] = b0 ^ (!b1 & b2);
        e[6] = b1 ^ (!b2 & b3);
        e[7] = b2 ^ (!b3 & b4);
        e[8] = b3 ^ (!b4 & b0);
        e[9] = b4 ^ (!b0 & b1);
    }
    // Plane y = 2.
    {
        let b0 = (a[1] ^ d1).rotate_left(1);
        let b1 = (a[7] ^ d2).rotate_left(6);
        let b2 = (a[13] ^ d3).rotate_left(25);
        let b3 = (a[19] ^ d4).rotate_left(8);
        let b4 = (a[20] ^ d0).rotate_left(18);
        e[10] = b0 ^ (!b1 & b2);
        e[11] = b1 ^ (!b2 & b3);
        e[12] = b2 ^ (!b3 & b4);
        e[13] = b3 ^ (!b4 & b0);
        e[14] = b4 ^ (!b0 & b1);
    }
    // Plane y = 3.
    {
        let b0 = (a[4] ^ d4).rotate_left(27);
        let b1 = (a[5] ^ d0).rotate_left(36);
        let b2 = (a[11] ^ d1).rotate_left(10);
        let b3 = (a[17] ^ d2).rotate_left(15);
        let b4 = (a[23] ^ d3).rotate_left(56);
        e[15] = b0 ^ (!b1 & b2);
        e[16] = b1 ^ (!b2 & b3);
        e[17] = b2 ^ (!b3 & b4);
        e[18] = b3 ^ (!b4 & b0);
        e[19] = b4 ^ (!b0 & b1);
    }
    // Plane y = 4.
    {
        let b0 = (a[2] ^ d2).rotate_left(62);
        let b1 = (a[8] ^ d3).rotate_left(55);
        let b2 = (a[14] ^ d4).rotate_left(39);
        let b3 = (a[15] ^ d0).rotate_left(41);
        let b4 = (a[21] ^ d1).rotate_left(2);
        e[20] = b0 ^ (!b1 & b2);
        e[21] = b1 ^ (!b2 & b3);
        e[22] = b2 ^ (!b3 & b4);
        e[23] = b3 ^ (!b4 & b0);
        e[24] = b4 ^ (!b0 & b1);
    }
}

#[inline(always)]
fn permute_rounds(s: &mut [u64; 25]) {
    // Two rounds per iteration, ping-ponging between the state and a scratch copy.
    let mut e = [0u64; 25];
    for pair in RC.chunks_exact(2) {
        round(s, &mut e, pair[0]);
        round(&e, s, pair[1]);
    }
    // The scratch copy holds the state one round before the output (invertible into it).
    zeroize::Zeroize::zeroize(e.as_mut_slice());
}

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_bmi, "bmi1", "bmi2");

/// The same rounds compiled with BMI1 (`andn`) and BMI2 (`rorx`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
fn permute_bmi(s: &mut [u64; 25]) {
    permute_rounds(s);
}

/// Keccak-f\[1600\] on one state (FIPS 202, section 3.3, 24 rounds).
#[allow(unsafe_code)]
pub fn f1600(state: &mut [u64; 25]) {
    #[cfg(target_arch = "x86_64")]
    if cpuid_bmi::get() {
        // SAFETY: the CPU supports BMI1 and BMI2 (runtime detection just above).
        unsafe { permute_bmi(state) };
        return;
    }
    permute_rounds(state);
}

/// The portable build of [`f1600`], whatever the CPU (for tests and comparisons).
pub fn f1600_portable(state: &mut [u64; 25]) {
    permute_rounds(state);
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
    const ASSERT_RATE: () = assert!(RATE.is_multiple_of(8) && RATE < 200);

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
    #[cfg(target_arch = "x86_64")]
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
    pub fn absorb(&mut self, mut data: &[u8]) {
        // Finish a partial block, then whole blocks, then keep the rest in a new block.
        if self.offset != 0 {
            let n = data.len().min(RATE - self.offset);
            let (head, rest) = data.split_at(n);
            self.xor_bytes(self.offset, head);
            self.offset += n;
            if self.offset < RATE {
                return;
            }
            f1600(&mut self.state);
            self.offset = 0;
            data = rest;
        }
        let mut blocks = data.chunks_exact(RATE);
        for block in &mut blocks {
            self.xor_bytes(0, block);
            f1600(&mut self.state);
        }
        let tail = blocks.remainder();
        self.xor_bytes(0, tail);
        self.offset = tail.len();
    }

    /// Pads with the domain-separation bits `domain` (0x06 for SHA-3, 0x1f for SHAKE) and
    /// switches to squeezing.
    pub fn finalize(&mut self, domain: u8) {
        self.xor_byte(self.offset, domain);
        self.xor_byte(RATE - 1, 0x80);
        f1600(&mut self.state);
        self.offset = 0;
    }

    /// Squeezes `out.len()` bytes (after [`Self::finalize`]).
    pub fn squeeze(&mut self, mut out: &mut [u8]) {
        while !out.is_empty() {
            if self.offset == RATE {
                f1600(&mut self.state);
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
    pub fn squeeze_block(&mut self, out: &mut [u8; RATE]) {
        if self.offset == RATE {
            f1600(&mut self.state);
        }
        for (bytes, lane) in out.chunks_exact_mut(8).zip(&self.state) {
            bytes.copy_from_slice(&lane.to_le_bytes());
        }
        self.offset = RATE;
    }
}

/// SHA3-256 rate in bytes.
pub const SHA3_256_RATE: usize = 136;
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
pub fn sha3_256(parts: &[&[u8]]) -> [u8; 32] {
    let mut sponge = Sponge::<SHA3_256_RATE>::new();
    for part in parts {
        sponge.absorb(part);
    }
    sponge.finalize(SHA3_DOMAIN);
    let mut out = [0u8; 32];
    sponge.squeeze(&mut out);
    out
}

/// SHA3-512 of the concatenation of `parts` (FIPS 203's G).
#[must_use]
pub fn sha3_512(parts: &[&[u8]]) -> [u8; 64] {
    let mut sponge = Sponge::<SHA3_512_RATE>::new();
    for part in parts {
        sponge.absorb(part);
    }
    sponge.finalize(SHA3_DOMAIN);
    let mut out = [0u8; 64];
    sponge.squeeze(&mut out);
    out
}

/// SHAKE256 of the concatenation of `parts`, `out.len()` bytes (FIPS 203's J and PRF).
pub fn shake256(parts: &[&[u8]], out: &mut [u8]) {
    let mut sponge = Sponge::<SHAKE256_RATE>::new();
    for part in parts {
        sponge.absorb(part);
    }
    sponge.finalize(SHAKE_DOMAIN);
    sponge.squeeze(out);
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
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
            f1600(&mut a);
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
                sponge.absorb(&msg[start..cut]);
                start = cut;
            }
            sponge.finalize(SHA3_DOMAIN);
            let mut ours = [0u8; 32];
            sponge.squeeze(&mut ours);
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
                sha3_256(&[head, tail]),
                <[u8; 32]>::from(sha3::Sha3_256::digest(&msg)),
                "H, {len}"
            );
            assert_eq!(
                sha3_512(&[head, tail])[..],
                sha3::Sha3_512::digest(&msg)[..],
                "G, {len}"
            );
            for out_len in [32, 128, 136, 137, 300] {
                let mut ours = std::vec![0u8; out_len];
                shake256(&[head, tail], &mut ours);
                let mut reference = std::vec![0u8; out_len];
                let mut x = sha3::Shake256::default();
                x.update(&msg);
                x.finalize_xof().read(&mut reference);
                assert_eq!(ours, reference, "SHAKE256, {len} -> {out_len}");
            }
            let mut sponge = Sponge::<168>::new();
            sponge.absorb(head);
            sponge.absorb(tail);
            sponge.finalize(SHAKE_DOMAIN);
            let mut blocks = [[0u8; 168]; 3];
            for block in &mut blocks {
                sponge.squeeze_block(block);
            }
            let mut reference = [0u8; 504];
            let mut x = sha3::Shake128::default();
            x.update(&msg);
            x.finalize_xof().read(&mut reference);
            assert_eq!(blocks.concat(), reference, "SHAKE128, {len}");
        }
    }
}
