//! The AVX-512 token's Keccak-f\[1600\] permutations, behind the crate's permutation traits
//! (`crate::keccak::KeccakF1600`, `crate::keccak::PermuteLanes`), on the round schedule of
//! `super::super::keccak`:
//!
//! | type | states | what |
//! |---|---|---|
//! | [`X4Vl`] | 4 | `x4_vl`: four states in ymm registers with AVX-512VL ternary logic and rotations |
//! | [`VlSingle`] | 1 | one lane of that round (a word per xmm register) |
//! | [`X8`] | 8 | `x8`: eight states in zmm registers, AVX-512F |
//!
//! Each is a zero-sized value made only from the AVX-512 token
//! (`lattice_poly_ntt::backend::Avx512`), so its methods are safe to call. The multi-state
//! ones copy the states out transposed in registers and XOR a block into a lane with a
//! masked XOR of the broadcast word.

mod x4_vl;
mod x8;

use core::arch::x86_64::{
    __m256i, __m512i, __mmask8, _mm256_loadu_si256, _mm256_mask_xor_epi64,
    _mm256_permute2x128_si256, _mm256_set1_epi64x, _mm256_storeu_si256, _mm256_unpackhi_epi64,
    _mm256_unpacklo_epi64, _mm512_loadu_si512, _mm512_mask_xor_epi64, _mm512_set1_epi64,
    _mm512_setzero_si512, _mm512_shuffle_i64x2, _mm512_storeu_si512, _mm512_unpackhi_epi64,
    _mm512_unpacklo_epi64,
};

use lattice_poly_ntt::backend::Avx512;
use zeroize::Zeroize;

use self::x4_vl::{keccak_f1600_vl_single, keccak_f1600_x4_vl};
use self::x8::keccak_f1600_x8;
use crate::backend::x86_64::keccak::{load_x4, store_x4};
use crate::keccak::{KeccakF1600, PermuteLanes, WORDS};

/// One lane of the AVX-512VL round: the AVX-512 token's single state, and the one its
/// 4- and 8-way lanes finish a lone job on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VlSingle(());

impl VlSingle {
    /// The AVX-512 token's checks include AVX-512F/VL.
    pub(crate) const fn new(_: Avx512) -> Self {
        Self(())
    }
}

impl KeccakF1600 for VlSingle {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        // SAFETY: made only from an AVX-512 token (AVX-512F/VL).
        unsafe { keccak_f1600_vl_single(state) }
    }
}

/// The AVX-512VL 4-way permutation (ternary logic, native rotations).
#[derive(Clone, Copy, Debug)]
pub(crate) struct X4Vl(());

impl X4Vl {
    pub(crate) const fn new(_: Avx512) -> Self {
        Self(())
    }
}

impl KeccakF1600 for X4Vl {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        VlSingle(()).f1600(state);
    }
}

impl PermuteLanes<4> for X4Vl {
    const COPIES_OUT: bool = true;

    #[inline]
    fn permute(self, words: &mut [[u64; 4]; WORDS]) {
        let mut out = [[0u64; WORDS]; 4];
        self.permute_copying(words, &mut out);
        out.as_flattened_mut().zeroize();
    }

    #[inline]
    fn permute_copying(self, words: &mut [[u64; 4]; WORDS], out: &mut [[u64; WORDS]; 4]) {
        // SAFETY: made only from an AVX-512 token (AVX2, AVX-512F/VL).
        unsafe { permute_x4_vl(words, out) }
    }

    #[inline(always)]
    fn xor_lane(self, words: &mut [[u64; 4]; WORDS], lane: usize, block: &[u8]) {
        // SAFETY: made only from an AVX-512 token (AVX-512F/VL).
        unsafe { xor_lane_x4_vl(words, lane, block) }
    }
}

/// `PermuteLanes::xor_lane` on four lanes with AVX-512VL: a masked XOR per row.
///
/// # Safety
/// The CPU has AVX-512F/VL.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn xor_lane_x4_vl(words: &mut [[u64; 4]; WORDS], lane: usize, block: &[u8]) {
    // lane < 4: the mask selects it.
    let mask: __mmask8 = 1 << lane;
    for (row, b) in words.iter_mut().zip(block.as_chunks::<8>().0) {
        // SAFETY: `row` is 32 readable and writable bytes; the accesses are unaligned.
        unsafe {
            let r = _mm256_loadu_si256(row.as_ptr().cast());
            let b = i64::from_le_bytes(*b);
            let r = _mm256_mask_xor_epi64(r, mask, r, _mm256_set1_epi64x(b));
            _mm256_storeu_si256(row.as_mut_ptr().cast(), r);
        }
    }
}

/// The AVX-512F 8-way permutation on zmm registers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct X8(());

impl X8 {
    pub(crate) const fn new(_: Avx512) -> Self {
        Self(())
    }
}

impl KeccakF1600 for X8 {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        VlSingle(()).f1600(state);
    }
}

impl PermuteLanes<8> for X8 {
    const COPIES_OUT: bool = true;

    #[inline]
    fn permute(self, words: &mut [[u64; 8]; WORDS]) {
        let mut out = [[0u64; WORDS]; 8];
        self.permute_copying(words, &mut out);
        out.as_flattened_mut().zeroize();
    }

    #[inline]
    fn permute_copying(self, words: &mut [[u64; 8]; WORDS], out: &mut [[u64; WORDS]; 8]) {
        // SAFETY: made only from an AVX-512 token (AVX-512F).
        unsafe { permute_x8(words, out) }
    }

    #[inline(always)]
    fn xor_lane(self, words: &mut [[u64; 8]; WORDS], lane: usize, block: &[u8]) {
        // SAFETY: made only from an AVX-512 token (AVX-512F).
        unsafe { xor_lane_x8(words, lane, block) }
    }
}

/// `PermuteLanes::xor_lane` on eight lanes: a masked XOR per row (the word-by-word XOR waited
/// on the permutation's 64-byte stores of the same rows).
///
/// # Safety
/// The CPU has AVX-512F.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn xor_lane_x8(words: &mut [[u64; 8]; WORDS], lane: usize, block: &[u8]) {
    // lane < 8: the mask selects it.
    let mask: __mmask8 = 1 << lane;
    for (row, b) in words.iter_mut().zip(block.as_chunks::<8>().0) {
        // SAFETY: `row` is 64 readable and writable bytes; the accesses are unaligned.
        unsafe {
            let r = _mm512_loadu_si512(row.as_ptr().cast());
            let b = i64::from_le_bytes(*b);
            let r = _mm512_mask_xor_epi64(r, mask, r, _mm512_set1_epi64(b));
            _mm512_storeu_si512(row.as_mut_ptr().cast(), r);
        }
    }
}

/// The AVX-512VL 4-way permutation of the states in `words`, which also stores them
/// transposed to `out`. Compiled with AVX-512VL itself, so that the permutation inlines and
/// the state stays in registers from the loads to the stores (called from an AVX2-only
/// function, the permutation stayed a call, and its state went through memory twice).
///
/// # Safety
/// The CPU has AVX2 and AVX-512F/VL.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn permute_x4_vl(words: &mut [[u64; 4]; WORDS], out: &mut [[u64; WORDS]; 4]) {
    // SAFETY: this function's `target_feature`.
    let mut regs = unsafe { load_x4(words) };
    keccak_f1600_x4_vl(&mut regs);
    // SAFETY: as above.
    unsafe { store_x4(&regs, words) };
    // Transposed in registers (AVX-512VL has 32 ymm registers: nothing spills).
    for (first, rows) in regs.as_chunks::<4>().0.iter().enumerate() {
        let [r0, r1, r2, r3] = *rows;
        let (a0, a1) = (_mm256_unpacklo_epi64(r0, r1), _mm256_unpackhi_epi64(r0, r1));
        let (a2, a3) = (_mm256_unpacklo_epi64(r2, r3), _mm256_unpackhi_epi64(r2, r3));
        // Lane l gets [r0[l], r1[l], r2[l], r3[l]].
        let lanes: [__m256i; 4] = [
            _mm256_permute2x128_si256::<0x20>(a0, a2),
            _mm256_permute2x128_si256::<0x20>(a1, a3),
            _mm256_permute2x128_si256::<0x31>(a0, a2),
            _mm256_permute2x128_si256::<0x31>(a1, a3),
        ];
        for (o, lane) in out.iter_mut().zip(lanes) {
            let dst = &mut o[4 * first..4 * first + 4];
            // SAFETY: `dst` is 32 writable bytes; the store is unaligned.
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), lane) };
        }
    }
    for (o, w) in out.iter_mut().zip(words[WORDS - 1]) {
        o[WORDS - 1] = w;
    }
    regs.zeroize();
}

/// `vshufi64x2` selectors: the 128-bit blocks `[a.0, a.2, b.0, b.2]` of operands a, b, and
/// `[a.1, a.3, b.1, b.3]`.
const EVEN: i32 = 0b10_00_10_00;
const ODD: i32 = 0b11_01_11_01;

/// Loads eight states into zmm registers, permutes them, stores them, and stores them
/// transposed to `out`.
#[inline]
#[target_feature(enable = "avx512f")]
fn permute_x8(words: &mut [[u64; 8]; WORDS], out: &mut [[u64; WORDS]; 8]) {
    let mut regs: [__m512i; WORDS] = [_mm512_setzero_si512(); WORDS];
    for (reg, word) in regs.iter_mut().zip(words.iter()) {
        // SAFETY: `word` is 64 readable bytes; the load is unaligned.
        *reg = unsafe { _mm512_loadu_si512(word.as_ptr().cast()) };
    }
    keccak_f1600_x8(&mut regs);
    for (word, reg) in words.iter_mut().zip(regs) {
        // SAFETY: `word` is 64 writable bytes; the store is unaligned.
        unsafe { _mm512_storeu_si512(word.as_mut_ptr().cast(), reg) };
    }
    for (first, rows) in regs.as_chunks::<8>().0.iter().enumerate() {
        let [r0, r1, r2, r3, r4, r5, r6, r7] = *rows;
        // a[2j] = [r(2j)[0] r(2j+1)[0] | r(2j)[2] r(2j+1)[2] | .. 4 .. | .. 6 ..], a[2j+1]
        // the same for the odd words.
        let a = [
            _mm512_unpacklo_epi64(r0, r1),
            _mm512_unpackhi_epi64(r0, r1),
            _mm512_unpacklo_epi64(r2, r3),
            _mm512_unpackhi_epi64(r2, r3),
            _mm512_unpacklo_epi64(r4, r5),
            _mm512_unpackhi_epi64(r4, r5),
            _mm512_unpacklo_epi64(r6, r7),
            _mm512_unpackhi_epi64(r6, r7),
        ];
        // b[0] = [r0[0] r1[0] | r0[4] r1[4] | r2[0] r3[0] | r2[4] r3[4]], b[1]: words 2, 6;
        // b[2]: words 1, 5; b[3]: words 3, 7; b[4..8] the same for rows 4..8.
        let b = [
            _mm512_shuffle_i64x2::<EVEN>(a[0], a[2]),
            _mm512_shuffle_i64x2::<ODD>(a[0], a[2]),
            _mm512_shuffle_i64x2::<EVEN>(a[1], a[3]),
            _mm512_shuffle_i64x2::<ODD>(a[1], a[3]),
            _mm512_shuffle_i64x2::<EVEN>(a[4], a[6]),
            _mm512_shuffle_i64x2::<ODD>(a[4], a[6]),
            _mm512_shuffle_i64x2::<EVEN>(a[5], a[7]),
            _mm512_shuffle_i64x2::<ODD>(a[5], a[7]),
        ];
        // Lane l gets [r0[l], .., r7[l]].
        let lanes = [
            _mm512_shuffle_i64x2::<EVEN>(b[0], b[4]),
            _mm512_shuffle_i64x2::<EVEN>(b[2], b[6]),
            _mm512_shuffle_i64x2::<EVEN>(b[1], b[5]),
            _mm512_shuffle_i64x2::<EVEN>(b[3], b[7]),
            _mm512_shuffle_i64x2::<ODD>(b[0], b[4]),
            _mm512_shuffle_i64x2::<ODD>(b[2], b[6]),
            _mm512_shuffle_i64x2::<ODD>(b[1], b[5]),
            _mm512_shuffle_i64x2::<ODD>(b[3], b[7]),
        ];
        for (o, lane) in out.iter_mut().zip(lanes) {
            let dst = &mut o[8 * first..8 * first + 8];
            // SAFETY: `dst` is 64 writable bytes; the store is unaligned.
            unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), lane) };
        }
    }
    for (o, w) in out.iter_mut().zip(words[WORDS - 1]) {
        o[WORDS - 1] = w;
    }
    regs.zeroize();
}
