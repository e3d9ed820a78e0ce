//! The scalar Keccak-f\[1600\] (FIPS 202 §3.3): 24 rounds, one fully unrolled round
//! computed plane by plane, two rounds per loop iteration.

/// The 24 round constants of Keccak-f\[1600\] (FIPS 202 §3.2.5).
pub(crate) const RC: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808a,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808b,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008a,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000a,
    0x0000_0000_8000_808b,
    0x8000_0000_0000_008b,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800a,
    0x8000_0000_8000_000a,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// One round (theta, rho, pi, chi, iota) from lanes `a[x + 5y]` into `e`, fully unrolled.
///
/// Generated from the FIPS 202 step mappings, one output plane at a time (only five rho-pi
/// outputs are live at once, which keeps the lanes in registers): output lane
/// `X + 5Y` takes `rot(a[x + 5y] ^ d[x], r[x + 5y])` with `X = y`, `Y = 2x + 3y mod 5`, and
/// chi combines each plane as `b[X] ^ (!b[X + 1] & b[X + 2])`.
#[inline(always)]
fn round(a: &[u64; 25], e: &mut [u64; 25], rc: u64) {
    let c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20];
    let c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21];
    let c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22];
    let c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23];
    let c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24];
    let d0 = c4 ^ c1.rotate_left(1);
    let d1 = c0 ^ c2.rotate_left(1);
    let d2 = c1 ^ c3.rotate_left(1);
    let d3 = c2 ^ c4.rotate_left(1);
    let d4 = c3 ^ c0.rotate_left(1);
    // Plane y = 0.
    {
        let b0 = (a[0] ^ d0).rotate_left(0);
        let b1 = (a[6] ^ d1).rotate_left(44);
        let b2 = (a[12] ^ d2).rotate_left(43);
        let b3 = (a[18] ^ d3).rotate_left(21);
        let b4 = (a[24] ^ d4).rotate_left(14);
        e[0] = b0 ^ (!b1 & b2) ^ rc;
        e[1] = b1 ^ (!b2 & b3);
        e[2] = b2 ^ (!b3 & b4);
        e[3] = b3 ^ (!b4 & b0);
        e[4] = b4 ^ (!b0 & b1);
    }
    // Plane y = 1.
    {
        let b0 = (a[3] ^ d3).rotate_left(28);
        let b1 = (a[9] ^ d4).rotate_left(20);
        let b2 = (a[10] ^ d0).rotate_left(3);
        let b3 = (a[16] ^ d1).rotate_left(45);
        let b4 = (a[22] ^ d2).rotate_left(61);
        e[5] = b0 ^ (!b1 & b2);
        e[6] = b1 ^ (!b2 & b3);
        e[7] = b2 ^ (!b3 & b4);
        e[8] = b3 ^ (!b4 & b0);
        e[9] = b4 ^ (!b0 & b1);
    }
    // Plane y = 2.
    {
        let b0 = (a[1] ^ d1).rotate_left(1);
        let b1 = (a[7] ^ d2).rotate_left(6);
        let b2 = (a[13] ^ d3).rotate_left(25);
        let b3 = (a[19] ^ d4).rotate_left(8);
        let b4 = (a[20] ^ d0).rotate_left(18);
        e[10] = b0 ^ (!b1 & b2);
        e[11] = b1 ^ (!b2 & b3);
        e[12] = b2 ^ (!b3 & b4);
        e[13] = b3 ^ (!b4 & b0);
        e[14] = b4 ^ (!b0 & b1);
    }
    // Plane y = 3.
    {
        let b0 = (a[4] ^ d4).rotate_left(27);
        let b1 = (a[5] ^ d0).rotate_left(36);
        let b2 = (a[11] ^ d1).rotate_left(10);
        let b3 = (a[17] ^ d2).rotate_left(15);
        let b4 = (a[23] ^ d3).rotate_left(56);
        e[15] = b0 ^ (!b1 & b2);
        e[16] = b1 ^ (!b2 & b3);
        e[17] = b2 ^ (!b3 & b4);
        e[18] = b3 ^ (!b4 & b0);
        e[19] = b4 ^ (!b0 & b1);
    }
    // Plane y = 4.
    {
        let b0 = (a[2] ^ d2).rotate_left(62);
        let b1 = (a[8] ^ d3).rotate_left(55);
        let b2 = (a[14] ^ d4).rotate_left(39);
        let b3 = (a[15] ^ d0).rotate_left(41);
        let b4 = (a[21] ^ d1).rotate_left(2);
        e[20] = b0 ^ (!b1 & b2);
        e[21] = b1 ^ (!b2 & b3);
        e[22] = b2 ^ (!b3 & b4);
        e[23] = b3 ^ (!b4 & b0);
        e[24] = b4 ^ (!b0 & b1);
    }
}

/// The 24 rounds, inlined into the caller: a backend compiles them with its own target
/// features (the x86 backends with BMI1/BMI2's `andn` and `rorx`).
#[inline(always)]
pub(crate) fn permute_rounds(s: &mut [u64; 25]) {
    // Two rounds per iteration, ping-ponging between the state and a scratch copy.
    let mut e = [0u64; 25];
    for pair in RC.chunks_exact(2) {
        round(s, &mut e, pair[0]);
        round(&e, s, pair[1]);
    }
    // The scratch copy holds the state one round before the output (invertible into it).
    zeroize::Zeroize::zeroize(e.as_mut_slice());
}

/// The portable Keccak-f\[1600\], whatever the CPU (the portable token's
/// [`KeccakF1600`](super::KeccakF1600)).
pub fn f1600_portable(state: &mut [u64; 25]) {
    permute_rounds(state);
}
