//! The vocabulary of the NEON kernels' schedules: 8-lane `i16` vector operations, each one
//! to three NEON instructions. The schedules in `super::ntt` are written once against
//! [`Lanes`]; the NEON backend runs them with `int16x8_t` (`super::arith`), and the bounds
//! checker runs the very same schedules on the host with the exact scalar model
//! (`super::model::Scalar`) and with an interval domain of its own (`cargo xtask bounds`),
//! so the bounds it proves are those of the code that ships.
//!
//! Every operation states its lane contract; the scalar model implements it bit for bit
//! (a unit test under qemu compares it with the NEON instructions on extreme and random
//! inputs), and `cargo xtask bounds` checks each contract exhaustively over its domain.

/// The stages of the NTT schedules, for the bounds checker's per-stage lane maxima.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A layer of butterflies of this length (FIPS 203 Alg. 9 / Alg. 10 `len`).
    Layer(usize),
    /// The inverse NTT's last layer (len 128) with the scaling by `128^-1` merged into it.
    LayerScaled(usize),
    /// A centered Barrett reduction of the sums that would otherwise overflow.
    Reduce,
    /// The final reduction to canonical `[0, q)`.
    Output,
}

/// The forward NTT's stages, in order (indices of [`Lanes::stage`]).
pub const NTT_STAGES: [Stage; 8] = [
    Stage::Layer(128),
    Stage::Layer(64),
    Stage::Layer(32),
    Stage::Layer(16),
    Stage::Layer(8),
    Stage::Layer(4),
    Stage::Layer(2),
    Stage::Output,
];

/// The inverse NTT's stages, in order.
pub const INTT_STAGES: [Stage; 10] = [
    Stage::Layer(2),
    Stage::Layer(4),
    Stage::Reduce,
    Stage::Layer(8),
    Stage::Layer(16),
    Stage::Layer(32),
    Stage::Reduce,
    Stage::Layer(64),
    Stage::LayerScaled(128),
    Stage::Output,
];

/// 8-lane `i16` vector operations (see the module docs). `&mut self` lets a model record
/// what it sees; the NEON implementation is a zero-sized value and every call inlines to
/// its instructions.
pub trait Lanes {
    /// A vector of 8 `i16` lanes.
    type V: Copy;

    /// A vector of zeros (an initial value the kernels overwrite).
    fn zero(&mut self) -> Self::V;
    /// Lane-wise wrapping `a + b` (`add`).
    fn add(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise wrapping `a - b` (`sub`).
    fn sub(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// Barrett multiplication by constants (`sqrdmulh`, `mul`, `mls`): `a z - q t` with
    /// `t = round(a zt / 2^15)` (`sqrdmulh`), for `zt = round(z 2^15 / q)`
    /// (`ntt::twist`). Result `= a z mod q` with `|r| <= q/2 + q |a| / 2^16`
    /// (less than `q` for every `i16`).
    fn bmul(&mut self, a: Self::V, z: Self::V, zt: Self::V) -> Self::V;
    /// [`Self::bmul`] by lane `L` of `z` and `zt` (the by-element forms).
    fn bmul_lane<const L: i32>(&mut self, a: Self::V, z: Self::V, zt: Self::V) -> Self::V;
    /// Centered Barrett reduction (`sqdmulh` by `round(2^26/q)`, `srshr #11`, `mls`): `a mod
    /// q` in `[-(q-1)/2, (q-1)/2]`, for every `i16`.
    fn reduce_centered(&mut self, a: Self::V) -> Self::V;
    /// Canonical Barrett reduction (`sqrdmulh` by `round(2^26/q)`, `sshr #11`, `mls`): `a mod
    /// q` in `[0, q)`, for `a` in `[-2^15, CANONICAL_REDUCE_INPUT_MAX]`.
    fn reduce_canonical(&mut self, a: Self::V) -> Self::V;
    /// `a + q` where `a < 0` (`add`, `umin` on unsigned lanes): `[-q, q)` to `[0, q)`.
    fn add_q_if_negative(&mut self, a: Self::V) -> Self::V;
    /// The 4x4 transpose of 32-bit elements (lane pairs) of four vectors (`trn1`/`trn2`
    /// on `.4s` then `.2d`): element `e` of output `r` is element `r` of input `e`.
    fn transpose4(&mut self, v: [Self::V; 4]) -> [Self::V; 4];
    /// A vector of twiddles.
    fn twiddles(&mut self, t: &[i16; 8]) -> Self::V;
    /// Two consecutive vectors of twiddles (`ld1 {2 regs}`).
    #[inline(always)]
    fn twiddles2(&mut self, t: &[[i16; 8]; 2]) -> [Self::V; 2] {
        [self.twiddles(&t[0]), self.twiddles(&t[1])]
    }
    /// Eight consecutive vectors of twiddles (two `ld1 {4 regs}`).
    #[inline(always)]
    fn twiddles8(&mut self, t: &[[i16; 8]; 8]) -> [Self::V; 8] {
        core::array::from_fn(|i| self.twiddles(&t[i]))
    }
    /// A twiddle table, hidden from constant folding where that matters: the NEON
    /// implementation keeps its loads (the compiler would otherwise materialize every
    /// twiddle as an immediate splat and run out of registers). The identity for models.
    #[inline(always)]
    fn table<'a, T>(&mut self, t: &'a T) -> &'a T {
        t
    }
    /// Two consecutive vectors of coefficients (`ld1 {2 regs}`).
    fn load2(&mut self, src: &[u16; 16]) -> [Self::V; 2];
    /// Stores two consecutive vectors.
    fn store2(&mut self, dst: &mut [u16; 16], v: [Self::V; 2]);
    /// Four consecutive vectors (`ld1 {4 regs}`).
    fn load4(&mut self, src: &[u16; 32]) -> [Self::V; 4];
    /// Stores four consecutive vectors (`st1 {4 regs}`).
    fn store4(&mut self, dst: &mut [u16; 32], v: [Self::V; 4]);
    /// 32 coefficients de-interleaved by lane pairs (`ld4 {.4s}`): output `r` holds the
    /// pairs `r, r + 4, r + 8, r + 12`, i.e. lane `l` of it coefficient
    /// `8 (l / 2) + 2 r + l % 2`. The load-time form of [`Self::transpose4`].
    fn load4_pairs(&mut self, src: &[u16; 32]) -> [Self::V; 4];
    /// The inverse of [`Self::load4_pairs`] (`st4 {.4s}`).
    fn store4_pairs(&mut self, dst: &mut [u16; 32], v: [Self::V; 4]);
    /// The schedule finished stage `index` (of [`NTT_STAGES`] or [`INTT_STAGES`]) on the
    /// vectors `v` it holds; only models look.
    #[inline(always)]
    fn stage(&mut self, _index: usize, _v: &[Self::V]) {}
}
