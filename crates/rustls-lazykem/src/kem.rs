//! The ML-KEM half (FIPS 203 on the `lazykem` crate) and the pure ML-KEM groups
//! (draft-ietf-tls-mlkem: MLKEM512 = 0x0200, MLKEM768 = 0x0201, MLKEM1024 = 0x0202). In TLS
//! 1.3 the client's key share is an encapsulation key, the server's a ciphertext and the
//! shared secret the 32-byte ML-KEM key.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use lazykem::{Ciphertext, DecapsulationKey, EncapsulationKey, ParameterSet, SHARED_SECRET_SIZE};
use rustls::crypto::{ActiveKeyExchange, CompletedKeyExchange, SharedSecret, SupportedKxGroup};
use rustls::{Error, NamedGroup, ProtocolVersion};
use zeroize::Zeroizing;

use crate::{INVALID_KEY_SHARE, random_failed};

/// `ML-KEM.KeyGen` (FIPS 203 Alg. 19) from the operating system's RNG. Boxed: the
/// parsed key (about 10 KB for ML-KEM-768) lives until the server's ciphertext arrives.
pub(crate) fn generate<P: ParameterSet>() -> Result<Box<DecapsulationKey<P>>, Error> {
    DecapsulationKey::<P>::try_generate(&mut getrandom::SysRng)
        .map(Box::new)
        .map_err(|_| random_failed())
}

/// The server's half: checks the client's encapsulation key (FIPS 203 §7.2: its
/// length and that every coefficient is below q), encapsulates to it (`ML-KEM.Encaps`,
/// FIPS 203 Alg. 20), appends the ciphertext to `ct` and the shared key to `secret`.
pub(crate) fn encapsulate<P: ParameterSet>(
    ek: &[u8],
    ct: &mut Vec<u8>,
    secret: &mut Vec<u8>,
) -> Result<(), Error> {
    let ek = EncapsulationKey::<P>::from_bytes(ek).map_err(|_| INVALID_KEY_SHARE)?;
    let (ciphertext, key) = ek
        .try_encapsulate(&mut getrandom::SysRng)
        .map_err(|_| random_failed())?;
    ct.extend_from_slice(ciphertext.as_ref());
    // `key` erases itself when dropped.
    secret.extend_from_slice(key.as_bytes());
    Ok(())
}

/// The client's half: `ML-KEM.Decaps` (FIPS 203 Alg. 21) of the server's ciphertext,
/// whose length is the only check (FIPS 203 §7.3); the key is appended to `secret`. An invalid
/// ciphertext of the right length yields the implicit-rejection key, as FIPS 203 says, and
/// the handshake then fails at the server's Finished message.
pub(crate) fn decapsulate<P: ParameterSet>(
    dk: &DecapsulationKey<P>,
    ct: &[u8],
    secret: &mut Vec<u8>,
) -> Result<(), Error> {
    let ct = Ciphertext::<P>::from_bytes(ct).map_err(|_| INVALID_KEY_SHARE)?;
    secret.extend_from_slice(dk.decapsulate(&ct).as_bytes());
    Ok(())
}

/// A pure ML-KEM group for parameter set `P`.
pub(crate) struct KemGroup<P> {
    name: NamedGroup,
    set: PhantomData<fn() -> P>,
}

impl<P> KemGroup<P> {
    pub(crate) const fn new(name: NamedGroup) -> Self {
        Self {
            name,
            set: PhantomData,
        }
    }
}

impl<P: ParameterSet> fmt::Debug for KemGroup<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("KemGroup").field(&self.name).finish()
    }
}

impl<P: ParameterSet> SupportedKxGroup for KemGroup<P> {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        Ok(Box::new(ActiveKem {
            dk: generate::<P>()?,
            name: self.name,
        }))
    }

    /// The server encapsulates to the client's key: no key pair of its own.
    fn start_and_complete(&self, client_share: &[u8]) -> Result<CompletedKeyExchange, Error> {
        let mut ct = Vec::with_capacity(P::CIPHERTEXT_SIZE);
        let mut secret = Zeroizing::new(Vec::with_capacity(SHARED_SECRET_SIZE));
        encapsulate::<P>(client_share, &mut ct, &mut secret)?;
        Ok(CompletedKeyExchange {
            group: self.name,
            pub_key: ct,
            secret: SharedSecret::from(core::mem::take(&mut *secret)),
        })
    }

    fn name(&self) -> NamedGroup {
        self.name
    }

    fn usable_for_version(&self, version: ProtocolVersion) -> bool {
        version == ProtocolVersion::TLSv1_3
    }
}

/// The client's side: the decapsulation key (erased when dropped) until the ciphertext comes.
struct ActiveKem<P: ParameterSet> {
    dk: Box<DecapsulationKey<P>>,
    name: NamedGroup,
}

impl<P: ParameterSet> ActiveKeyExchange for ActiveKem<P> {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, Error> {
        let mut secret = Zeroizing::new(Vec::with_capacity(SHARED_SECRET_SIZE));
        decapsulate(&self.dk, peer_pub_key, &mut secret)?;
        Ok(SharedSecret::from(core::mem::take(&mut *secret)))
    }

    fn pub_key(&self) -> &[u8] {
        self.dk.encapsulation_key().as_ref()
    }

    fn group(&self) -> NamedGroup {
        self.name
    }
}
