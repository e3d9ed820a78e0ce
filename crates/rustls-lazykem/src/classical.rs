//! The elliptic-curve halves: X25519 (RFC 7748) and the NIST curves P-256 / P-384 as TLS 1.3
//! uses them (RFC 8446 sections 4.2.8.2 and 7.4.2), and the plain ECDHE groups built on them.
//! The curve arithmetic is `lazykem_hybrid::group`'s (graviola's verified assembly where the
//! CPU runs it, x25519-dalek / p256 / p384 elsewhere); this module adds what TLS asks beyond
//! it: fresh ephemeral keys from the OS RNG, the TLS names, [`INVALID_KEY_SHARE`] for every
//! malformed share and the refusal of an all-zero X25519 secret.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use lazykem_hybrid::ByteArray;
use lazykem_hybrid::group::{NominalGroup, P256, P384, X25519};
use rustls::crypto::{ActiveKeyExchange, SharedSecret, SupportedKxGroup};
use rustls::{Error, NamedGroup};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::{INVALID_KEY_SHARE, random_failed};

/// The largest `Nseed` of the groups below (P-256's four 32-byte chunks).
const MAX_SEED: usize = 128;

/// Fresh seeds drawn before a key generation gives up: `RandomScalar` refuses a uniform seed
/// with probability below 2^-128, so a second draw already means a broken RNG.
const DRAWS: usize = 4;

/// One elliptic-curve Diffie-Hellman group as a TLS key share carries it: its key share is
/// the group's element encoding (32 bytes for X25519, the uncompressed `0x04 || X || Y` of
/// RFC 8446 section 4.2.8.2 for the NIST curves: 65 / 97), its shared secret the group's
/// `ElementToSharedSecret` (the u-coordinate, or the x-coordinate of section 7.4.2: 32 / 48).
pub(crate) trait Curve: NominalGroup {
    /// The TLS name of the plain group.
    const GROUP: NamedGroup;
    /// Whether an all-zero shared secret aborts the handshake: X25519's result for a
    /// small-order peer point (RFC 8446 section 7.4.2). A NIST point has no such result: the
    /// group refuses the identity and points off the curve when it parses the share.
    const REFUSE_ALL_ZERO: bool;

    /// A fresh ephemeral key pair: the private key, with its key share appended to `share`.
    /// The scalar comes from `RandomScalar` over `Nseed` bytes of the OS RNG (X25519: the 32
    /// bytes, clamped inside the scalar multiplication; NIST: the first chunk `0 < x < n`).
    fn generate(share: &mut Vec<u8>) -> Result<Self::Scalar, Error> {
        const { assert!(Self::SEED_SIZE <= MAX_SEED) };
        let mut buffer = Zeroizing::new([0u8; MAX_SEED]);
        let seed = &mut buffer[..Self::SEED_SIZE];
        for _ in 0..DRAWS {
            getrandom::fill(seed).map_err(|_| random_failed())?;
            match Self::random_scalar(seed) {
                Ok(own) => {
                    share.extend_from_slice(Self::exp_base_bytes(&own).as_ref());
                    return Ok(own);
                }
                Err(lazykem_hybrid::Error::ScalarRejected { .. }) => {}
                // Unreachable: the seed has the group's length.
                Err(_) => break,
            }
        }
        Err(random_failed())
    }

    /// Diffie-Hellman with the peer's key share, consuming the private key (erased when
    /// dropped); the shared secret is appended to `secret` (the caller erases it). A share
    /// of the wrong length, a NIST point that is compressed, off the curve or has a
    /// coordinate not below p, or an all-zero X25519 result is [`INVALID_KEY_SHARE`], which
    /// rustls answers with an `illegal_parameter` alert.
    fn agree(own: Self::Scalar, peer: &[u8], secret: &mut Vec<u8>) -> Result<(), Error> {
        let peer = Self::element_from_bytes(peer).map_err(|_| INVALID_KEY_SHARE)?;
        let shared = Zeroizing::new(Self::exp(&peer, &own));
        drop(own);
        let shared: &[u8] = shared.as_ref();
        // Compared in constant time; only the verdict, which the alert makes public anyway,
        // steers the branch.
        if Self::REFUSE_ALL_ZERO
            && bool::from(shared.ct_eq(Self::SharedSecretBytes::zeroed().as_ref()))
        {
            return Err(INVALID_KEY_SHARE);
        }
        secret.extend_from_slice(shared);
        Ok(())
    }
}

impl Curve for X25519 {
    const GROUP: NamedGroup = NamedGroup::X25519;
    const REFUSE_ALL_ZERO: bool = true;
}

impl Curve for P256 {
    const GROUP: NamedGroup = NamedGroup::secp256r1;
    const REFUSE_ALL_ZERO: bool = false;
}

impl Curve for P384 {
    const GROUP: NamedGroup = NamedGroup::secp384r1;
    const REFUSE_ALL_ZERO: bool = false;
}

/// A plain ECDHE group (X25519, secp256r1, secp384r1) on one of the curves above: the
/// classical half of a hybrid, offered on its own so that rustls can send it beside the
/// hybrid share and complete with it when a server picks it.
pub(crate) struct EcdhGroup<C>(PhantomData<fn() -> C>);

impl<C> EcdhGroup<C> {
    pub(crate) const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<C: Curve> fmt::Debug for EcdhGroup<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("EcdhGroup").field(&C::GROUP).finish()
    }
}

impl<C: Curve> SupportedKxGroup for EcdhGroup<C> {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let mut share = Vec::with_capacity(C::ELEMENT_SIZE);
        let own = C::generate(&mut share)?;
        Ok(Box::new(ActiveEcdh::<C> { own, share }))
    }

    fn name(&self) -> NamedGroup {
        C::GROUP
    }
}

/// A client's (or a TLS 1.2 server's) side of a plain ECDHE exchange.
struct ActiveEcdh<C: Curve> {
    own: C::Scalar,
    share: Vec<u8>,
}

impl<C: Curve> ActiveKeyExchange for ActiveEcdh<C> {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, Error> {
        agree_to_shared::<C>(self.own, peer_pub_key)
    }

    fn pub_key(&self) -> &[u8] {
        &self.share
    }

    fn group(&self) -> NamedGroup {
        C::GROUP
    }
}

/// [`Curve::agree`] into a rustls `SharedSecret` (which erases its buffer when dropped); the
/// buffer is erased here on failure.
pub(crate) fn agree_to_shared<C: Curve>(
    own: C::Scalar,
    peer: &[u8],
) -> Result<SharedSecret, Error> {
    let mut secret = Zeroizing::new(Vec::with_capacity(C::SHARED_SECRET_SIZE));
    C::agree(own, peer, &mut secret)?;
    Ok(SharedSecret::from(core::mem::take(&mut *secret)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two fresh key pairs of `C` agree, at the group's sizes.
    fn pair_agrees<C: Curve>() {
        let (mut share_a, mut share_b) = (Vec::new(), Vec::new());
        let a = C::generate(&mut share_a).expect("rng");
        let b = C::generate(&mut share_b).expect("rng");
        assert_eq!(share_a.len(), C::ELEMENT_SIZE);
        assert_ne!(share_a, share_b);
        let (mut s1, mut s2) = (Vec::new(), Vec::new());
        C::agree(a, &share_b, &mut s1).expect("agree");
        C::agree(b, &share_a, &mut s2).expect("agree");
        assert_eq!(s1.len(), C::SHARED_SECRET_SIZE);
        assert_eq!(s1, s2, "{:?}", C::GROUP);
    }

    #[test]
    fn fresh_key_pairs_agree() {
        pair_agrees::<X25519>();
        pair_agrees::<P256>();
        pair_agrees::<P384>();
    }

    /// X25519 points of small order give the all-zero secret (RFC 7748 section 6.1), which
    /// TLS refuses; so does a share of the wrong length.
    #[test]
    fn x25519_small_order_points_are_invalid_key_shares() {
        let mut order_8 = [0u8; 32];
        // A point of order 8 (its u-coordinate, little-endian).
        order_8.copy_from_slice(&hex(
            "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        ));
        let mut one = [0u8; 32];
        one[0] = 1;
        for peer in [[0u8; 32], one, order_8] {
            let own = X25519::generate(&mut Vec::new()).expect("rng");
            let mut secret = Vec::new();
            let err = X25519::agree(own, &peer, &mut secret).err();
            assert_eq!(err, Some(INVALID_KEY_SHARE), "{peer:02x?}");
            assert!(secret.is_empty());
        }
        let own = X25519::generate(&mut Vec::new()).expect("rng");
        assert_eq!(
            X25519::agree(own, &[9; 31], &mut Vec::new()).err(),
            Some(INVALID_KEY_SHARE)
        );
    }

    /// NIST shares: compressed, off the curve, the all-zero string and a coordinate not
    /// below p are invalid key shares.
    #[test]
    fn malformed_nist_points_are_invalid_key_shares() {
        fn check<C: Curve>() {
            let mut good = Vec::new();
            drop(C::generate(&mut good).expect("rng"));
            let field = (C::ELEMENT_SIZE - 1) / 2;
            let mut compressed = good[..=field].to_vec();
            compressed[0] = 2 + (good[C::ELEMENT_SIZE - 1] & 1);
            let mut hybrid_form = good.clone();
            hybrid_form[0] = 6 + (good[C::ELEMENT_SIZE - 1] & 1);
            let mut off_curve = good.clone();
            off_curve[C::ELEMENT_SIZE - 1] ^= 1;
            let mut big_x = good.clone();
            big_x[1..=field].fill(0xff);
            let zeros = alloc::vec![0; C::ELEMENT_SIZE];
            for bad in [
                compressed,
                hybrid_form,
                off_curve,
                big_x,
                zeros,
                alloc::vec![4],
            ] {
                let own = C::generate(&mut Vec::new()).expect("rng");
                let err = C::agree(own, &bad, &mut Vec::new()).err();
                assert_eq!(err, Some(INVALID_KEY_SHARE), "{:?} {bad:02x?}", C::GROUP);
            }
        }
        check::<P256>();
        check::<P384>();
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
}
