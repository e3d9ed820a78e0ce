//! A ciphersuite and the HPKE operations on it: key pairs, the setup functions of the Base
//! and PSK modes (`HPKE §5.1`) and the single-shot APIs (`HPKE §6`).

use crate::context::{ReceiverContext, SenderContext};
use crate::kdf::{self, ScheduleOutput};
use crate::kem::{PrivateKey, PublicKey, SharedSecret};
use crate::{AeadId, Error, KdfId, KemId};
use alloc::vec::Vec;
use core::fmt;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

/// `mode_base` (`HPKE §5`).
const MODE_BASE: u8 = 0x00;
/// `mode_psk` (`HPKE §5`).
const MODE_PSK: u8 = 0x01;

/// An HPKE ciphersuite: a KEM, a KDF and an AEAD (`HPKE §4`), usually chosen at run time
/// from the identifiers a protocol carries ([`Suite::from_ids`]).
///
/// ```
/// use lazykem_hpke::{AeadId, KdfId, KemId, Suite};
///
/// let suite = Suite::from_ids(0x0041, 0x0011, 0x0003)?;
/// assert_eq!(suite, Suite::new(KemId::MlKem768, KdfId::Shake256, AeadId::ChaCha20Poly1305));
/// assert_eq!(suite.suite_id(), *b"HPKE\x00\x41\x00\x11\x00\x03");
/// # Ok::<(), lazykem_hpke::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Suite {
    /// The KEM.
    pub kem: KemId,
    /// The KDF of the key schedule (a DHKEM uses its own KDF inside).
    pub kdf: KdfId,
    /// The AEAD.
    pub aead: AeadId,
}

impl fmt::Debug for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Suite({}, {}, {})", self.kem, self.kdf, self.aead)
    }
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// The PSK inputs checked by `VerifyPSKInputs` (`HPKE §5.1`) for the PSK mode.
fn verify_psk(psk: &[u8], psk_id: &[u8]) -> Result<(), Error> {
    match (psk.is_empty(), psk_id.is_empty()) {
        (false, false) => Ok(()),
        (true, true) => Err(Error::MissingPsk),
        _ => Err(Error::InconsistentPsk),
    }
}

impl Suite {
    /// The suite of three algorithms.
    #[must_use]
    pub const fn new(kem: KemId, kdf: KdfId, aead: AeadId) -> Self {
        Self { kem, kdf, aead }
    }

    /// The suite of three two-byte identifiers.
    ///
    /// # Errors
    /// [`Error::UnknownKem`], [`Error::UnknownKdf`], [`Error::UnknownAead`].
    pub const fn from_ids(kem: u16, kdf: u16, aead: u16) -> Result<Self, Error> {
        let kem = match KemId::from_u16(kem) {
            Ok(kem) => kem,
            Err(e) => return Err(e),
        };
        let kdf = match KdfId::from_u16(kdf) {
            Ok(kdf) => kdf,
            Err(e) => return Err(e),
        };
        let aead = match AeadId::from_u16(aead) {
            Ok(aead) => aead,
            Err(e) => return Err(e),
        };
        Ok(Self { kem, kdf, aead })
    }

    /// The suite's `suite_id`: `"HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) ||
    /// I2OSP(aead_id, 2)` (`HPKE §5.1`).
    #[must_use]
    pub const fn suite_id(&self) -> [u8; 10] {
        let k = self.kem.to_u16().to_be_bytes();
        let d = self.kdf.to_u16().to_be_bytes();
        let a = self.aead.to_u16().to_be_bytes();
        [b'H', b'P', b'K', b'E', k[0], k[1], d[0], d[1], a[0], a[1]]
    }

    /// `GenerateKeyPair()` of the suite's KEM: `(skR, pkR)`.
    ///
    /// # Errors
    /// [`Error::UnsupportedKem`] if this build lacks the KEM.
    pub fn generate_key_pair<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(PrivateKey, PublicKey), Error> {
        self.kem.generate_key_pair(rng)
    }

    /// `DeriveKeyPair(ikm)` of the suite's KEM (see [`KemId::derive_key_pair`]).
    ///
    /// # Errors
    /// [`Error::UnsupportedKem`]; [`Error::DeriveKeyPair`] (negligible).
    pub fn derive_key_pair(&self, ikm: &[u8]) -> Result<(PrivateKey, PublicKey), Error> {
        self.kem.derive_key_pair(ikm)
    }

    fn check_kem(self, kem: KemId) -> Result<(), Error> {
        if kem == self.kem {
            Ok(())
        } else {
            Err(Error::KemMismatch {
                expected: self.kem,
                actual: kem,
            })
        }
    }

    /// `KeySchedule(mode, shared_secret, info, psk, psk_id)` (`HPKE §5.1`), PSK inputs
    /// already verified.
    fn key_schedule(
        self,
        mode: u8,
        shared_secret: &SharedSecret,
        info: &[u8],
        psk: &[u8],
        psk_id: &[u8],
    ) -> Result<ScheduleOutput, Error> {
        kdf::combine_secrets(
            self.kdf,
            &self.suite_id(),
            mode,
            shared_secret.as_bytes(),
            info,
            psk,
            psk_id,
            self.aead.n_k(),
            self.aead.n_n(),
        )
    }

    fn sender<F>(
        self,
        pk_r: &PublicKey,
        info: &[u8],
        psk: Option<(&[u8], &[u8])>,
        encap: F,
    ) -> Result<(Vec<u8>, SenderContext), Error>
    where
        F: FnOnce(&PublicKey) -> Result<(Vec<u8>, SharedSecret), Error>,
    {
        self.check_kem(pk_r.kem())?;
        let (mode, psk, psk_id) = mode_of(psk)?;
        let (enc, shared_secret) = encap(pk_r)?;
        let schedule = self.key_schedule(mode, &shared_secret, info, psk, psk_id)?;
        Ok((enc, SenderContext::new(self, &schedule)))
    }

    fn receiver(
        self,
        sk_r: &PrivateKey,
        enc: &[u8],
        info: &[u8],
        psk: Option<(&[u8], &[u8])>,
    ) -> Result<ReceiverContext, Error> {
        self.check_kem(sk_r.kem())?;
        let (mode, psk, psk_id) = mode_of(psk)?;
        let shared_secret = sk_r.decap(enc)?;
        let schedule = self.key_schedule(mode, &shared_secret, info, psk, psk_id)?;
        Ok(ReceiverContext::new(self, &schedule))
    }

    /// `SetupBaseS(pkR, info)` (`HPKE §5.1.1`): the encapsulated key `enc` to send and the
    /// sender's context.
    ///
    /// # Errors
    /// [`Error::KemMismatch`] if `pk_r` is another KEM's; [`Error::Validation`] (a DHKEM's
    /// all-zero DH output, from a low-order X25519/X448 key); [`Error::InputTooLong`] (a
    /// one-stage KDF and `info` over 65,535 bytes).
    pub fn setup_sender<R: CryptoRng + ?Sized>(
        &self,
        pk_r: &PublicKey,
        info: &[u8],
        rng: &mut R,
    ) -> Result<(Vec<u8>, SenderContext), Error> {
        self.sender(pk_r, info, None, |pk| pk.encap(rng))
    }

    /// `SetupPSKS(pkR, info, psk, psk_id)` (`HPKE §5.1.2`): as [`Self::setup_sender`], and
    /// the recipient must hold the same pre-shared key, which should have at least 32 bytes
    /// of entropy.
    ///
    /// # Errors
    /// As [`Self::setup_sender`]; [`Error::MissingPsk`] or [`Error::InconsistentPsk`] if
    /// `psk` or `psk_id` is empty; [`Error::InputTooLong`] (one-stage KDF, over 65,535
    /// bytes).
    pub fn setup_sender_psk<R: CryptoRng + ?Sized>(
        &self,
        pk_r: &PublicKey,
        info: &[u8],
        psk: &[u8],
        psk_id: &[u8],
        rng: &mut R,
    ) -> Result<(Vec<u8>, SenderContext), Error> {
        self.sender(pk_r, info, Some((psk, psk_id)), |pk| pk.encap(rng))
    }

    /// The sender's setup with the KEM randomness given (`psk`: `None` for the Base mode,
    /// `Some((psk, psk_id))` for PSK). **Hazardous**: for known-answer tests only (see
    /// [`PublicKey::encapsulate_deterministic`] for what `randomness` is). Enabled by the
    /// `hazmat` feature.
    ///
    /// # Errors
    /// As [`Self::setup_sender_psk`]; [`Error::RandomnessLength`].
    #[cfg(feature = "hazmat")]
    pub fn setup_sender_deterministic(
        &self,
        pk_r: &PublicKey,
        info: &[u8],
        psk: Option<(&[u8], &[u8])>,
        randomness: &[u8],
    ) -> Result<(Vec<u8>, SenderContext), Error> {
        self.sender(pk_r, info, psk, |pk| {
            pk.encapsulate_deterministic(randomness)
        })
    }

    /// `SetupBaseR(enc, skR, info)` (`HPKE §5.1.1`): the recipient's context for `enc`.
    ///
    /// # Errors
    /// [`Error::KemMismatch`]; [`Error::EncapsulatedKeyLength`];
    /// [`Error::InvalidEncapsulatedKey`] (a DHKEM `enc` that is not a valid point);
    /// [`Error::Validation`]; [`Error::InputTooLong`]. An ML-KEM `enc` that was not made
    /// for this key passes (implicit rejection) and its messages fail to open.
    pub fn setup_receiver(
        &self,
        sk_r: &PrivateKey,
        enc: &[u8],
        info: &[u8],
    ) -> Result<ReceiverContext, Error> {
        self.receiver(sk_r, enc, info, None)
    }

    /// `SetupPSKR(enc, skR, info, psk, psk_id)` (`HPKE §5.1.2`).
    ///
    /// # Errors
    /// As [`Self::setup_receiver`]; [`Error::MissingPsk`], [`Error::InconsistentPsk`].
    pub fn setup_receiver_psk(
        &self,
        sk_r: &PrivateKey,
        enc: &[u8],
        info: &[u8],
        psk: &[u8],
        psk_id: &[u8],
    ) -> Result<ReceiverContext, Error> {
        self.receiver(sk_r, enc, info, Some((psk, psk_id)))
    }

    /// `SealBase(pkR, info, aad, pt)` (`HPKE §6.1`): `(enc, ct)` for one message.
    ///
    /// # Errors
    /// As [`Self::setup_sender`] and [`SenderContext::seal`].
    pub fn seal<R: CryptoRng + ?Sized>(
        &self,
        pk_r: &PublicKey,
        info: &[u8],
        aad: &[u8],
        pt: &[u8],
        rng: &mut R,
    ) -> Result<(Vec<u8>, Vec<u8>), Error> {
        let (enc, mut ctx) = self.setup_sender(pk_r, info, rng)?;
        Ok((enc, ctx.seal(aad, pt)?))
    }

    /// `OpenBase(enc, skR, info, aad, ct)` (`HPKE §6.1`).
    ///
    /// # Errors
    /// As [`Self::setup_receiver`] and [`ReceiverContext::open`].
    pub fn open(
        &self,
        sk_r: &PrivateKey,
        enc: &[u8],
        info: &[u8],
        aad: &[u8],
        ct: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.setup_receiver(sk_r, enc, info)?.open(aad, ct)
    }

    /// `SealPSK(pkR, info, aad, pt, psk, psk_id)` (`HPKE §6.1`).
    ///
    /// # Errors
    /// As [`Self::setup_sender_psk`] and [`SenderContext::seal`].
    #[allow(clippy::too_many_arguments)]
    pub fn seal_psk<R: CryptoRng + ?Sized>(
        &self,
        pk_r: &PublicKey,
        info: &[u8],
        aad: &[u8],
        pt: &[u8],
        psk: &[u8],
        psk_id: &[u8],
        rng: &mut R,
    ) -> Result<(Vec<u8>, Vec<u8>), Error> {
        let (enc, mut ctx) = self.setup_sender_psk(pk_r, info, psk, psk_id, rng)?;
        Ok((enc, ctx.seal(aad, pt)?))
    }

    /// `OpenPSK(enc, skR, info, aad, ct, psk, psk_id)` (`HPKE §6.1`).
    ///
    /// # Errors
    /// As [`Self::setup_receiver_psk`] and [`ReceiverContext::open`].
    #[allow(clippy::too_many_arguments)]
    pub fn open_psk(
        &self,
        sk_r: &PrivateKey,
        enc: &[u8],
        info: &[u8],
        aad: &[u8],
        ct: &[u8],
        psk: &[u8],
        psk_id: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.setup_receiver_psk(sk_r, enc, info, psk, psk_id)?
            .open(aad, ct)
    }

    /// `SendExportBase(pkR, info, exporter_context, L)` (`HPKE §6.2`): `(enc, secret)`.
    ///
    /// # Errors
    /// As [`Self::setup_sender`] and [`SenderContext::export`].
    pub fn send_export<R: CryptoRng + ?Sized>(
        &self,
        pk_r: &PublicKey,
        info: &[u8],
        exporter_context: &[u8],
        len: usize,
        rng: &mut R,
    ) -> Result<(Vec<u8>, Zeroizing<Vec<u8>>), Error> {
        let (enc, ctx) = self.setup_sender(pk_r, info, rng)?;
        Ok((enc, ctx.export(exporter_context, len)?))
    }

    /// `ReceiveExportBase(enc, skR, info, exporter_context, L)` (`HPKE §6.2`).
    ///
    /// # Errors
    /// As [`Self::setup_receiver`] and [`ReceiverContext::export`].
    pub fn receive_export(
        &self,
        sk_r: &PrivateKey,
        enc: &[u8],
        info: &[u8],
        exporter_context: &[u8],
        len: usize,
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        self.setup_receiver(sk_r, enc, info)?
            .export(exporter_context, len)
    }
}

/// The mode byte and the (checked) PSK inputs: PSK mode with a PSK, Base mode without
/// (RFC 9180 §5.1, `VerifyPSKInputs`).
fn mode_of<'a>(psk: Option<(&'a [u8], &'a [u8])>) -> Result<(u8, &'a [u8], &'a [u8]), Error> {
    match psk {
        Some((psk, psk_id)) => {
            verify_psk(psk, psk_id)?;
            Ok((MODE_PSK, psk, psk_id))
        }
        None => Ok((MODE_BASE, &[][..], &[][..])),
    }
}
