//! NEON ByteEncode_d and ByteDecode_d (FIPS 203 Algorithms 5 and 6) for the `d` that
//! ML-KEM uses: 1, 4, 5, 10, 11 and 12.
//!
//! Same results as [`byte_encode_portable`] and [`byte_decode_portable`] for every input
//! (tested in `backend/tests.rs` against them). Straight-line SIMD: the only branches are on
//! `d` (a constant) and on the group index, and no memory index depends on a value.
//!
//! # Per `d`
//! Eight coefficients (one register of `u16`) are `d` bytes.
//! - d = 1, encode: 16 coefficients narrow to bytes (`uzp1`), each shifted to its bit
//!   (`ushl`); three levels of pairwise adds (`addp`) sum the 8 bytes of each output byte.
//!   Decode: `tbl` spreads each byte over 8 lanes, `cmtst` picks bit `k` in lane `k` (0 or
//!   0xff), masked to 0 or 1 and widened (`uxtl`).
//! - d = 4, encode: narrow to bytes, `usra #4` joins each nibble pair in the low byte of its
//!   16-bit lane, `uzp1` keeps those bytes. Decode: split the nibbles (`and`, `ushr`),
//!   interleave them (`zip1`/`zip2`) and widen (`uxtl`).
//! - d = 12, encode: `ld2` separates even and odd coefficients; `sli #12` puts the low
//!   nibble of the odd one above the even one, so the 16-bit lane holds the pair's first two
//!   bytes, `shrn #4` gives the third, and `st3` interleaves the three byte streams.
//!   Decode: `ld3` gives the three streams, `zip` joins them in 16-bit lanes, a mask and a
//!   shift extract the two coefficients, `st2` interleaves them.
//! - d = 10, encode: `ld4` separates the four coefficients of each 5-byte group; `sli`
//!   joins the bits of the group's bytes 0-1 and 2-3 in two 16-bit lanes, `shrn #2` gives
//!   byte 4, and `tbl` over three registers puts the 40 bytes of 8 groups in order.
//! - d = 5, 11, encode: `sli` joins coefficient pairs in 32-bit lanes (`2d` bits), then
//!   pairs of pairs in 64-bit lanes (`4d` bits); `tbl` packs the two 64-bit lanes' bytes
//!   together: one `tbl` when `4d` is a whole number of bytes, else the upper lane is
//!   shifted 4 bits up first and two `tbl` are OR-ed (they share one byte).
//!   Decode: `tbl` gives each coefficient the 16-bit window of the two bytes that hold it
//!   (32-bit window of three bytes for d = 11, where `s + d` may exceed 16), `ushl` shifts
//!   it down by its bit offset `s`, and a mask drops its neighbours' bits.
//!
//! # Staying inside the buffers (d = 5, 11 encode; d = 5, 10, 11 decode)
//! Each group of 8 coefficients is stored (loaded) as 16 bytes at its offset `d g`. A store
//! writes zeros to the `16 - d` bytes after the group, which the next group's store
//! overwrites; a load reads bytes after the group, which `tbl` ignores. The last groups,
//! whose 16-byte access would pass the end of the encoding, differ: encode stores them to a
//! local buffer and copies their `d` bytes, decode loads the 16 bytes *ending* where the
//! group ends and shifts its `tbl` indices by `16 - d`.

use crate::encode::{byte_decode_portable, byte_encode_portable, encoded_len};
use core::arch::aarch64::{
    int16x8_t, int32x4_t, uint8x16_t, uint8x16x2_t, uint8x16x3_t, uint16x8_t, uint16x8x2_t,
    uint16x8x4_t, vandq_u8, vandq_u16, vcombine_u8, vcreate_u8, vdupq_n_u8, vdupq_n_u16,
    vget_low_u8, vld1q_u8, vld1q_u16_x4, vld2q_u16, vld3q_u8, vld4q_u16, vmovl_high_u8, vmovl_u8,
    vorrq_u8, vpaddq_u8, vqtbl1q_u8, vqtbl3_u8, vqtbl3q_u8, vreinterpretq_s8_u8,
    vreinterpretq_s16_u8, vreinterpretq_s32_u8, vreinterpretq_s64_u8, vreinterpretq_u8_u16,
    vreinterpretq_u8_u64, vreinterpretq_u16_u8, vreinterpretq_u16_u32, vreinterpretq_u32_u8,
    vreinterpretq_u32_u16, vreinterpretq_u64_u32, vshlq_u8, vshlq_u16, vshlq_u32, vshlq_u64,
    vshrn_high_n_u16, vshrn_n_u16, vshrq_n_u8, vshrq_n_u16, vshrq_n_u32, vshrq_n_u64, vsliq_n_u16,
    vsliq_n_u32, vsliq_n_u64, vsraq_n_u16, vst1_u8, vst1q_u8, vst1q_u8_x2, vst1q_u16_x4, vst2q_u16,
    vst3q_u8, vtstq_u8, vuzp1q_u8, vuzp1q_u16, vuzp2q_u8, vzip1q_u8, vzip1q_u16, vzip2q_u8,
    vzip2q_u16,
};
use lattice_poly_ntt::mlkem::N;

/// ByteEncode_D: `out[..32 D]` receives the 256 values of `coeffs`, each below `2^D`.
#[target_feature(enable = "neon")]
#[inline(never)]
pub(super) fn byte_encode_neon<const D: usize>(coeffs: &[u16; N], out: &mut [u8]) {
    // The shift counts of `sli` are immediates: each d passes its own (checked inside).
    match D {
        1 => encode_1(coeffs, out),
        4 => encode_4(coeffs, out),
        5 => encode_packed::<5, 5, 10>(coeffs, out),
        10 => encode_10(coeffs, out),
        11 => encode_packed::<11, 11, 22>(coeffs, out),
        12 => encode_12(coeffs, out, 0..N / 32),
        _ => byte_encode_portable::<D>(coeffs, out),
    }
}

/// ByteEncode_12 of the chunks `chunks` (32 coefficients, 48 bytes each) of `coeffs` into
/// their bytes of `out` (the 384-byte encoding of the whole polynomial); no other byte of
/// `out` is written, and chunks past the end are ignored.
#[target_feature(enable = "neon")]
#[inline(never)]
pub(super) fn byte_encode_12_chunks_neon(
    coeffs: &[u16; N],
    out: &mut [u8],
    chunks: core::ops::Range<usize>,
) {
    encode_12(coeffs, out, chunks);
}

/// ByteDecode_D: `out` receives the 256 values of `D` bits in `bytes[..32 D]`.
#[target_feature(enable = "neon")]
#[inline(never)]
pub(super) fn byte_decode_neon<const D: usize>(bytes: &[u8], out: &mut [u16; N]) {
    match D {
        1 => decode_1(bytes, out),
        4 => decode_4(bytes, out),
        5 | 10 => decode_packed16::<D>(bytes, out),
        11 => decode_packed32::<D>(bytes, out),
        12 => decode_12(bytes, out),
        _ => *out = byte_decode_portable::<D>(bytes),
    }
}

// ---------------------------------------------------------------------------------------
// Loads, stores and constants.

/// Loads 32 coefficients.
#[inline]
#[target_feature(enable = "neon")]
fn load32(src: &[u16; 32]) -> uint16x8x4_t {
    // SAFETY: `src` is 32 readable u16; `ld1` needs no alignment beyond u16's.
    unsafe { vld1q_u16_x4(src.as_ptr()) }
}

/// Stores 32 coefficients.
#[inline]
#[target_feature(enable = "neon")]
fn store32(dst: &mut [u16; 32], v: uint16x8x4_t) {
    // SAFETY: `dst` is 32 writable u16; `st1` needs no alignment beyond u16's.
    unsafe { vst1q_u16_x4(dst.as_mut_ptr(), v) }
}

/// Loads `bytes[at..at + 16]`.
#[inline]
#[target_feature(enable = "neon")]
fn load_at(bytes: &[u8], at: usize) -> uint8x16_t {
    let src = &bytes[at..at + 16];
    // SAFETY: `src` is 16 readable bytes (a bounds-checked slice).
    unsafe { vld1q_u8(src.as_ptr()) }
}

/// Stores `v` to `out[at..at + 16]`.
#[inline]
#[target_feature(enable = "neon")]
fn store_at(out: &mut [u8], at: usize, v: uint8x16_t) {
    let dst = &mut out[at..at + 16];
    // SAFETY: `dst` is 16 writable bytes (a bounds-checked slice).
    unsafe { vst1q_u8(dst.as_mut_ptr(), v) }
}

/// The 16 bytes `c` as a register (built from two 64-bit halves; a constant once inlined).
#[inline]
#[target_feature(enable = "neon")]
fn bytes16(c: [u8; 16]) -> uint8x16_t {
    let (lo, hi) = c.split_at(8);
    let half = |h: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(h);
        vcreate_u8(u64::from_le_bytes(w))
    };
    vcombine_u8(half(lo), half(hi))
}

/// The eight 16-bit lanes `w` (each value's low 16 bits).
#[inline]
#[target_feature(enable = "neon")]
fn words(w: [i64; 8]) -> int16x8_t {
    vreinterpretq_s16_u8(bytes16(le_bytes(w.map(|x| x as u64), 2)))
}

/// The four 32-bit lanes `w` (each value's low 32 bits).
#[inline]
#[target_feature(enable = "neon")]
fn dwords(w: [i64; 4]) -> int32x4_t {
    vreinterpretq_s32_u8(bytes16(le_bytes(w.map(|x| x as u64), 4)))
}

/// The little-endian bytes of the first `16 / width` values of `v`, `width` bytes each.
const fn le_bytes<const K: usize>(v: [u64; K], width: usize) -> [u8; 16] {
    let mut c = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        c[i] = (v[i / width] >> (8 * (i % width))) as u8;
        i += 1;
    }
    c
}

/// `tbl` index for "zero" (out of range).
const ZERO: u8 = 0xff;

// ---------------------------------------------------------------------------------------
// d = 1 and d = 4.

/// ByteEncode_1: 128 coefficients (0 or 1) per step become 16 bytes.
#[inline]
#[target_feature(enable = "neon")]
fn encode_1(coeffs: &[u16; N], out: &mut [u8]) {
    let shifts = vreinterpretq_s8_u8(bytes16([0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]));
    // 16 coefficients as bytes, coefficient k of each 8 at bit k.
    let bits = |a: uint16x8_t, b: uint16x8_t| {
        vshlq_u8(
            vuzp1q_u8(vreinterpretq_u8_u16(a), vreinterpretq_u8_u16(b)),
            shifts,
        )
    };
    let (srcs, _) = coeffs.as_chunks::<128>();
    for (i, src) in srcs.iter().enumerate() {
        let (quarters, _) = src.as_chunks::<32>();
        let [q0, q1, q2, q3] = [0, 1, 2, 3].map(|j| load32(&quarters[j]));
        let r = [
            bits(q0.0, q0.1),
            bits(q0.2, q0.3),
            bits(q1.0, q1.1),
            bits(q1.2, q1.3),
            bits(q2.0, q2.1),
            bits(q2.2, q2.3),
            bits(q3.0, q3.1),
            bits(q3.2, q3.3),
        ];
        // Disjoint bits: the sums are ORs. Each level halves the bytes per output byte;
        // after three, byte j is the sum of input bytes 8 j .. 8 j + 8, in order.
        let s = [0, 2, 4, 6].map(|j| vpaddq_u8(r[j], r[j + 1]));
        let t = [vpaddq_u8(s[0], s[1]), vpaddq_u8(s[2], s[3])];
        store_at(out, 16 * i, vpaddq_u8(t[0], t[1]));
    }
}

/// ByteDecode_1: 16 bytes per step become 128 coefficients.
#[inline]
#[target_feature(enable = "neon")]
fn decode_1(bytes: &[u8], out: &mut [u16; N]) {
    let bit = bytes16([1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128]);
    let (regs, _) = out.as_chunks_mut::<128>();
    for (i, dst) in regs.iter_mut().enumerate() {
        let v = load_at(bytes, 16 * i);
        // Coefficients 16 j .. 16 j + 16: byte 2 j in lanes 0..8, byte 2 j + 1 in 8..16;
        // lane k keeps bit k % 8 as 0 or 0xff, masked to 0 or 1, widened.
        let coeffs16 = |j: u8| {
            let spread = vqtbl1q_u8(v, bytes16(core::array::from_fn(|k| 2 * j + (k / 8) as u8)));
            let set = vandq_u8(vtstq_u8(spread, bit), vdupq_n_u8(1));
            (vmovl_u8(vget_low_u8(set)), vmovl_high_u8(set))
        };
        let (dsts, _) = dst.as_chunks_mut::<32>();
        for (j, d) in dsts.iter_mut().enumerate() {
            let (a, b) = coeffs16(2 * j as u8);
            let (c, e) = coeffs16(2 * j as u8 + 1);
            store32(d, uint16x8x4_t(a, b, c, e));
        }
    }
}

/// ByteEncode_4: 32 coefficients per step become 16 bytes.
#[inline]
#[target_feature(enable = "neon")]
fn encode_4(coeffs: &[u16; N], out: &mut [u8]) {
    let (srcs, _) = coeffs.as_chunks::<32>();
    for (i, src) in srcs.iter().enumerate() {
        let v = load32(src);
        // Values below 16: the low bytes are the coefficients.
        let ab = vuzp1q_u8(vreinterpretq_u8_u16(v.0), vreinterpretq_u8_u16(v.1));
        let cd = vuzp1q_u8(vreinterpretq_u8_u16(v.2), vreinterpretq_u8_u16(v.3));
        // 16-bit lane c + 2^8 c': plus itself >> 4, its low byte is c + 2^4 c'.
        let join = |x: uint8x16_t| {
            let x = vreinterpretq_u16_u8(x);
            vreinterpretq_u8_u16(vsraq_n_u16::<4>(x, x))
        };
        store_at(out, 16 * i, vuzp1q_u8(join(ab), join(cd)));
    }
}

/// ByteDecode_4: 16 bytes per step become 32 coefficients.
#[inline]
#[target_feature(enable = "neon")]
fn decode_4(bytes: &[u8], out: &mut [u16; N]) {
    let (dsts, _) = out.as_chunks_mut::<32>();
    for (i, dst) in dsts.iter_mut().enumerate() {
        let v = load_at(bytes, 16 * i);
        let lo = vandq_u8(v, vdupq_n_u8(0x0f));
        let hi = vshrq_n_u8::<4>(v);
        let first = vzip1q_u8(lo, hi);
        let second = vzip2q_u8(lo, hi);
        store32(
            dst,
            uint16x8x4_t(
                vmovl_u8(vget_low_u8(first)),
                vmovl_high_u8(first),
                vmovl_u8(vget_low_u8(second)),
                vmovl_high_u8(second),
            ),
        );
    }
}

// ---------------------------------------------------------------------------------------
// d = 12: 32 coefficients, 48 bytes a step.

/// ByteEncode_12 of the chunks `chunks` (32 coefficients, 48 bytes) of `coeffs` into their
/// bytes of `out[..384]`; chunks past the end are ignored.
#[inline]
#[target_feature(enable = "neon")]
fn encode_12(coeffs: &[u16; N], out: &mut [u8], chunks: core::ops::Range<usize>) {
    let (srcs, _) = coeffs.as_chunks::<32>();
    let (dsts, _) = out[..encoded_len(12)].as_chunks_mut::<48>();
    let (start, end) = (chunks.start.min(N / 32), chunks.end.min(N / 32));
    for c in start..end {
        let (src, dst) = (&srcs[c], &mut dsts[c]);
        // SAFETY: `src` is 32 readable u16; `ld2` reads 16 of them from each pointer.
        let (a, b) = unsafe { (vld2q_u16(src.as_ptr()), vld2q_u16(src.as_ptr().add(16))) };
        // Pair (e, o): e + 2^12 (o mod 16) holds its bytes 0 and 1, o >> 4 its byte 2.
        let w0 = vreinterpretq_u8_u16(vsliq_n_u16::<12>(a.0, a.1));
        let w1 = vreinterpretq_u8_u16(vsliq_n_u16::<12>(b.0, b.1));
        let third = vshrn_high_n_u16::<4>(vshrn_n_u16::<4>(a.1), b.1);
        let streams = uint8x16x3_t(vuzp1q_u8(w0, w1), vuzp2q_u8(w0, w1), third);
        // SAFETY: `dst` is 48 writable bytes, what `st3` of three 16-byte registers writes.
        unsafe { vst3q_u8(dst.as_mut_ptr(), streams) };
    }
}

/// ByteDecode_12: 48 bytes per step become 32 coefficients (values up to 4095).
#[inline]
#[target_feature(enable = "neon")]
fn decode_12(bytes: &[u8], out: &mut [u16; N]) {
    let (srcs, _) = bytes[..encoded_len(12)].as_chunks::<48>();
    let (dsts, _) = out.as_chunks_mut::<32>();
    for (src, dst) in srcs.iter().zip(dsts) {
        // SAFETY: `src` is 48 readable bytes, what `ld3` of three 16-byte registers reads.
        let b = unsafe { vld3q_u8(src.as_ptr()) };
        // Even coefficient: b0 + 2^8 (b1 mod 16); odd: (b1 + 2^8 b2) >> 4.
        let low = vandq_u8(b.1, vdupq_n_u8(0x0f));
        let even = |z: uint8x16_t| vreinterpretq_u16_u8(z);
        let odd = |z: uint8x16_t| vshrq_n_u16::<4>(vreinterpretq_u16_u8(z));
        let first = uint16x8x2_t(even(vzip1q_u8(b.0, low)), odd(vzip1q_u8(b.1, b.2)));
        let second = uint16x8x2_t(even(vzip2q_u8(b.0, low)), odd(vzip2q_u8(b.1, b.2)));
        // SAFETY: `dst` is 32 writable u16; each `st2` writes 16 of them.
        unsafe {
            vst2q_u16(dst.as_mut_ptr(), first);
            vst2q_u16(dst.as_mut_ptr().add(16), second);
        }
    }
}

// ---------------------------------------------------------------------------------------
// d = 10: 32 coefficients, 40 bytes a step.

/// ByteEncode_10: 32 coefficients (8 groups of 4, 5 bytes each) per step become 40 bytes.
#[inline]
#[target_feature(enable = "neon")]
fn encode_10(coeffs: &[u16; N], out: &mut [u8]) {
    let (srcs, _) = coeffs.as_chunks::<32>();
    let (dsts, _) = out[..encoded_len(10)].as_chunks_mut::<40>();
    let [lo, mid] = [0, 1].map(|h| bytes16(const { encode_10_control() }[h]));
    let high = vget_low_u8(bytes16(const { encode_10_control() }[2]));
    for (src, dst) in srcs.iter().zip(dsts) {
        // SAFETY: `src` is 32 readable u16, what `ld4` of four 8-lane registers reads.
        let c = unsafe { vld4q_u16(src.as_ptr()) };
        // Group j (coefficients c0..c3 of 10 bits): bytes 0-1 are c0 + 2^10 (c1 mod 2^6),
        // bytes 2-3 are (c1 >> 6) + 2^4 c2 + 2^14 (c3 mod 4), byte 4 is c3 >> 2.
        let w0 = vsliq_n_u16::<10>(c.0, c.1);
        let w1 = vsliq_n_u16::<14>(vsliq_n_u16::<4>(vshrq_n_u16::<6>(c.1), c.2), c.3);
        let b4 = vshrn_n_u16::<2>(c.3);
        // Bytes 0-3 of groups 0..4 in `first`, of groups 4..8 in `second`; byte 4 after.
        let table = uint8x16x3_t(
            vreinterpretq_u8_u16(vzip1q_u16(w0, w1)),
            vreinterpretq_u8_u16(vzip2q_u16(w0, w1)),
            vcombine_u8(b4, b4),
        );
        let (head, tail) = dst.split_at_mut(32);
        let bytes = uint8x16x2_t(vqtbl3q_u8(table, lo), vqtbl3q_u8(table, mid));
        // SAFETY: `head` is 32 writable bytes, `tail` 8, what the two stores write.
        unsafe {
            vst1q_u8_x2(head.as_mut_ptr(), bytes);
            vst1_u8(tail.as_mut_ptr(), vqtbl3_u8(table, high));
        }
    }
}

/// `tbl` indices of the 40 output bytes of [`encode_10`] (16, 16 and 8): byte `5 j + r` is
/// byte `r < 4` of group `j` (table byte `4 j + r`) or its byte 4 (table byte `32 + j`).
const fn encode_10_control() -> [[u8; 16]; 3] {
    let mut c = [[0u8; 16]; 3];
    let mut o = 0;
    while o < 40 {
        let (j, r) = (o / 5, o % 5);
        c[o / 16][o % 16] = if r < 4 { 4 * j + r } else { 32 + j } as u8;
        o += 1;
    }
    c
}

// ---------------------------------------------------------------------------------------
// d = 5, 10, 11: one group of 8 coefficients (`d` bytes) at a time.

/// Number of leading groups (8 coefficients, `d` bytes at `d g`) whose 16-byte access
/// stays inside the `32 d` bytes: `d g + 16 <= 32 d`.
const fn direct_groups(d: usize) -> usize {
    (32 * d - 16) / d + 1
}

/// ByteEncode_D for D in {5, 11} (any D below 16); `P = D` and `PP = 2 D` are the `sli` shift counts.
#[inline]
#[target_feature(enable = "neon")]
fn encode_packed<const D: usize, const P: i32, const PP: i32>(coeffs: &[u16; N], out: &mut [u8]) {
    const { assert!(P as usize == D && PP as usize == 2 * D && D < 16) };
    let out = &mut out[..encoded_len(D)];
    let direct = direct_groups(D);
    let (srcs, _) = coeffs.as_chunks::<32>();
    for (i, src) in srcs.iter().enumerate() {
        let v = load32(src);
        for (r, group) in [v.0, v.1, v.2, v.3].into_iter().enumerate() {
            let g = 4 * i + r;
            let packed = pack::<D, P, PP>(group);
            if g < direct {
                // Its 16 - D zero bytes land on the next group's, written next.
                store_at(out, D * g, packed);
            } else {
                let mut buf = [0u8; 16];
                store_at(&mut buf, 0, packed);
                out[D * g..D * (g + 1)].copy_from_slice(&buf[..D]);
            }
        }
    }
}

/// The `d` bytes of 8 coefficients below `2^D`, in bytes `0..D`; bytes `D..16` are zero.
#[inline]
#[target_feature(enable = "neon")]
fn pack<const D: usize, const P: i32, const PP: i32>(v: uint16x8_t) -> uint8x16_t {
    // 32-bit lane j: c_2j + 2^D c_2j+1 (2D bits).
    let v = vreinterpretq_u32_u16(v);
    let pairs = vreinterpretq_u64_u32(vsliq_n_u32::<P>(v, vshrq_n_u32::<16>(v)));
    // 64-bit lane: two pairs, 4D bits.
    let quads = vsliq_n_u64::<PP>(pairs, vshrq_n_u64::<32>(pairs));
    if (4 * D).is_multiple_of(8) {
        vqtbl1q_u8(
            vreinterpretq_u8_u64(quads),
            bytes16(const { quad_compact_control(D, true, true) }),
        )
    } else {
        // The upper quad starts mid-byte: shift it up by 4 bits, then the two share a byte.
        let shift = vreinterpretq_s64_u8(bytes16(le_bytes([0, 4], 8)));
        let quads = vreinterpretq_u8_u64(vshlq_u64(quads, shift));
        vorrq_u8(
            vqtbl1q_u8(
                quads,
                bytes16(const { quad_compact_control(D, true, false) }),
            ),
            vqtbl1q_u8(
                quads,
                bytes16(const { quad_compact_control(D, false, true) }),
            ),
        )
    }
}

/// `tbl` indices joining the two `4d`-bit values of a register, one per 64-bit lane, the
/// upper one already shifted up by `4d mod 8` bits: output byte `j` is byte `j` of the lower
/// lane for `j < ceil(4d / 8)` (if `low`), or byte `j - floor(4d / 8)` of the upper lane for
/// `floor(4d / 8) <= j < d` (if `high`).
const fn quad_compact_control(d: usize, low: bool, high: bool) -> [u8; 16] {
    let low_len = (4 * d).div_ceil(8);
    let high_start = 4 * d / 8;
    let mut c = [ZERO; 16];
    let mut j = 0;
    while j < 16 {
        if low && j < low_len {
            c[j] = j as u8;
        } else if high && high_start <= j && j < d {
            c[j] = (8 + j - high_start) as u8;
        }
        j += 1;
    }
    c
}

/// ByteDecode_D for D in {5, 10} (16-bit windows).
#[inline]
#[target_feature(enable = "neon")]
fn decode_packed16<const D: usize>(bytes: &[u8], out: &mut [u16; N]) {
    let bytes = &bytes[..encoded_len(D)];
    let direct = direct_groups(D);
    let shifts = words(const { window_shifts::<8>(D, 0) });
    let mask = vdupq_n_u16((1 << D) - 1);
    let unpack = |v: uint8x16_t, control: [u8; 16]| {
        let windows = vreinterpretq_u16_u8(vqtbl1q_u8(v, bytes16(control)));
        vandq_u16(vshlq_u16(windows, shifts), mask)
    };
    let (dsts, _) = out.as_chunks_mut::<32>();
    for (i, dst) in dsts.iter_mut().enumerate() {
        // A plain loop, not `core::array::from_fn`: LLVM did not always inline its closure
        // (docs/performance-history.md).
        let mut r = [mask; 4];
        for (k, reg) in r.iter_mut().enumerate() {
            let g = 4 * i + k;
            *reg = if g < direct {
                unpack(
                    load_at(bytes, D * g),
                    const { window_control::<8>(D, false) },
                )
            } else {
                // The 16 bytes ending where the group ends: its data at 16 - D..16.
                unpack(
                    load_at(bytes, D * g + D - 16),
                    const { window_control::<8>(D, true) },
                )
            };
        }
        store32(dst, uint16x8x4_t(r[0], r[1], r[2], r[3]));
    }
}

/// ByteDecode_D for D = 11 (32-bit windows: `s + 11` may exceed 16).
#[inline]
#[target_feature(enable = "neon")]
fn decode_packed32<const D: usize>(bytes: &[u8], out: &mut [u16; N]) {
    let bytes = &bytes[..encoded_len(D)];
    let direct = direct_groups(D);
    let shifts = [
        dwords(const { window_shifts::<4>(D, 0) }),
        dwords(const { window_shifts::<4>(D, 4) }),
    ];
    let mask = vdupq_n_u16((1 << D) - 1);
    let unpack = |v: uint8x16_t, controls: [[u8; 16]; 2]| {
        let [lo, hi] = [0, 1].map(|h| {
            let windows = vreinterpretq_u32_u8(vqtbl1q_u8(v, bytes16(controls[h])));
            vreinterpretq_u16_u32(vshlq_u32(windows, shifts[h]))
        });
        // The low 16 bits of each 32-bit lane, in order.
        vandq_u16(vuzp1q_u16(lo, hi), mask)
    };
    let (dsts, _) = out.as_chunks_mut::<32>();
    for (i, dst) in dsts.iter_mut().enumerate() {
        // A plain loop, as in `decode_packed16`.
        let mut r = [mask; 4];
        for (k, reg) in r.iter_mut().enumerate() {
            let g = 4 * i + k;
            *reg = if g < direct {
                unpack(load_at(bytes, D * g), const { window32_controls(D, false) })
            } else {
                unpack(
                    load_at(bytes, D * g + D - 16),
                    const { window32_controls(D, true) },
                )
            };
        }
        store32(dst, uint16x8x4_t(r[0], r[1], r[2], r[3]));
    }
}

/// `tbl` index of byte `i` of a group's `d` data bytes (at offset `16 - d` in a tail
/// load), or zero past the data.
const fn data_byte(d: usize, i: usize, tail: bool) -> u8 {
    if i >= d {
        ZERO
    } else if tail {
        (16 - d + i) as u8
    } else {
        i as u8
    }
}

/// `tbl` indices: lane `k` of `16 / L` bytes (`L` lanes) gets the data bytes from
/// `b = floor(d k / 8)` on, those holding coefficient `k` (bits `d k .. d k + d`).
const fn window_control<const L: usize>(d: usize, tail: bool) -> [u8; 16] {
    window_control_from::<L>(d, tail, 0)
}

/// [`window_control`] for coefficients `first .. first + L`.
const fn window_control_from<const L: usize>(d: usize, tail: bool, first: usize) -> [u8; 16] {
    let width = 16 / L;
    let mut c = [ZERO; 16];
    let mut k = 0;
    while k < L {
        let b = d * (first + k) / 8;
        let mut j = 0;
        // Up to 3 bytes: enough for s + d <= 8 * 3 (s < 8, d <= 12).
        while j < width && j < 3 {
            c[width * k + j] = data_byte(d, b + j, tail);
            j += 1;
        }
        k += 1;
    }
    c
}

/// The two `tbl` index sets of d = 11: coefficients 0..4 and 4..8 in 32-bit lanes.
const fn window32_controls(d: usize, tail: bool) -> [[u8; 16]; 2] {
    [
        window_control_from::<4>(d, tail, 0),
        window_control_from::<4>(d, tail, 4),
    ]
}

/// `ushl` counts for [`window_control`]: lane `k` holds coefficient `first + k` at bit
/// `s = d (first + k) mod 8`, shifted down by `s` (a negative count).
const fn window_shifts<const L: usize>(d: usize, first: usize) -> [i64; L] {
    let mut s = [0i64; L];
    let mut k = 0;
    while k < L {
        s[k] = -((d * (first + k) % 8) as i64);
        k += 1;
    }
    s
}
