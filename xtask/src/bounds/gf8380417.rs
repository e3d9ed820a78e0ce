//! GF(8380417), ML-DSA's field ([`lattice_field::gf8380417`]): every reduction over its
//! declared domain, and the constant inequalities the proofs rest on.
//!
//! | function | declared domain | how |
//! |---|---|---|
//! | `reduce_once` | `[0, 2q - 1]` | exhaustive (2q inputs) |
//! | `from_signed` | `[-(q-1), q-1]` | exhaustive (2q - 1 inputs) |
//! | `not_canonical` | every `u32` | exhaustive (2^32 inputs) |
//! | `barrett_reduce` | every `u64` | [`barrett_boundaries`] + [`RANDOM_INPUTS`] random inputs |
//! | `add`, `sub`, `mul` | canonical pairs (~2^46) | [`boundary_pairs`] + [`RANDOM_PAIRS`] random pairs each |
//!
//! The two sampled domains are too large to enumerate; their rows say so
//! ([`Method::Sampled`]). What makes Barrett exact on all of them is the inequality of the
//! constants row, re-evaluated here from the library's constants; the sample checks that the
//! code implements that argument, at every place where a broken constant or a narrower type
//! would show first (the boundaries) and at random elsewhere.

use super::accumulate::SplitMix;
use super::exhaustive::check_exhaustive;
use super::reductions::{barrett_constants_check_for, exhaustive_row, interval};
use super::report::{LazySite, Method, Row, group, group_signed};
use super::sampled::{RandomSample, Sampled, check_sampled};
use lattice_field::gf8380417::{
    self as gf, BARRETT_INPUT_MAX, BARRETT_MULTIPLIER, CANONICAL_MAX, FROM_SIGNED_INPUT_MAX,
    FROM_SIGNED_INPUT_MIN, Q, REDUCE_ONCE_INPUT_MAX,
};
use lattice_poly_ntt::mldsa::{ACCUMULATOR_MAX_TERMS, MAX_COLUMNS, PRODUCT_TERM_MAX};
use std::fmt::Debug;

/// The shift of the library's Barrett reduction: it takes the high half of the 128-bit
/// product (`>> 64`, written in the code, not exported).
pub(crate) const BARRETT_SHIFT: u32 = 64;

/// Random inputs of `barrett_reduce`, after the boundaries.
pub(crate) const RANDOM_INPUTS: u64 = 1 << 28;

/// Random canonical pairs for each of `add`, `sub`, `mul`, after the boundary pairs.
pub(crate) const RANDOM_PAIRS: u64 = 1 << 26;

/// Seed of the random samples (fixed: a failure is reproducible).
const SEED: u64 = 0x0083_8041_7b0d_5eed;

/// Every `x` below this is a boundary input of `barrett_reduce`.
const DENSE_PREFIX: u64 = 1 << 20;

/// Multiples `k q` taken as boundaries at each end of the `u64` range.
const END_MULTIPLES: u64 = 1 << 12;

/// Boundary centres are taken with this many neighbours on each side.
const SPREAD: i64 = 2;

/// q as a `u64`.
const QW: u64 = Q as u64;

/// `x mod q` for the exhaustive checker's `i64` inputs (the reference).
fn mod_q(x: i64) -> i64 {
    x.rem_euclid(i64::from(Q))
}

/// The boundary inputs of `barrett_reduce` (sorted, no duplicates), each with its
/// neighbours at distance up to [`SPREAD`]:
/// - every `x < 2^20` (so 0, 1 and the first 125 multiples of q with everything between);
/// - the multiples `k q` for `k <= 2^12` and the `2^12 + 1` largest ones (`k` up to
///   `floor(u64::MAX / q)`), and `k q` for `k` next to every power of two below that;
/// - every power of two `2^k` (`k < 64`) and the multiples of q on both sides of it;
/// - the top 2^16 values up to `u64::MAX`;
/// - ML-DSA's accumulator sums `m (q-1)^2` for `m = 1 ..= MAX_COLUMNS + 1` and for `m`
///   up to `ACCUMULATOR_MAX_TERMS`, the accumulator's capacity.
pub(crate) fn barrett_boundaries() -> Vec<u64> {
    let top = u64::MAX / QW;
    let mut centres: Vec<u64> = (0..=END_MULTIPLES).map(|k| k * QW).collect();
    centres.extend((0..=END_MULTIPLES).map(|j| (top - j) * QW));
    for i in 0..=top.ilog2() {
        let k = 1u64 << i;
        centres.extend([k - 1, k, k + 1].iter().filter_map(|k| k.checked_mul(QW)));
    }
    for i in 0..64 {
        let power = 1u64 << i;
        let below = power / QW;
        centres.extend(
            [Some(power), Some(below * QW), (below + 1).checked_mul(QW)]
                .into_iter()
                .flatten(),
        );
    }
    centres.push(u64::MAX);
    centres.extend((1..=MAX_COLUMNS as u64 + 1).map(|m| m * PRODUCT_TERM_MAX));
    let capacity = ACCUMULATOR_MAX_TERMS as u64;
    centres.extend((capacity - 2..=capacity).map(|m| m * PRODUCT_TERM_MAX));
    let mut inputs: Vec<u64> = centres
        .iter()
        .flat_map(|&c| (-SPREAD..=SPREAD).filter_map(move |d| c.checked_add_signed(d)))
        .collect();
    inputs.extend(0..DENSE_PREFIX);
    inputs.extend(u64::MAX - (1 << 16)..=u64::MAX);
    inputs.sort_unstable();
    inputs.dedup();
    inputs
}

/// A random `u64`: half uniform over the whole range (so mostly above 2^60), half of a
/// uniform bit length (every scale equally often).
pub(crate) fn draw_u64(rng: &mut SplitMix) -> u64 {
    let (coin, x) = (rng.next(), rng.next());
    if coin & 1 == 0 { x } else { x >> (coin >> 58) }
}

/// The boundary elements of the canonical range: 0..3, `q-3 .. q-1`, around `q/2` and
/// `sqrt(q)`, and `2^k - 1, 2^k, 2^k + 1` for every `2^k < q`.
pub(crate) fn boundary_elements() -> Vec<u32> {
    let root = QW.isqrt() as u32;
    let mut e = vec![0, 1, 2, 3, Q - 3, Q - 2, Q - 1, root - 1, root, root + 1];
    e.extend([Q / 2 - 1, Q / 2, Q / 2 + 1]);
    for k in 1..u32::BITS {
        let power = 1u32 << k;
        e.extend([power - 1, power, power + 1]);
    }
    e.retain(|&x| x <= CANONICAL_MAX);
    e.sort_unstable();
    e.dedup();
    e
}

/// The boundary pairs of `add`, `sub`, `mul`: every pair of [`boundary_elements`], and
/// each boundary element `a` with (in both orders) the partners where a sum, difference or
/// product crosses a multiple of q: `q - 1 - a`, `q - a`, `a - 1`, `a`, `a + 1`, `a^-1` and
/// `-a^-1` (products `= 1` and `= -1 mod q`).
pub(crate) fn boundary_pairs() -> Vec<(u32, u32)> {
    let e = boundary_elements();
    let mut pairs = Vec::new();
    for &a in &e {
        pairs.extend(e.iter().map(|&b| (a, b)));
        let inverse = lattice_field::inverse_mod(a.into(), QW) as u32;
        let partners = [
            Some(Q - 1 - a),
            Some((Q - a) % Q),
            a.checked_sub(1),
            Some(a),
            Some(a + 1).filter(|&b| b <= CANONICAL_MAX),
            Some(inverse),
            Some((Q - inverse) % Q),
        ];
        for b in partners.into_iter().flatten() {
            pairs.extend([(a, b), (b, a)]);
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// A uniform canonical pair.
fn draw_pair(rng: &mut SplitMix) -> (u32, u32) {
    ((rng.next() % QW) as u32, (rng.next() % QW) as u32)
}

/// The row of a sampled check whose outputs must not exceed `out_max`, on a domain of
/// `domain_size` inputs (as text: `2^64`).
pub(crate) fn sampled_row<T: Debug>(
    s: &Sampled<T>,
    out_max: i64,
    domain_label: &str,
    domain_size: &str,
) -> Row {
    let mut row = Row::new(s.name.clone(), Method::Sampled);
    row.worst = format!(
        "out {} / {}",
        s.max_output.map_or_else(|| "-".into(), group_signed),
        group_signed(out_max)
    );
    domain_label.clone_into(&mut row.limit);
    row.how_detail = format!(
        "{} boundary + {} random of {domain_size} inputs, {:.2} s",
        group(s.boundaries.into()),
        group(s.random.into()),
        s.elapsed.as_secs_f64()
    );
    if let Some(failure) = &s.failure {
        row.failures.push(format!("counterexample: {failure}"));
    } else {
        row.require(s.passed(), || {
            format!(
                "only {} of {} inputs checked",
                s.checked,
                s.boundaries + s.random
            )
        });
    }
    row.require(s.max_output.is_none_or(|m| m <= out_max), || {
        format!("output above the declared maximum {out_max}")
    });
    row
}

/// `barrett_reduce`-like `f` against `x mod q` on [`barrett_boundaries`] and `random`
/// random inputs.
pub(crate) fn check_barrett(
    name: &str,
    random: u64,
    threads: usize,
    f: impl Fn(u64) -> i64 + Sync,
) -> Sampled<u64> {
    let reference = |x: u64| (x % QW) as i64;
    check_sampled(
        name,
        &barrett_boundaries(),
        RandomSample {
            count: random,
            seed: SEED,
        },
        threads,
        f,
        reference,
        draw_u64,
    )
}

/// The `barrett_reduce` row.
pub(crate) fn barrett_row(random: u64, threads: usize) -> Row {
    let s = check_barrett("gf8380417::barrett_reduce", random, threads, |x| {
        gf::barrett_reduce(x).into()
    });
    let mut row = sampled_row(
        &s,
        CANONICAL_MAX.into(),
        &format!("x in [0, {}] (all u64)", group(BARRETT_INPUT_MAX.into())),
        "2^64",
    );
    row.require(BARRETT_INPUT_MAX == u64::MAX, || {
        "BARRETT_INPUT_MAX is not u64::MAX: the checked domain is not the declared one".into()
    });
    row
}

/// A field operation on two canonical operands.
pub(crate) type FieldOp = fn(u32, u32) -> u32;

/// Its exact integer counterpart, before reduction mod q.
pub(crate) type ExactOp = fn(i64, i64) -> i64;

/// `op` against `exact mod q` on [`boundary_pairs`] and `random` random canonical pairs.
pub(crate) fn check_op(
    name: &str,
    op: FieldOp,
    exact: ExactOp,
    random: u64,
    threads: usize,
) -> Sampled<(u32, u32)> {
    check_sampled(
        name,
        &boundary_pairs(),
        RandomSample {
            count: random,
            seed: SEED ^ 0x5a5a,
        },
        threads,
        |(a, b): (u32, u32)| i64::from(op(a, b)),
        |(a, b): (u32, u32)| mod_q(exact(a.into(), b.into())),
        draw_pair,
    )
}

/// Every reduction of GF(8380417) over its declared domain, the Barrett constants, and the
/// inner reductions of `add`, `sub`, `from_signed`, `mul` and `barrett_reduce`.
pub(crate) fn field_rows(threads: usize) -> Vec<Row> {
    let canonical = i64::from(CANONICAL_MAX);
    let mut rows = vec![
        exhaustive_row(
            &check_exhaustive(
                "gf8380417::reduce_once",
                0..=i64::from(REDUCE_ONCE_INPUT_MAX),
                threads,
                |x| gf::reduce_once(x as u32).into(),
                mod_q,
            ),
            canonical,
            &interval(0, REDUCE_ONCE_INPUT_MAX.into()),
        ),
        exhaustive_row(
            &check_exhaustive(
                "gf8380417::from_signed",
                FROM_SIGNED_INPUT_MIN.into()..=FROM_SIGNED_INPUT_MAX.into(),
                threads,
                |x| gf::from_signed(x as i32).into(),
                mod_q,
            ),
            canonical,
            &interval(FROM_SIGNED_INPUT_MIN.into(), FROM_SIGNED_INPUT_MAX.into()),
        ),
        exhaustive_row(
            &check_exhaustive(
                "gf8380417::not_canonical",
                0..=i64::from(u32::MAX),
                threads,
                |x| gf::not_canonical(x as u32).into(),
                |x| i64::from(x >= i64::from(Q)),
            ),
            1,
            &format!("{} (all u32)", interval(0, u32::MAX.into())),
        ),
        barrett_row(RANDOM_INPUTS, threads),
    ];
    let pairs_label = format!("a, b in [0, {}]", group_signed(canonical));
    let ops: [(&str, FieldOp, ExactOp); 3] = [
        ("gf8380417::add (canonical pairs)", gf::add, |a, b| a + b),
        ("gf8380417::sub (canonical pairs)", gf::sub, |a, b| a - b),
        ("gf8380417::mul (canonical pairs)", gf::mul, |a, b| a * b),
    ];
    for (name, op, exact) in ops {
        let s = check_op(name, op, exact, RANDOM_PAIRS, threads);
        rows.push(sampled_row(&s, canonical, &pairs_label, "q^2 ~ 2^46"));
    }
    rows.push(barrett_constants_row());
    rows.extend(composition_rows());
    rows
}

/// The Barrett argument for the library's constants: `m q <= 2^64` and
/// `u64::MAX (2^64 - m q) < q 2^64`, with the product `x m` in a `u128`.
pub(crate) fn barrett_constants_row() -> Row {
    let mut row = barrett_constants_check_for(
        QW,
        BARRETT_MULTIPLIER,
        BARRETT_SHIFT,
        BARRETT_INPUT_MAX,
        128,
    );
    row.site = format!("gf8380417 {}", row.site);
    row
}

/// The inputs of the inner `reduce_once` of `add`, `sub`, `from_signed` and
/// `barrett_reduce`, and of the `barrett_reduce` of `mul`.
fn composition_rows() -> Vec<Row> {
    let canonical = u64::from(CANONICAL_MAX);
    let once = u64::from(REDUCE_ONCE_INPUT_MAX);
    let site = |site: &str, term_bound: u64, terms: u64, limit: u64| {
        LazySite {
            site: format!("gf8380417 {site}"),
            term_bound,
            terms,
            limit,
            seen: None,
            method: Method::Analytic,
        }
        .check()
    };
    let mut from_signed = site(
        "from_signed: x + q -> reduce_once",
        FROM_SIGNED_INPUT_MAX as u64 + QW,
        1,
        once,
    );
    // x + q must also stay non-negative (it is cast to u32).
    from_signed.require(FROM_SIGNED_INPUT_MIN + Q as i32 >= 0, || {
        "FROM_SIGNED_INPUT_MIN + q < 0".into()
    });
    vec![
        site("add: a + b -> reduce_once", canonical, 2, once),
        // a + q - b <= (q - 1) + q: one term of q - 1 and one of q.
        site("sub: a + q - b -> reduce_once", canonical + QW, 1, once),
        from_signed,
        // The constants row: the quotient estimate is at most one below, so x - t q < 2q.
        site(
            "barrett_reduce: x - t q -> reduce_once",
            2 * QW - 1,
            1,
            once,
        ),
        site(
            "mul: a * b -> barrett_reduce",
            canonical * canonical,
            1,
            BARRETT_INPUT_MAX,
        ),
    ]
}

/// What the details below the table say about the sampled rows.
pub(crate) fn details() -> String {
    format!(
        "GF(8380417) sampled rows: barrett_reduce on {} boundary inputs (every x < 2^20; k q +- {SPREAD} for k <= 2^12 and the top 2^12 + 1 multiples up to floor(u64::MAX / q) = {}; k q +- {SPREAD} for k next to each power of two; 2^k +- {SPREAD} for k < 64 and the multiples of q beside them; the top 2^16 values to u64::MAX; m (q-1)^2 +- {SPREAD} for m = 1..={} and m = {}..={}), then {} random u64 (half uniform, half of uniform bit length); add/sub/mul on {} boundary pairs ({} boundary elements, all pairs, and partners q-1-a, q-a, a-1, a, a+1, a^-1, -a^-1), then {} uniform random pairs each; seed {SEED:#x}\n",
        group(barrett_boundaries().len() as u128),
        group((u64::MAX / QW).into()),
        MAX_COLUMNS + 1,
        ACCUMULATOR_MAX_TERMS - 2,
        ACCUMULATOR_MAX_TERMS,
        group(RANDOM_INPUTS.into()),
        group(boundary_pairs().len() as u128),
        boundary_elements().len(),
        group(RANDOM_PAIRS.into()),
    )
}
