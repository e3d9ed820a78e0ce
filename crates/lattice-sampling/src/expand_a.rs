//! ML-DSA's matrix (FIPS 204): `RejNTTPoly` (FIPS 204 Alg. 30) and `ExpandA` (FIPS 204 Alg. 32),
//! and streams of XOF output for rejection rules that live with their scheme ([`XofSink`]).
//!
//! The `k x l` SHAKE128 streams of ExpandA are jobs of a [`Batch`] like ML-KEM's matrix
//! rows, so they share the multi-way Keccak and its lane scheduler. Everything here is a
//! function of the public seed rho, so branching on the XOF output is fine.

use crate::backend::SamplingBackend;
use crate::batch::Batch;
use crate::job::{Job, SAMPLE_NTT_SEED_BYTES, Shake, XofSink, matrix_seed};
use lattice_poly_ntt::mldsa::{Matrix, NttPoly};

/// `RejNTTPoly(seed)`, FIPS 204 Alg. 30: rejection sampling of a uniform polynomial of
/// ML-DSA's T_q from `SHAKE128(seed)`, three bytes per candidate (`CoeffFromThreeBytes`,
/// FIPS 204 Alg. 14: `b0 + 256 b1 + 65536 (b2 mod 128)`, kept if below q).
///
/// Not constant time, by design: the seed is public.
#[must_use]
pub fn rej_ntt_poly(backend: impl SamplingBackend, seed: &[u8; SAMPLE_NTT_SEED_BYTES]) -> NttPoly {
    let mut poly = NttPoly::zero();
    let mut batch = Batch::new(backend);
    batch.push(Job::RejNttPoly {
        seed: *seed,
        out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
    });
    batch.run();
    poly
}

impl<'a, B: SamplingBackend> Batch<'a, B> {
    /// Rows `first_row ..` of ML-DSA's `K x L` matrix A-hat (FIPS 204 Alg. 32):
    /// entry `s` of `rows[r]` is `RejNTTPoly(rho || s || i)` with `i = first_row + r`.
    ///
    /// A matrix has `K` rows: entries of `rows` that would be rows `K` and beyond are left
    /// alone (none if `first_row >= K`). Every index fits its seed byte: `K` and `L` are at
    /// most 256 (checked at compile time).
    ///
    /// Not constant time with respect to rho, by design (rho is public).
    pub fn mldsa_matrix_rows<const K: usize, const L: usize>(
        &mut self,
        rho: &[u8; 32],
        first_row: usize,
        rows: &'a mut [[NttPoly; L]],
    ) {
        const { assert!(K <= 256 && L <= 256, "matrix indices are single bytes") };
        for (i, row) in (first_row..K).zip(rows) {
            for (s, poly) in row.iter_mut().enumerate() {
                self.push(Job::RejNttPoly {
                    // rho || IntegerToBytes(s, 1) || IntegerToBytes(r, 1): the same layout as
                    // ML-KEM's rho || j || i.
                    seed: matrix_seed(rho, i as u8, s as u8),
                    // The parser writes only values below q: the canonical invariant holds.
                    out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
                });
            }
        }
    }

    /// A stream of `shake(message[0] || message[1])` fed to `sink` a block at a time until
    /// it has enough (see [`XofSink`]). Constant time with respect to the message's content;
    /// the number of blocks is whatever the sink asks for.
    pub fn xof(&mut self, shake: Shake, message: [&'a [u8]; 2], sink: &'a mut dyn XofSink) {
        self.push(Job::Xof {
            shake,
            message,
            sink,
        });
    }
}

/// `ExpandA(rho)`, FIPS 204 Alg. 32: the `K x L` matrix A-hat of ML-DSA, all `K L`
/// streams in one batch.
#[must_use]
pub fn expand_a<const K: usize, const L: usize>(
    backend: impl SamplingBackend,
    rho: &[u8; 32],
) -> Matrix<K, L> {
    let mut matrix = Matrix::<K, L>::zero();
    let mut batch = Batch::new(backend);
    batch.mldsa_matrix_rows::<K, L>(rho, 0, &mut matrix.rows);
    batch.run();
    matrix
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::parse_three_byte_candidates;
    use crate::speculation::init_msf;
    use lattice_field::gf8380417::Q;
    use lattice_poly_ntt::backend::Portable;
    use lattice_poly_ntt::mldsa::N;
    const P: Portable = Portable;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    use sha3::{Shake128, Shake256};
    use std::vec::Vec;

    /// FIPS 204 Alg. 30 read literally, from sha3's SHAKE128, one 3-byte group at a time.
    fn reference(seed: &[u8]) -> [u32; N] {
        let mut xof = Shake128::default();
        xof.update(seed);
        let mut reader = xof.finalize_xof();
        let mut out = [0u32; N];
        let mut j = 0;
        while j < N {
            let mut b = [0u8; 3];
            reader.read(&mut b);
            let c = u32::from(b[0]) + 256 * u32::from(b[1]) + 65536 * u32::from(b[2] % 128);
            if c < Q {
                out[j] = c;
                j += 1;
            }
        }
        out
    }

    #[test]
    fn rej_ntt_poly_matches_reference() {
        for n in 0..20u8 {
            let seed = [n.wrapping_mul(37); SAMPLE_NTT_SEED_BYTES];
            assert_eq!(rej_ntt_poly(P, &seed).coeffs(), &reference(&seed));
        }
    }

    #[test]
    fn every_backend_matches_reference() {
        // A job alone finishes on the single-state permutation; beside others it runs in
        // lanes: both, on every backend this CPU has.
        for any in lattice_poly_ntt::backend::AnyBackend::available() {
            let kind = any.kind();
            lattice_poly_ntt::dispatch!(any, |b| {
                for n in 0..8u8 {
                    let seed = [n.wrapping_mul(91); SAMPLE_NTT_SEED_BYTES];
                    assert_eq!(rej_ntt_poly(b, &seed).coeffs(), &reference(&seed), "{kind}");
                }
                let message = [3u8; 40];
                for (shake, want) in [(Shake::Shake128, 400), (Shake::Shake256, 272)] {
                    for others in [0usize, 3] {
                        let mut sink = Collect {
                            want,
                            got: Vec::new(),
                        };
                        let mut polys = std::vec![NttPoly::zero(); others];
                        let mut batch = Batch::new(b);
                        batch.xof(shake, [&message[..7], &message[7..]], &mut sink);
                        for (n, poly) in polys.iter_mut().enumerate() {
                            batch.push(Job::RejNttPoly {
                                seed: [n as u8; SAMPLE_NTT_SEED_BYTES],
                                out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
                            });
                        }
                        batch.run();
                        let expected = shake_reference(shake, &message, sink.got.len());
                        assert!(
                            sink.got.len() >= want && sink.got.len().is_multiple_of(shake.rate())
                        );
                        assert_eq!(sink.got, expected, "{kind} {shake:?}");
                        for (n, poly) in polys.iter().enumerate() {
                            assert_eq!(
                                poly.coeffs(),
                                &reference(&[n as u8; SAMPLE_NTT_SEED_BYTES])
                            );
                        }
                    }
                }
            });
        }
    }

    #[test]
    fn parser_boundaries() {
        // q - 1 accepted, q and the dropped top bit handled.
        let mut c = [0u32; N];
        let q = Q.to_le_bytes();
        let qm1 = (Q - 1).to_le_bytes();
        let bytes = [
            q[0], q[1], q[2], qm1[0], qm1[1], qm1[2], 0xff, 0xff, 0xff, 1, 0, 0x80,
        ];
        assert_eq!(
            parse_three_byte_candidates(&bytes, &mut c, 0, &mut init_msf()),
            2
        );
        assert_eq!(&c[..2], &[Q - 1, 1]);
        // A full polynomial ignores the rest.
        assert_eq!(
            parse_three_byte_candidates(&bytes, &mut c, N, &mut init_msf()),
            N
        );
    }

    /// `len` bytes of `shake(message)` from the `sha3` crate.
    fn shake_reference(shake: Shake, message: &[u8], len: usize) -> Vec<u8> {
        let mut out = std::vec![0u8; len];
        match shake {
            Shake::Shake128 => {
                let mut x = Shake128::default();
                x.update(message);
                x.finalize_xof().read(&mut out);
            }
            Shake::Shake256 => {
                let mut x = Shake256::default();
                x.update(message);
                x.finalize_xof().read(&mut out);
            }
        }
        out
    }

    /// Collects `want` bytes of output.
    struct Collect {
        want: usize,
        got: Vec<u8>,
    }

    impl XofSink for Collect {
        fn take_block(&mut self, block: &[u8]) -> bool {
            self.got.extend_from_slice(block);
            self.got.len() >= self.want
        }
    }

    #[test]
    fn expand_a_matches_reference_and_sinks_read_shake() {
        let rho = [5u8; 32];
        let a = expand_a::<8, 7>(P, &rho);
        for (r, row) in a.rows.iter().enumerate() {
            for (s, p) in row.iter().enumerate() {
                let mut seed = rho.to_vec();
                seed.extend([s as u8, r as u8]);
                assert_eq!(p.coeffs(), &reference(&seed), "A[{r}][{s}]");
            }
        }
        // Sinks beside matrix streams, both SHAKEs, several lengths.
        let message = [9u8; 66];
        let mut sinks: Vec<(Shake, Collect)> = [
            (Shake::Shake256, 500),
            (Shake::Shake128, 168),
            (Shake::Shake256, 1),
        ]
        .into_iter()
        .map(|(k, want)| {
            (
                k,
                Collect {
                    want,
                    got: Vec::new(),
                },
            )
        })
        .collect();
        let mut m = Matrix::<2, 3>::zero();
        let mut batch = Batch::new(P);
        for (shake, sink) in &mut sinks {
            batch.xof(*shake, [&message[..64], &message[64..]], sink);
        }
        batch.mldsa_matrix_rows::<2, 3>(&rho, 0, &mut m.rows);
        batch.run();
        assert_eq!(m.rows[1], a.rows[1][..3]);
        for (shake, sink) in sinks {
            let expected = shake_reference(shake, &message, sink.got.len());
            assert!(sink.got.len().is_multiple_of(shake.rate()));
            assert_eq!(sink.got, expected, "{shake:?}");
        }
    }
}
