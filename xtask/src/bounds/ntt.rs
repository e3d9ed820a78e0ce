//! Output ranges of the NTT and the inverse NTT on extreme inputs, and the twiddle tables
//! they (and the base-case products) feed to `mul`, whose operands must be canonical.

use super::report::{Method, Row, group};
use lattice_field::gf3329::{CANONICAL_MAX, Q};
use lattice_poly_ntt::Portable;
use lattice_poly_ntt::mlkem::zetas::{GAMMAS, INV_128, ZETAS};
use lattice_poly_ntt::mlkem::{N, Poly};
use lattice_poly_ntt::mlkem::{NTT_OUTPUT_MAX, NttPoly};

/// Named extreme inputs: constants, alternations, spikes, ramps and random polynomials.
pub(crate) fn extreme_inputs() -> Vec<(String, [u16; N])> {
    let max = CANONICAL_MAX;
    let mut inputs = vec![
        ("all 0".to_owned(), [0; N]),
        ("all q-1".to_owned(), [max; N]),
        ("all 1".to_owned(), [1; N]),
        (
            "alternating q-1, 0".to_owned(),
            std::array::from_fn(|i| if i % 2 == 0 { max } else { 0 }),
        ),
        (
            "alternating 0, q-1".to_owned(),
            std::array::from_fn(|i| if i % 2 == 0 { 0 } else { max }),
        ),
        (
            "halves q-1, 0".to_owned(),
            std::array::from_fn(|i| if i < N / 2 { max } else { 0 }),
        ),
        (
            "ramp i mod q".to_owned(),
            std::array::from_fn(|i| (i as u16 * 13) % Q),
        ),
        (
            "ramp q-1-i".to_owned(),
            std::array::from_fn(|i| max - i as u16),
        ),
    ];
    for spike in [0, 1, 127, 128, 255] {
        let mut c = [0; N];
        c[spike] = max;
        inputs.push((format!("spike q-1 at {spike}"), c));
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for seed in 0..16 {
        let c = std::array::from_fn(|_| {
            // xorshift64
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(Q)) as u16
        });
        inputs.push((format!("random #{seed}"), c));
    }
    inputs
}

fn max_coeff(c: &[u16; N]) -> u16 {
    c.iter().copied().max().unwrap_or(0)
}

/// `ntt` and `inverse_ntt` on every extreme input: every output `<= NTT_OUTPUT_MAX`, and
/// the round trip is the identity.
pub(crate) fn ntt_rows() -> Vec<Row> {
    let mut forward = Row::new("ntt output", Method::WorstCase);
    let mut inverse = Row::new("inverse_ntt output", Method::WorstCase);
    let (mut fwd_max, mut inv_max) = (0u16, 0u16);
    let inputs = extreme_inputs();
    for (name, c) in &inputs {
        let p = Poly::from_coeffs(*c).expect("extreme inputs are canonical");
        let hat = p.clone().ntt(Portable);
        fwd_max = fwd_max.max(max_coeff(hat.coeffs()));
        forward.require(max_coeff(hat.coeffs()) <= NTT_OUTPUT_MAX, || {
            format!("{name}: output above NTT_OUTPUT_MAX")
        });
        let back = hat.inverse_ntt(Portable);
        inverse.require(back == p, || format!("{name}: inverse_ntt(ntt(x)) != x"));
        // The same extreme values fed to the inverse NTT directly.
        let direct = NttPoly::from_coeffs(*c)
            .expect("extreme inputs are canonical")
            .inverse_ntt(Portable);
        for out in [back.coeffs(), direct.coeffs()] {
            inv_max = inv_max.max(max_coeff(out));
            inverse.require(max_coeff(out) <= NTT_OUTPUT_MAX, || {
                format!("{name}: output above NTT_OUTPUT_MAX")
            });
        }
    }
    for (row, seen) in [(&mut forward, fwd_max), (&mut inverse, inv_max)] {
        row.worst = format!("{} / {}", group(seen.into()), group(NTT_OUTPUT_MAX.into()));
        row.limit = format!("{} (NTT_OUTPUT_MAX)", group(NTT_OUTPUT_MAX.into()));
        row.how_detail = format!("{} inputs", inputs.len());
    }
    vec![forward, inverse]
}

/// `x^e mod q` by repeated multiplication in `u64`, independent of the library's `pow`.
fn power(x: u64, e: u32) -> u64 {
    (0..e).fold(1, |acc, _| acc * x % u64::from(Q))
}

/// Reverses the 7 low bits, independent of the library's `bitrev7`.
fn reverse7(i: usize) -> u32 {
    (0..7).map(|b| (((i >> b) & 1) << (6 - b)) as u32).sum()
}

/// The twiddle tables are canonical (they are operands of `mul`) and hold the powers of
/// 17 FIPS 203 specifies.
pub(crate) fn table_row() -> Row {
    let mut row = Row::new("twiddles ZETAS, GAMMAS, INV_128 -> mul", Method::Exhaustive);
    let mut max = INV_128;
    for i in 0..128 {
        let e = reverse7(i);
        max = max.max(ZETAS[i]).max(GAMMAS[i]);
        row.require(u64::from(ZETAS[i]) == power(17, e), || {
            format!("ZETAS[{i}] != 17^BitRev7({i})")
        });
        row.require(u64::from(GAMMAS[i]) == power(17, 2 * e + 1), || {
            format!("GAMMAS[{i}] != 17^(2 BitRev7({i}) + 1)")
        });
    }
    row.require(u64::from(INV_128) * 128 % u64::from(Q) == 1, || {
        "INV_128 * 128 != 1 mod q".into()
    });
    row.worst = format!("{} / {}", group(max.into()), group(CANONICAL_MAX.into()));
    row.limit = format!("{} (CANONICAL_MAX)", group(CANONICAL_MAX.into()));
    row.require(max <= CANONICAL_MAX, || "a twiddle is not canonical".into());
    row.how_detail = "257 entries".into();
    row
}
