//! The algorithm identifiers (`HPKE §7`, `draft-ietf-hpke-pq §8`) and their constants.

use crate::Error;
use core::fmt;

/// An HPKE KEM (`HPKE §7.1`, `draft-ietf-hpke-pq §8.1-8.2`). Every identifier of the two
/// documents that this crate implements; [`Error::UnsupportedKem`] names the ones a build
/// cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum KemId {
    /// DHKEM(P-256, HKDF-SHA256), 0x0010.
    DhkemP256HkdfSha256,
    /// DHKEM(P-384, HKDF-SHA384), 0x0011.
    DhkemP384HkdfSha384,
    /// DHKEM(X25519, HKDF-SHA256), 0x0020.
    DhkemX25519HkdfSha256,
    /// DHKEM(X448, HKDF-SHA512), 0x0021 (feature `x448`).
    DhkemX448HkdfSha512,
    /// ML-KEM-512, 0x0040.
    MlKem512,
    /// ML-KEM-768, 0x0041.
    MlKem768,
    /// ML-KEM-1024, 0x0042.
    MlKem1024,
    /// MLKEM768-P256, 0x0050.
    MlKem768P256,
    /// MLKEM1024-P384, 0x0051.
    MlKem1024P384,
    /// MLKEM768-X25519 (X-Wing), 0x647a.
    MlKem768X25519,
}

impl KemId {
    /// Every KEM identifier, in the order of their values.
    pub const ALL: [Self; 10] = [
        Self::DhkemP256HkdfSha256,
        Self::DhkemP384HkdfSha384,
        Self::DhkemX25519HkdfSha256,
        Self::DhkemX448HkdfSha512,
        Self::MlKem512,
        Self::MlKem768,
        Self::MlKem1024,
        Self::MlKem768P256,
        Self::MlKem1024P384,
        Self::MlKem768X25519,
    ];

    /// The two-byte identifier.
    #[must_use]
    pub const fn to_u16(self) -> u16 {
        match self {
            Self::DhkemP256HkdfSha256 => 0x0010,
            Self::DhkemP384HkdfSha384 => 0x0011,
            Self::DhkemX25519HkdfSha256 => 0x0020,
            Self::DhkemX448HkdfSha512 => 0x0021,
            Self::MlKem512 => 0x0040,
            Self::MlKem768 => 0x0041,
            Self::MlKem1024 => 0x0042,
            Self::MlKem768P256 => 0x0050,
            Self::MlKem1024P384 => 0x0051,
            Self::MlKem768X25519 => 0x647a,
        }
    }

    /// The KEM of a two-byte identifier.
    ///
    /// # Errors
    /// [`Error::UnknownKem`] for an identifier not in [`Self::ALL`] (P-521's 0x0012 among
    /// them: this crate does not implement it).
    pub const fn from_u16(id: u16) -> Result<Self, Error> {
        Ok(match id {
            0x0010 => Self::DhkemP256HkdfSha256,
            0x0011 => Self::DhkemP384HkdfSha384,
            0x0020 => Self::DhkemX25519HkdfSha256,
            0x0021 => Self::DhkemX448HkdfSha512,
            0x0040 => Self::MlKem512,
            0x0041 => Self::MlKem768,
            0x0042 => Self::MlKem1024,
            0x0050 => Self::MlKem768P256,
            0x0051 => Self::MlKem1024P384,
            0x647a => Self::MlKem768X25519,
            other => return Err(Error::UnknownKem(other)),
        })
    }

    /// The name the documents give it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::DhkemP256HkdfSha256 => "DHKEM(P-256, HKDF-SHA256)",
            Self::DhkemP384HkdfSha384 => "DHKEM(P-384, HKDF-SHA384)",
            Self::DhkemX25519HkdfSha256 => "DHKEM(X25519, HKDF-SHA256)",
            Self::DhkemX448HkdfSha512 => "DHKEM(X448, HKDF-SHA512)",
            Self::MlKem512 => "ML-KEM-512",
            Self::MlKem768 => "ML-KEM-768",
            Self::MlKem1024 => "ML-KEM-1024",
            Self::MlKem768P256 => "MLKEM768-P256",
            Self::MlKem1024P384 => "MLKEM1024-P384",
            Self::MlKem768X25519 => "MLKEM768-X25519",
        }
    }

    /// `(Nsecret, Nenc, Npk, Nsk)` of the registry tables.
    const fn sizes(self) -> (usize, usize, usize, usize) {
        match self {
            Self::DhkemP256HkdfSha256 => (32, 65, 65, 32),
            Self::DhkemP384HkdfSha384 => (48, 97, 97, 48),
            Self::DhkemX25519HkdfSha256 => (32, 32, 32, 32),
            Self::DhkemX448HkdfSha512 => (64, 56, 56, 56),
            Self::MlKem512 => (32, 768, 800, 64),
            Self::MlKem768 => (32, 1088, 1184, 64),
            Self::MlKem1024 => (32, 1568, 1568, 64),
            Self::MlKem768P256 => (32, 1153, 1249, 32),
            Self::MlKem1024P384 => (32, 1665, 1665, 32),
            Self::MlKem768X25519 => (32, 1120, 1216, 32),
        }
    }

    /// `Nsecret`: bytes of a KEM shared secret.
    #[must_use]
    pub const fn n_secret(self) -> usize {
        self.sizes().0
    }

    /// `Nenc`: bytes of an encapsulated key.
    #[must_use]
    pub const fn n_enc(self) -> usize {
        self.sizes().1
    }

    /// `Npk`: bytes of an encoded public key.
    #[must_use]
    pub const fn n_pk(self) -> usize {
        self.sizes().2
    }

    /// `Nsk`: bytes of an encoded private key.
    #[must_use]
    pub const fn n_sk(self) -> usize {
        self.sizes().3
    }

    /// The KEM's `suite_id`, `"KEM" || I2OSP(kem_id, 2)` (`HPKE §4.5`).
    #[must_use]
    pub const fn suite_id(self) -> [u8; 5] {
        let id = self.to_u16().to_be_bytes();
        [b'K', b'E', b'M', id[0], id[1]]
    }
}

impl fmt::Display for KemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<u16> for KemId {
    type Error = Error;
    fn try_from(id: u16) -> Result<Self, Error> {
        Self::from_u16(id)
    }
}

impl From<KemId> for u16 {
    fn from(kem: KemId) -> u16 {
        kem.to_u16()
    }
}

/// An HPKE KDF (`HPKE §7.2`, `draft-ietf-hpke-pq §5`): the two-stage HKDFs
/// (`LabeledExtract`/`LabeledExpand`) or the one-stage XOFs (`LabeledDerive`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum KdfId {
    /// HKDF-SHA256, 0x0001 (two-stage).
    HkdfSha256,
    /// HKDF-SHA384, 0x0002 (two-stage).
    HkdfSha384,
    /// HKDF-SHA512, 0x0003 (two-stage).
    HkdfSha512,
    /// SHAKE128, 0x0010 (one-stage).
    Shake128,
    /// SHAKE256, 0x0011 (one-stage).
    Shake256,
    /// TurboSHAKE128, 0x0012 (one-stage, domain byte 0x1F).
    TurboShake128,
    /// TurboSHAKE256, 0x0013 (one-stage, domain byte 0x1F).
    TurboShake256,
}

impl KdfId {
    /// Every KDF identifier, in the order of their values.
    pub const ALL: [Self; 7] = [
        Self::HkdfSha256,
        Self::HkdfSha384,
        Self::HkdfSha512,
        Self::Shake128,
        Self::Shake256,
        Self::TurboShake128,
        Self::TurboShake256,
    ];

    /// The two-byte identifier.
    #[must_use]
    pub const fn to_u16(self) -> u16 {
        match self {
            Self::HkdfSha256 => 0x0001,
            Self::HkdfSha384 => 0x0002,
            Self::HkdfSha512 => 0x0003,
            Self::Shake128 => 0x0010,
            Self::Shake256 => 0x0011,
            Self::TurboShake128 => 0x0012,
            Self::TurboShake256 => 0x0013,
        }
    }

    /// The KDF of a two-byte identifier.
    ///
    /// # Errors
    /// [`Error::UnknownKdf`] for an identifier not in [`Self::ALL`].
    pub const fn from_u16(id: u16) -> Result<Self, Error> {
        Ok(match id {
            0x0001 => Self::HkdfSha256,
            0x0002 => Self::HkdfSha384,
            0x0003 => Self::HkdfSha512,
            0x0010 => Self::Shake128,
            0x0011 => Self::Shake256,
            0x0012 => Self::TurboShake128,
            0x0013 => Self::TurboShake256,
            other => return Err(Error::UnknownKdf(other)),
        })
    }

    /// The name the documents give it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::HkdfSha256 => "HKDF-SHA256",
            Self::HkdfSha384 => "HKDF-SHA384",
            Self::HkdfSha512 => "HKDF-SHA512",
            Self::Shake128 => "SHAKE128",
            Self::Shake256 => "SHAKE256",
            Self::TurboShake128 => "TurboSHAKE128",
            Self::TurboShake256 => "TurboSHAKE256",
        }
    }

    /// `Nh`: the KDF's security strength in bytes (for HKDF, the hash output).
    #[must_use]
    pub const fn n_h(self) -> usize {
        match self {
            Self::HkdfSha256 | Self::Shake128 | Self::TurboShake128 => 32,
            Self::HkdfSha384 => 48,
            Self::HkdfSha512 | Self::Shake256 | Self::TurboShake256 => 64,
        }
    }

    /// Whether the KDF is one-stage (`Derive`) rather than two-stage (`Extract`, `Expand`).
    #[must_use]
    pub const fn is_one_stage(self) -> bool {
        !matches!(self, Self::HkdfSha256 | Self::HkdfSha384 | Self::HkdfSha512)
    }

    /// The largest export (`L`) the KDF allows: `255 * Nh` for HKDF (`HPKE §5.3`), 65,535
    /// for a one-stage KDF (`L` is encoded in two bytes, `HPKE §4.4`).
    #[must_use]
    pub const fn max_export_len(self) -> usize {
        if self.is_one_stage() {
            u16::MAX as usize
        } else {
            255 * self.n_h()
        }
    }
}

impl fmt::Display for KdfId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<u16> for KdfId {
    type Error = Error;
    fn try_from(id: u16) -> Result<Self, Error> {
        Self::from_u16(id)
    }
}

impl From<KdfId> for u16 {
    fn from(kdf: KdfId) -> u16 {
        kdf.to_u16()
    }
}

/// An HPKE AEAD (`HPKE §7.3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AeadId {
    /// AES-128-GCM, 0x0001.
    Aes128Gcm,
    /// AES-256-GCM, 0x0002.
    Aes256Gcm,
    /// ChaCha20-Poly1305, 0x0003.
    ChaCha20Poly1305,
    /// Export-only, 0xFFFF: no encryption, [`crate::SenderContext::export`] only.
    ExportOnly,
}

impl AeadId {
    /// Every AEAD identifier, in the order of their values.
    pub const ALL: [Self; 4] = [
        Self::Aes128Gcm,
        Self::Aes256Gcm,
        Self::ChaCha20Poly1305,
        Self::ExportOnly,
    ];

    /// The two-byte identifier.
    #[must_use]
    pub const fn to_u16(self) -> u16 {
        match self {
            Self::Aes128Gcm => 0x0001,
            Self::Aes256Gcm => 0x0002,
            Self::ChaCha20Poly1305 => 0x0003,
            Self::ExportOnly => 0xffff,
        }
    }

    /// The AEAD of a two-byte identifier.
    ///
    /// # Errors
    /// [`Error::UnknownAead`] for an identifier not in [`Self::ALL`].
    pub const fn from_u16(id: u16) -> Result<Self, Error> {
        Ok(match id {
            0x0001 => Self::Aes128Gcm,
            0x0002 => Self::Aes256Gcm,
            0x0003 => Self::ChaCha20Poly1305,
            0xffff => Self::ExportOnly,
            other => return Err(Error::UnknownAead(other)),
        })
    }

    /// The name the documents give it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Aes128Gcm => "AES-128-GCM",
            Self::Aes256Gcm => "AES-256-GCM",
            Self::ChaCha20Poly1305 => "ChaCha20Poly1305",
            Self::ExportOnly => "Export-only",
        }
    }

    /// `Nk`: bytes of a key (0 for export-only).
    #[must_use]
    pub const fn n_k(self) -> usize {
        match self {
            Self::Aes128Gcm => 16,
            Self::Aes256Gcm | Self::ChaCha20Poly1305 => 32,
            Self::ExportOnly => 0,
        }
    }

    /// `Nn`: bytes of a nonce (0 for export-only).
    #[must_use]
    pub const fn n_n(self) -> usize {
        match self {
            Self::ExportOnly => 0,
            _ => 12,
        }
    }

    /// `Nt`: bytes of a tag (0 for export-only, which has none).
    #[must_use]
    pub const fn n_t(self) -> usize {
        match self {
            Self::ExportOnly => 0,
            _ => 16,
        }
    }

    /// `P_MAX`: the longest plaintext the AEAD may encrypt (`HPKE §5.2`); 0 for export-only.
    #[must_use]
    pub const fn max_plaintext_len(self) -> u64 {
        match self {
            Self::Aes128Gcm | Self::Aes256Gcm => (1 << 36) - 31,
            Self::ChaCha20Poly1305 => (1 << 38) - 64,
            Self::ExportOnly => 0,
        }
    }
}

impl fmt::Display for AeadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<u16> for AeadId {
    type Error = Error;
    fn try_from(id: u16) -> Result<Self, Error> {
        Self::from_u16(id)
    }
}

impl From<AeadId> for u16 {
    fn from(aead: AeadId) -> u16 {
        aead.to_u16()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_round_trip_and_are_distinct() {
        for (i, kem) in KemId::ALL.into_iter().enumerate() {
            assert_eq!(KemId::from_u16(kem.to_u16()), Ok(kem));
            assert!(KemId::ALL[..i].iter().all(|k| k.to_u16() < kem.to_u16()));
        }
        for (i, kdf) in KdfId::ALL.into_iter().enumerate() {
            assert_eq!(KdfId::from_u16(kdf.to_u16()), Ok(kdf));
            assert!(KdfId::ALL[..i].iter().all(|k| k.to_u16() < kdf.to_u16()));
        }
        for (i, aead) in AeadId::ALL.into_iter().enumerate() {
            assert_eq!(AeadId::from_u16(aead.to_u16()), Ok(aead));
            assert!(AeadId::ALL[..i].iter().all(|a| a.to_u16() < aead.to_u16()));
        }
        assert_eq!(KemId::from_u16(0x0012), Err(Error::UnknownKem(0x0012)));
        assert_eq!(KdfId::from_u16(0), Err(Error::UnknownKdf(0)));
        assert_eq!(AeadId::from_u16(4), Err(Error::UnknownAead(4)));
    }

    #[test]
    fn kem_suite_ids_are_the_drafts() {
        // draft-ietf-hpke-pq §3 and §4 print these.
        assert_eq!(KemId::MlKem768.suite_id(), *b"KEM\x00\x41");
        assert_eq!(KemId::MlKem768X25519.suite_id(), *b"KEM\x64\x7a");
        assert_eq!(KemId::MlKem1024P384.suite_id(), *b"KEM\x00\x51");
    }
}
