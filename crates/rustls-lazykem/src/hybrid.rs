//! The hybrid groups of draft-ietf-tls-ecdhe-mlkem: each key share and the shared secret are
//! the concatenation of an ECDH part and an ML-KEM part. X25519MLKEM768 puts ML-KEM first
//! (client share ek || X25519, server share ct || X25519, secret K || X25519 secret);
//! SecP256r1MLKEM768 and SecP384r1MLKEM1024 put the NIST-curve part first in all three
//! (draft-ietf-tls-ecdhe-mlkem section 4.1, following the SP 800-56C order that keeps the
//! approved scheme first). No length prefixes: each part has a fixed length.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Range;

use lazykem::{DecapsulationKey, ParameterSet, SHARED_SECRET_SIZE};
use rustls::crypto::{ActiveKeyExchange, CompletedKeyExchange, SharedSecret, SupportedKxGroup};
use rustls::{Error, NamedGroup, ProtocolVersion};
use zeroize::Zeroizing;

use crate::INVALID_KEY_SHARE;
use crate::classical::{Curve, agree_to_shared};
use crate::kem;

/// Which part comes first in the shares and the secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// ML-KEM || ECDH (X25519MLKEM768).
    KemFirst,
    /// ECDH || ML-KEM (SecP256r1MLKEM768, SecP384r1MLKEM1024).
    EcdhFirst,
}

impl Order {
    /// Splits a share of exactly `C::ELEMENT_SIZE + kem_len` bytes into (ML-KEM, ECDH) parts;
    /// any other length is `INVALID_KEY_SHARE`.
    pub(crate) fn split<C: Curve>(
        self,
        share: &[u8],
        kem_len: usize,
    ) -> Result<(&[u8], &[u8]), Error> {
        if share.len() != kem_len + C::ELEMENT_SIZE {
            return Err(INVALID_KEY_SHARE);
        }
        Ok(match self {
            Self::KemFirst => share.split_at(kem_len),
            Self::EcdhFirst => {
                let (ecdh, kem) = share.split_at(C::ELEMENT_SIZE);
                (kem, ecdh)
            }
        })
    }

    /// Where the ECDH part sits in a share whose ML-KEM part is `kem_len` bytes.
    fn ecdh_range<C: Curve>(self, kem_len: usize) -> Range<usize> {
        match self {
            Self::KemFirst => kem_len..kem_len + C::ELEMENT_SIZE,
            Self::EcdhFirst => 0..C::ELEMENT_SIZE,
        }
    }
}

/// A hybrid group of curve `C` and ML-KEM parameter set `P`.
pub(crate) struct HybridGroup<C, P> {
    name: NamedGroup,
    order: Order,
    parts: PhantomData<fn() -> (C, P)>,
}

impl<C, P> HybridGroup<C, P> {
    pub(crate) const fn new(name: NamedGroup, order: Order) -> Self {
        Self {
            name,
            order,
            parts: PhantomData,
        }
    }
}

impl<C: Curve, P: ParameterSet> fmt::Debug for HybridGroup<C, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HybridGroup")
            .field("name", &self.name)
            .field("ecdh", &C::GROUP)
            .field("kem", &P::NAME)
            .field("order", &self.order)
            .finish()
    }
}

impl<C: Curve, P: ParameterSet> SupportedKxGroup for HybridGroup<C, P> {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let dk = kem::generate::<P>()?;
        let mut share = Vec::with_capacity(P::ENCAPSULATION_KEY_SIZE + C::ELEMENT_SIZE);
        let ek = dk.encapsulation_key().as_ref();
        let own = match self.order {
            Order::KemFirst => {
                share.extend_from_slice(ek);
                C::generate(&mut share)?
            }
            Order::EcdhFirst => {
                let own = C::generate(&mut share)?;
                share.extend_from_slice(ek);
                own
            }
        };
        Ok(Box::new(ActiveHybrid::<C, P> {
            own,
            dk,
            share,
            name: self.name,
            order: self.order,
        }))
    }

    /// The server's side: encapsulate to the client's ek and answer its ECDH share with a
    /// fresh ephemeral key; no ML-KEM key pair is generated.
    fn start_and_complete(&self, client_share: &[u8]) -> Result<CompletedKeyExchange, Error> {
        let (ek, peer_ecdh) = self
            .order
            .split::<C>(client_share, P::ENCAPSULATION_KEY_SIZE)?;

        let mut kem_ct = Vec::with_capacity(P::CIPHERTEXT_SIZE);
        let mut kem_secret = Zeroizing::new(Vec::with_capacity(SHARED_SECRET_SIZE));
        kem::encapsulate::<P>(ek, &mut kem_ct, &mut kem_secret)?;

        let mut ecdh_share = Vec::with_capacity(C::ELEMENT_SIZE);
        let own = C::generate(&mut ecdh_share)?;
        let mut ecdh_secret = Zeroizing::new(Vec::with_capacity(C::SHARED_SECRET_SIZE));
        C::agree(own, peer_ecdh, &mut ecdh_secret)?;

        let (pub_key, secret) = match self.order {
            Order::KemFirst => (
                [kem_ct.as_slice(), &ecdh_share].concat(),
                concat_secret(&kem_secret, &ecdh_secret),
            ),
            Order::EcdhFirst => (
                [ecdh_share.as_slice(), &kem_ct].concat(),
                concat_secret(&ecdh_secret, &kem_secret),
            ),
        };
        Ok(CompletedKeyExchange {
            group: self.name,
            pub_key,
            secret,
        })
    }

    fn name(&self) -> NamedGroup {
        self.name
    }

    fn usable_for_version(&self, version: ProtocolVersion) -> bool {
        version == ProtocolVersion::TLSv1_3
    }
}

/// `first || second` in one exactly-sized buffer (no reallocation leaves a copy behind), owned
/// by rustls's `SharedSecret`, which erases it when dropped.
fn concat_secret(first: &[u8], second: &[u8]) -> SharedSecret {
    let mut secret = Vec::with_capacity(first.len() + second.len());
    secret.extend_from_slice(first);
    secret.extend_from_slice(second);
    SharedSecret::from(secret)
}

/// The client's side: both private keys (each erased when dropped) and the combined share.
struct ActiveHybrid<C: Curve, P: ParameterSet> {
    own: C::Scalar,
    dk: Box<DecapsulationKey<P>>,
    share: Vec<u8>,
    name: NamedGroup,
    order: Order,
}

impl<C: Curve, P: ParameterSet> ActiveKeyExchange for ActiveHybrid<C, P> {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, Error> {
        let Self { own, dk, order, .. } = *self;
        let (ct, peer_ecdh) = order.split::<C>(peer_pub_key, P::CIPHERTEXT_SIZE)?;
        let mut kem_secret = Zeroizing::new(Vec::with_capacity(SHARED_SECRET_SIZE));
        kem::decapsulate(&dk, ct, &mut kem_secret)?;
        drop(dk);
        let mut ecdh_secret = Zeroizing::new(Vec::with_capacity(C::SHARED_SECRET_SIZE));
        C::agree(own, peer_ecdh, &mut ecdh_secret)?;
        Ok(match order {
            Order::KemFirst => concat_secret(&kem_secret, &ecdh_secret),
            Order::EcdhFirst => concat_secret(&ecdh_secret, &kem_secret),
        })
    }

    /// The ECDH part of our share, which rustls also offers as a key share of the plain
    /// group when the configuration has that group: a server that picks it completes with
    /// [`Self::complete_hybrid_component`], without a HelloRetryRequest.
    fn hybrid_component(&self) -> Option<(NamedGroup, &[u8])> {
        let range = self.order.ecdh_range::<C>(P::ENCAPSULATION_KEY_SIZE);
        Some((C::GROUP, &self.share[range]))
    }

    fn complete_hybrid_component(
        self: Box<Self>,
        peer_pub_key: &[u8],
    ) -> Result<SharedSecret, Error> {
        // The decapsulation key is dropped (and erased) unused.
        agree_to_shared::<C>(self.own, peer_pub_key)
    }

    fn pub_key(&self) -> &[u8] {
        &self.share
    }

    fn group(&self) -> NamedGroup {
        self.name
    }
}
