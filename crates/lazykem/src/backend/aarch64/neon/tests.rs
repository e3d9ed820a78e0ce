//! Every NEON kernel against the portable code: random inputs, all-zero and all-maximal
//! ones, every value below `2^d`, every single bit set alone and cleared alone, and for
//! Compress/Decompress every input.

use crate::backend::EncodeBackend;
use crate::encode::{byte_decode_portable, byte_encode_portable, encoded_len};
use lattice_field::gf3329::Q;
use lattice_poly_ntt::backend::{Neon, Portable};
use lattice_poly_ntt::mlkem::N;
use std::{vec, vec::Vec};

fn neon() -> Neon {
    Neon::detect().expect("every aarch64 CPU has NEON")
}

/// A small deterministic generator (xorshift64*), enough for test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn poly(&mut self, bound: u32) -> [u16; N] {
        core::array::from_fn(|_| (self.next() % u64::from(bound)) as u16)
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// NEON and portable ByteEncode_D agree on `coeffs` (values below `2^D`).
fn check_encode<const D: usize>(coeffs: &[u16; N]) {
    let mut expected = vec![0u8; encoded_len(D)];
    byte_encode_portable::<D>(coeffs, &mut expected);
    // Pre-filled so that a byte left unwritten shows.
    let mut got = vec![0xa5u8; encoded_len(D)];
    neon().byte_encode::<D>(coeffs, &mut got);
    assert_eq!(got, expected, "ByteEncode_{D} of {coeffs:?}");
}

/// NEON and portable ByteDecode_D agree on `bytes`.
fn check_decode<const D: usize>(bytes: &[u8]) {
    let mut got = [0xa5a5u16; N];
    neon().byte_decode::<D>(bytes, &mut got);
    assert_eq!(
        got,
        byte_decode_portable::<D>(bytes),
        "ByteDecode_{D} of {bytes:?}"
    );
}

fn encode_decode<const D: usize>() {
    let max = ((1u32 << D) - 1) as u16;
    check_encode::<D>(&[0; N]);
    check_encode::<D>(&[max; N]);
    // Every value below 2^D, at every position modulo the polynomial count.
    let values = 1usize << D;
    for start in (0..values.max(N)).step_by(N / 2) {
        check_encode::<D>(&core::array::from_fn(|i| ((start + i) % values) as u16));
    }
    for i in 0..N {
        for b in 0..D {
            let mut one = [0; N];
            one[i] = 1 << b;
            check_encode::<D>(&one);
            let mut all_but_one = [max; N];
            all_but_one[i] ^= 1 << b;
            check_encode::<D>(&all_but_one);
        }
    }
    check_decode::<D>(&vec![0; encoded_len(D)]);
    check_decode::<D>(&vec![0xff; encoded_len(D)]);
    for bit in 0..8 * encoded_len(D) {
        let mut one = vec![0u8; encoded_len(D)];
        one[bit / 8] = 1 << (bit % 8);
        check_decode::<D>(&one);
        let mut all_but_one = vec![0xffu8; encoded_len(D)];
        all_but_one[bit / 8] ^= 1 << (bit % 8);
        check_decode::<D>(&all_but_one);
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ D as u64);
    for _ in 0..200 {
        check_encode::<D>(&rng.poly(1 << D));
        check_decode::<D>(&rng.bytes(encoded_len(D)));
    }
    // Decoding what was encoded gives the values back.
    let f = rng.poly(1 << D);
    let mut bytes = vec![0u8; encoded_len(D)];
    neon().byte_encode::<D>(&f, &mut bytes);
    let mut back = [0u16; N];
    neon().byte_decode::<D>(&bytes, &mut back);
    assert_eq!(back, f, "d = {D}");
}

#[test]
fn encode_decode_match_portable() {
    encode_decode::<1>();
    encode_decode::<4>();
    encode_decode::<5>();
    encode_decode::<10>();
    encode_decode::<11>();
    encode_decode::<12>();
}

#[test]
fn other_d_fall_back_to_portable() {
    let mut rng = Rng(7);
    check_encode::<7>(&rng.poly(1 << 7));
    check_decode::<7>(&rng.bytes(encoded_len(7)));
}

/// ByteEncode_12 chunk by chunk against the whole encoding: every range of chunks writes
/// exactly its bytes, and increasing pieces (as key generation writes them) give the whole.
#[test]
fn encode_12_chunks_write_their_bytes_only() {
    let coeffs = Rng(12).poly(1 << 12);
    let mut whole = vec![0u8; encoded_len(12)];
    byte_encode_portable::<12>(&coeffs, &mut whole);
    for start in 0..=9 {
        for end in start..=10 {
            let mut got = vec![0xa5u8; encoded_len(12)];
            neon().byte_encode_12_chunks(&coeffs, &mut got, start..end);
            let written = 48 * start.min(8)..48 * end.min(8);
            for (i, (&g, &w)) in got.iter().zip(&whole).enumerate() {
                let want = if written.contains(&i) { w } else { 0xa5 };
                assert_eq!(g, want, "chunks {start}..{end}, byte {i}");
            }
        }
    }
    let mut got = vec![0u8; encoded_len(12)];
    for (start, end) in [(0, 2), (2, 5), (5, 5), (5, 8)] {
        neon().byte_encode_12_chunks(&coeffs, &mut got, start..end);
    }
    assert_eq!(got, whole);
}

/// Every canonical input of Compress_d and every d-bit input of Decompress_d, at every
/// position of the register (consecutive inputs move by one lane per polynomial).
fn compress_decompress<const D: usize>() {
    let (mut got, mut want) = ([0u16; N], [0u16; N]);
    for start in (0..Q).step_by(N - 1) {
        let x: [u16; N] = core::array::from_fn(|i| (start + i as u16).min(Q - 1));
        neon().compress::<D>(&x, &mut got);
        Portable.compress::<D>(&x, &mut want);
        assert_eq!(got, want, "Compress_{D} from {start}");
    }
    for start in (0..1u32 << D).step_by(N - 1) {
        let y: [u16; N] = core::array::from_fn(|i| (start + i as u32).min((1 << D) - 1) as u16);
        neon().decompress::<D>(&y, &mut got);
        Portable.decompress::<D>(&y, &mut want);
        assert_eq!(got, want, "Decompress_{D} from {start}");
    }
    let mut rng = Rng(0x5eed ^ D as u64);
    for _ in 0..50 {
        let x = rng.poly(u32::from(Q));
        neon().compress::<D>(&x, &mut got);
        Portable.compress::<D>(&x, &mut want);
        assert_eq!(got, want, "Compress_{D}");
        let y = rng.poly(1 << D);
        neon().decompress::<D>(&y, &mut got);
        Portable.decompress::<D>(&y, &mut want);
        assert_eq!(got, want, "Decompress_{D}");
    }
    for x in [[0; N], [Q - 1; N]] {
        neon().compress::<D>(&x, &mut got);
        Portable.compress::<D>(&x, &mut want);
        assert_eq!(got, want, "Compress_{D} of {}", x[0]);
    }
}

#[test]
fn compress_decompress_match_portable() {
    compress_decompress::<1>();
    compress_decompress::<4>();
    compress_decompress::<5>();
    compress_decompress::<10>();
    compress_decompress::<11>();
}
