//! The AEADs (`HPKE §4.3`, `HPKE §7.3`): AES-128-GCM and AES-256-GCM from `aes-gcm`,
//! ChaCha20-Poly1305 from `chacha20poly1305`, each keyed once per context.

use crate::{AeadId, Error};
use aead::{AeadInOut, KeyInit};

/// Bytes of every tag (`Nt`) and nonce (`Nn`) of the AEADs here.
pub(crate) const TAG_SIZE: usize = 16;
pub(crate) const NONCE_SIZE: usize = 12;

/// A keyed AEAD. The ciphers erase their key schedules on drop (the crates' `zeroize`
/// features).
pub(crate) enum Cipher {
    Aes128(aes_gcm::Aes128Gcm),
    Aes256(aes_gcm::Aes256Gcm),
    ChaCha(chacha20poly1305::ChaCha20Poly1305),
}

impl Cipher {
    /// The AEAD keyed with `key` (`Nk` bytes); `None` for export-only.
    pub(crate) fn new(aead: AeadId, key: &[u8]) -> Option<Self> {
        Some(match aead {
            AeadId::Aes128Gcm => Self::Aes128(aes_gcm::Aes128Gcm::new_from_slice(key).ok()?),
            AeadId::Aes256Gcm => Self::Aes256(aes_gcm::Aes256Gcm::new_from_slice(key).ok()?),
            AeadId::ChaCha20Poly1305 => {
                Self::ChaCha(chacha20poly1305::ChaCha20Poly1305::new_from_slice(key).ok()?)
            }
            AeadId::ExportOnly => return None,
        })
    }

    /// `Seal(key, nonce, aad, pt)` in place: `buffer` holds the plaintext and becomes the
    /// ciphertext; returns the tag.
    pub(crate) fn seal(
        &self,
        nonce: &[u8; NONCE_SIZE],
        aad: &[u8],
        buffer: &mut [u8],
    ) -> Result<[u8; TAG_SIZE], Error> {
        let nonce = (*nonce).into();
        let tag = match self {
            Self::Aes128(c) => c.encrypt_inout_detached(&nonce, aad, buffer.into()),
            Self::Aes256(c) => c.encrypt_inout_detached(&nonce, aad, buffer.into()),
            Self::ChaCha(c) => c.encrypt_inout_detached(&nonce, aad, buffer.into()),
        };
        // The crates fail only above P_MAX (or an AAD over 2^61 bytes), which the context
        // checks first.
        tag.map(Into::into).map_err(|_| Error::MessageTooLong {
            max: self.max_plaintext_len(),
            actual: buffer.len() as u64,
        })
    }

    /// `Open(key, nonce, aad, ct)` in place: `buffer` holds the ciphertext without its tag
    /// and becomes the plaintext.
    pub(crate) fn open(
        &self,
        nonce: &[u8; NONCE_SIZE],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &[u8; TAG_SIZE],
    ) -> Result<(), Error> {
        let nonce = (*nonce).into();
        let tag = (*tag).into();
        let opened = match self {
            Self::Aes128(c) => c.decrypt_inout_detached(&nonce, aad, buffer.into(), &tag),
            Self::Aes256(c) => c.decrypt_inout_detached(&nonce, aad, buffer.into(), &tag),
            Self::ChaCha(c) => c.decrypt_inout_detached(&nonce, aad, buffer.into(), &tag),
        };
        opened.map_err(|_| Error::Open)
    }

    pub(crate) fn max_plaintext_len(&self) -> u64 {
        match self {
            Self::Aes128(_) => AeadId::Aes128Gcm.max_plaintext_len(),
            Self::Aes256(_) => AeadId::Aes256Gcm.max_plaintext_len(),
            Self::ChaCha(_) => AeadId::ChaCha20Poly1305.max_plaintext_len(),
        }
    }
}
