//! GF(3329) field reductions (`lattice_field::gf3329`) and Compress/Decompress
//! (`lazykem::__bounds`, which the `bounds-probe` feature exports), each proved over its
//! whole declared domain, plus the constant inequalities their proofs rest on (the Barrett
//! argument is shared with [`super::gf8380417`]).

use super::exhaustive::{Exhaustive, check_exhaustive};
use super::report::{LazySite, Method, Row, group, group_signed, headroom};
use lattice_field::gf3329::{
    BARRETT_INPUT_MAX, BARRETT_MULTIPLIER, BARRETT_SHIFT, CANONICAL_MAX, FROM_SIGNED_INPUT_MAX,
    FROM_SIGNED_INPUT_MIN, Q, REDUCE_ONCE_INPUT_MAX,
};
use lazykem::__bounds::{
    COMPRESS_D_MAX, COMPRESS_MULTIPLIER, COMPRESS_NUMERATOR_MAX, COMPRESS_SHIFT, compress,
    decompress,
};

/// q as an `i64`, for references.
const QI: i64 = Q as i64;

/// The exact remainder `x mod q` in `[0, q)`: the reference of every reduction.
pub(crate) fn mod_q(x: i64) -> i64 {
    // The unsigned remainder is the common case and compiles to fewer instructions.
    if x >= 0 {
        (x as u64 % u64::from(Q)) as i64
    } else {
        x.rem_euclid(QI)
    }
}

/// `round(a / b)` with ties rounded up, in exact integer arithmetic (`a >= 0`, `b > 0`).
pub(crate) fn round_half_up(a: i64, b: i64) -> i64 {
    (2 * a + b).div_euclid(2 * b)
}

/// Checks a reduction against `x mod q` on every `x` of `domain`.
pub(crate) fn check_reduction<F>(
    name: &str,
    domain: std::ops::RangeInclusive<i64>,
    threads: usize,
    f: F,
) -> Exhaustive
where
    F: Fn(i64) -> i64 + Sync,
{
    check_exhaustive(name, domain, threads, f, mod_q)
}

/// The table row of an exhaustive check whose outputs must not exceed `out_max`.
pub(crate) fn exhaustive_row(ex: &Exhaustive, out_max: i64, domain_label: &str) -> Row {
    let mut row = Row::new(ex.name.clone(), Method::Exhaustive);
    row.worst = format!(
        "out {} / {}",
        ex.max_output.map_or_else(|| "-".into(), group_signed),
        group_signed(out_max)
    );
    domain_label.clone_into(&mut row.limit);
    row.how_detail = format!(
        "{} inputs, {:.2} s",
        group(ex.checked.into()),
        ex.elapsed.as_secs_f64()
    );
    if let Some(cx) = ex.counterexample {
        row.failures.push(format!("counterexample: {cx}"));
    } else {
        row.require(ex.passed(), || {
            format!("only {} of {} inputs checked", ex.checked, ex.domain_size())
        });
    }
    row.require(ex.max_output.is_none_or(|m| m <= out_max), || {
        format!("output above the declared maximum {out_max}")
    });
    row
}

/// `[lo, hi]` with digit grouping.
pub(crate) fn interval(lo: i64, hi: i64) -> String {
    format!("in [{}, {}]", group_signed(lo), group_signed(hi))
}

/// A field operation on two canonical operands.
type FieldOp = fn(u16, u16) -> u16;

/// Its exact integer counterpart, before reduction mod q.
type ExactOp = fn(i64, i64) -> i64;

/// Decodes a pair index `a * q + b` of the canonical-pair domain.
fn pair(index: i64) -> (u16, u16) {
    ((index / QI) as u16, (index % QI) as u16)
}

/// Every reduction of `lattice-field` over its declared domain.
pub(crate) fn field_rows(threads: usize) -> Vec<Row> {
    let canonical = i64::from(CANONICAL_MAX);
    let pairs = (canonical + 1) * (canonical + 1) - 1;
    let pairs_label = format!("a, b in [0, {}]", group_signed(canonical));
    let mut rows = vec![
        exhaustive_row(
            &check_reduction(
                "reduce_once",
                0..=i64::from(REDUCE_ONCE_INPUT_MAX),
                threads,
                |x| lattice_field::gf3329::reduce_once(x as u16).into(),
            ),
            canonical,
            &interval(0, REDUCE_ONCE_INPUT_MAX.into()),
        ),
        exhaustive_row(
            &check_reduction(
                "barrett_reduce",
                0..=i64::from(BARRETT_INPUT_MAX),
                threads,
                |x| lattice_field::gf3329::barrett_reduce(x as u32).into(),
            ),
            canonical,
            &interval(0, BARRETT_INPUT_MAX.into()),
        ),
        exhaustive_row(
            &check_reduction(
                "from_signed",
                FROM_SIGNED_INPUT_MIN.into()..=FROM_SIGNED_INPUT_MAX.into(),
                threads,
                |x| lattice_field::gf3329::from_signed(x as i16).into(),
            ),
            canonical,
            &interval(FROM_SIGNED_INPUT_MIN.into(), FROM_SIGNED_INPUT_MAX.into()),
        ),
    ];
    let ops: [(&str, FieldOp, ExactOp); 3] = [
        (
            "add (all canonical pairs)",
            lattice_field::gf3329::add,
            |a, b| a + b,
        ),
        (
            "sub (all canonical pairs)",
            lattice_field::gf3329::sub,
            |a, b| a - b,
        ),
        (
            "mul (all canonical pairs)",
            lattice_field::gf3329::mul,
            |a, b| a * b,
        ),
    ];
    for (name, op, exact) in ops {
        let ex = check_exhaustive(
            name,
            0..=pairs,
            threads,
            |i| {
                let (a, b) = pair(i);
                op(a, b).into()
            },
            |i| {
                let (a, b) = pair(i);
                mod_q(exact(a.into(), b.into()))
            },
        );
        let mut row = exhaustive_row(&ex, canonical, &pairs_label);
        if let Some(cx) = ex.counterexample {
            let (a, b) = pair(cx.input);
            row.failures.push(format!("that is a = {a}, b = {b}"));
        }
        rows.push(row);
    }
    rows.push(barrett_constants_row());
    rows.extend(field_composition_rows());
    rows
}

/// The Barrett constants: `x * m` fits a `u64` and the quotient estimate is at most one
/// below `floor(x / q)` for every `x <= BARRETT_INPUT_MAX`.
pub(crate) fn barrett_constants_row() -> Row {
    barrett_constants_check(BARRETT_MULTIPLIER, BARRETT_SHIFT, BARRETT_INPUT_MAX.into())
}

/// The Barrett argument for GF(3329) with a multiplier `m`, shift `s` and input bound
/// `x_max` (the product `x m` is computed in a `u64`): see [`barrett_constants_check_for`].
pub(crate) fn barrett_constants_check(m: u64, s: u32, x_max: u64) -> Row {
    barrett_constants_check_for(u64::from(Q), m, s, x_max, 64)
}

/// The Barrett argument for modulus `q`, multiplier `m`, shift `s` and input bound `x_max`:
/// `floor(x m / 2^s)` is `floor(x / q)` or one less iff `x_max (2^s - m q) < q 2^s` (with
/// `m q <= 2^s`), and the product `x m` must fit the `product_bits`-bit type it is computed
/// in.
pub(crate) fn barrett_constants_check_for(
    q: u64,
    m: u64,
    s: u32,
    x_max: u64,
    product_bits: u32,
) -> Row {
    let q = u128::from(q);
    let two_s = 1u128 << s;
    let mut row = Row::new(
        format!("Barrett constants m = {}, s = {s}", group(m.into())),
        Method::ConstAssert,
    );
    row.term_bound = format!("x <= {}", group(x_max.into()));
    row.require(u128::from(m) * q <= two_s, || {
        format!("m q > 2^{s}: the quotient estimate can exceed floor(x / q)")
    });
    let error = two_s.saturating_sub(u128::from(m) * q);
    let worst = u128::from(x_max) * error;
    let limit = q * two_s;
    row.worst = format!("- / x_max (2^s - m q) = {}", group(worst));
    row.limit = format!("q 2^s = {}", group(limit));
    row.headroom = headroom(limit, worst);
    row.require(worst < limit, || {
        "x_max (2^s - m q) >= q 2^s: the quotient estimate can be two below".into()
    });
    let product_max = u128::MAX >> (128 - product_bits);
    row.require(u128::from(x_max) * u128::from(m) <= product_max, || {
        format!("x * m overflows a u{product_bits}")
    });
    row
}

/// Inputs of the inner reductions of `add`, `sub`, `from_signed`, `mul` and of the call
/// sites in `lattice-sampling` / `lazykem` that feed the field reductions directly.
fn field_composition_rows() -> Vec<Row> {
    let canonical = u64::from(CANONICAL_MAX);
    let q = u64::from(Q);
    let once = u64::from(REDUCE_ONCE_INPUT_MAX);
    let mut rows = Vec::new();
    let mut site = |site: &str, term_bound: u64, terms: u64, limit: u64| {
        rows.push(
            LazySite {
                site: site.into(),
                term_bound,
                terms,
                limit,
                seen: None,
                method: Method::Analytic,
            }
            .check(),
        );
    };
    site("add: a + b -> reduce_once", canonical, 2, once);
    // a + q - b <= (q - 1) + q: one term of q - 1 and one of q.
    site("sub: a + q - b -> reduce_once", canonical + q, 1, once);
    // x + q <= FROM_SIGNED_INPUT_MAX + q.
    site(
        "from_signed: x + q -> reduce_once",
        FROM_SIGNED_INPUT_MAX as u64 + q,
        1,
        once,
    );
    site(
        "mul: a * b -> barrett_reduce",
        canonical * canonical,
        1,
        BARRETT_INPUT_MAX.into(),
    );
    // K-PKE decryption key decoding: 12-bit values reduced with reduce_once.
    site("ByteDecode_12 (dk) -> reduce_once", (1 << 12) - 1, 1, once);
    let mut cbd = Row::new("CBD_eta (eta <= 3) -> from_signed", Method::Analytic);
    cbd.worst = "- / [-3, 3]".into();
    cbd.limit = interval(FROM_SIGNED_INPUT_MIN.into(), FROM_SIGNED_INPUT_MAX.into());
    cbd.require(
        FROM_SIGNED_INPUT_MIN <= -3 && FROM_SIGNED_INPUT_MAX >= 3,
        || "CBD output outside from_signed's domain".into(),
    );
    rows.push(cbd);
    rows
}

/// `compress::<D>` against `round(2^d x / q) mod 2^d` for every canonical `x`, and
/// `decompress::<D>` against `round(q y / 2^d)` for every `y < 2^d`.
fn compress_pair<const D: usize>(threads: usize) -> [Row; 2] {
    let d = D as u32;
    let canonical = i64::from(CANONICAL_MAX);
    let ex = check_exhaustive(
        &format!("compress_{D}"),
        0..=canonical,
        threads,
        |x| compress::<D>(x as u16).into(),
        |x| round_half_up(x << d, QI).rem_euclid(1 << d),
    );
    let mut c = exhaustive_row(&ex, (1 << d) - 1, &interval(0, canonical));
    let numerator = (u64::from(CANONICAL_MAX) << d) + u64::from(Q / 2);
    c.require(
        D <= COMPRESS_D_MAX && numerator <= COMPRESS_NUMERATOR_MAX,
        || format!("numerator {numerator} above COMPRESS_NUMERATOR_MAX"),
    );
    let ex = check_exhaustive(
        &format!("decompress_{D}"),
        0..=(1 << d) - 1,
        threads,
        |y| decompress::<D>(y as u16).into(),
        |y| round_half_up(QI * y, 1 << d),
    );
    let dc = exhaustive_row(&ex, canonical, &interval(0, (1 << d) - 1));
    [c, dc]
}

/// Compress/Decompress for every d of ML-KEM, and the reciprocal constant of `compress`.
pub(crate) fn compress_rows(threads: usize) -> Vec<Row> {
    let mut rows = vec![compress_reciprocal_row(
        COMPRESS_MULTIPLIER,
        COMPRESS_SHIFT,
        COMPRESS_NUMERATOR_MAX,
        threads,
    )];
    rows.push(compress_constants_row());
    // d_v = 4, 5 and d_u = 10, 11 of the three parameter sets, and d = 1 for the message.
    for row in [
        compress_pair::<1>(threads),
        compress_pair::<4>(threads),
        compress_pair::<5>(threads),
        compress_pair::<10>(threads),
        compress_pair::<11>(threads),
    ]
    .into_iter()
    .flatten()
    {
        rows.push(row);
    }
    rows
}

/// `floor(y * m / 2^s) == floor(y / q)` for every `y` in `[0, numerator_max]`.
pub(crate) fn compress_reciprocal_row(m: u64, s: u32, numerator_max: u64, threads: usize) -> Row {
    let ex = check_exhaustive(
        &format!("compress reciprocal (y m) >> {s} = y / q"),
        0..=numerator_max as i64,
        threads,
        |y| ((y as u64 * m) >> s) as i64,
        |y| y.div_euclid(QI),
    );
    let out_max = numerator_max as i64 / QI;
    exhaustive_row(&ex, out_max, &interval(0, numerator_max as i64))
}

/// The compile-time argument for the reciprocal: `y (m q - 2^s) < 2^s` for every numerator.
fn compress_constants_row() -> Row {
    let mut row = Row::new(
        format!(
            "Compress constants m = {}, s = {COMPRESS_SHIFT}",
            group(COMPRESS_MULTIPLIER.into())
        ),
        Method::ConstAssert,
    );
    let two_s = 1u128 << COMPRESS_SHIFT;
    let mq = u128::from(COMPRESS_MULTIPLIER) * u128::from(Q);
    row.require(mq >= two_s, || "m q < 2^s: m must round up".into());
    let worst = u128::from(COMPRESS_NUMERATOR_MAX) * mq.saturating_sub(two_s);
    row.term_bound = format!("y <= {}", group(COMPRESS_NUMERATOR_MAX.into()));
    row.worst = format!("- / y_max (m q - 2^s) = {}", group(worst));
    row.limit = format!("2^s = {}", group(two_s));
    row.headroom = headroom(two_s, worst);
    row.require(worst < two_s, || "y_max (m q - 2^s) >= 2^s".into());
    row.require(
        u128::from(COMPRESS_NUMERATOR_MAX) * u128::from(COMPRESS_MULTIPLIER)
            <= u128::from(u64::MAX),
        || "y * m overflows a u64".into(),
    );
    row
}
