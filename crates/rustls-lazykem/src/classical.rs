//! The elliptic-curve halves: X25519 (RFC 7748) and the NIST curves P-256 / P-384 as TLS 1.3
//! uses them (RFC 8446 sections 4.2.8.2 and 7.4.2), and the plain ECDHE groups built on them.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use p256::elliptic_curve::sec1::{FromSec1Point, ModulusSize, ToSec1Point};
use p256::elliptic_curve::{
    AffinePoint, CurveArithmetic, FieldBytesSize, Generate, PublicKey, ecdh::EphemeralSecret,
};
use rustls::crypto::{ActiveKeyExchange, SharedSecret, SupportedKxGroup};
use rustls::{Error, NamedGroup};
use zeroize::Zeroizing;

use crate::backend::{X25519Impl, X25519Secret};
use crate::{INVALID_KEY_SHARE, random_failed};

/// One elliptic-curve Diffie-Hellman scheme as a TLS key share carries it.
pub(crate) trait Curve: Send + Sync + 'static {
    /// The TLS name of the plain group.
    const GROUP: NamedGroup;
    /// Bytes of a key share: 32 for X25519 (RFC 7748), `1 + 2 * field` for an uncompressed
    /// NIST point (RFC 8446 section 4.2.8.2: 65 for P-256, 97 for P-384).
    const SHARE_LEN: usize;
    /// Bytes of the shared secret: the u-coordinate (X25519) or the x-coordinate (NIST
    /// curves; RFC 8446 section 7.4.2), 32 or 48.
    const SECRET_LEN: usize;
    /// The ephemeral private key; erases itself when dropped.
    type Secret: Send + Sync;

    /// A fresh key pair: the private key, with its key share appended to `share`.
    fn generate(share: &mut Vec<u8>) -> Result<Self::Secret, Error>;

    /// Diffie-Hellman with the peer's key share, consuming the private key; the shared secret
    /// is appended to `secret` (the caller erases it). A share of the wrong length, a point
    /// not on the curve, a compressed or identity point, or an all-zero X25519 result is
    /// [`INVALID_KEY_SHARE`], which rustls answers with an `illegal_parameter` alert.
    fn agree(own: Self::Secret, peer: &[u8], secret: &mut Vec<u8>) -> Result<(), Error>;
}

/// X25519 (RFC 7748 section 5): graviola's formally verified assembly where graviola's CPU
/// check passes, x25519-dalek everywhere else (see the crate docs, "Which implementations
/// run").
#[derive(Debug)]
pub(crate) struct X25519;

impl Curve for X25519 {
    const GROUP: NamedGroup = NamedGroup::X25519;
    const SHARE_LEN: usize = 32;
    const SECRET_LEN: usize = 32;
    type Secret = X25519Secret;

    fn generate(share: &mut Vec<u8>) -> Result<Self::Secret, Error> {
        X25519Impl::best().generate(share)
    }

    fn agree(own: Self::Secret, peer: &[u8], secret: &mut Vec<u8>) -> Result<(), Error> {
        let peer: [u8; 32] = peer.try_into().map_err(|_| INVALID_KEY_SHARE)?;
        // RFC 8446 section 7.4.2: an all-zero X25519 result (a small-order peer point) must
        // abort the handshake. Both implementations test for it in constant time.
        own.agree(&peer, secret)
    }
}

/// ECDH on a NIST curve (SP 800-56A) through RustCrypto's `p256` / `p384`.
pub(crate) struct Nist<C>(PhantomData<fn() -> C>);

/// P-256 (secp256r1).
pub(crate) type P256 = Nist<p256::NistP256>;
/// P-384 (secp384r1).
pub(crate) type P384 = Nist<p384::NistP384>;

/// The facts about a NIST curve that `Curve` needs beyond RustCrypto's traits.
pub(crate) trait NistCurve: CurveArithmetic + Send + Sync + 'static
where
    AffinePoint<Self>: FromSec1Point<Self> + ToSec1Point<Self>,
    FieldBytesSize<Self>: ModulusSize,
{
    /// The TLS name of the plain group.
    const GROUP: NamedGroup;
    /// Bytes of a field element.
    const FIELD_LEN: usize;
}

impl NistCurve for p256::NistP256 {
    const GROUP: NamedGroup = NamedGroup::secp256r1;
    const FIELD_LEN: usize = 32;
}

impl NistCurve for p384::NistP384 {
    const GROUP: NamedGroup = NamedGroup::secp384r1;
    const FIELD_LEN: usize = 48;
}

impl<C: NistCurve> Curve for Nist<C>
where
    AffinePoint<C>: FromSec1Point<C> + ToSec1Point<C>,
    FieldBytesSize<C>: ModulusSize,
{
    const GROUP: NamedGroup = C::GROUP;
    const SHARE_LEN: usize = 1 + 2 * C::FIELD_LEN;
    const SECRET_LEN: usize = C::FIELD_LEN;
    type Secret = EphemeralSecret<C>;

    fn generate(share: &mut Vec<u8>) -> Result<Self::Secret, Error> {
        let own = EphemeralSecret::<C>::try_generate_from_rng(&mut getrandom::SysRng)
            .map_err(|_| random_failed())?;
        // RFC 8446 section 4.2.8.2: UncompressedPointRepresentation, 0x04 || X || Y.
        share.extend_from_slice(own.public_key().to_sec1_point(false).as_bytes());
        Ok(own)
    }

    fn agree(own: Self::Secret, peer: &[u8], secret: &mut Vec<u8>) -> Result<(), Error> {
        // Only the uncompressed form is legal in TLS 1.3 (RFC 8446 section 4.2.8.2);
        // `from_sec1_bytes` also rejects points off the curve and the identity.
        if peer.len() != Self::SHARE_LEN || peer[0] != 0x04 {
            return Err(INVALID_KEY_SHARE);
        }
        let peer = PublicKey::<C>::from_sec1_bytes(peer).map_err(|_| INVALID_KEY_SHARE)?;
        // RFC 8446 section 7.4.2: the shared secret is the x-coordinate, FIELD_LEN bytes.
        let shared = own.diffie_hellman(&peer);
        secret.extend_from_slice(shared.raw_secret_bytes());
        Ok(())
    }
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
        let mut share = Vec::with_capacity(C::SHARE_LEN);
        let own = C::generate(&mut share)?;
        Ok(Box::new(ActiveEcdh::<C> { own, share }))
    }

    fn name(&self) -> NamedGroup {
        C::GROUP
    }
}

/// A client's (or a TLS 1.2 server's) side of a plain ECDHE exchange.
struct ActiveEcdh<C: Curve> {
    own: C::Secret,
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
    own: C::Secret,
    peer: &[u8],
) -> Result<SharedSecret, Error> {
    let mut secret = Zeroizing::new(Vec::with_capacity(C::SECRET_LEN));
    C::agree(own, peer, &mut secret)?;
    Ok(SharedSecret::from(core::mem::take(&mut *secret)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pairing of the two X25519 implementations agrees, and each rejects the
    /// small-order point 0 (all-zero result).
    #[test]
    fn x25519_implementations_agree_and_reject_small_order() {
        for a in X25519Impl::available() {
            for b in X25519Impl::available() {
                let (mut share_a, mut share_b) = (Vec::new(), Vec::new());
                let own_a = a.generate(&mut share_a).expect("rng");
                let own_b = b.generate(&mut share_b).expect("rng");
                let (mut s1, mut s2) = (Vec::new(), Vec::new());
                X25519::agree(own_a, &share_b, &mut s1).expect("agree");
                X25519::agree(own_b, &share_a, &mut s2).expect("agree");
                assert_eq!(s1, s2, "{a:?} with {b:?}");
            }
            let own = a.generate(&mut Vec::new()).expect("rng");
            let err = X25519::agree(own, &[0; 32], &mut Vec::new()).err();
            assert_eq!(err, Some(INVALID_KEY_SHARE), "{a:?}");
        }
    }
}
