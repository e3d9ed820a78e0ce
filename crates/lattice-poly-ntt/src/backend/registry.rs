//! The registry: which backends exist ([`BackendKind`]), the one place a backend is chosen
//! ([`AnyBackend::best`], [`AnyBackend::of`], [`AnyBackend::available`]), and
//! [`dispatch!`](crate::dispatch), which runs an operation monomorphized for the chosen
//! token. It depends on the tokens; nothing below it depends on it.

#[cfg(target_arch = "aarch64")]
use super::aarch64::neon::Neon;
use super::portable::Portable;
#[cfg(target_arch = "x86_64")]
use super::x86_64::{avx2::Avx2, avx512::Avx512};

/// The backends this crate knows, whether or not this CPU has them (more may come: match
/// with a wildcard arm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendKind {
    /// The portable scalar code, available everywhere.
    Portable,
    /// AVX2 (with BMI1/2, FMA, POPCNT) on x86-64.
    Avx2,
    /// AVX-512F, VL and BW (with everything AVX2 needs) on x86-64.
    Avx512,
    /// NEON (Advanced SIMD) on aarch64, with the SHA3 extension's Keccak where the CPU has it.
    Neon,
}

impl BackendKind {
    /// Every kind, the reference (portable) first.
    pub const ALL: [Self; 4] = [Self::Portable, Self::Avx2, Self::Avx512, Self::Neon];

    /// The kind's name, as `Display` prints it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Portable => "portable",
            Self::Avx2 => "avx2",
            Self::Avx512 => "avx512",
            Self::Neon => "neon",
        }
    }

    /// Whether this CPU can run the kind.
    #[must_use]
    pub fn is_available(self) -> bool {
        AnyBackend::of(self).is_some()
    }

    /// The kinds this CPU can run, in [`Self::ALL`]'s order (the portable one first): the
    /// kinds of [`AnyBackend::available`].
    ///
    /// ```
    /// use lattice_poly_ntt::backend::BackendKind;
    ///
    /// let mut kinds = BackendKind::available();
    /// assert_eq!(kinds.next(), Some(BackendKind::Portable));
    /// assert!(kinds.all(BackendKind::is_available));
    /// ```
    pub fn available() -> impl Iterator<Item = Self> + Clone {
        AnyBackend::available().map(AnyBackend::kind)
    }
}

impl core::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A detected backend: one token of any kind. Only [`Self::best`] and [`Self::of`] make
/// one, through the tokens' own detection. More kinds may come: run code on one with
/// [`dispatch!`](crate::dispatch), which covers them all.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum AnyBackend {
    /// The portable token.
    Portable(Portable),
    /// The AVX2 token.
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    /// The AVX-512 token.
    #[cfg(target_arch = "x86_64")]
    Avx512(Avx512),
    /// The NEON token.
    #[cfg(target_arch = "aarch64")]
    Neon(Neon),
}

impl AnyBackend {
    /// The fastest backend this CPU has (CPU features are detected once and cached).
    #[must_use]
    pub fn best() -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx512) = Avx512::detect() {
            return Self::Avx512(avx512);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = Avx2::detect() {
            return Self::Avx2(avx2);
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(neon) = Neon::detect() {
            return Self::Neon(neon);
        }
        Self::Portable(Portable)
    }

    /// The backend of `kind`, if this CPU has it.
    #[must_use]
    pub fn of(kind: BackendKind) -> Option<Self> {
        match kind {
            BackendKind::Portable => Some(Self::Portable(Portable)),
            #[cfg(target_arch = "x86_64")]
            BackendKind::Avx2 => Avx2::detect().map(Self::Avx2),
            #[cfg(target_arch = "x86_64")]
            BackendKind::Avx512 => Avx512::detect().map(Self::Avx512),
            #[cfg(not(target_arch = "x86_64"))]
            BackendKind::Avx2 | BackendKind::Avx512 => None,
            #[cfg(target_arch = "aarch64")]
            BackendKind::Neon => Neon::detect().map(Self::Neon),
            #[cfg(not(target_arch = "aarch64"))]
            BackendKind::Neon => None,
        }
    }

    /// Every backend this CPU has, the portable one (the reference) first, then the others
    /// in [`BackendKind::ALL`]'s order: for running a test, a comparison or a benchmark on
    /// each. Detection runs once per kind and is cached, as for [`Self::of`].
    ///
    /// ```
    /// use lattice_poly_ntt::backend::AnyBackend;
    /// use lattice_poly_ntt::dispatch;
    /// use lattice_poly_ntt::mlkem::Poly;
    ///
    /// let p = Poly::from_fn(|i| i as u32);
    /// let reference = p.ntt(lattice_poly_ntt::Portable);
    /// for any in AnyBackend::available() {
    ///     assert_eq!(dispatch!(any, |b| p.ntt(b)), reference, "{}", any.kind());
    /// }
    /// ```
    pub fn available() -> impl Iterator<Item = Self> + Clone {
        BackendKind::ALL.into_iter().filter_map(Self::of)
    }

    /// Which kind this is.
    #[must_use]
    pub const fn kind(self) -> BackendKind {
        match self {
            Self::Portable(_) => BackendKind::Portable,
            #[cfg(target_arch = "x86_64")]
            Self::Avx2(_) => BackendKind::Avx2,
            #[cfg(target_arch = "x86_64")]
            Self::Avx512(_) => BackendKind::Avx512,
            #[cfg(target_arch = "aarch64")]
            Self::Neon(_) => BackendKind::Neon,
        }
    }
}

/// Runs `$body` with `$b` bound to the token of the backend `$any` (an [`AnyBackend`]), each
/// arm monomorphized for its token type and run inside the token's `run`, so that the whole
/// operation, glue included, is compiled for the backend's CPU features.
///
/// ```
/// use lattice_poly_ntt::backend::AnyBackend;
/// use lattice_poly_ntt::mlkem::Poly;
/// use lattice_poly_ntt::dispatch;
///
/// let p = Poly::from_fn(|i| i as u32);
/// let back = dispatch!(AnyBackend::best(), |b| p.ntt(b).inverse_ntt(b));
/// assert_eq!(back, p);
/// ```
#[macro_export]
macro_rules! dispatch {
    ($any:expr, |$b:ident| $body:expr) => {
        match $any {
            #[cfg(target_arch = "x86_64")]
            $crate::backend::AnyBackend::Avx2(token) => token.run(|$b| $body),
            #[cfg(target_arch = "x86_64")]
            $crate::backend::AnyBackend::Avx512(token) => token.run(|$b| $body),
            #[cfg(target_arch = "aarch64")]
            $crate::backend::AnyBackend::Neon(token) => token.run(|$b| $body),
            // `Portable`, and in other crates any kind this version does not know
            // (`AnyBackend` is non-exhaustive): the portable token, available everywhere.
            _ => {
                let $b = $crate::backend::Portable;
                $body
            }
        }
    };
}
