//! The x86-64 Keccak-f\[1600\] permutations, behind the crate's permutation traits
//! (`crate::keccak::KeccakF1600`, `crate::keccak::PermuteLanes`):
//!
//! | type | states | what |
//! |---|---|---|
//! | [`Bmi`] | 1 | the portable rounds compiled with BMI1/BMI2 (`andn`, `rorx`) |
//! | [`X4Avx2`] | 4 | `x4`: four states in ymm registers, AVX2 |
//! | [`X4Vl`] | 4 | `x4_vl`: the same with AVX-512VL ternary logic and rotations; a single state on one lane of its round |
//! | [`X8`] | 8 | `x8`: eight states in zmm registers, AVX-512F |
//!
//! Each is a zero-sized value made only from the token that proves its instruction set
//! (`lattice_poly_ntt::backend::{Avx2, Avx512}`), so its methods are safe to call. The
//! AVX-512 ones copy the states out transposed in registers and XOR a block into a lane
//! with a masked XOR of the broadcast word. x86-64 is little-endian: the states' words are
//! stored as they are, in Keccak's byte order.

pub(crate) mod x4;
pub(crate) mod x4_vl;
mod x8;

use core::arch::x86_64::{
    __m256i, __m512i, __mmask8, _mm256_loadu_si256, _mm256_mask_xor_epi64,
    _mm256_permute2x128_si256, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_storeu_si256,
    _mm256_unpackhi_epi64, _mm256_unpacklo_epi64, _mm512_loadu_si512, _mm512_mask_xor_epi64,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_shuffle_i64x2, _mm512_storeu_si512,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi64,
};

use lattice_poly_ntt::backend::{Avx2, Avx512};
use zeroize::Zeroize;

use self::x4::keccak_f1600_x4;
use self::x4_vl::{keccak_f1600_vl_single, keccak_f1600_x4_vl};
use self::x8::keccak_f1600_x8;
use crate::keccak::f1600::permute_rounds;
use crate::keccak::{KeccakF1600, PermuteLanes, WORDS};

/// The portable rounds compiled with BMI1 (`andn`) and BMI2 (`rorx`): the AVX2 token's
/// single state, and the one its 4-way lanes finish a lone job on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bmi(());

impl Bmi {
    /// The AVX2 token's checks include BMI1 and BMI2.
    pub(crate) const fn new(_: Avx2) -> Self {
        Self(())
    }
}

impl KeccakF1600 for Bmi {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        // SAFETY: a `Bmi` is made only from an AVX2 token, whose CPU has BMI1 and BMI2.
        unsafe { permute_bmi(state) }
    }
}

/// The portable rounds with BMI1/BMI2.
///
/// # Safety
/// The CPU has BMI1 and BMI2.
#[target_feature(enable = "bmi1,bmi2")]
unsafe fn permute_bmi(state: &mut [u64; 25]) {
    permute_rounds(state);
}

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

/// The AVX2 4-way permutation. Its states are not copied out in registers: with AVX2's 16
/// ymm registers a transposition spills, and the spill slots kept PRF output in the dead
/// stack (`ct-harness residue` found 16- and 32-byte pieces); the scheduler copies the
/// squeezing lanes out word by word instead.
#[derive(Clone, Copy, Debug)]
pub(crate) struct X4Avx2(());

impl X4Avx2 {
    pub(crate) const fn new(_: Avx2) -> Self {
        Self(())
    }
}

impl KeccakF1600 for X4Avx2 {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        Bmi(()).f1600(state);
    }
}

impl PermuteLanes<4> for X4Avx2 {
    #[inline]
    fn permute(self, words: &mut [[u64; 4]; WORDS]) {
        // SAFETY: made only from an AVX2 token.
        unsafe { permute_x4_avx2(words) }
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

/// The four states of `words` in ymm registers (word `i` of the four in `regs[i]`).
///
/// # Safety
/// The CPU has AVX2. (Not a `target_feature` function: it inlines into the permutations,
/// which are.)
#[inline(always)]
unsafe fn load_x4(words: &[[u64; 4]; WORDS]) -> [__m256i; WORDS] {
    // A plain loop rather than `core::array::from_fn` (whose closure is not always
    // inlined under AVX2).
    // SAFETY: the caller guarantees AVX2.
    let mut regs = [unsafe { _mm256_setzero_si256() }; WORDS];
    for (reg, word) in regs.iter_mut().zip(words.iter()) {
        // SAFETY: `word` is 32 readable bytes; the load is unaligned; AVX2 as above.
        *reg = unsafe { _mm256_loadu_si256(word.as_ptr().cast()) };
    }
    regs
}

/// Stores `regs` back to `words` (the inverse of [`load_x4`]).
///
/// # Safety
/// As for [`load_x4`].
#[inline(always)]
unsafe fn store_x4(regs: &[__m256i; WORDS], words: &mut [[u64; 4]; WORDS]) {
    for (word, reg) in words.iter_mut().zip(regs) {
        // SAFETY: `word` is 32 writable bytes; the store is unaligned; the caller
        // guarantees AVX2.
        unsafe { _mm256_storeu_si256(word.as_mut_ptr().cast(), *reg) };
    }
}

/// The AVX2 4-way permutation of the states in `words` (the caller copies the lanes out:
/// see [`X4Avx2`]).
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn permute_x4_avx2(words: &mut [[u64; 4]; WORDS]) {
    // SAFETY: this function's `target_feature`.
    let mut regs = unsafe { load_x4(words) };
    keccak_f1600_x4(&mut regs);
    // SAFETY: as above.
    unsafe { store_x4(&regs, words) };
    regs.zeroize();
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
