//! Every backend's encodings against the portable code, on every backend this CPU has
//! ([`AnyBackend::available`], the portable one included): ByteEncode/ByteDecode on random
//! inputs, all-zero and all-maximal ones, every value below `2^d`, every single bit set
//! alone and cleared alone; ByteEncode_12 chunk by chunk; Compress/Decompress on every
//! input, against the scalar functions of [`crate::compress`]. The SIMD backends' own
//! kernels (x86-64 AVX2, AVX-512; aarch64 NEON) run here through their tokens.

use crate::backend::{AnyBackend, EncodeBackend};
use crate::encode::{byte_decode_portable, byte_encode_portable, encoded_len};
use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;
use proptest::prelude::*;
use rand::SeedableRng as _;
use rand::rngs::StdRng;
use std::{format, string::String, vec, vec::Vec};

/// Runs `$body` with `$b` bound to the token of each backend this CPU has.
macro_rules! on_every_backend {
    (|$b:ident| $body:expr) => {
        for any in AnyBackend::available() {
            with_backend!(any, |$b| $body);
        }
    };
}

/// The backend's name, for messages.
fn name(b: impl EncodeBackend) -> String {
    format!("{b:?}")
}

/// Seeded test inputs (rand's `StdRng`, so every run sees the same ones).
struct Inputs(StdRng);

impl Inputs {
    fn new(seed: u64) -> Self {
        Self(StdRng::seed_from_u64(seed))
    }

    fn poly(&mut self, bound: u32) -> [u16; N] {
        core::array::from_fn(|_| self.0.random_range(0..bound) as u16)
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut bytes = vec![0; len];
        self.0.fill_bytes(&mut bytes);
        bytes
    }
}

/// `b`'s and the portable ByteEncode_D agree on `coeffs` (values below `2^D`).
fn check_encode<const D: usize>(b: impl EncodeBackend, coeffs: &[u16; N]) {
    let mut expected = vec![0u8; encoded_len(D)];
    byte_encode_portable::<D>(coeffs, &mut expected);
    // Pre-filled so that a byte left unwritten shows.
    let mut got = vec![0xa5u8; encoded_len(D)];
    b.byte_encode::<D>(coeffs, &mut got);
    assert_eq!(got, expected, "{}: ByteEncode_{D} of {coeffs:?}", name(b));
}

/// `b`'s and the portable ByteDecode_D agree on `bytes`.
fn check_decode<const D: usize>(b: impl EncodeBackend, bytes: &[u8]) {
    let mut got = [0xa5a5u16; N];
    b.byte_decode::<D>(bytes, &mut got);
    assert_eq!(
        got,
        byte_decode_portable::<D>(bytes),
        "{}: ByteDecode_{D} of {bytes:?}",
        name(b)
    );
}

fn encode_decode<const D: usize>(b: impl EncodeBackend) {
    let max = ((1u32 << D) - 1) as u16;
    check_encode::<D>(b, &[0; N]);
    check_encode::<D>(b, &[max; N]);
    // Every value below 2^D, at every position modulo the polynomial count.
    let values = 1usize << D;
    for start in (0..values.max(N)).step_by(N / 2) {
        check_encode::<D>(b, &core::array::from_fn(|i| ((start + i) % values) as u16));
    }
    for i in 0..N {
        for bit in 0..D {
            let mut one = [0; N];
            one[i] = 1 << bit;
            check_encode::<D>(b, &one);
            let mut all_but_one = [max; N];
            all_but_one[i] ^= 1 << bit;
            check_encode::<D>(b, &all_but_one);
        }
    }
    check_decode::<D>(b, &vec![0; encoded_len(D)]);
    check_decode::<D>(b, &vec![0xff; encoded_len(D)]);
    for bit in 0..8 * encoded_len(D) {
        let mut one = vec![0u8; encoded_len(D)];
        one[bit / 8] = 1 << (bit % 8);
        check_decode::<D>(b, &one);
        let mut all_but_one = vec![0xffu8; encoded_len(D)];
        all_but_one[bit / 8] ^= 1 << (bit % 8);
        check_decode::<D>(b, &all_but_one);
    }
    let mut rng = Inputs::new(0x9e37_79b9_7f4a_7c15 ^ D as u64);
    for _ in 0..200 {
        check_encode::<D>(b, &rng.poly(1 << D));
        check_decode::<D>(b, &rng.bytes(encoded_len(D)));
    }
    // Decoding what was encoded gives the values back.
    let f = rng.poly(1 << D);
    let mut bytes = vec![0u8; encoded_len(D)];
    b.byte_encode::<D>(&f, &mut bytes);
    let mut back = [0u16; N];
    b.byte_decode::<D>(&bytes, &mut back);
    assert_eq!(back, f, "{}: d = {D}", name(b));
}

#[test]
fn encode_decode_match_portable() {
    on_every_backend!(|b| {
        encode_decode::<1>(b);
        encode_decode::<4>(b);
        encode_decode::<5>(b);
        encode_decode::<10>(b);
        encode_decode::<11>(b);
        encode_decode::<12>(b);
    });
}

#[test]
fn other_d_fall_back_to_portable() {
    let mut rng = Inputs::new(7);
    let (coeffs, bytes) = (rng.poly(1 << 7), rng.bytes(encoded_len(7)));
    on_every_backend!(|b| {
        check_encode::<7>(b, &coeffs);
        check_decode::<7>(b, &bytes);
    });
}

/// ByteEncode_12 chunk by chunk against the whole encoding: every range of chunks writes
/// exactly its bytes, and increasing pieces (as key generation writes them) give the whole.
#[test]
fn encode_12_chunks_write_their_bytes_only() {
    let coeffs = Inputs::new(12).poly(1 << 12);
    let mut whole = vec![0u8; encoded_len(12)];
    byte_encode_portable::<12>(&coeffs, &mut whole);
    on_every_backend!(|b| {
        for start in 0..=9 {
            for end in start..=10 {
                let mut got = vec![0xa5u8; encoded_len(12)];
                b.byte_encode_12_chunks(&coeffs, &mut got, start..end);
                let written = 48 * start.min(8)..48 * end.min(8);
                for (i, (&g, &w)) in got.iter().zip(&whole).enumerate() {
                    let want = if written.contains(&i) { w } else { 0xa5 };
                    assert_eq!(g, want, "{}: chunks {start}..{end}, byte {i}", name(b));
                }
            }
        }
        let mut got = vec![0u8; encoded_len(12)];
        for (start, end) in [(0, 2), (2, 5), (5, 5), (5, 8)] {
            b.byte_encode_12_chunks(&coeffs, &mut got, start..end);
        }
        assert_eq!(got, whole, "{}", name(b));
    });
}

/// Every canonical input of Compress_d at every position of a register (consecutive
/// inputs move by one lane per polynomial), random ones, and the extremes.
fn compress_every_input<const D: usize>(b: impl EncodeBackend) {
    let check = |x: &[u16; N]| {
        let mut got = [0u16; N];
        b.compress::<D>(x, &mut got);
        let want: [u16; N] = core::array::from_fn(|i| crate::compress::compress::<D>(x[i]));
        assert_eq!(got, want, "{}: Compress_{D} of {x:?}", name(b));
    };
    for start in (0..Q).step_by(N - 1) {
        check(&core::array::from_fn(|i| (start + i as u16).min(Q - 1)));
    }
    let mut rng = Inputs::new(0x5eed ^ D as u64);
    for _ in 0..50 {
        check(&rng.poly(u32::from(Q)));
    }
    check(&[0; N]);
    check(&[Q - 1; N]);
}

/// Every d-bit input of Decompress_d at every position of a register, and random ones.
fn decompress_every_input<const D: usize>(b: impl EncodeBackend) {
    let check = |y: &[u16; N]| {
        let mut got = [0u16; N];
        b.decompress::<D>(y, &mut got);
        let want: [u16; N] = core::array::from_fn(|i| crate::compress::decompress::<D>(y[i]));
        assert_eq!(got, want, "{}: Decompress_{D} of {y:?}", name(b));
    };
    for start in (0..1u32 << D).step_by(N - 1) {
        check(&core::array::from_fn(|i| {
            (start + i as u32).min((1 << D) - 1) as u16
        }));
    }
    let mut rng = Inputs::new(0xdec0 ^ D as u64);
    for _ in 0..50 {
        check(&rng.poly(1 << D));
    }
}

#[test]
fn compress_matches_scalar() {
    on_every_backend!(|b| {
        compress_every_input::<1>(b);
        compress_every_input::<4>(b);
        compress_every_input::<5>(b);
        compress_every_input::<10>(b);
        compress_every_input::<11>(b);
    });
}

#[test]
fn decompress_matches_scalar() {
    on_every_backend!(|b| {
        decompress_every_input::<1>(b);
        decompress_every_input::<4>(b);
        decompress_every_input::<5>(b);
        decompress_every_input::<10>(b);
        decompress_every_input::<11>(b);
    });
}

/// `raw` reduced to `D` bits per value (uniform below `2^D` for uniform `raw`).
fn below<const D: usize>(raw: &[u16]) -> [u16; N] {
    core::array::from_fn(|i| raw[i] & ((1u32 << D) - 1) as u16)
}

proptest! {
    #[test]
    fn encode_matches_portable(raw in proptest::collection::vec(any::<u16>(), N)) {
        on_every_backend!(|b| {
            check_encode::<1>(b, &below::<1>(&raw));
            check_encode::<4>(b, &below::<4>(&raw));
            check_encode::<5>(b, &below::<5>(&raw));
            check_encode::<10>(b, &below::<10>(&raw));
            check_encode::<11>(b, &below::<11>(&raw));
            check_encode::<12>(b, &below::<12>(&raw));
        });
    }

    #[test]
    fn decode_matches_portable(
        bytes in proptest::collection::vec(any::<u8>(), encoded_len(12)),
    ) {
        on_every_backend!(|b| {
            check_decode::<1>(b, &bytes[..encoded_len(1)]);
            check_decode::<4>(b, &bytes[..encoded_len(4)]);
            check_decode::<5>(b, &bytes[..encoded_len(5)]);
            check_decode::<10>(b, &bytes[..encoded_len(10)]);
            check_decode::<11>(b, &bytes[..encoded_len(11)]);
            check_decode::<12>(b, &bytes);
        });
    }
}
