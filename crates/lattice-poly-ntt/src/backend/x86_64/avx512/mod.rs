//! The AVX-512 backend's capability token (AVX-512F, VL and BW, on top of everything the
//! AVX2 token needs).
//!
//! It holds an [`Avx2`] token, so it runs every AVX2 kernel, and opts in where AVX-512 is
//! faster: ML-KEM's forward and inverse NTT (`ntt`) and base-case products (`basemul`) on
//! zmm registers, the AVX2 schedule and accumulator layout with 32 coefficients per
//! instruction, and in `lattice-sampling` the 8-way and 4-way Keccak with ternary logic and
//! native rotations. The coefficient additions are the AVX2 kernels. Its [`Avx512::run`]
//! compiles the operation for AVX-512 as well. On a CPU that splits 512-bit operations into
//! two 256-bit halves (AMD Zen 4, [`Avx512::splits_zmm`]) the NTTs are the AVX2 ones and
//! `lattice-sampling` keeps to four Keccak lanes: there zmm gains nothing for them.
#![allow(unsafe_code)]

use super::avx2::Avx2;
use crate::backend::seam::{self, Backend, DotTerm};
use crate::mldsa::MlDsa;
use crate::mlkem::{MlKem, N, PAIRS};
use crate::ring::KernelCall;
use core::arch::x86_64::__cpuid;
use core::sync::atomic::{AtomicU8, Ordering};

mod basemul;
mod ntt;
#[cfg(feature = "bounds-probe")]
pub(crate) use ntt::{inverse_ntt_kernel, ntt_kernel};

/// The AVX-512 capability token: it exists only on a CPU with AVX-512F, AVX-512VL and
/// AVX-512BW besides the AVX2 token's features (made by [`Avx512::detect`], which checks once
/// and caches).
#[derive(Clone, Copy, Debug)]
pub struct Avx512 {
    avx2: Avx2,
    /// Whether the CPU executes a 512-bit operation as two 256-bit halves (see
    /// [`Avx512::splits_zmm`]).
    splits_zmm: bool,
}

cpufeatures::new!(cpuid_avx512, "avx512f", "avx512vl", "avx512bw");

/// [`splits_zmm`]'s answer, once known: 0 not yet asked, 1 full width, 2 split.
static ZMM_DATAPATH: AtomicU8 = AtomicU8::new(0);

/// Whether this CPU splits 512-bit vector operations into two 256-bit halves, as AMD's
/// Zen 4 does (CPUID vendor `AuthenticAMD`, family 0x19: the only AMD family with AVX-512
/// whose 512-bit operations are double-pumped; Zen 5, family 0x1A, runs them at full width,
/// as Intel's AVX-512 cores do). Asked once (CPUID traps to the hypervisor in a virtual
/// machine), then cached. Only a speed hint: no result depends on it.
fn splits_zmm() -> bool {
    match ZMM_DATAPATH.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            // SAFETY: CPUID exists on every x86-64 CPU; leaves 0 and 1 always do. (A safe
            // function from Rust 1.94 on; `unsafe` for the MSRV.)
            #[allow(unused_unsafe)]
            let (vendor, signature) = unsafe { (__cpuid(0), __cpuid(1)) };
            let split = splits_zmm_by_cpuid([vendor.ebx, vendor.edx, vendor.ecx], signature.eax);
            ZMM_DATAPATH.store(if split { 2 } else { 1 }, Ordering::Relaxed);
            split
        }
    }
}

/// The rule of [`splits_zmm`] on CPUID leaf 0's vendor words (EBX, EDX, ECX) and leaf 1's
/// EAX (the processor signature).
fn splits_zmm_by_cpuid(vendor: [u32; 3], signature: u32) -> bool {
    // The family: the base field (bits 8-11), plus the extended field (bits 20-27) when the
    // base one is 0xF.
    let base = (signature >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((signature >> 20) & 0xff)
    } else {
        base
    };
    vendor == AUTHENTIC_AMD && family == 0x19
}

/// CPUID leaf 0's vendor string `AuthenticAMD` as it comes in EBX, EDX, ECX.
const AUTHENTIC_AMD: [u32; 3] = [
    u32::from_le_bytes(*b"Auth"),
    u32::from_le_bytes(*b"enti"),
    u32::from_le_bytes(*b"cAMD"),
];

impl Avx512 {
    /// The token, if this CPU has the features (detected once, then cached).
    #[must_use]
    #[inline]
    pub fn detect() -> Option<Self> {
        let avx2 = Avx2::detect()?;
        cpuid_avx512::get().then(|| Self {
            avx2,
            splits_zmm: splits_zmm(),
        })
    }

    /// Whether the CPU executes a 512-bit operation as two 256-bit halves (AMD Zen 4):
    /// there, eight Keccak states on zmm registers cost what two rounds of four on ymm do,
    /// and `lattice-sampling` keeps to four lanes. A speed hint only: results never depend
    /// on it.
    #[must_use]
    #[inline]
    pub const fn splits_zmm(self) -> bool {
        self.splits_zmm
    }

    /// The AVX2 token this one implies.
    #[must_use]
    #[inline]
    pub const fn avx2(self) -> Avx2 {
        self.avx2
    }

    /// Runs `f` with this token inside a function compiled for AVX-512 and AVX2 (see
    /// [`Avx2::run`]).
    #[inline]
    pub fn run<T>(self, f: impl FnOnce(Self) -> T) -> T {
        // SAFETY: `self` exists, so the CPU has every feature `with_features` enables.
        unsafe { with_features(self, f) }
    }
}

/// Calls `f` in a function compiled with the token's features (`#[inline]`: instantiated
/// beside `f`, as for AVX2).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,fma,popcnt,avx512f,avx512vl,avx512bw")]
unsafe fn with_features<T>(token: Avx512, f: impl FnOnce(Avx512) -> T) -> T {
    f(token)
}

/// ML-KEM's ring: zmm NTTs and base-case products (in the AVX2 accumulator layout, so its
/// bounds and `MAX_TERMS` are the AVX2 ones); the AVX2 coefficient additions.
impl Backend<MlKem> for Avx512 {
    const MAX_TERMS: usize = <Avx2 as Backend<MlKem>>::MAX_TERMS;

    #[inline]
    fn ntt_canonical(self, call: KernelCall, coeffs: &mut [u16; N]) {
        seam::through_copy(coeffs, |src, dst| {
            Backend::<MlKem>::ntt_canonical_into(self, call, src, dst);
        });
    }

    #[inline]
    fn inverse_ntt_canonical(self, call: KernelCall, coeffs: &mut [u16; N]) {
        seam::through_copy(coeffs, |src, dst| {
            Backend::<MlKem>::inverse_ntt_canonical_into(self, call, src, dst);
        });
    }

    #[inline]
    fn ntt_canonical_into(self, call: KernelCall, src: &[u16; N], dst: &mut [u16; N]) {
        // Where zmm operations are split in two (Zen 4) a zmm instruction costs two ymm ones,
        // so the zmm NTT gains nothing from its width and the AVX2 kernel is faster there
        // (docs/performance-history.md). `splits_zmm` is a CPU property, not a secret.
        if self.splits_zmm {
            return Backend::<MlKem>::ntt_canonical_into(self.avx2, call, src, dst);
        }
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { ntt::ntt_avx512(src, dst) }
    }

    #[inline]
    fn inverse_ntt_canonical_into(self, call: KernelCall, src: &[u16; N], dst: &mut [u16; N]) {
        // As for the forward NTT.
        if self.splits_zmm {
            return Backend::<MlKem>::inverse_ntt_canonical_into(self.avx2, call, src, dst);
        }
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { ntt::inverse_ntt_avx512(src, dst) }
    }

    #[inline]
    fn mul_cache(self, _: KernelCall, b: &[u16; N], out: &mut [u16; PAIRS]) {
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { basemul::mul_cache_avx512(b, out) }
    }

    #[inline]
    fn accumulate(
        self,
        _: KernelCall,
        acc: &mut [u32; N],
        a: &[u16; N],
        b: &[u16; N],
        b_zeta: &[u16; PAIRS],
    ) {
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { basemul::accumulate_avx512(acc, a, b, b_zeta) }
    }

    #[inline]
    fn reduce_accumulator(self, _: KernelCall, acc: &[u32; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { basemul::reduce_accumulator_avx512(acc, out) }
    }

    #[inline]
    fn dot_product(self, call: KernelCall, out: &mut [u16; N], terms: &[DotTerm<'_, MlKem>]) {
        // Public: the number of terms is the module rank.
        if terms.len() <= <Self as Backend<MlKem>>::MAX_TERMS {
            // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
            unsafe { basemul::dot_product_avx512(out, terms) }
        } else {
            seam::dot_product_accumulated::<MlKem, Self>(self, call, out, terms);
        }
    }

    #[inline]
    fn dot_product_plus_chunks(
        self,
        call: KernelCall,
        out: &mut [u16; N],
        terms: &[DotTerm<'_, MlKem>],
        plus: &[u16; N],
        chunks: core::ops::Range<usize>,
    ) {
        // Public: the number of terms is the module rank.
        if terms.len() <= <Self as Backend<MlKem>>::MAX_TERMS {
            // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
            unsafe { basemul::dot_product_plus_chunks_avx512(out, terms, plus, chunks) }
        } else {
            seam::dot_product_plus_chunks_default::<MlKem, Self>(
                self, call, out, terms, plus, chunks,
            );
        }
    }

    #[inline]
    fn add(self, call: KernelCall, a: &mut [u16; N], b: &[u16; N]) {
        Backend::<MlKem>::add(self.avx2, call, a, b);
    }

    #[inline]
    fn sub(self, call: KernelCall, a: &mut [u16; N], b: &[u16; N]) {
        Backend::<MlKem>::sub(self.avx2, call, a, b);
    }
}

// The AVX2 layout and bounds (the zmm kernels keep the AVX2 accumulator layout).
#[cfg(feature = "bounds-probe")]
impl seam::HasAccumulatorLayout<MlKem> for Avx512 {
    const ACCUMULATOR_LAYOUT: seam::AccumulatorLayout = {
        let mut layout = <Avx2 as seam::HasAccumulatorLayout<MlKem>>::ACCUMULATOR_LAYOUT;
        layout.tag = " [AVX-512]";
        layout
    };
}

#[cfg(feature = "bounds-probe")]
impl seam::HasAccumulatorLayout<MlDsa> for Avx512 {
    const ACCUMULATOR_LAYOUT: seam::AccumulatorLayout = seam::AccumulatorLayout::wide::<MlDsa>();
}

/// ML-DSA's ring: the portable defaults, compiled for AVX-512 under [`Avx512::run`].
impl Backend<MlDsa> for Avx512 {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::portable::Portable;
    use lattice_field::gf3329::Q;

    const MAX_TERMS: usize = <Avx512 as Backend<MlKem>>::MAX_TERMS;

    /// The zmm datapath rule on processor signatures of known parts: only AMD family 0x19
    /// (Zen 4; Zen 3 shares the family but has no AVX-512, so no token) splits.
    #[test]
    fn zmm_split_by_signature() {
        let intel = [
            u32::from_le_bytes(*b"Genu"),
            u32::from_le_bytes(*b"ineI"),
            u32::from_le_bytes(*b"ntel"),
        ];
        // EPYC 9004 (Zen 4, family 0x19 model 0x11), Ryzen 7000 (Zen 4, model 0x61).
        assert!(splits_zmm_by_cpuid(AUTHENTIC_AMD, 0x00a1_0f11));
        assert!(splits_zmm_by_cpuid(AUTHENTIC_AMD, 0x00a6_0f12));
        // EPYC 9005 (Zen 5, family 0x1A), an AMD family 0x17 part (Zen 2).
        assert!(!splits_zmm_by_cpuid(AUTHENTIC_AMD, 0x00b0_0f21));
        assert!(!splits_zmm_by_cpuid(AUTHENTIC_AMD, 0x0083_0f10));
        // Sapphire Rapids and Ice Lake server (family 6): full width; a family-0x19
        // signature from another vendor is not AMD's.
        assert!(!splits_zmm_by_cpuid(intel, 0x0008_06f8));
        assert!(!splits_zmm_by_cpuid(intel, 0x0006_06a6));
        assert!(!splits_zmm_by_cpuid(intel, 0x00a1_0f11));
    }

    /// The zmm NTT kernels against the AVX2 ones (which the generic tests check against the
    /// portable code) on every CPU with AVX-512, whichever the token picks for its datapath.
    #[test]
    fn zmm_ntts_match_avx2() {
        let Some(token) = Avx512::detect() else {
            return;
        };
        let mut seed = 0x1234_5678u32;
        for round in 0..200 {
            // All zero, all q - 1, then random canonical coefficients.
            let coeffs: [u16; N] = core::array::from_fn(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                match round {
                    0 => 0,
                    1 => Q - 1,
                    _ => ((seed >> 8) % u32::from(Q)) as u16,
                }
            });
            for inverse in [false, true] {
                let (mut zmm, mut ymm) = ([0; N], coeffs);
                // SAFETY: the token exists, so the CPU supports AVX-512F and AVX-512BW.
                unsafe {
                    if inverse {
                        ntt::inverse_ntt_avx512(&coeffs, &mut zmm);
                    } else {
                        ntt::ntt_avx512(&coeffs, &mut zmm);
                    }
                }
                if inverse {
                    Backend::<MlKem>::inverse_ntt_canonical(token.avx2, KernelCall::NEW, &mut ymm);
                } else {
                    Backend::<MlKem>::ntt_canonical(token.avx2, KernelCall::NEW, &mut ymm);
                }
                assert_eq!(zmm, ymm, "round {round}, inverse {inverse}");
            }
        }
    }

    /// The answer is cached after the first question, and the token carries it.
    #[test]
    fn zmm_split_is_cached() {
        let first = splits_zmm();
        assert_ne!(ZMM_DATAPATH.load(Ordering::Relaxed), 0);
        assert_eq!(splits_zmm(), first);
        if let Some(token) = Avx512::detect() {
            assert_eq!(token.splits_zmm(), first);
        }
    }

    /// `(got, want)`: the AVX-512 dot product of `terms` and the portable accumulator's.
    fn both(b: Avx512, terms: &[DotTerm<'_, MlKem>]) -> ([u16; N], [u16; N]) {
        let (mut got, mut want) = ([0u16; N], [0u16; N]);
        b.run(|b| Backend::<MlKem>::dot_product(b, KernelCall::NEW, &mut got, terms));
        seam::dot_product_accumulated::<MlKem, Portable>(
            Portable,
            KernelCall::NEW,
            &mut want,
            terms,
        );
        (got, want)
    }

    /// The fused dot product against the portable accumulator, for term counts up to
    /// `MAX_TERMS` with all-maximal operands (every coefficient q - 1: the sums at their
    /// bound) and past it (the folding fallback), and with pseudo-random operands. The
    /// vector-level tests (`tests/properties.rs`) compare it on every backend too; this
    /// one reaches the counts the typed API's const bounds keep out. (Without AVX-512 the
    /// kernel cannot run: the test has nothing to check.)
    #[test]
    fn dot_product_matches_the_portable_accumulator() {
        let Some(b) = Avx512::detect() else {
            return;
        };
        let max = [Q - 1; N];
        let mut max_cache = [0u16; PAIRS];
        Backend::<MlKem>::mul_cache(Portable, KernelCall::NEW, &max, &mut max_cache);
        let all_max = [(&max, &max, &max_cache); MAX_TERMS + 3];
        for k in [0, 1, 2, 3, 4, MAX_TERMS, MAX_TERMS + 1, MAX_TERMS + 3] {
            let (got, want) = both(b, &all_max[..k]);
            assert_eq!(got, want, "{k} all-maximal terms");
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(Q)) as u16
        };
        let a: [[u16; N]; 8] = core::array::from_fn(|_| core::array::from_fn(|_| next()));
        let rhs: [[u16; N]; 8] = core::array::from_fn(|_| core::array::from_fn(|_| next()));
        let caches: [[u16; PAIRS]; 8] = core::array::from_fn(|j| {
            let mut c = [0u16; PAIRS];
            Backend::<MlKem>::mul_cache(Portable, KernelCall::NEW, &rhs[j], &mut c);
            c
        });
        let terms: [DotTerm<'_, MlKem>; 8] = core::array::from_fn(|j| (&a[j], &rhs[j], &caches[j]));
        for k in 0..=8 {
            let (got, want) = both(b, &terms[..k]);
            assert_eq!(got, want, "{k} random terms");
        }
    }
}
