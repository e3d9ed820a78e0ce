//! The NEON backend (`lattice_poly_ntt::__bounds::neon`), checked on any host through its
//! scalar models (`neon::model`, bit for bit the NEON lane operations; a unit test under
//! qemu compares them with the instructions) and its schedules (`neon::ntt`, the very code
//! the kernels run, generic over the lane vocabulary `neon::lanes::Lanes`).
//!
//! | row | how |
//! |---|---|
//! | `bmul` | every `i16` times every twiddle and gamma of the kernels' tables: `r = a z mod q`, `2^16 |r| <= 2^15 q + q |a|`; each `zt` is `round(z 2^15 / q)` |
//! | `reduce_centered`, `reduce_canonical`, `add_q_if_negative`, `add_mod`, `sub_mod` | exhaustive over each declared domain |
//! | `reduce_wide` | every input of `[0, NEON_ACCUMULATOR_LIMIT]` on all cores: `r = x mod q` |
//! | accumulator | `NEON_MAX_TERMS` terms of `PRODUCT_TERM_MAX` within `NEON_ACCUMULATOR_LIMIT` <= `i32::MAX`, `MAX_RANK <= NEON_MAX_TERMS` |
//! | NTT / inverse NTT lanes | the schedules run in an interval domain (per-lane bounds through every operation, each operation's domain checked) against `NEON_NTT_LANE_BOUND` / `NEON_INTT_LANE_BOUND`; the scalar model on extreme, random and hill-climbed inputs stays within the intervals and equals the portable backend |

use super::ntt::extreme_inputs;
use super::report::{LazySite, Method, Row, group, group_signed, headroom};
use lattice_field::gf3329::{CANONICAL_MAX, Q};
use lattice_poly_ntt::__bounds::neon::lanes::{INTT_STAGES, Lanes, NTT_STAGES, Stage};
use lattice_poly_ntt::__bounds::neon::model::{self, Scalar};
use lattice_poly_ntt::__bounds::neon::ntt::{self, TWIDDLE_TABLES};
use lattice_poly_ntt::__bounds::neon::{
    CANONICAL_REDUCE_INPUT_MAX, NEON_ACCUMULATOR_LIMIT, NEON_INTT_LANE_BOUND, NEON_MAX_TERMS,
    NEON_NTT_LANE_BOUND,
};
use lattice_poly_ntt::mlkem::{MAX_RANK, MlKem, N, PRODUCT_TERM_MAX};
use lattice_poly_ntt::{Backend, Portable};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::Instant;

const QI: i64 = Q as i64;
const TAG: &str = " [NEON]";

fn all_i16() -> impl Iterator<Item = i16> {
    i16::MIN..=i16::MAX
}

/// `round(z 2^15 / q)`, computed here independently of the library (exact rationals).
fn twist(z: i16) -> i16 {
    let num = i64::from(z) << 15;
    // round half away from zero; z 2^15 / q is never a half-integer (q odd, prime).
    let r = (2 * num + num.signum() * QI) / (2 * QI);
    r as i16
}

/// The `bmul` row: every `i16` times every `(z, zt)` of the tables.
fn bmul_row() -> Row {
    let start = Instant::now();
    let mut row = Row::new(
        format!("bmul (Barrett by constant){TAG}"),
        Method::Exhaustive,
    );
    let mut constants = BTreeSet::new();
    for (name, table) in TWIDDLE_TABLES {
        row.require(table.len() % 2 == 0, || {
            format!("{name}: odd number of rows")
        });
        for rows in table.chunks(2) {
            for l in 0..8 {
                let (z, zt) = (rows[0][l], rows[1][l]);
                row.require(zt == twist(z), || {
                    format!("{name}: zt = {zt} for z = {z}, expected {}", twist(z))
                });
                row.require(i64::from(z).abs() <= QI / 2, || {
                    format!("{name}: z = {z} not centered")
                });
                constants.insert((z, zt));
            }
        }
    }
    let mut worst_ratio = 0i64;
    let mut checked = 0u64;
    'outer: for &(z, zt) in &constants {
        for a in all_i16() {
            let r = i64::from(model::bmul(a, z, zt));
            let a64 = i64::from(a);
            checked += 1;
            // 2^16 |r| <= 2^15 q + q |a|
            let lhs = (1 << 16) * r.abs();
            let rhs = (1 << 15) * QI + QI * a64.abs();
            worst_ratio = worst_ratio.max(r.abs());
            if (r - a64 * i64::from(z)).rem_euclid(QI) != 0 || lhs > rhs {
                row.failures.push(format!(
                    "counterexample: a = {a}, z = {z}, zt = {zt}: r = {r}, not a z mod q within q/2 + q|a|/2^16"
                ));
                break 'outer;
            }
        }
    }
    row.terms = format!("{} z", constants.len());
    row.worst = format!(
        "out |r| {} / {}",
        group_signed(worst_ratio),
        group_signed(QI)
    );
    row.limit = "a in [-32,768, 32,767]".into();
    row.how_detail = format!(
        "{} inputs, {:.2} s",
        group(checked.into()),
        start.elapsed().as_secs_f64()
    );
    row.require(checked == constants.len() as u64 * (1 << 16), || {
        "not every input checked".into()
    });
    row
}

/// A unary lane reduction checked on every `x` of `lo..=hi` against `expect` (the declared
/// result range `[out_lo, out_hi]` and `r = x mod q`).
fn unary_row(
    name: &str,
    (lo, hi): (i32, i32),
    (out_lo, out_hi): (i32, i32),
    f: fn(i16) -> i16,
) -> Row {
    let start = Instant::now();
    let mut row = Row::new(format!("{name}{TAG}"), Method::Exhaustive);
    let (mut min, mut max) = (i32::MAX, i32::MIN);
    for x in lo..=hi {
        let r = i32::from(f(x as i16));
        (min, max) = (min.min(r), max.max(r));
        if (r - x).rem_euclid(Q.into()) != 0 || r < out_lo || r > out_hi {
            row.failures.push(format!(
                "counterexample: x = {x}: r = {r}, not x mod q in [{out_lo}, {out_hi}]"
            ));
            break;
        }
    }
    row.worst = format!(
        "out [{}, {}] / [{}, {}]",
        group_signed(min.into()),
        group_signed(max.into()),
        group_signed(out_lo.into()),
        group_signed(out_hi.into())
    );
    row.limit = format!(
        "x in [{}, {}]",
        group_signed(lo.into()),
        group_signed(hi.into())
    );
    row.how_detail = format!(
        "{} inputs, {:.2} s",
        group((hi - lo + 1) as u128),
        start.elapsed().as_secs_f64()
    );
    row
}

/// `add_mod` and `sub_mod` on every pair of canonical lanes.
fn add_sub_row() -> Row {
    let start = Instant::now();
    let mut row = Row::new(format!("add_mod, sub_mod (umin){TAG}"), Method::Exhaustive);
    'outer: for a in 0..Q {
        for b in 0..Q {
            let (s, d) = (model::add_mod(a, b), model::sub_mod(a, b));
            if s != (a + b) % Q || d != (a + Q - b) % Q {
                row.failures
                    .push(format!("counterexample: a = {a}, b = {b}: {s}, {d}"));
                break 'outer;
            }
        }
    }
    row.worst = format!("out <= {}", group(CANONICAL_MAX.into()));
    row.limit = "a, b in [0, q)".into();
    row.how_detail = format!(
        "{} pairs, {:.2} s",
        group(u128::from(Q) * u128::from(Q)),
        start.elapsed().as_secs_f64()
    );
    row
}

/// `reduce_wide` on every `x` of `[0, NEON_ACCUMULATOR_LIMIT]`, on `threads` cores.
fn reduce_wide_row(threads: usize) -> Row {
    let start = Instant::now();
    let limit = NEON_ACCUMULATOR_LIMIT;
    let mut row = Row::new(
        format!("reduce_wide (32-bit Barrett){TAG}"),
        Method::Exhaustive,
    );
    let first_bad = AtomicU64::new(u64::MAX);
    let threads = threads.max(1) as i64;
    let per = (limit + threads) / threads;
    thread::scope(|scope| {
        for w in 0..threads {
            let first_bad = &first_bad;
            scope.spawn(move || {
                let (lo, hi) = (w * per, ((w + 1) * per - 1).min(limit));
                // Compare with x mod q, tracked incrementally (no division in the loop).
                let mut m = (lo % QI) as u16;
                let mut bad = false;
                for x in lo..=hi {
                    bad |= model::reduce_wide(x as i32) != m;
                    m += 1;
                    if m == Q {
                        m = 0;
                    }
                    if bad {
                        first_bad.fetch_min(x as u64, Ordering::Relaxed);
                        break;
                    }
                }
            });
        }
    });
    let bad = first_bad.load(Ordering::Relaxed);
    if bad != u64::MAX {
        row.failures.push(format!(
            "counterexample: x = {}: reduce_wide = {}, x mod q = {}",
            group(bad.into()),
            model::reduce_wide(bad as i32),
            bad % Q as u64
        ));
    }
    row.worst = format!("out <= {}", group(CANONICAL_MAX.into()));
    row.limit = format!(
        "x in [0, {}] (NEON_ACCUMULATOR_LIMIT)",
        group(limit as u128)
    );
    row.how_detail = format!(
        "{} inputs, {threads} threads, {:.2} s",
        group((limit + 1) as u128),
        start.elapsed().as_secs_f64()
    );
    row.require(limit <= i64::from(i32::MAX), || {
        "limit above i32::MAX".into()
    });
    row
}

/// The accumulator rows: `MAX_RANK` terms (the register dot products) and `NEON_MAX_TERMS`
/// terms (the in-memory accumulator's capacity) within the reduction's domain.
fn accumulator_rows() -> Vec<Row> {
    let limit = NEON_ACCUMULATOR_LIMIT as u64;
    let mut rank = LazySite {
        site: format!("dot_product / accumulate, K <= MAX_RANK{TAG}"),
        term_bound: PRODUCT_TERM_MAX.into(),
        terms: MAX_RANK as u64,
        limit,
        seen: None,
        method: Method::Analytic,
    }
    .check();
    rank.limit = format!("{} (NEON_ACCUMULATOR_LIMIT)", rank.limit);
    let mut capacity = LazySite {
        site: format!("Accumulator capacity, NEON_MAX_TERMS = {NEON_MAX_TERMS}{TAG}"),
        term_bound: PRODUCT_TERM_MAX.into(),
        terms: NEON_MAX_TERMS as u64,
        limit,
        seen: None,
        method: Method::Analytic,
    }
    .check();
    capacity.require(
        (NEON_MAX_TERMS as u64 + 1) * u64::from(PRODUCT_TERM_MAX) > limit,
        || "NEON_MAX_TERMS is not the largest count within the limit".into(),
    );
    capacity.require(MAX_RANK <= NEON_MAX_TERMS, || {
        "MAX_RANK above NEON_MAX_TERMS".into()
    });
    capacity.limit = format!("{} (NEON_ACCUMULATOR_LIMIT)", capacity.limit);
    vec![rank, capacity]
}

// ---------------------------------------------------------------- NTT lanes

/// Per-lane interval bounds `[lo, hi]` of the schedules' `i16` lanes, each operation
/// checked against its declared domain (a violation is recorded with the stage it
/// happened in). Lanes stored to the destination between the passes keep their intervals
/// (`mem`, by coefficient position), so the second pass loads what the first stored; loads
/// from the source are canonical.
struct Interval {
    /// `[lo, hi]` of every lane after each stage, over the whole run.
    stage: Vec<(i32, i32)>,
    /// The stage being run (the number of stages finished).
    current: usize,
    violations: Vec<String>,
    /// Address of the destination array, and the interval of each of its coefficients.
    dst: usize,
    mem: [(i32, i32); N],
}

type Iv = [(i32, i32); 8];

impl Interval {
    fn new(stages: usize, dst: &[u16; N]) -> Self {
        Self {
            stage: vec![(i32::MAX, i32::MIN); stages],
            current: 0,
            violations: vec![],
            dst: dst.as_ptr() as usize,
            mem: [(0, 0); N],
        }
    }

    fn fits(&mut self, what: &str, v: Iv) -> Iv {
        for (lo, hi) in v {
            if lo < i32::from(i16::MIN) || hi > i32::from(i16::MAX) {
                self.violations.push(format!(
                    "stage {}: {what} reaches [{lo}, {hi}], outside i16",
                    self.current
                ));
            }
        }
        v
    }

    /// The coefficient offset of `p` in the destination, if it points into it.
    fn offset(&self, p: *const u16) -> Option<usize> {
        let a = p as usize;
        (a >= self.dst && a < self.dst + 2 * N).then(|| (a - self.dst) / 2)
    }

    /// Lane `l` of vector `r` at position `pos(r, l)` of a block at `p`.
    fn load<const R: usize>(&self, p: *const u16, pos: impl Fn(usize, usize) -> usize) -> [Iv; R] {
        let canonical = (0, i32::from(CANONICAL_MAX));
        std::array::from_fn(|r| {
            std::array::from_fn(|l| match self.offset(p) {
                Some(o) => self.mem[o + pos(r, l)],
                None => canonical,
            })
        })
    }

    fn store<const R: usize>(
        &mut self,
        p: *const u16,
        v: [Iv; R],
        pos: impl Fn(usize, usize) -> usize,
    ) {
        let o = self.offset(p).expect("stores go to the destination");
        for (r, x) in v.iter().enumerate() {
            for (l, b) in x.iter().enumerate() {
                self.mem[o + pos(r, l)] = *b;
            }
        }
    }
}

fn natural(r: usize, l: usize) -> usize {
    8 * r + l
}

fn by_pairs(r: usize, l: usize) -> usize {
    8 * (l / 2) + 2 * r + l % 2
}

/// `|r| <= (2^15 q + q |a|) / 2^16` of `bmul` for `|a| <= a`.
fn bmul_bound(a: i32) -> i32 {
    ((1 << 15) * i32::from(Q) + i32::from(Q) * a) >> 16
}

impl Lanes for Interval {
    type V = Iv;

    fn zero(&mut self) -> Iv {
        [(0, 0); 8]
    }
    fn add(&mut self, a: Iv, b: Iv) -> Iv {
        let r = std::array::from_fn(|i| (a[i].0 + b[i].0, a[i].1 + b[i].1));
        self.fits("add", r)
    }
    fn sub(&mut self, a: Iv, b: Iv) -> Iv {
        let r = std::array::from_fn(|i| (a[i].0 - b[i].1, a[i].1 - b[i].0));
        self.fits("sub", r)
    }
    fn bmul(&mut self, a: Iv, _z: Iv, _zt: Iv) -> Iv {
        a.map(|(lo, hi)| {
            let m = bmul_bound(lo.abs().max(hi.abs()));
            (-m, m)
        })
    }
    fn bmul_lane<const L: i32>(&mut self, a: Iv, z: Iv, zt: Iv) -> Iv {
        self.bmul(a, z, zt)
    }
    fn reduce_centered(&mut self, a: Iv) -> Iv {
        let h = (i32::from(Q) - 1) / 2;
        a.map(|_| (-h, h))
    }
    fn reduce_canonical(&mut self, a: Iv) -> Iv {
        for (lo, hi) in a {
            if lo < i32::from(i16::MIN) || hi > CANONICAL_REDUCE_INPUT_MAX {
                self.violations.push(format!(
                    "stage {}: reduce_canonical input [{lo}, {hi}] outside its domain",
                    self.current
                ));
            }
        }
        a.map(|_| (0, i32::from(CANONICAL_MAX)))
    }
    fn add_q_if_negative(&mut self, a: Iv) -> Iv {
        for (lo, hi) in a {
            if lo < -i32::from(Q) || hi >= i32::from(Q) {
                self.violations.push(format!(
                    "stage {}: add_q_if_negative input [{lo}, {hi}] outside [-q, q)",
                    self.current
                ));
            }
        }
        a.map(|_| (0, i32::from(CANONICAL_MAX)))
    }
    fn transpose4(&mut self, v: [Iv; 4]) -> [Iv; 4] {
        std::array::from_fn(|r| {
            let mut out = [(0, 0); 8];
            for e in 0..4 {
                out[2 * e] = v[e][2 * r];
                out[2 * e + 1] = v[e][2 * r + 1];
            }
            out
        })
    }
    fn twiddles(&mut self, _t: &[i16; 8]) -> Iv {
        [(0, 0); 8]
    }
    fn load2(&mut self, src: &[u16; 16]) -> [Iv; 2] {
        self.load(src.as_ptr(), natural)
    }
    fn store2(&mut self, dst: &mut [u16; 16], v: [Iv; 2]) {
        self.store(dst.as_ptr(), v, natural);
    }
    fn load4(&mut self, src: &[u16; 32]) -> [Iv; 4] {
        self.load(src.as_ptr(), natural)
    }
    fn store4(&mut self, dst: &mut [u16; 32], v: [Iv; 4]) {
        self.store(dst.as_ptr(), v, natural);
    }
    fn load4_pairs(&mut self, src: &[u16; 32]) -> [Iv; 4] {
        self.load(src.as_ptr(), by_pairs)
    }
    fn store4_pairs(&mut self, dst: &mut [u16; 32], v: [Iv; 4]) {
        self.store(dst.as_ptr(), v, by_pairs);
    }
    fn stage(&mut self, index: usize, v: &[Iv]) {
        for &(lo, hi) in v.iter().flatten() {
            let s = &mut self.stage[index];
            *s = (s.0.min(lo), s.1.max(hi));
        }
        self.current = index + 1;
    }
}

/// The scalar model's inputs: the extreme polynomials and 512 uniform ones.
fn model_inputs() -> Vec<(String, [u16; N])> {
    let mut v = extreme_inputs();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for i in 0..512 {
        let c = std::array::from_fn(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(Q)) as u16
        });
        v.push((format!("uniform #{i}"), c));
    }
    v
}

/// The NTT rows: interval bounds per stage against the declared bounds, the scalar model's
/// measured maxima within them, outputs equal to the portable backend's.
#[allow(clippy::too_many_lines, reason = "one table row per stage, in order")]
fn ntt_rows() -> (Vec<Row>, String) {
    let start = Instant::now();
    let mut details = String::from(
        "NEON NTT lanes per stage (largest |lane| of the scalar model on the inputs / interval bound):\n",
    );
    let mut rows = vec![];
    let inputs = model_inputs();
    for inverse in [false, true] {
        let stages: &[Stage] = if inverse { &INTT_STAGES } else { &NTT_STAGES };
        let (name, bound, bound_name) = if inverse {
            ("inverse_ntt", NEON_INTT_LANE_BOUND, "NEON_INTT_LANE_BOUND")
        } else {
            ("ntt", NEON_NTT_LANE_BOUND, "NEON_NTT_LANE_BOUND")
        };
        let (src, mut dst) = ([0u16; N], [0u16; N]);
        let mut iv = Interval::new(stages.len(), &dst);
        if inverse {
            ntt::inverse_ntt(&mut iv, Some(&src), &mut dst);
        } else {
            ntt::ntt(&mut iv, Some(&src), &mut dst);
        }
        let mut row = Row::new(format!("{name} lanes, every layer{TAG}"), Method::WorstCase);
        let mut out = Row::new(format!("{name} output == Portable{TAG}"), Method::WorstCase);
        for v in &iv.violations {
            row.failures.push(format!("interval: {v}"));
        }
        let mut seen = [0i32; 10];
        for (what, c) in &inputs {
            let mut s = Scalar::default();
            let mut got = [0u16; N];
            let mut want = *c;
            if inverse {
                ntt::inverse_ntt(&mut s, Some(c), &mut got);
                Backend::<MlKem>::inverse_ntt(Portable, &mut want);
            } else {
                ntt::ntt(&mut s, Some(c), &mut got);
                Backend::<MlKem>::ntt(Portable, &mut want);
            }
            out.require(got == want, || format!("{what}: model != Portable"));
            for (m, x) in seen.iter_mut().zip(s.lane_max) {
                *m = (*m).max(x);
            }
        }
        let _ = write!(details, "  {name}:");
        let (mut layer_seen, mut layer_bound) = (0, 0);
        for (i, stage) in stages.iter().enumerate() {
            let (lo, hi) = iv.stage[i];
            let b = lo.abs().max(hi.abs());
            let label = match stage {
                Stage::Layer(len) => format!("len {len}"),
                Stage::LayerScaled(len) => format!("len {len} x 128^-1"),
                Stage::Reduce => "reduce".into(),
                Stage::Output => "output".into(),
            };
            let _ = write!(
                details,
                " {label} {} / {};",
                group_signed(seen[i].into()),
                group_signed(b.into())
            );
            row.require(seen[i] <= b, || {
                format!(
                    "{label}: model |lane| {} above the interval bound {b}",
                    seen[i]
                )
            });
            if matches!(stage, Stage::Layer(_) | Stage::LayerScaled(_)) {
                layer_seen = layer_seen.max(seen[i]);
                layer_bound = layer_bound.max(b);
                row.require(b <= bound, || {
                    format!("{label}: interval bound {b} above {bound_name} = {bound}")
                });
            }
            if let Stage::Output = stage {
                out.require(lo >= 0 && hi <= i32::from(CANONICAL_MAX), || {
                    format!("output interval [{lo}, {hi}] not canonical")
                });
            }
        }
        details.push('\n');
        row.worst = format!(
            "{} / {}",
            group_signed(layer_seen.into()),
            group_signed(layer_bound.into())
        );
        row.limit = format!(
            "<= {} ({bound_name}) <= {}",
            group_signed(bound.into()),
            i16::MAX
        );
        row.headroom = headroom(
            bound.unsigned_abs().into(),
            layer_bound.unsigned_abs().into(),
        );
        row.how_detail = format!(
            "interval run of the schedule + {} inputs on the model, {:.2} s",
            inputs.len(),
            start.elapsed().as_secs_f64()
        );
        row.require(bound <= i32::from(i16::MAX), || {
            format!("{bound_name} above i16::MAX")
        });
        out.how_detail = format!("{} inputs", inputs.len());
        out.worst = format!("<= {}", group(CANONICAL_MAX.into()));
        rows.push(row);
        rows.push(out);
    }
    (rows, details)
}

/// Every NEON row, and the per-stage details.
pub(crate) fn rows(threads: usize) -> (Vec<Row>, String) {
    let q = i32::from(Q);
    let mut rows = vec![
        bmul_row(),
        unary_row(
            "reduce_centered",
            (i16::MIN.into(), i16::MAX.into()),
            (-(q - 1) / 2, (q - 1) / 2),
            model::reduce_centered,
        ),
        unary_row(
            "reduce_canonical",
            (i16::MIN.into(), CANONICAL_REDUCE_INPUT_MAX),
            (0, q - 1),
            model::reduce_canonical,
        ),
        unary_row(
            "add_q_if_negative",
            (-q, q - 1),
            (0, q - 1),
            model::add_q_if_negative,
        ),
        add_sub_row(),
        reduce_wide_row(threads),
    ];
    rows.extend(accumulator_rows());
    let (ntt, details) = ntt_rows();
    rows.extend(ntt);
    (rows, details)
}
