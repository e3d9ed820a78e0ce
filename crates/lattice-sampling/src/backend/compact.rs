//! The compaction tables of the SIMD SampleNTT parsers (x86-64 `vpshufb`, aarch64 `tbl`):
//! both move the accepted 16-bit lanes of an 8-lane half to its front with a byte shuffle
//! indexed by the 8-bit acceptance mask, and advance the fill position by its popcount.

/// `COMPACT[m]`: the byte-shuffle pattern that moves the 16-bit lanes `i` with bit `i` of `m`
/// set to the front of a 16-byte half, in increasing order of `i`; the unused tail bytes
/// are `0x80` (out of range for `tbl`, high bit for `vpshufb`: both write zero).
pub(crate) static COMPACT: [[u8; 16]; 256] = compact_table();

/// `ACCEPTED[m]`: the number of bits set in `m` (a table: the AVX2 check does not cover
/// `popcnt`, and on aarch64 a scalar popcount costs a round trip through a vector register).
pub(crate) static ACCEPTED: [u8; 256] = accepted_table();

// A half advances the fill position by at most its 8 lanes: the parsers' second 16-byte
// store of a step lands within the 16 free slots they check for.
const _: () = {
    let mut m = 0;
    while m < 256 {
        assert!(ACCEPTED[m] <= 8);
        m += 1;
    }
};

const fn compact_table() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut m = 0;
    while m < 256 {
        let mut next = 0;
        let mut i = 0;
        while i < 8 {
            if m & (1 << i) != 0 {
                table[m][2 * next] = 2 * i as u8;
                table[m][2 * next + 1] = 2 * i as u8 + 1;
                next += 1;
            }
            i += 1;
        }
        m += 1;
    }
    table
}

const fn accepted_table() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut m = 0;
    while m < 256 {
        table[m] = (m as u8).count_ones() as u8;
        m += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables() {
        assert_eq!(COMPACT[0], [0x80; 16]);
        assert_eq!(COMPACT[0xff], core::array::from_fn(|i| i as u8));
        assert_eq!(COMPACT[0b1000_0010][..4], [2, 3, 14, 15]);
        assert!(COMPACT[0b1000_0010][4..].iter().all(|&b| b == 0x80));
        for m in 0..256 {
            assert_eq!(u32::from(ACCEPTED[m]), (m as u32).count_ones());
        }
    }
}
