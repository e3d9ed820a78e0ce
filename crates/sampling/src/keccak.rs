//! Keccak-f[1600] (FIPS 202) for one state, and the sponges ML-KEM uses: SHA3-256 (H),
//! SHA3-512 (G), SHAKE128 (XOF) and SHAKE256 (J, PRF).
//!
//! The hashes that cannot be batched across streams (H(ek) over the whole encapsulation key,
//! J(z || c) over the whole ciphertext, G) are about ten sequential permutations per KEM
//! operation, so this permutation is written for speed: one fully unrolled round on 25 local
//! lanes, two rounds per loop iteration. On x86-64 CPUs with BMI1/BMI2 (every AVX2 CPU) the
//! same code is compiled with `andn` and `rorx` available, selected at run time; elsewhere the
//! portable build runs. Both are tested against the `sha3` crate.

/// The 24 round constants of Keccak-f[1600] (FIPS 202, section 3.2.5).
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

/// One round (theta, rho, pi, chi, iota) on lanes `a[x + 5y]`, fully unrolled.
///
/// Generated from the FIPS 202 step mappings: `b[y + 5((2x + 3y) mod 5)] =
/// rot(a[x + 5y] ^ d[x], r[x + 5y])`, then `a = b ^ (!b[x+1] & b[x+2])` row by row.
#[inline(always)]
#[allow(clippy::many_single_char_names, clippy::too_many_lines)]
fn round(s: &mut [u64; 25], rc: u64) {
    let [
        a0,
        a1,
        a2,
        a3,
        a4,
        a5,
        a6,
        a7,
        a8,
        a9,
        a10,
        a11,
        a12,
        a13,
        a14,
        a15,
        a16,
        a17,
        a18,
        a19,
        a20,
        a21,
        a22,
        a23,
        a24,
    ] = *s;
    let c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20;
    let c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21;
    let c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22;
    let c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23;
    let c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24;
    let d0 = c4 ^ c1.rotate_left(1);
    let d1 = c0 ^ c2.rotate_left(1);
    let d2 = c1 ^ c3.rotate_left(1);
    let d3 = c2 ^ c4.rotate_left(1);
    let d4 = c3 ^ c0.rotate_left(1);
    let b0 = (a0 ^ d0).rotate_left(0);
    let b16 = (a5 ^ d0).rotate_left(36);
    let b7 = (a10 ^ d0).rotate_left(3);
    let b23 = (a15 ^ d0).rotate_left(41);
    let b14 = (a20 ^ d0).rotate_left(18);
    let b10 = (a1 ^ d1).rotate_left(1);
    let b1 = (a6 ^ d1).rotate_left(44);
    let b17 = (a11 ^ d1).rotate_left(10);
    let b8 = (a16 ^ d1).rotate_left(45);
    let b24 = (a21 ^ d1).rotate_left(2);
    let b20 = (a2 ^ d2).rotate_left(62);
    let b11 = (a7 ^ d2).rotate_left(6);
    let b2 = (a12 ^ d2).rotate_left(43);
    let b18 = (a17 ^ d2).rotate_left(15);
    let b9 = (a22 ^ d2).rotate_left(61);
    let b5 = (a3 ^ d3).rotate_left(28);
    let b21 = (a8 ^ d3).rotate_left(55);
    let b12 = (a13 ^ d3).rotate_left(25);
    let b3 = (a18 ^ d3).rotate_left(21);
    let b19 = (a23 ^ d3).rotate_left(56);
    let b15 = (a4 ^ d4).rotate_left(27);
    let b6 = (a9 ^ d4).rotate_left(20);
    let b22 = (a14 ^ d4).rotate_left(39);
    let b13 = (a19 ^ d4).rotate_left(8);
    let b4 = (a24 ^ d4).rotate_left(14);
    *s = [
        b0 ^ (!b1 & b2) ^ rc,
        b1 ^ (!b2 & b3),
        b2 ^ (!b3 & b4),
        b3 ^ (!b4 & b0),
        b4 ^ (!b0 & b1),
        b5 ^ (!b6 & b7),
        b6 ^ (!b7 & b8),
        b7 ^ (!b8 & b9),
        b8 ^ (!b9 & b5),
        b9 ^ (!b5 & b6),
        b10 ^ (!b11 & b12),
        b11 ^ (!b12 & b13),
        b12 ^ (!b13 & b14),
        b13 ^ (!b14 & b10),
        b14 ^ (!b10 & b11),
        b15 ^ (!b16 & b17),
        b16 ^ (!b17 & b18),
        b17 ^ (!b18 & b19),
        b18 ^ (!b19 & b15),
        b19 ^ (!b15 & b16),
        b20 ^ (!b21 & b22),
        b21 ^ (!b22 & b23),
        b22 ^ (!b23 & b24),
        b23 ^ (!b24 & b20),
        b24 ^ (!b20 & b21),
    ];
}

#[inline(always)]
fn permute_rounds(s: &mut [u64; 25]) {
    for pair in RC.chunks_exact(2) {
        round(s, pair[0]);
        round(s, pair[1]);
    }
}

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_bmi, "bmi1", "bmi2");

/// The same rounds compiled with BMI1 (`andn`) and BMI2 (`rorx`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
fn permute_bmi(s: &mut [u64; 25]) {
    permute_rounds(s);
}

/// Keccak-f[1600] on one state (FIPS 202, section 3.3, 24 rounds).
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

    /// Absorbs `data`.
    pub fn absorb(&mut self, mut data: &[u8]) {
        // Finish a partial block byte by byte, then whole blocks lane by lane.
        while !data.is_empty() && self.offset != 0 {
            self.xor_byte(self.offset, data[0]);
            data = &data[1..];
            self.offset += 1;
            if self.offset == RATE {
                f1600(&mut self.state);
                self.offset = 0;
            }
        }
        let mut blocks = data.chunks_exact(RATE);
        for block in &mut blocks {
            for (lane, bytes) in self.state.iter_mut().zip(block.chunks_exact(8)) {
                *lane ^= u64::from_le_bytes(bytes.try_into().expect("8-byte chunk"));
            }
            f1600(&mut self.state);
        }
        for &byte in blocks.remainder() {
            self.xor_byte(self.offset, byte);
            self.offset += 1;
        }
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
