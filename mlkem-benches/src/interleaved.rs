//! The timer of the interleaved comparisons (`kem_compare`, `tls_kx`): each cell runs its
//! operation in batches of about [`BATCH`], and the cells take turns batch by batch, so that
//! a shared, noisy machine slows them all alike; a cell's figure is the median of its
//! batches.

use std::time::{Duration, Instant};

/// The length a batch is calibrated to.
pub const BATCH: Duration = Duration::from_millis(2);

/// `--rounds N` from the command line, else `default` (other arguments, such as the
/// `--bench` cargo passes, are ignored).
///
/// # Panics
/// If `--rounds` is not followed by a positive number.
#[must_use]
pub fn rounds_from_args(default: usize) -> usize {
    let mut rounds = default;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--rounds" {
            rounds = args
                .next()
                .and_then(|n| n.parse().ok())
                .filter(|&n| n > 0)
                .expect("--rounds needs a positive number");
        }
    }
    rounds
}

/// One operation timed in batches.
pub struct BatchTimer<'a> {
    run: Box<dyn FnMut() + 'a>,
    iterations: u32,
    /// Nanoseconds per operation, one sample per batch.
    pub samples: Vec<f64>,
}

impl<'a> BatchTimer<'a> {
    /// A timer of `run` (one operation per call), batches of one until calibrated.
    pub fn new(run: impl FnMut() + 'a) -> Self {
        Self {
            run: Box::new(run),
            iterations: 1,
            samples: Vec::new(),
        }
    }

    /// Runs a batch; returns nanoseconds per operation.
    pub fn time_batch(&mut self) -> f64 {
        let start = Instant::now();
        for _ in 0..self.iterations {
            (self.run)();
        }
        start.elapsed().as_secs_f64() * 1e9 / f64::from(self.iterations)
    }

    /// Picks the batch size for [`BATCH`] (after a warm-up batch).
    pub fn calibrate(&mut self) {
        self.iterations = 1;
        let _ = self.time_batch();
        let per_op = self.time_batch().max(1.0);
        let wanted = BATCH.as_secs_f64() * 1e9 / per_op;
        // At least one, at most 10^6 iterations: the cast saturates a finite positive value.
        self.iterations = wanted.clamp(1.0, 1e6) as u32;
    }

    /// Times one batch and keeps the sample.
    pub fn sample(&mut self) {
        let sample = self.time_batch();
        self.samples.push(sample);
    }

    /// The median of the samples so far, in microseconds (0 without samples).
    pub fn median_us(&mut self) -> f64 {
        if self.samples.is_empty() {
            return 0.0;
        }
        self.samples.sort_by(f64::total_cmp);
        self.samples[self.samples.len() / 2] / 1000.0
    }
}
