//! AVX2 ByteEncode_d and ByteDecode_d (FIPS 203 Algorithms 5 and 6) for the `d` that
//! ML-KEM uses: 1, 4, 5, 10, 11 and 12.
//!
//! Same results as [`byte_encode_portable`] and [`byte_decode_portable`] for every input
//! (tested in `backend/tests.rs` against them). Everything is straight-line SIMD: the only
//! branches are on `d` (a constant) and on the register index, and no memory index depends
//! on a value.
//!
//! # Per `d`
//! Sixteen coefficients (one register of `u16`) are `2d` bytes, eight of them (one 128-bit
//! half) `d` bytes; `vpshufb` works per half, so most of the work is per half.
//! - d = 1: encode packs 32 bits to bytes and gathers them with `vpmovmskb`; decode
//!   broadcasts 16 bits to 16 lanes, keeps bit `k` in lane `k` and clamps it to 1.
//! - d = 4: encode packs to bytes and joins nibble pairs with `vpmaddubsw`, 64 coefficients
//!   to one 32-byte store; decode splits each byte into its two nibbles and interleaves.
//! - d = 5, 10, 11, 12, encode: `vpmaddwd` by `(1, 2^d)` joins coefficient pairs into
//!   `2d`-bit values in 32-bit lanes. For d = 12 these are 3 bytes each, compacted by one
//!   `vpshufb`. Otherwise `vpsllvd` + `vpsrlvq` join those pairs into `4d`-bit values in
//!   64-bit lanes (the upper one of each half shifted 4 bits further up when `4d` is not a
//!   whole number of bytes) and `vpshufb` puts the two of each half next to each other: one
//!   shuffle, or two OR-ed together when they share a byte (d = 5, 11).
//! - d = 5, 10, 12, decode: `vpshufb` gives each coefficient the 16-bit window of the two
//!   bytes holding it, at bit offset `s < 8` with `s + d <= 16`; `vpmullw` by `2^(16-d-s)`
//!   moves it to the top of the lane (dropping the bits above it) and `vpsrlw` by `16 - d`
//!   back to the bottom (dropping the bits below it).
//! - d = 11, decode: `s + 11` may exceed 16, so coefficients get 32-bit windows of three
//!   bytes: even ones shifted right by `s` (`vpsrlvd`), odd ones left by `16 - s`
//!   (`vpsllvd`, value in the upper 16 bits); one blend interleaves them and one AND drops
//!   the neighbours' bits.
//!
//! # Staying inside the buffers (d = 5, 10, 11, 12)
//! Each half is stored (loaded) as 16 bytes at its offset. A store writes zeros to the
//! `16 - d` bytes after the half, which the next store overwrites; a load reads bytes after
//! the half, which the shuffle ignores. Only the last registers (those whose 16-byte access
//! would pass the end of the encoding) differ: encode stores them to a local buffer and
//! copies the `d` bytes of each half, decode loads the 16 bytes *ending* where each half
//! ends and shifts its shuffle control by `16 - d`.

use crate::encode::{byte_decode_portable, byte_encode_portable, encoded_len};
use core::arch::x86_64::{
    __m128i, __m256i, _mm_set_epi64x, _mm_setr_epi8, _mm_setr_epi16, _mm_storeu_si128,
    _mm256_and_si256, _mm256_blend_epi16, _mm256_broadcastsi128_si256, _mm256_castsi256_si128,
    _mm256_cvtepu8_epi16, _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_loadu2_m128i,
    _mm256_madd_epi16, _mm256_maddubs_epi16, _mm256_min_epu16, _mm256_movemask_epi8,
    _mm256_mullo_epi16, _mm256_or_si256, _mm256_packs_epi16, _mm256_packus_epi16,
    _mm256_permute4x64_epi64, _mm256_permutevar8x32_epi32, _mm256_set1_epi8, _mm256_set1_epi16,
    _mm256_set1_epi32, _mm256_setr_epi16, _mm256_setr_epi32, _mm256_setr_epi64x,
    _mm256_shuffle_epi8, _mm256_slli_epi16, _mm256_sllv_epi32, _mm256_srl_epi16, _mm256_srli_epi16,
    _mm256_srlv_epi32, _mm256_srlv_epi64, _mm256_storeu_si256, _mm256_unpackhi_epi8,
    _mm256_unpacklo_epi8,
};
use lattice_poly_ntt::mlkem::N;

/// ByteEncode_D: `out[..32 D]` receives the 256 values of `coeffs`, each below `2^D`.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn byte_encode_avx2<const D: usize>(coeffs: &[u16; N], out: &mut [u8]) {
    match D {
        1 => encode_1(coeffs, out),
        4 => encode_4(coeffs, out),
        5 | 10 | 11 | 12 => encode_packed::<D>(coeffs, out),
        _ => byte_encode_portable::<D>(coeffs, out),
    }
}

/// ByteEncode_12 of the chunks `chunks` (32 coefficients, 48 bytes each) of `coeffs` into
/// their bytes of `out` (the 384-byte encoding of the whole polynomial); no other byte of
/// `out` is written. As [`encode_packed`], a register (16 coefficients, 24 bytes) per
/// step; the last register of the range goes through a local buffer, the others store
/// their halves directly (each 16-byte store's 4 extra zero bytes land on the next
/// register's bytes, which that register's store overwrites).
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn byte_encode_12_chunks_avx2(
    coeffs: &[u16; N],
    out: &mut [u8],
    chunks: core::ops::Range<usize>,
) {
    let out = &mut out[..encoded_len(12)];
    let (regs, _) = coeffs.as_chunks::<16>();
    let (first, end) = (2 * chunks.start.min(N / 32), 2 * chunks.end.min(N / 32));
    for i in first..end {
        let v = pack::<12>(load_words(&regs[i]));
        let at = 24 * i;
        if i + 1 < end {
            // Bytes at + 12 .. at + 28 < 24 (i + 1) + 4: inside the next register's bytes.
            store_half(out, at, _mm256_castsi256_si128(v));
            store_half(out, at + 12, _mm256_extracti128_si256::<1>(v));
        } else {
            let mut buf = [0u8; 32];
            // SAFETY: `buf` is 32 writable bytes; unaligned store.
            unsafe { _mm256_storeu_si256(buf.as_mut_ptr().cast(), v) };
            out[at..at + 12].copy_from_slice(&buf[..12]);
            out[at + 12..at + 24].copy_from_slice(&buf[16..28]);
        }
    }
}

/// ByteDecode_D: `out` receives the 256 values of `D` bits in `bytes[..32 D]`.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn byte_decode_avx2<const D: usize>(bytes: &[u8], out: &mut [u16; N]) {
    match D {
        1 => decode_1(bytes, out),
        4 => decode_4(bytes, out),
        5 | 10 | 11 | 12 => decode_packed::<D>(bytes, out),
        _ => *out = byte_decode_portable::<D>(bytes),
    }
}

// ---------------------------------------------------------------------------------------
// Loads, stores and constants.

/// Loads 16 coefficients.
#[inline]
#[target_feature(enable = "avx2")]
fn load_words(src: &[u16; 16]) -> __m256i {
    // SAFETY: `src` is 32 readable bytes; unaligned load.
    unsafe { _mm256_loadu_si256(src.as_ptr().cast()) }
}

/// Stores 16 coefficients.
#[inline]
#[target_feature(enable = "avx2")]
fn store_words(dst: &mut [u16; 16], v: __m256i) {
    // SAFETY: `dst` is 32 writable bytes; unaligned store.
    unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), v) };
}

/// Loads `bytes[lo..lo + 16]` into the low half and `bytes[hi..hi + 16]` into the high half.
#[inline]
#[target_feature(enable = "avx2")]
fn load_halves(bytes: &[u8], lo: usize, hi: usize) -> __m256i {
    let (lo, hi) = (&bytes[lo..lo + 16], &bytes[hi..hi + 16]);
    // SAFETY: `lo` and `hi` are 16 readable bytes each (bounds-checked slices); unaligned
    // loads.
    unsafe { _mm256_loadu2_m128i(hi.as_ptr().cast(), lo.as_ptr().cast()) }
}

/// Stores `v` to `out[at..at + 16]`.
#[inline]
#[target_feature(enable = "avx2")]
fn store_half(out: &mut [u8], at: usize, v: __m128i) {
    let dst = &mut out[at..at + 16];
    // SAFETY: `dst` is 16 writable bytes (a bounds-checked slice); unaligned store.
    unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) };
}

/// `vpshufb` control byte for "zero" (bit 7 set).
const ZERO: i8 = -128;

/// The `vpshufb` control `c` in both halves.
#[inline]
#[target_feature(enable = "avx2")]
fn control(c: [i8; 16]) -> __m256i {
    let [
        c0,
        c1,
        c2,
        c3,
        c4,
        c5,
        c6,
        c7,
        c8,
        c9,
        c10,
        c11,
        c12,
        c13,
        c14,
        c15,
    ] = c;
    _mm256_broadcastsi128_si256(_mm_setr_epi8(
        c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15,
    ))
}

/// The eight 16-bit lanes `w` in both halves.
#[inline]
#[target_feature(enable = "avx2")]
fn words(w: [i16; 8]) -> __m256i {
    let [w0, w1, w2, w3, w4, w5, w6, w7] = w;
    _mm256_broadcastsi128_si256(_mm_setr_epi16(w0, w1, w2, w3, w4, w5, w6, w7))
}

/// The four 32-bit lanes `w` in both halves.
#[inline]
#[target_feature(enable = "avx2")]
fn dwords(w: [i32; 4]) -> __m256i {
    let [w0, w1, w2, w3] = w;
    _mm256_setr_epi32(w0, w1, w2, w3, w0, w1, w2, w3)
}

/// A shift count for `vpsllw` / `vpsrlw` (the count register form).
#[inline]
#[target_feature(enable = "avx2")]
fn count(n: usize) -> __m128i {
    _mm_set_epi64x(0, n as i64)
}

/// Number of leading registers (16 coefficients, `2d` bytes at `2 d i`) whose two 16-byte
/// half accesses, at `2 d i` and `2 d i + d`, stay inside the `32 d` bytes:
/// `2 d i + d + 16 <= 32 d`.
const fn direct_registers(d: usize) -> usize {
    let fit = (31 * d - 16) / (2 * d) + 1;
    if fit < 16 { fit } else { 16 }
}

// ---------------------------------------------------------------------------------------
// d = 1 and d = 4.

/// ByteEncode_1: 32 coefficients (0 or 1) per step become 4 bytes.
#[inline]
#[target_feature(enable = "avx2")]
fn encode_1(coeffs: &[u16; N], out: &mut [u8]) {
    let (regs, _) = coeffs.as_chunks::<16>();
    let (pairs, _) = regs.as_chunks::<2>();
    let (outs, _) = out[..encoded_len(1)].as_chunks_mut::<4>();
    for ([a, b], dst) in pairs.iter().zip(outs) {
        // Bytes a0..a7 b0..b7 | a8..a15 b8..b15; the permute restores coefficient order.
        let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(
            load_words(a),
            load_words(b),
        ));
        // Each byte's bit 0 to its bit 7 (no bit crosses a byte: the bytes are 0 or 1).
        let bits = _mm256_movemask_epi8(_mm256_slli_epi16::<7>(bytes));
        *dst = bits.to_le_bytes();
    }
}

/// ByteDecode_1: every 2 bytes become 16 coefficients.
#[inline]
#[target_feature(enable = "avx2")]
fn decode_1(bytes: &[u8], out: &mut [u16; N]) {
    let bit = _mm256_setr_epi16(
        1,
        1 << 1,
        1 << 2,
        1 << 3,
        1 << 4,
        1 << 5,
        1 << 6,
        1 << 7,
        1 << 8,
        1 << 9,
        1 << 10,
        1 << 11,
        1 << 12,
        1 << 13,
        1 << 14,
        i16::MIN,
    );
    let one = _mm256_set1_epi16(1);
    let (srcs, _) = bytes[..encoded_len(1)].as_chunks::<2>();
    let (regs, _) = out.as_chunks_mut::<16>();
    for (src, dst) in srcs.iter().zip(regs) {
        // Lane k keeps bit k of the 16 bits, then min(that, 1) is the bit itself.
        let v = _mm256_and_si256(_mm256_set1_epi16(i16::from_le_bytes(*src)), bit);
        store_words(dst, _mm256_min_epu16(v, one));
    }
}

/// ByteEncode_4: 64 coefficients per step become 32 bytes.
#[inline]
#[target_feature(enable = "avx2")]
fn encode_4(coeffs: &[u16; N], out: &mut [u8]) {
    // Byte pairs (x, y) of a 16-bit lane times (1, 16), summed: x + 16 y.
    let nibble_pairs = _mm256_set1_epi16(0x1001);
    // After the packs below, 32-bit lane j holds the 8 coefficients
    // [a0..8, b0..8, c0..8, d0..8 | a8..16, b8..16, c8..16, d8..16][j] (4 bytes each).
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let (regs, _) = coeffs.as_chunks::<16>();
    let (quads, _) = regs.as_chunks::<4>();
    let (outs, _) = out[..encoded_len(4)].as_chunks_mut::<32>();
    for ([a, b, c, d], dst) in quads.iter().zip(outs) {
        // Values below 16 pack to bytes unchanged: a0..8 b0..8 | a8..16 b8..16.
        let ab = _mm256_packus_epi16(load_words(a), load_words(b));
        let cd = _mm256_packus_epi16(load_words(c), load_words(d));
        // One byte per coefficient pair, below 256, packs unchanged again.
        let packed = _mm256_packus_epi16(
            _mm256_maddubs_epi16(ab, nibble_pairs),
            _mm256_maddubs_epi16(cd, nibble_pairs),
        );
        let packed = _mm256_permutevar8x32_epi32(packed, order);
        // SAFETY: `dst` is 32 writable bytes; unaligned store.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), packed) };
    }
}

/// ByteDecode_4: 32 bytes per step become 64 coefficients.
#[inline]
#[target_feature(enable = "avx2")]
fn decode_4(bytes: &[u8], out: &mut [u16; N]) {
    let low4 = _mm256_set1_epi8(0x0f);
    let (srcs, _) = bytes[..encoded_len(4)].as_chunks::<32>();
    let (regs, _) = out.as_chunks_mut::<16>();
    let (quads, _) = regs.as_chunks_mut::<4>();
    for (src, [o0, o1, o2, o3]) in srcs.iter().zip(quads) {
        // SAFETY: `src` is 32 readable bytes; unaligned load.
        let v = unsafe { _mm256_loadu_si256(src.as_ptr().cast()) };
        let lo = _mm256_and_si256(v, low4);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), low4);
        // Interleaving the nibbles of bytes 0..8 of each half gives coefficients 0..16
        // (low half) and 32..48 (high half); bytes 8..16 give 16..32 and 48..64.
        let first = _mm256_unpacklo_epi8(lo, hi);
        let second = _mm256_unpackhi_epi8(lo, hi);
        store_words(o0, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(first)));
        store_words(o1, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(second)));
        store_words(
            o2,
            _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(first)),
        );
        store_words(
            o3,
            _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(second)),
        );
    }
}

// ---------------------------------------------------------------------------------------
// d = 5, 10, 11, 12: one register of 16 coefficients at a time, `d` bytes per half.

/// ByteEncode_D for D in {5, 10, 11, 12}.
#[inline]
#[target_feature(enable = "avx2")]
fn encode_packed<const D: usize>(coeffs: &[u16; N], out: &mut [u8]) {
    let out = &mut out[..encoded_len(D)];
    let direct = direct_registers(D);
    let (regs, _) = coeffs.as_chunks::<16>();
    for (i, src) in regs.iter().enumerate() {
        let v = pack::<D>(load_words(src));
        let at = 2 * D * i;
        if i < direct {
            // The low half's 16-byte store writes zeros over the high half's bytes, so it
            // goes first; the next register overwrites the zeros after the high half.
            store_half(out, at, _mm256_castsi256_si128(v));
            store_half(out, at + D, _mm256_extracti128_si256::<1>(v));
        } else {
            let mut buf = [0u8; 32];
            // SAFETY: `buf` is 32 writable bytes; unaligned store.
            unsafe { _mm256_storeu_si256(buf.as_mut_ptr().cast(), v) };
            out[at..at + D].copy_from_slice(&buf[..D]);
            out[at + D..at + 2 * D].copy_from_slice(&buf[16..16 + D]);
        }
    }
}

/// The `d` bytes of the 8 coefficients (below `2^D`) of each half, in bytes `0..D` of that
/// half; bytes `D..16` are zero.
#[inline]
#[target_feature(enable = "avx2")]
fn pack<const D: usize>(v: __m256i) -> __m256i {
    // 32-bit lane j: c_2j + 2^D c_2j+1, 2D bits (the products are exact in i32).
    let pairs = _mm256_madd_epi16(v, _mm256_set1_epi32(1 | (1 << (16 + D))));
    if D == 12 {
        // 24 bits: the low 3 bytes of each 32-bit lane, in order.
        return _mm256_shuffle_epi8(pairs, control(const { dword_compact_control() }));
    }
    // 64-bit lane: shift the even 32-bit lane up to the odd one, then shift the whole lane
    // down so they are joined, 4D bits. The upper 64-bit lane of each half goes 4 bits less
    // far down when 4D bits end mid-byte, so that its bits start where the lower's end.
    let up = 32 - 2 * D as i32;
    let partial = (4 * D % 8) as i32;
    let joined = _mm256_sllv_epi32(pairs, dwords([up, 0, up, 0]));
    let (lo, hi) = (i64::from(up), i64::from(up - partial));
    let quads = _mm256_srlv_epi64(joined, _mm256_setr_epi64x(lo, hi, lo, hi));
    if partial == 0 {
        _mm256_shuffle_epi8(
            quads,
            control(const { qword_compact_control(D, true, true) }),
        )
    } else {
        // The two share one byte: shuffle them apart and OR.
        _mm256_or_si256(
            _mm256_shuffle_epi8(
                quads,
                control(const { qword_compact_control(D, true, false) }),
            ),
            _mm256_shuffle_epi8(
                quads,
                control(const { qword_compact_control(D, false, true) }),
            ),
        )
    }
}

/// `vpshufb` control: the low 3 bytes of each 32-bit lane, moved together (12 bytes).
const fn dword_compact_control() -> [i8; 16] {
    let mut c = [ZERO; 16];
    let mut j = 0;
    while j < 12 {
        c[j] = (4 * (j / 3) + j % 3) as i8;
        j += 1;
    }
    c
}

/// `vpshufb` control joining the two `4d`-bit values of a half, one per 64-bit lane, the
/// upper one already shifted up by `4d mod 8` bits: output byte `j` is byte `j` of the
/// lower lane for `j < ceil(4d / 8)` (if `low`), or byte `j - floor(4d / 8)` of the upper
/// lane for `floor(4d / 8) <= j < d` (if `high`). When `4d` is a whole number of bytes the
/// two ranges are disjoint and one control does both.
const fn qword_compact_control(d: usize, low: bool, high: bool) -> [i8; 16] {
    let low_len = (4 * d).div_ceil(8);
    let high_start = 4 * d / 8;
    let mut c = [ZERO; 16];
    let mut j = 0;
    while j < 16 {
        if low && j < low_len {
            c[j] = j as i8;
        } else if high && high_start <= j && j < d {
            c[j] = (8 + j - high_start) as i8;
        }
        j += 1;
    }
    c
}

/// ByteDecode_D for D in {5, 10, 11, 12}.
#[inline]
#[target_feature(enable = "avx2")]
fn decode_packed<const D: usize>(bytes: &[u8], out: &mut [u16; N]) {
    let bytes = &bytes[..encoded_len(D)];
    let direct = direct_registers(D);
    let (regs, _) = out.as_chunks_mut::<16>();
    for (i, dst) in regs.iter_mut().enumerate() {
        let at = 2 * D * i;
        let v = if i < direct {
            unpack::<D, false>(load_halves(bytes, at, at + D))
        } else {
            // The 16 bytes ending where each half ends: its data at offsets 16 - D..16.
            unpack::<D, true>(load_halves(bytes, at + D - 16, at + 2 * D - 16))
        };
        store_words(dst, v);
    }
}

/// The 8 coefficients of each half from its `d` bytes, which start at byte 0 of the half,
/// or at byte `16 - D` if `TAIL`.
#[inline]
#[target_feature(enable = "avx2")]
fn unpack<const D: usize, const TAIL: bool>(v: __m256i) -> __m256i {
    if D == 11 {
        let even = _mm256_srlv_epi32(
            _mm256_shuffle_epi8(v, control(const { window32_control(D, TAIL, 0) })),
            dwords(const { window32_shifts(D, 0) }),
        );
        let odd = _mm256_sllv_epi32(
            _mm256_shuffle_epi8(v, control(const { window32_control(D, TAIL, 1) })),
            dwords(const { window32_shifts(D, 1) }),
        );
        // Low 16 bits from the even lanes, high 16 from the odd: coefficient order.
        let both = _mm256_blend_epi16::<0b1010_1010>(even, odd);
        _mm256_and_si256(both, _mm256_set1_epi16((1 << D) - 1))
    } else {
        let windows = _mm256_shuffle_epi8(v, control(const { window16_control(D, TAIL) }));
        let top = _mm256_mullo_epi16(windows, words(const { window16_multipliers(D) }));
        _mm256_srl_epi16(top, count(16 - D))
    }
}

/// Control byte for byte `i` of a half's `d` data bytes (at offset `16 - d` in a tail
/// load), or zero past the data.
const fn data_byte(d: usize, i: usize, tail: bool) -> i8 {
    if i >= d {
        ZERO
    } else if tail {
        (16 - d + i) as i8
    } else {
        i as i8
    }
}

/// `vpshufb` control: 16-bit lane `k` gets data bytes `b, b + 1` with `b = floor(d k / 8)`,
/// the bytes holding coefficient `k` (bits `d k .. d k + d`).
const fn window16_control(d: usize, tail: bool) -> [i8; 16] {
    let mut c = [ZERO; 16];
    let mut k = 0;
    while k < 8 {
        let b = d * k / 8;
        c[2 * k] = data_byte(d, b, tail);
        c[2 * k + 1] = data_byte(d, b + 1, tail);
        k += 1;
    }
    c
}

/// `vpmullw` factors for [`window16_control`]: lane `k` holds its coefficient at bit
/// `s = d k mod 8`; times `2^(16 - d - s)` puts it at the top of the lane.
const fn window16_multipliers(d: usize) -> [i16; 8] {
    let mut m = [0i16; 8];
    let mut k = 0;
    while k < 8 {
        let s = d * k % 8;
        // d = 11 goes through the 32-bit windows (s + d > 16 there); keep this total.
        m[k] = if s + d <= 16 { 1 << (16 - d - s) } else { 0 };
        k += 1;
    }
    m
}

/// `vpshufb` control: 32-bit lane `j` gets data bytes `b, b + 1, b + 2` (and a zero) with
/// `b = floor(d k / 8)` for coefficient `k = 2 j + parity`.
const fn window32_control(d: usize, tail: bool, parity: usize) -> [i8; 16] {
    let mut c = [ZERO; 16];
    let mut j = 0;
    while j < 4 {
        let b = d * (2 * j + parity) / 8;
        c[4 * j] = data_byte(d, b, tail);
        c[4 * j + 1] = data_byte(d, b + 1, tail);
        c[4 * j + 2] = data_byte(d, b + 2, tail);
        j += 1;
    }
    c
}

/// Shift counts for [`window32_control`] (coefficient `k` at bit `s = d k mod 8`, `s + d
/// <= 24`): right by `s` for even `k` (`vpsrlvd`, to bits `0..d`), left by `16 - s` for odd
/// `k` (`vpsllvd`, to bits `16..16 + d`).
const fn window32_shifts(d: usize, parity: usize) -> [i32; 4] {
    let mut s = [0i32; 4];
    let mut j = 0;
    while j < 4 {
        let bit = (d * (2 * j + parity) % 8) as i32;
        s[j] = if parity == 0 { bit } else { 16 - bit };
        j += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::direct_registers;

    #[test]
    fn direct_registers_stay_inside() {
        for d in [5, 10, 11, 12] {
            let direct = direct_registers(d);
            // The last direct register's high half fits, the next one's would not.
            assert!(2 * d * (direct - 1) + d + 16 <= 32 * d, "d = {d}");
            assert!(direct == 16 || 2 * d * direct + d + 16 > 32 * d, "d = {d}");
            // Tail loads start inside the encoding.
            assert!(2 * d * direct + d >= 16, "d = {d}");
        }
    }
}
