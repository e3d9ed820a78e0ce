//! This crate's kernels behind the backend tokens of `lattice-poly-ntt`.
//!
//! [`SamplingBackend`] has portable default bodies: the scalar Keccak-f\[1600\] and a batch
//! run one job after another. [`Portable`] takes the defaults; the AVX2 token overrides both
//! (the BMI1/BMI2 build of the scalar permutation, and the 4-way lane scheduler with the AVX2
//! rejection parser and CBD), in `simd`. A new backend implements the trait for its token,
//! overriding what it accelerates.

use crate::batch::{Feeding, Job};
use lattice_poly_ntt::backend::Portable;

/// The independent jobs of one batch run, handed to a backend (opaque outside the crate).
pub struct Jobs<'b, 'a> {
    pub(crate) jobs: &'b mut [Option<Job<'a>>],
}

impl<'a> Jobs<'_, 'a> {
    /// Writes each job's estimated Keccak permutations to `out`, in order (for a backend
    /// choosing how many lanes to use); returns the number of jobs. Public: it depends on
    /// the jobs' kinds and message lengths only.
    pub(crate) fn estimated_lengths(&self, out: &mut [usize; crate::batch::MAX_JOBS]) -> usize {
        let mut n = 0;
        for (o, job) in out.iter_mut().zip(self.jobs.iter().flatten()) {
            *o = job.estimated_permutations();
            n += 1;
        }
        n
    }

    /// The number of jobs.
    pub(crate) fn len(&self) -> usize {
        self.jobs.len()
    }

    /// The jobs, in order, to run in place (a multi-way scheduler).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Job<'a>> + '_ {
        self.jobs.iter_mut().flatten()
    }

    /// Takes the jobs, in order.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = Job<'a>> + '_ {
        self.jobs
            .iter_mut()
            .map(|job| job.take().expect("held jobs are Some"))
    }
}

/// The Keccak kernels of a backend token.
pub trait SamplingBackend: Copy + core::fmt::Debug + 'static {
    /// Keccak-f\[1600\] on one state (FIPS 202, section 3.3).
    #[inline]
    fn f1600(self, state: &mut [u64; 25]) {
        crate::keccak::f1600_portable(state);
    }

    /// Runs every job (the portable default: one after another on [`Self::f1600`]).
    #[doc(hidden)]
    #[inline]
    fn run_jobs(self, mut jobs: Jobs<'_, '_>) {
        for job in jobs.drain() {
            job.run_scalar(self, None);
        }
    }

    /// Runs every job with `feeding` taking the fed jobs' outputs and absorbing the feed's
    /// message as it grows (the portable default: one job after another, the ready blocks
    /// absorbed after each).
    #[doc(hidden)]
    #[inline]
    fn run_jobs_feeding(self, mut jobs: Jobs<'_, '_>, feeding: &mut Feeding<'_>) {
        for job in jobs.drain() {
            job.run_scalar(self, Some(&mut *feeding));
            feeding.absorb_ready(self);
        }
    }
}

impl SamplingBackend for Portable {}
