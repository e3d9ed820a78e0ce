//! [`ByteArray`]: the fixed-size encodings (`[u8; N]`) the generic types carry.

/// A byte array `[u8; N]` of one of the sizes this crate encodes. Sealed.
pub trait ByteArray:
    AsRef<[u8]>
    + AsMut<[u8]>
    + Copy
    + Eq
    + core::hash::Hash
    + zeroize::Zeroize
    + Send
    + Sync
    + sealed::Sealed
    + 'static
{
    /// `N`.
    const LEN: usize;
    /// `[0; N]`.
    fn zeroed() -> Self;
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

macro_rules! byte_arrays {
    ($($n:literal),*) => {$(
        impl sealed::Sealed for [u8; $n] {}
        impl ByteArray for [u8; $n] {
            const LEN: usize = $n;
            fn zeroed() -> Self {
                [0; $n]
            }
        }
    )*};
}

// Scalars and shared secrets (32, 48), points (65, 97), and the hybrids' encapsulation keys
// (1216, 1249, 1665) and ciphertexts (1120, 1153; 1665 again).
byte_arrays!(32, 48, 65, 97, 1120, 1153, 1216, 1249, 1665);
