//! Field layer: every reduction of `lattice-field` (GF(3329) and GF(8380417)) against the
//! naive `%`, on its declared input domain (the `*_INPUT_MAX` / `CANONICAL_MAX` constants),
//! and off it what the functions promise there: no panic (the build has overflow checks and
//! debug assertions), and `reduce_once` congruent to its input (`x` or `x - q`).
//!
//! Input: any bytes, read as little-endian words. Each word is mapped into the domain of the
//! function under test two ways: clamped (so the fuzzer can reach the exact domain edges) and
//! folded with `%` (so every value it produces is in the domain).
#![no_main]

use lattice_field::gf3329::{
    BARRETT_INPUT_MAX, CANONICAL_MAX, FROM_SIGNED_INPUT_MAX, FROM_SIGNED_INPUT_MIN, Q,
    REDUCE_ONCE_INPUT_MAX, add, barrett_reduce, from_signed, mul, pow, reduce_once, sub,
};
use libfuzzer_sys::fuzz_target;

fn naive(x: i64) -> u16 {
    x.rem_euclid(i64::from(Q)) as u16
}

/// Two in-domain values for a raw word: the word folded into `[0, max]`, and the word
/// clamped to `max` (which hits `max` itself whenever the word is above it).
fn into_domain(raw: u16, max: u16) -> [u16; 2] {
    [raw % (max + 1), raw.min(max)]
}

fn check_u32(x: u32) {
    const { assert!(BARRETT_INPUT_MAX == u32::MAX) };
    assert_eq!(barrett_reduce(x), naive(x.into()), "barrett_reduce({x})");
}

fn check_u16(raw: u16) {
    for x in into_domain(raw, REDUCE_ONCE_INPUT_MAX) {
        assert_eq!(reduce_once(x), naive(x.into()), "reduce_once({x})");
    }
    // Off the domain too: x or x - q.
    let r = reduce_once(raw);
    assert!(
        r == raw || (raw >= Q && r == raw - Q),
        "reduce_once({raw}) = {r}"
    );
}

fn check_pair(raw_a: u16, raw_b: u16) {
    for a in into_domain(raw_a, CANONICAL_MAX) {
        for b in into_domain(raw_b, CANONICAL_MAX) {
            let (wa, wb) = (i64::from(a), i64::from(b));
            assert_eq!(add(a, b), naive(wa + wb), "add({a}, {b})");
            assert_eq!(sub(a, b), naive(wa - wb), "sub({a}, {b})");
            assert_eq!(mul(a, b), naive(wa * wb), "mul({a}, {b})");
        }
    }
    // Any operands: no panic.
    let _ = (add(raw_a, raw_b), sub(raw_a, raw_b));
}

fn check_signed(raw: u16) {
    let width = (FROM_SIGNED_INPUT_MAX as i32 - FROM_SIGNED_INPUT_MIN as i32 + 1) as u32;
    let folded = (FROM_SIGNED_INPUT_MIN as i32 + (u32::from(raw) % width) as i32) as i16;
    let clamped = (raw as i16).clamp(FROM_SIGNED_INPUT_MIN, FROM_SIGNED_INPUT_MAX);
    for x in [folded, clamped] {
        assert_eq!(from_signed(x), naive(x.into()), "from_signed({x})");
    }
    // Any i16: no panic.
    let _ = from_signed(raw as i16);
}

fn check_pow(base: u16, e: u8) {
    let mut expected = 1i64;
    for _ in 0..e {
        expected = expected * i64::from(base) % i64::from(Q);
    }
    assert_eq!(pow(base, e.into()), naive(expected), "pow({base}, {e})");
}

/// GF(8380417): Barrett over any u64, and reduce_once / add / sub / mul / from_signed on
/// folded and clamped inputs.
fn check_gf8380417(x: u64) {
    use lattice_field::gf8380417 as f;
    let q = u64::from(f::Q);
    assert_eq!(
        u64::from(f::barrett_reduce(x)),
        x % q,
        "gf8380417 barrett_reduce({x})"
    );
    let (lo, hi) = (x as u32, (x >> 32) as u32);
    let once = |r: u32| {
        [
            r % (f::REDUCE_ONCE_INPUT_MAX + 1),
            r.min(f::REDUCE_ONCE_INPUT_MAX),
        ]
    };
    for r in once(lo) {
        assert_eq!(
            u64::from(f::reduce_once(r)),
            u64::from(r) % q,
            "reduce_once({r})"
        );
    }
    let canon = |r: u32| [r % f::Q, r.min(f::CANONICAL_MAX)];
    for a in canon(lo) {
        for b in canon(hi) {
            let (wa, wb) = (u64::from(a), u64::from(b));
            assert_eq!(u64::from(f::add(a, b)), (wa + wb) % q, "add({a}, {b})");
            assert_eq!(u64::from(f::sub(a, b)), (wa + q - wb) % q, "sub({a}, {b})");
            assert_eq!(u64::from(f::mul(a, b)), wa * wb % q, "mul({a}, {b})");
        }
    }
    // Off the domains: no panic, reduce_once congruent.
    let r = f::reduce_once(lo);
    assert!(
        r == lo || (lo >= f::Q && r == lo - f::Q),
        "reduce_once({lo}) = {r}"
    );
    let _ = (f::add(lo, hi), f::sub(lo, hi), f::from_signed(hi as i32));
    let s = (lo % (2 * f::Q - 1)) as i32 - (f::Q as i32 - 1);
    assert_eq!(
        i64::from(f::from_signed(s)),
        i64::from(s).rem_euclid(q as i64),
        "from_signed({s})"
    );
}

fuzz_target!(|data: &[u8]| {
    for chunk in data.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        check_gf8380417(u64::from_le_bytes(word));
    }
    for chunk in data.chunks(4) {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        let x = u32::from_le_bytes(word);
        let (lo, hi) = (x as u16, (x >> 16) as u16);
        check_u32(x);
        check_u16(lo);
        check_u16(hi);
        check_pair(lo, hi);
        check_signed(lo);
        check_signed(hi);
        check_pow(lo, (hi & 0xff) as u8);
    }
});
