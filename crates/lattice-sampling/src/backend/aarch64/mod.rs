//! The aarch64 backend of this crate: the NEON token's Keccak permutations, `SampleNTT`
//! candidate parser and CBD (`neon`, with FEAT_SHA3's permutations where the CPU has it).

pub(crate) mod neon;
