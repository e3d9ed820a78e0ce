//! Totality of every public function of `lattice-field`: random and boundary inputs, no
//! panic (a panic fails the test; overflow checks and debug assertions are on in the test
//! profile), exact results against naive `%` arithmetic, and every documented output range.
//!
//! The crate has no backends (scalar, `const fn` arithmetic), so every test runs once. A
//! function with a declared input domain (`reduce_once`, `add`, `sub`, `from_signed`,
//! `Field::add_wide`) is tested on the whole domain and its edges for the residue, and off
//! it for what its docs promise there: no panic, the documented wrapping formula
//! (recomputed here in wider arithmetic), and for `reduce_once` a value congruent to the
//! input.

use lattice_field::{Field, Gf3329, Gf8380417, gf3329, gf8380417};
use lattice_field::{inverse_mod, is_primitive_root_of_unity, pow_mod};
use proptest::prelude::*;

const Q16: u16 = gf3329::Q;
const Q32: u32 = gf8380417::Q;

/// `x^e mod m` by repeated squaring in `u128`, written independently of the library
/// (right-to-left over the bits of `e`, `m = 0` and `m = 1` giving 0).
fn naive_pow_mod(x: u64, e: u64, m: u64) -> u64 {
    if m <= 1 {
        return 0;
    }
    let m = u128::from(m);
    let (mut acc, mut base) = (1u128, u128::from(x) % m);
    for bit in 0..64 {
        if (e >> bit) & 1 == 1 {
            acc = acc * base % m;
        }
        base = base * base % m;
    }
    acc as u64
}

/// Boundary values of a `u16` operand around q and the type's edges.
const U16_EDGES: [u16; 14] = [
    0,
    1,
    2,
    Q16 / 2,
    Q16 - 2,
    Q16 - 1,
    Q16,
    Q16 + 1,
    2 * Q16 - 1,
    2 * Q16,
    0x7fff,
    0x8000,
    u16::MAX - 1,
    u16::MAX,
];

/// Boundary values of a `u32` operand around q and the type's edges.
const U32_EDGES: [u32; 14] = [
    0,
    1,
    2,
    Q32 / 2,
    Q32 - 2,
    Q32 - 1,
    Q32,
    Q32 + 1,
    2 * Q32 - 1,
    2 * Q32,
    0x7fff_ffff,
    0x8000_0000,
    u32::MAX - 1,
    u32::MAX,
];

// ---- off the declared domains ---------------------------------------------------------

/// `reduce_once`'s formula for every input, recomputed in `u64`: `d = x - q` wrapped to
/// `bits` bits, then `d + q` (wrapped) if the top bit of `d` is set, else `d`.
fn reduce_once_wide(x: u64, q: u64, bits: u32) -> u64 {
    let d = (x + (1 << bits) - q) % (1 << bits);
    if d >> (bits - 1) == 1 {
        (d + q) % (1 << bits)
    } else {
        d
    }
}

#[test]
fn gf3329_off_domain_every_u16() {
    for x in 0..=u16::MAX {
        let r = gf3329::reduce_once(x);
        assert_eq!(u64::from(r), reduce_once_wide(x.into(), 3329, 16), "{x}");
        assert_eq!(r % Q16, x % Q16, "reduce_once({x}) is congruent");
        assert!(r == x || r == x - Q16);
        // from_signed of every i16: the formula with a 16-bit wrapping add.
        let s = x as i16;
        let wrapped = (i64::from(s) + 3329).rem_euclid(1 << 16) as u64;
        assert_eq!(
            u64::from(gf3329::from_signed(s)),
            reduce_once_wide(wrapped, 3329, 16)
        );
        assert_eq!(
            u64::from(<Gf3329 as Field>::from_signed(i32::from(s))),
            reduce_once_wide(wrapped, 3329, 16)
        );
    }
}

#[test]
fn gf8380417_off_domain_edges() {
    for &x in &U32_EDGES {
        let r = gf8380417::reduce_once(x);
        assert_eq!(
            u64::from(r),
            reduce_once_wide(x.into(), Q32.into(), 32),
            "{x}"
        );
        assert_eq!(r % Q32, x % Q32);
        let s = x as i32;
        let wrapped = (i64::from(s) + i64::from(Q32)).rem_euclid(1 << 32) as u64;
        assert_eq!(
            u64::from(gf8380417::from_signed(s)),
            reduce_once_wide(wrapped, Q32.into(), 32)
        );
    }
}

proptest! {
    #[test]
    fn add_sub_add_wide_off_domain(a in any::<u16>(), b in any::<u16>(), c in any::<u32>(), d in any::<u32>(), w in any::<u64>(), v in any::<u64>()) {
        let (a64, b64) = (u64::from(a), u64::from(b));
        prop_assert_eq!(u64::from(gf3329::add(a, b)), reduce_once_wide((a64 + b64) % (1 << 16), 3329, 16));
        prop_assert_eq!(u64::from(gf3329::sub(a, b)), reduce_once_wide((a64 + 3329 + (1 << 16) - b64) % (1 << 16), 3329, 16));
        let (c64, d64, q) = (u64::from(c), u64::from(d), u64::from(Q32));
        prop_assert_eq!(u64::from(gf8380417::add(c, d)), reduce_once_wide((c64 + d64) % (1 << 32), q, 32));
        prop_assert_eq!(u64::from(gf8380417::sub(c, d)), reduce_once_wide((c64 + q + (1 << 32) - d64) % (1 << 32), q, 32));
        prop_assert_eq!(u128::from(Gf8380417::add_wide(w, v)), (u128::from(w) + u128::from(v)) % (1 << 64));
        prop_assert_eq!(u64::from(Gf3329::add_wide(c, d)), (c64 + d64) % (1 << 32));
    }
}

// ---- gf3329 -------------------------------------------------------------------------

#[test]
fn gf3329_reduce_once_whole_domain() {
    for x in 0..=gf3329::REDUCE_ONCE_INPUT_MAX {
        let r = gf3329::reduce_once(x);
        assert_eq!(r, x % Q16, "reduce_once({x})");
        assert!(r < Q16);
    }
}

#[test]
fn gf3329_from_signed_whole_domain() {
    for x in gf3329::FROM_SIGNED_INPUT_MIN..=gf3329::FROM_SIGNED_INPUT_MAX {
        let r = gf3329::from_signed(x);
        assert_eq!(i32::from(r), i32::from(x).rem_euclid(i32::from(Q16)), "{x}");
    }
}

#[test]
fn gf3329_not_canonical_every_u16() {
    for x in 0..=u16::MAX {
        assert_eq!(gf3329::not_canonical(x), u8::from(x >= Q16), "{x}");
    }
}

#[test]
fn gf3329_add_sub_boundaries() {
    let edges = [0, 1, 2, Q16 / 2, Q16 / 2 + 1, Q16 - 2, Q16 - 1];
    for a in edges {
        for b in edges {
            let (wa, wb) = (u32::from(a), u32::from(b));
            assert_eq!(u32::from(gf3329::add(a, b)), (wa + wb) % 3329);
            assert_eq!(u32::from(gf3329::sub(a, b)), (wa + 3329 - wb) % 3329);
        }
    }
}

#[test]
fn gf3329_mul_and_barrett_boundaries() {
    for a in U16_EDGES {
        for b in U16_EDGES {
            let r = gf3329::mul(a, b);
            assert_eq!(
                u32::from(r),
                u32::from(a) * u32::from(b) % 3329,
                "{a} * {b}"
            );
        }
    }
    let q = u32::from(Q16);
    for x in [
        0,
        1,
        q - 1,
        q,
        q + 1,
        2 * q - 1,
        2 * q,
        q * q,
        u32::MAX / q * q - 1,
        u32::MAX / q * q,
        u32::MAX / q * q + 1,
        u32::MAX - 1,
        u32::MAX,
    ] {
        assert_eq!(u32::from(gf3329::barrett_reduce(x)), x % q, "barrett({x})");
    }
}

#[test]
fn gf3329_pow_boundaries() {
    for x in U16_EDGES {
        for e in [0, 1, 2, 128, 255, 256, 3327, 3328, u32::MAX - 1, u32::MAX] {
            let want = naive_pow_mod(u64::from(x), u64::from(e), 3329);
            assert_eq!(u64::from(gf3329::pow(x, e)), want, "{x}^{e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn gf3329_barrett_any_u32(x in any::<u32>()) {
        let r = gf3329::barrett_reduce(x);
        prop_assert_eq!(u32::from(r), x % 3329);
    }

    #[test]
    fn gf3329_add_sub_canonical(a in 0..Q16, b in 0..Q16) {
        let (wa, wb) = (u32::from(a), u32::from(b));
        prop_assert_eq!(u32::from(gf3329::add(a, b)), (wa + wb) % 3329);
        prop_assert_eq!(u32::from(gf3329::sub(a, b)), (wa + 3329 - wb) % 3329);
    }

    #[test]
    fn gf3329_mul_any_u16(a in any::<u16>(), b in any::<u16>()) {
        prop_assert_eq!(u32::from(gf3329::mul(a, b)), u32::from(a) * u32::from(b) % 3329);
    }

    #[test]
    fn gf3329_pow_any(x in any::<u16>(), e in any::<u32>()) {
        let r = gf3329::pow(x, e);
        prop_assert!(r < Q16);
        prop_assert_eq!(u64::from(r), naive_pow_mod(u64::from(x), u64::from(e), 3329));
    }
}

// ---- gf8380417 ----------------------------------------------------------------------

#[test]
fn gf8380417_boundaries() {
    let q = u64::from(Q32);
    for x in [
        0,
        1,
        Q32 - 1,
        Q32,
        Q32 + 1,
        gf8380417::REDUCE_ONCE_INPUT_MAX,
    ] {
        assert_eq!(
            u64::from(gf8380417::reduce_once(x)),
            u64::from(x) % q,
            "{x}"
        );
    }
    let canonical = [0, 1, 2, Q32 / 2, Q32 / 2 + 1, Q32 - 2, Q32 - 1];
    for a in canonical {
        for b in canonical {
            let (wa, wb) = (u64::from(a), u64::from(b));
            assert_eq!(u64::from(gf8380417::add(a, b)), (wa + wb) % q);
            assert_eq!(u64::from(gf8380417::sub(a, b)), (wa + q - wb) % q);
        }
    }
    for a in U32_EDGES {
        for b in U32_EDGES {
            let want = u64::from(a) * u64::from(b) % q;
            assert_eq!(u64::from(gf8380417::mul(a, b)), want, "{a} * {b}");
        }
        assert_eq!(gf8380417::not_canonical(a), u8::from(a >= Q32), "{a}");
    }
    for x in [
        gf8380417::FROM_SIGNED_INPUT_MIN,
        gf8380417::FROM_SIGNED_INPUT_MIN + 1,
        -1,
        0,
        1,
        gf8380417::FROM_SIGNED_INPUT_MAX - 1,
        gf8380417::FROM_SIGNED_INPUT_MAX,
    ] {
        let want = i64::from(x).rem_euclid(i64::from(Q32));
        assert_eq!(i64::from(gf8380417::from_signed(x)), want, "{x}");
    }
    for k in [0, 1, q - 1, q, 1 << 32, u64::MAX / q - 1, u64::MAX / q] {
        for d in [0, 1, q - 1] {
            let x = (k * q).saturating_add(d);
            assert_eq!(u64::from(gf8380417::barrett_reduce(x)), x % q, "{x}");
        }
    }
    assert_eq!(u64::from(gf8380417::barrett_reduce(u64::MAX)), u64::MAX % q);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn gf8380417_random(
        once in 0..=gf8380417::REDUCE_ONCE_INPUT_MAX,
        a in 0..Q32,
        b in 0..Q32,
        any_a in any::<u32>(),
        any_b in any::<u32>(),
        wide in any::<u64>(),
        signed in gf8380417::FROM_SIGNED_INPUT_MIN..=gf8380417::FROM_SIGNED_INPUT_MAX,
    ) {
        let q = u64::from(Q32);
        prop_assert_eq!(u64::from(gf8380417::reduce_once(once)), u64::from(once) % q);
        prop_assert_eq!(u64::from(gf8380417::add(a, b)), (u64::from(a) + u64::from(b)) % q);
        prop_assert_eq!(
            u64::from(gf8380417::sub(a, b)),
            (u64::from(a) + q - u64::from(b)) % q
        );
        prop_assert_eq!(
            u64::from(gf8380417::mul(any_a, any_b)),
            u64::from(any_a) * u64::from(any_b) % q
        );
        prop_assert_eq!(gf8380417::not_canonical(any_a), u8::from(any_a >= Q32));
        prop_assert_eq!(u64::from(gf8380417::barrett_reduce(wide)), wide % q);
        prop_assert_eq!(
            i64::from(gf8380417::from_signed(signed)),
            i64::from(signed).rem_euclid(i64::from(Q32))
        );
    }
}

// ---- the Field trait, on both instances ---------------------------------------------

/// An element as a `u128`.
fn el<F: Field>(x: F::Elem) -> u128 {
    let x: u64 = x.into();
    u128::from(x)
}

/// A wide value as a `u128`.
fn wd<F: Field>(x: F::Wide) -> u128 {
    x.into()
}

/// Every method of `F` on `a`, `b` (any element-type values; the domain-restricted ones
/// only where their domain holds), against naive arithmetic.
fn check_field_pair<F: Field>(a: F::Elem, b: F::Elem) {
    let q = u128::from(F::MODULUS);
    let (x, y) = (el::<F>(a), el::<F>(b));
    // Total on every value of the element type.
    let m = el::<F>(F::mul(a, b));
    assert!(m < q);
    assert_eq!(m, x * y % q, "mul({x}, {y})");
    let w = F::mul_wide(a, b);
    assert_eq!(wd::<F>(w), x * y, "mul_wide({x}, {y})");
    assert_eq!(el::<F>(F::reduce_wide(w)), x * y % q);
    assert_eq!(wd::<F>(F::widen(a)), x);
    assert_eq!(F::not_canonical(a), u8::from(x >= q));
    // Declared domains.
    if x < q && y < q {
        assert_eq!(el::<F>(F::add(a, b)), (x + y) % q);
        assert_eq!(el::<F>(F::sub(a, b)), (x + q - y) % q);
        assert!(wd::<F>(w) <= (q - 1) * (q - 1));
    }
    if x <= u128::from(F::REDUCE_ONCE_INPUT_MAX) {
        assert_eq!(el::<F>(F::reduce_once(a)), x % q);
    }
    let (wa, wb) = (F::widen(a), F::widen(b));
    if x + y <= F::WIDE_MAX {
        assert_eq!(wd::<F>(F::add_wide(wa, wb)), x + y);
    }
}

fn check_field_constants<F: Field>() {
    let q = u128::from(F::MODULUS);
    assert_eq!(el::<F>(F::Q), q);
    assert_eq!(el::<F>(F::ZERO), 0);
    assert_eq!(el::<F>(F::ONE), 1);
    assert_eq!(wd::<F>(F::WIDE_ZERO), 0);
    assert_eq!(el::<F>(F::CANONICAL_MAX), q - 1);
    assert_eq!(u128::from(F::REDUCE_ONCE_INPUT_MAX), 2 * q - 1);
    assert!(
        F::WIDE_MAX <= F::REDUCE_WIDE_INPUT_MAX,
        "reduce_wide takes every wide value"
    );
    assert_eq!(i128::from(F::FROM_SIGNED_INPUT_MIN), -(q as i128 - 1));
    assert_eq!(i128::from(F::FROM_SIGNED_INPUT_MAX), q as i128 - 1);
    for x in [
        F::FROM_SIGNED_INPUT_MIN,
        F::FROM_SIGNED_INPUT_MIN + 1,
        -3,
        -1,
        0,
        1,
        3,
        F::FROM_SIGNED_INPUT_MAX - 1,
        F::FROM_SIGNED_INPUT_MAX,
    ] {
        let r = el::<F>(F::from_signed(x));
        assert_eq!(r as i128, i128::from(x).rem_euclid(q as i128), "{x}");
    }
    let max = F::mul_wide(F::CANONICAL_MAX, F::CANONICAL_MAX);
    assert_eq!(wd::<F>(F::add_wide(F::WIDE_ZERO, max)), (q - 1) * (q - 1));
}

#[test]
fn field_trait_gf3329_boundaries() {
    check_field_constants::<Gf3329>();
    for a in U16_EDGES {
        for b in U16_EDGES {
            check_field_pair::<Gf3329>(a, b);
        }
    }
    for x in [0, 1, 3329, u32::MAX - 1, u32::MAX] {
        assert_eq!(u32::from(Gf3329::reduce_wide(x)), x % 3329);
    }
    assert_eq!(Gf3329::add_wide(u32::MAX - 1, 1), u32::MAX);
}

#[test]
fn field_trait_gf8380417_boundaries() {
    check_field_constants::<Gf8380417>();
    for a in U32_EDGES {
        for b in U32_EDGES {
            check_field_pair::<Gf8380417>(a, b);
        }
    }
    for x in [0, 1, u64::from(Q32), u64::MAX - 1, u64::MAX] {
        assert_eq!(u64::from(Gf8380417::reduce_wide(x)), x % u64::from(Q32));
    }
    assert_eq!(Gf8380417::add_wide(u64::MAX - 1, 1), u64::MAX);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn field_trait_random(
        a in any::<u16>(), b in any::<u16>(), ca in 0..Q16, cb in 0..Q16,
        c in any::<u32>(), d in any::<u32>(), cc in 0..Q32, cd in 0..Q32,
        w16 in any::<u32>(), w32 in any::<u64>(),
    ) {
        check_field_pair::<Gf3329>(a, b);
        check_field_pair::<Gf3329>(ca, cb);
        check_field_pair::<Gf8380417>(c, d);
        check_field_pair::<Gf8380417>(cc, cd);
        prop_assert_eq!(u32::from(Gf3329::reduce_wide(w16)), w16 % 3329);
        prop_assert_eq!(u64::from(Gf8380417::reduce_wide(w32)), w32 % u64::from(Q32));
    }
}

// ---- compile-time helpers -----------------------------------------------------------

const U64_EDGES: [u64; 10] = [
    0,
    1,
    2,
    3,
    3329,
    8380417,
    (1 << 32) - 1,
    1 << 32,
    u64::MAX - 1,
    u64::MAX,
];

/// Primes, from the smallest to the largest below 2^64.
const PRIMES: [u64; 7] = [
    2,
    3,
    3329,
    8380417,
    (1 << 31) - 1,
    (1 << 61) - 1,
    18_446_744_073_709_551_557,
];

fn check_inverse(x: u64, p: u64) {
    let r = inverse_mod(x, p);
    if p < 2 || x.is_multiple_of(p) {
        assert_eq!(r, 0, "inverse_mod({x}, {p})");
    } else {
        assert!(r < p);
        assert_eq!(
            u128::from(x) * u128::from(r) % u128::from(p),
            1,
            "{x}^-1 mod {p}"
        );
    }
}

/// The definition, with the naive power.
fn naive_is_primitive(z: u64, order: u64, p: u64) -> bool {
    p >= 2
        && order >= 2
        && order.is_power_of_two()
        && naive_pow_mod(z, order, p) == 1
        && naive_pow_mod(z, order / 2, p) == p - 1
}

#[test]
fn compile_time_helpers_boundaries() {
    for x in U64_EDGES {
        for e in U64_EDGES {
            for m in U64_EDGES {
                assert_eq!(pow_mod(x, e, m), naive_pow_mod(x, e, m), "{x}^{e} mod {m}");
            }
        }
        for p in U64_EDGES.into_iter().chain(PRIMES) {
            if PRIMES.contains(&p) || p < 2 {
                check_inverse(x, p);
            } else {
                // Not a prime: no inverse promised, but a total answer below p.
                assert!(inverse_mod(x, p) < p);
            }
        }
    }
    for (z, order, p) in [
        (17, 256, 3329),
        (1753, 512, 8380417),
        (17, 512, 3329),
        (17, 128, 3329),
        (3328, 2, 3329),
        (1, 2, 2),
        (0, 2, 0),
        (1, 2, 1),
        (17, 0, 3329),
        (17, 1, 3329),
        (17, 3, 3329),
        (u64::MAX, u64::MAX, u64::MAX),
        (u64::MAX, 1 << 63, u64::MAX),
    ] {
        assert_eq!(
            is_primitive_root_of_unity(z, order, p),
            naive_is_primitive(z, order, p),
            "({z}, {order}, {p})"
        );
    }
    assert!(is_primitive_root_of_unity(17, 256, 3329));
    assert!(is_primitive_root_of_unity(1753, 512, 8380417));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn compile_time_helpers_random(
        x in any::<u64>(),
        e in any::<u64>(),
        m in any::<u64>(),
        small_m in 0u64..64,
        p in prop::sample::select(PRIMES.to_vec()),
        log_order in 0u32..64,
    ) {
        prop_assert_eq!(pow_mod(x, e, m), naive_pow_mod(x, e, m));
        prop_assert_eq!(pow_mod(x, e, small_m), naive_pow_mod(x, e, small_m));
        check_inverse(x, p);
        prop_assert!(inverse_mod(x, m) < m.max(1));
        let order = 1u64 << log_order;
        prop_assert_eq!(
            is_primitive_root_of_unity(x, order, p),
            naive_is_primitive(x, order, p)
        );
        prop_assert_eq!(
            is_primitive_root_of_unity(x, e, m),
            naive_is_primitive(x, e, m)
        );
    }
}
