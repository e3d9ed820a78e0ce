//! [`Feed`] and [`Feeding`]: a sponge fed during a batch run from the outputs of the batch's
//! own jobs (a [`crate::FeedingBatch`]), a whole block of its message as soon as one is known.

use lattice_poly_ntt::mlkem::N;

use crate::keccak::{SHA3_256_RATE, Sponge};

/// The other side of [`FeedingBatch`](crate::FeedingBatch): it owns the outputs of the batch's fed jobs
/// ([`FeedingBatch::fed_matrix_entry`](crate::FeedingBatch::fed_matrix_entry), [`FeedingBatch::fed_noise`](crate::FeedingBatch::fed_noise)), hears of their progress while the
/// batch runs, and builds from them a message that a sponge absorbs in the same run, a
/// block as soon as one is known. ML-KEM key generation is the use: `H(ek)` needs 6 to 12
/// permutations one after another, and each block of `ek` can be encoded as soon as the
/// first coefficients of its row of A-hat are sampled, so `H` runs beside the sampling of
/// the later rows instead of after all of it.
pub trait Feed {
    /// The coefficients of fed job `slot`'s output. The batch writes them only through
    /// this, each at most once, with values below q (`SampleNTT`) or in `[0, q)` (CBD).
    fn output(&mut self, slot: usize) -> &mut [u16; N];

    /// Fed job `slot` has its first `filled` coefficients written and final, `filled`
    /// growing from report to report: a `SampleNTT` job may report after each block it
    /// parses (a multi-way scheduler does; the portable one reports once), a noise job
    /// reports once; the last report of each job is `N`. Called during the run, in the
    /// order the work happens.
    fn progress(&mut self, slot: usize, filled: usize);

    /// The message known so far: a prefix of the whole message that only grows.
    fn ready(&self) -> &[u8];
}

/// A sponge fed from a [`Feed`] during a batch run: whole blocks of its ready message, in
/// order (`SHA3_256_RATE` bytes each, the sponge between blocks). Opaque outside the
/// crate, like [`Jobs`](crate::Jobs): a backend receives it to pass on.
pub struct Feeding<'f> {
    sponge: &'f mut Sponge<SHA3_256_RATE>,
    feed: &'f mut (dyn Feed + 'f),
    /// Bytes of the message absorbed so far (whole blocks).
    fed: usize,
    /// Whether the sponge was between blocks at the start: only then can whole blocks go
    /// in during the run.
    open: bool,
}

impl<'f> Feeding<'f> {
    /// `sponge` to be fed from `feed`, nothing fed yet.
    pub(crate) fn new(
        sponge: &'f mut Sponge<SHA3_256_RATE>,
        feed: &'f mut (dyn Feed + 'f),
    ) -> Self {
        let open = sponge.bytes_to_block_end() == 0;
        Self {
            sponge,
            feed,
            fed: 0,
            open,
        }
    }

    /// Whether a whole block of the message is ready to go in.
    pub(crate) fn has_block(&self) -> bool {
        self.open && self.feed.ready().len().saturating_sub(self.fed) >= SHA3_256_RATE
    }

    /// The next whole block of the message, if ready; the feeding moves past it.
    pub(crate) fn take_block(&mut self) -> Option<&[u8]> {
        if !self.has_block() {
            return None;
        }
        let at = self.fed;
        self.fed += SHA3_256_RATE;
        self.feed.ready().get(at..at + SHA3_256_RATE)
    }

    /// The sponge's state, between blocks, for a lane to go on from or to give back.
    pub(crate) fn state(&mut self) -> &mut [u64; 25] {
        self.sponge.state_between_blocks()
    }

    /// Bytes of the message absorbed so far (whole blocks from its start).
    pub(crate) fn fed(&self) -> usize {
        self.fed
    }

    /// The output of fed job `slot`.
    pub(crate) fn output(&mut self, slot: usize) -> &mut [u16; N] {
        self.feed.output(slot)
    }

    /// Reports fed job `slot`'s progress to the feed.
    pub(crate) fn progress(&mut self, slot: usize, filled: usize) {
        self.feed.progress(slot, filled);
    }
}
