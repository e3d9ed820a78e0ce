//! The encryption contexts (`HPKE §5.2`, `HPKE §5.3`): a key, a base nonce, a sequence
//! number and an exporter secret, per role.

use crate::aead::{Cipher, NONCE_SIZE, TAG_SIZE};
use crate::kdf::{self, ScheduleOutput, Secret};
use crate::{Error, Suite};
use alloc::vec::Vec;
use core::fmt;
use zeroize::{Zeroize, Zeroizing};

/// The last sequence number a context may not use: `(1 << (8 * Nn)) - 1` with `Nn = 12`
/// (`HPKE §5.2`, `Context.IncrementSeq`). Sequence numbers `0 ..= MAX_SEQ - 1` are used.
const MAX_SEQ: u128 = (1 << (8 * NONCE_SIZE)) - 1;

/// What both roles hold.
struct Context {
    suite: Suite,
    suite_id: [u8; 10],
    /// `None` for the export-only AEAD.
    cipher: Option<Cipher>,
    base_nonce: [u8; NONCE_SIZE],
    seq: u128,
    exporter_secret: Secret,
    /// `key`, kept only for the `hazmat` accessors.
    #[cfg(feature = "hazmat")]
    key: Zeroizing<Vec<u8>>,
}

impl Drop for Context {
    fn drop(&mut self) {
        self.base_nonce.zeroize();
    }
}

impl Context {
    fn new(suite: Suite, schedule: &ScheduleOutput) -> Self {
        let n_k = suite.aead.n_k();
        Self {
            suite,
            suite_id: suite.suite_id(),
            cipher: Cipher::new(suite.aead, &schedule.key[..n_k]),
            base_nonce: schedule.base_nonce,
            seq: 0,
            exporter_secret: schedule.exporter_secret.clone(),
            #[cfg(feature = "hazmat")]
            key: Zeroizing::new(schedule.key[..n_k].to_vec()),
        }
    }

    /// `ComputeNonce(seq)`: `base_nonce XOR I2OSP(seq, Nn)`.
    fn nonce(&self) -> Zeroizing<[u8; NONCE_SIZE]> {
        let seq = self.seq.to_be_bytes();
        let mut nonce = Zeroizing::new(self.base_nonce);
        for (n, s) in nonce.iter_mut().zip(&seq[16 - NONCE_SIZE..]) {
            *n ^= s;
        }
        nonce
    }

    /// The cipher, once the sequence number is known to be usable.
    fn cipher(&self) -> Result<&Cipher, Error> {
        let cipher = self
            .cipher
            .as_ref()
            .ok_or(Error::ExportOnly(self.suite.aead))?;
        // HPKE §5.2: the message of sequence number 2^96 - 1 would make IncrementSeq
        // fail, so it is refused before anything is computed; seq never wraps.
        if self.seq >= MAX_SEQ {
            return Err(Error::MessageLimitReached);
        }
        Ok(cipher)
    }

    fn seal_detached(&mut self, aad: &[u8], buffer: &mut [u8]) -> Result<[u8; TAG_SIZE], Error> {
        let cipher = self.cipher()?;
        let max = cipher.max_plaintext_len();
        let actual = buffer.len() as u64;
        if actual > max {
            return Err(Error::MessageTooLong { max, actual });
        }
        let tag = cipher.seal(&self.nonce(), aad, buffer)?;
        self.seq += 1;
        Ok(tag)
    }

    fn open_detached(&mut self, aad: &[u8], buffer: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        let cipher = self.cipher()?;
        let tag: &[u8; TAG_SIZE] = tag.try_into().map_err(|_| Error::Open)?;
        cipher.open(&self.nonce(), aad, buffer, tag)?;
        self.seq += 1;
        Ok(())
    }

    fn seal(&mut self, aad: &[u8], pt: &[u8]) -> Result<Vec<u8>, Error> {
        // Checks before allocating: an export-only or exhausted context, P_MAX.
        self.cipher()?;
        let mut out = Vec::with_capacity(pt.len().saturating_add(TAG_SIZE));
        out.extend_from_slice(pt);
        match self.seal_detached(aad, &mut out) {
            Ok(tag) => {
                out.extend_from_slice(&tag);
                Ok(out)
            }
            Err(e) => {
                out.zeroize();
                Err(e)
            }
        }
    }

    fn open(&mut self, aad: &[u8], ct: &[u8]) -> Result<Vec<u8>, Error> {
        self.cipher()?;
        let Some(split) = ct.len().checked_sub(TAG_SIZE) else {
            return Err(Error::Open);
        };
        let (body, tag) = ct.split_at(split);
        let mut out = body.to_vec();
        match self.open_detached(aad, &mut out, tag) {
            Ok(()) => Ok(out),
            Err(e) => {
                out.zeroize();
                Err(e)
            }
        }
    }

    fn export_into(&self, exporter_context: &[u8], out: &mut [u8]) -> Result<(), Error> {
        kdf::export(
            self.suite.kdf,
            &self.suite_id,
            self.exporter_secret.as_slice(),
            exporter_context,
            out,
        )
    }

    fn export(&self, exporter_context: &[u8], len: usize) -> Result<Zeroizing<Vec<u8>>, Error> {
        let max = self.suite.kdf.max_export_len();
        if len > max {
            return Err(Error::ExportLength { max, actual: len });
        }
        let mut out = Zeroizing::new(alloc::vec![0u8; len]);
        self.export_into(exporter_context, &mut out)?;
        Ok(out)
    }

    fn debug(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(name)
            .field("suite", &self.suite)
            .field("sequence_number", &self.seq)
            .finish_non_exhaustive()
    }
}

macro_rules! context_type {
    ($(#[$doc:meta])* $name:ident, $role:literal) => {
        $(#[$doc])*
        pub struct $name(Context);

        impl $name {
            pub(crate) fn new(suite: Suite, schedule: &ScheduleOutput) -> Self {
                Self(Context::new(suite, schedule))
            }

            /// The suite the context was set up for.
            #[must_use]
            pub fn suite(&self) -> Suite {
                self.0.suite
            }

            /// The sequence number of the next message (`HPKE §5.2`), starting at 0.
            #[must_use]
            pub fn sequence_number(&self) -> u128 {
                self.0.seq
            }

            /// `Context.Export(exporter_context, L)` (`HPKE §5.3`): `len` bytes of secret
            /// bound to this context and `exporter_context`, erased when dropped. Works for
            /// every AEAD, export-only included; does not touch the sequence number.
            ///
            /// # Errors
            /// [`Error::ExportLength`] above [`crate::KdfId::max_export_len`].
            pub fn export(
                &self,
                exporter_context: &[u8],
                len: usize,
            ) -> Result<Zeroizing<Vec<u8>>, Error> {
                self.0.export(exporter_context, len)
            }

            /// [`Self::export`] into `out` (`L = out.len()`), without allocating.
            ///
            /// # Errors
            /// [`Error::ExportLength`] above [`crate::KdfId::max_export_len`].
            pub fn export_into(&self, exporter_context: &[u8], out: &mut [u8]) -> Result<(), Error> {
                self.0.export_into(exporter_context, out)
            }

            /// The key schedule's `key` (`Nk` bytes). **Hazardous**: for known-answer tests.
            /// Enabled by the `hazmat` feature.
            #[cfg(feature = "hazmat")]
            #[must_use]
            pub fn key(&self) -> &[u8] {
                &self.0.key
            }

            /// The key schedule's `base_nonce` (`Nn` bytes). **Hazardous**: for
            /// known-answer tests. Enabled by the `hazmat` feature.
            #[cfg(feature = "hazmat")]
            #[must_use]
            pub fn base_nonce(&self) -> &[u8] {
                &self.0.base_nonce[..self.0.suite.aead.n_n()]
            }

            /// The key schedule's `exporter_secret` (`Nh` bytes). **Hazardous**: for
            /// known-answer tests. Enabled by the `hazmat` feature.
            #[cfg(feature = "hazmat")]
            #[must_use]
            pub fn exporter_secret(&self) -> &[u8] {
                self.0.exporter_secret.as_slice()
            }

            /// `ComputeNonce(seq)` for the current sequence number. **Hazardous**: for
            /// known-answer tests. Enabled by the `hazmat` feature.
            #[cfg(feature = "hazmat")]
            #[must_use]
            pub fn nonce(&self) -> Zeroizing<Vec<u8>> {
                Zeroizing::new(self.0.nonce()[..self.0.suite.aead.n_n()].to_vec())
            }

            #[cfg(test)]
            pub(crate) fn set_sequence_number(&mut self, seq: u128) {
                self.0.seq = seq;
            }
        }

        /// Shows the suite and the sequence number only.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.debug($role, f)
            }
        }
    };
}

context_type!(
    /// The sender's context (`Context<S>`, `HPKE §5.2`): seals messages in order, exports
    /// secrets. Made by [`Suite::setup_sender`] or [`Suite::setup_sender_psk`].
    SenderContext,
    "SenderContext"
);

context_type!(
    /// The recipient's context (`Context<R>`, `HPKE §5.2`): opens messages in the order they
    /// were sealed, exports secrets. Made by [`Suite::setup_receiver`] or
    /// [`Suite::setup_receiver_psk`].
    ReceiverContext,
    "ReceiverContext"
);

impl SenderContext {
    /// `ContextS.Seal(aad, pt)` (`HPKE §5.2`): the ciphertext with its 16-byte tag, under
    /// the nonce of the current sequence number, which then advances.
    ///
    /// # Errors
    /// [`Error::ExportOnly`]; [`Error::MessageLimitReached`] after `2^96 - 1` messages;
    /// [`Error::MessageTooLong`] above the AEAD's `P_MAX`. The sequence number advances
    /// only on success.
    pub fn seal(&mut self, aad: &[u8], pt: &[u8]) -> Result<Vec<u8>, Error> {
        self.0.seal(aad, pt)
    }

    /// [`Self::seal`] in place, without allocating: `buffer` holds the plaintext and
    /// becomes the ciphertext; returns the tag to send after it.
    ///
    /// # Errors
    /// As [`Self::seal`].
    pub fn seal_in_place_detached(
        &mut self,
        aad: &[u8],
        buffer: &mut [u8],
    ) -> Result<[u8; TAG_SIZE], Error> {
        self.0.seal_detached(aad, buffer)
    }
}

impl ReceiverContext {
    /// `ContextR.Open(aad, ct)` (`HPKE §5.2`): the plaintext of `ct` (ciphertext and
    /// 16-byte tag), under the nonce of the current sequence number, which then advances.
    ///
    /// # Errors
    /// [`Error::Open`] if `ct` or `aad` is not what was sealed at this sequence number (the
    /// sequence number does not advance); [`Error::ExportOnly`];
    /// [`Error::MessageLimitReached`].
    pub fn open(&mut self, aad: &[u8], ct: &[u8]) -> Result<Vec<u8>, Error> {
        self.0.open(aad, ct)
    }

    /// [`Self::open`] in place, without allocating: `buffer` holds the ciphertext without
    /// its tag and becomes the plaintext. On failure `buffer` holds no plaintext (the
    /// AEAD crates check the tag before decrypting).
    ///
    /// # Errors
    /// As [`Self::open`]; a `tag` of the wrong length is [`Error::Open`].
    pub fn open_in_place_detached(
        &mut self,
        aad: &[u8],
        buffer: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.0.open_detached(aad, buffer, tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AeadId, KdfId, KemId};
    extern crate std;

    fn pair(aead: AeadId) -> (SenderContext, ReceiverContext) {
        let suite = Suite::new(KemId::DhkemX25519HkdfSha256, KdfId::HkdfSha256, aead);
        let (sk, pk) = suite.derive_key_pair(&[3; 32]).unwrap();
        let (enc, s) = suite.setup_sender(&pk, b"info", &mut rand::rng()).unwrap();
        let r = suite.setup_receiver(&sk, &enc, b"info").unwrap();
        (s, r)
    }

    #[test]
    fn sequence_number_never_wraps() {
        for aead in [AeadId::Aes128Gcm, AeadId::ChaCha20Poly1305] {
            let (mut s, mut r) = pair(aead);
            s.set_sequence_number(MAX_SEQ - 2);
            r.set_sequence_number(MAX_SEQ - 2);
            // The last two usable numbers: 2^96 - 3 and 2^96 - 2.
            for i in 0..2u8 {
                let ct = s.seal(b"aad", &[i; 5]).unwrap();
                assert_eq!(r.open(b"aad", &ct).unwrap(), [i; 5]);
            }
            assert_eq!(s.sequence_number(), MAX_SEQ);
            assert_eq!(s.seal(b"aad", b"x"), Err(Error::MessageLimitReached));
            assert_eq!(
                s.seal_in_place_detached(b"aad", &mut [0; 4]),
                Err(Error::MessageLimitReached)
            );
            assert_eq!(r.open(b"aad", &[0; 20]), Err(Error::MessageLimitReached));
            // Still refused, still at the limit: nothing wrapped to 0.
            assert_eq!(s.seal(b"aad", b"x"), Err(Error::MessageLimitReached));
            assert_eq!(s.sequence_number(), MAX_SEQ);
            assert_eq!(r.sequence_number(), MAX_SEQ);
            // Exports still work.
            assert_eq!(*s.export(b"e", 16).unwrap(), *r.export(b"e", 16).unwrap());
        }
    }

    #[test]
    fn nonce_is_base_xor_big_endian_seq() {
        let (mut s, _) = pair(AeadId::Aes128Gcm);
        let base = s.0.base_nonce;
        s.set_sequence_number(0x0102_0304_0506_0708_090a_0b0c);
        let nonce = s.0.nonce();
        for i in 0..12 {
            assert_eq!(nonce[i], base[i] ^ (i as u8 + 1));
        }
    }

    #[test]
    fn failed_open_keeps_the_sequence_number() {
        let (mut s, mut r) = pair(AeadId::Aes256Gcm);
        let mut ct = s.seal(b"aad", b"message").unwrap();
        assert_eq!(r.open(b"other aad", &ct), Err(Error::Open));
        ct[0] ^= 1;
        assert_eq!(r.open(b"aad", &ct), Err(Error::Open));
        assert_eq!(r.open(b"aad", &ct[..15]), Err(Error::Open));
        assert_eq!(r.sequence_number(), 0);
        ct[0] ^= 1;
        assert_eq!(r.open(b"aad", &ct).unwrap(), b"message");
        assert_eq!(r.sequence_number(), 1);
    }

    #[test]
    fn export_only_contexts_only_export() {
        let (mut s, mut r) = pair(AeadId::ExportOnly);
        assert_eq!(
            s.seal(b"", b"x"),
            Err(Error::ExportOnly(AeadId::ExportOnly))
        );
        assert_eq!(
            r.open(b"", &[0; 16]),
            Err(Error::ExportOnly(AeadId::ExportOnly))
        );
        assert_eq!(
            *s.export(b"ctx", 32).unwrap(),
            *r.export(b"ctx", 32).unwrap()
        );
    }

    #[test]
    fn debug_shows_no_secret() {
        let (s, r) = pair(AeadId::ChaCha20Poly1305);
        let text = std::format!("{s:?} {r:?}");
        assert!(text.contains("sequence_number: 0"), "{text}");
        assert!(
            !text.contains("exporter") && !text.contains("nonce:"),
            "{text}"
        );
    }
}
