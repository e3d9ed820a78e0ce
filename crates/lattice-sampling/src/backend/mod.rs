//! This crate's kernels behind the backend tokens of `lattice-poly-ntt`, grouped by
//! architecture, then by instruction set: with `crate::speculation`, the only place of the
//! crate that names an instruction set.
//!
//! A backend token implements [`SamplingBackend`]: its single-state Keccak-f\[1600\]
//! ([`KeccakF1600`], what a sponge runs on) and how a batch of jobs runs, which every backend
//! does through the one lane scheduler (`crate::scheduler`) with a permutation over some
//! number of states (`crate::keccak::PermuteLanes`) and block kernels
//! (`crate::kernels::Kernels`) of its own. [`Portable`] runs the scheduler on the portable
//! permutation and kernels (the trait's defaults); the x86-64 tokens plug in their AVX2
//! (`x86_64::avx2`) and AVX-512 (`x86_64::avx512`) permutations, parsers and CBD, and
//! choose their lane counts; the aarch64 `Neon` token (`aarch64::neon`) its NEON and
//! FEAT_SHA3 ones. Arch-neutral helpers of the SIMD parsers live here: the compaction
//! tables (`compact`) and the step walk (`walk`); `test_support` holds the helpers of the
//! SIMD backends' tests.
//!
//! # Adding a backend
//! A module under its architecture (`x86_64/`, `aarch64/`, or a new one compiled for its
//! architecture only), named after its instruction set, that implements [`KeccakF1600`]
//! and [`SamplingBackend`] for the token (made in `lattice-poly-ntt`): a type implementing
//! `PermuteLanes<W>` for the widths it runs, one implementing `Kernels` (every kernel has a
//! portable default), and `run_jobs` / `run_jobs_feeding` calling `crate::scheduler::run`
//! with them inside a function compiled for the instruction set.

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod x86_64;

#[cfg(target_arch = "aarch64")]
#[allow(unsafe_code)]
pub(crate) mod aarch64;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod compact;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod walk;

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod test_support;

#[cfg(feature = "ct-validation")]
pub(crate) use valgrind::make_mem_defined;

use crate::feed::Feeding;
use crate::job::Jobs;
use crate::keccak::{KeccakF1600, PortableX1};
use crate::kernels::PortableKernels;
use lattice_poly_ntt::backend::Portable;

/// The portable lane scheduler's permutation: one state at a time. Two interleaved states
/// (`PortableX2`) are slower on x86-64 (docs/performance-history.md).
pub(crate) type PortableLanes = PortableX1;
/// Lanes of [`PortableLanes`].
pub(crate) const PORTABLE_LANES: usize = 1;

/// The Keccak and sampling kernels of a backend token.
pub trait SamplingBackend: KeccakF1600 + core::fmt::Debug + 'static {
    /// Runs every job (the portable default: the lane scheduler on the portable
    /// permutation and kernels).
    #[doc(hidden)]
    #[inline]
    fn run_jobs(self, mut jobs: Jobs<'_, '_>) {
        crate::scheduler::run::<PORTABLE_LANES, _, _>(
            jobs.iter_mut(),
            PortableLanes {},
            PortableKernels,
            None,
        );
    }

    /// Runs every job with `feeding` taking the fed jobs' outputs and absorbing the feed's
    /// message as it grows (the portable default: as [`Self::run_jobs`]).
    #[doc(hidden)]
    #[inline]
    fn run_jobs_feeding(self, mut jobs: Jobs<'_, '_>, feeding: &mut Feeding<'_>) {
        crate::scheduler::run::<PORTABLE_LANES, _, _>(
            jobs.iter_mut(),
            PortableLanes {},
            PortableKernels,
            Some(feeding),
        );
    }
}

/// On an AVX-512 CPU, the AVX-512 token with every fed batch on eight lanes first, whatever
/// the CPU and the number of jobs (so that the tests check that path on CPUs that split zmm
/// operations too); `None` elsewhere.
#[cfg(test)]
pub(crate) fn eight_lane_feeding() -> Option<impl SamplingBackend> {
    #[cfg(target_arch = "x86_64")]
    {
        lattice_poly_ntt::backend::Avx512::detect().map(x86_64::avx512::WideFeeding)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None::<Portable>
    }
}

impl KeccakF1600 for Portable {
    #[inline]
    fn f1600(self, state: &mut [u64; 25]) {
        crate::keccak::f1600_portable(state);
    }
}

impl SamplingBackend for Portable {}

/// The valgrind client request behind `crate::ct_validation::declassify`.
#[cfg(feature = "ct-validation")]
mod valgrind {
    /// `VG_USERREQ_TOOL_BASE('M', 'C') + 2` = `VG_USERREQ__MAKE_MEM_DEFINED`
    /// (`<valgrind/memcheck.h>`).
    #[cfg(target_arch = "x86_64")]
    const MAKE_MEM_DEFINED: usize = (((b'M' as usize) << 24) | ((b'C' as usize) << 16)) + 2;

    /// Declares the bytes of `buf` defined under valgrind memcheck; natively, and on targets
    /// without the request sequence here, nothing.
    #[allow(unsafe_code)]
    pub(crate) fn make_mem_defined(buf: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        {
            let block: [usize; 6] = [
                MAKE_MEM_DEFINED,
                buf.as_mut_ptr() as usize,
                buf.len(),
                0,
                0,
                0,
            ];
            // SAFETY: natively the four `rol`s turn `rdi` through 128 bits, back to its
            // value, and `xchg rbx, rbx` changes nothing: only the flags change, which
            // `asm!` assumes by default. Under valgrind the sequence is the client-request
            // trap (`VALGRIND_DO_CLIENT_REQUEST_EXPR` of `<valgrind/valgrind.h>`): valgrind
            // reads the six words at `rax` (`block`, a live local array), changes only the
            // shadow state of `buf` (borrowed exclusively, valid for `buf.len()` bytes) and
            // writes its result to `rdx` (declared as clobbered). No stack is used.
            unsafe {
                core::arch::asm!(
                    "rol rdi, 3",
                    "rol rdi, 13",
                    "rol rdi, 61",
                    "rol rdi, 51",
                    "xchg rbx, rbx",
                    in("rax") block.as_ptr(),
                    inout("rdx") 0usize => _,
                    options(nostack),
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = buf;
    }
}
