//! The KDFs and the labeled functions on them (`HPKE §4.2`, `HPKE §4.4`): two-stage HKDF
//! (`LabeledExtract`, `LabeledExpand`) and one-stage XOFs (`LabeledDerive`,
//! `draft-ietf-hpke-pq §5`), and the functions of the key schedule and the DHKEM that have
//! a `_OneStage` and a `_TwoStage` form.

use crate::{Error, KdfId};
use hmac::EagerHash;
use lattice_poly_ntt::backend::AnyBackend;
use lattice_sampling::keccak::{SHAKE_DOMAIN, SHAKE128_RATE, SHAKE256_RATE, Sponge};
use turboshake::digest::{ExtendableOutput, Update, XofReader};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// `"HPKE-v1"`, the version label of every labeled function (`HPKE §4.4`).
const VERSION_LABEL: &[u8] = b"HPKE-v1";

/// The largest `Nh` (HKDF-SHA512, SHAKE256, TurboSHAKE256) and so the largest PRK,
/// exporter secret or KEM shared secret.
pub(crate) const MAX_NH: usize = 64;

/// A secret of at most 64 bytes (a PRK, an exporter secret, a shared secret), erased on
/// drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Secret {
    bytes: [u8; MAX_NH],
    len: usize,
}

impl Secret {
    /// `len` zero bytes, to be filled through [`Self::as_mut`]. `len <= 64` by the callers
    /// (sizes from the registry tables); a larger one is clamped.
    pub(crate) fn zeroed(len: usize) -> Self {
        Self {
            bytes: [0; MAX_NH],
            len: len.min(MAX_NH),
        }
    }

    /// A copy of `bytes` (at most 64; longer is cut, which the callers never pass).
    pub(crate) fn from_slice(bytes: &[u8]) -> Self {
        let mut out = Self::zeroed(bytes.len());
        let len = out.len;
        out.bytes[..len].copy_from_slice(&bytes[..len]);
        out
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    pub(crate) fn as_mut(&mut self) -> &mut [u8] {
        &mut self.bytes[..self.len]
    }
}

/// `I2OSP(n, 2)` for a length already checked to fit.
fn i2osp2(n: usize) -> [u8; 2] {
    u16::try_from(n).unwrap_or(u16::MAX).to_be_bytes()
}

/// The one-stage KDFs' `Derive(ikm, L)`: SHAKE on the workspace's Keccak, TurboSHAKE (12
/// rounds, domain byte 0x1F, RFC 9861) from the `turboshake` crate. Absorbs in pieces.
enum Xof {
    Shake128(Sponge<SHAKE128_RATE>),
    Shake256(Sponge<SHAKE256_RATE>),
    TurboShake128(turboshake::TurboShake<168, { turboshake::DEFAULT_DS }>),
    TurboShake256(turboshake::TurboShake<136, { turboshake::DEFAULT_DS }>),
}

impl Xof {
    /// The XOF of a one-stage KDF; `None` for HKDF.
    fn new(kdf: KdfId) -> Option<Self> {
        Some(match kdf {
            KdfId::Shake128 => Self::Shake128(Sponge::new()),
            KdfId::Shake256 => Self::Shake256(Sponge::new()),
            KdfId::TurboShake128 => Self::TurboShake128(turboshake::TurboShake::default()),
            KdfId::TurboShake256 => Self::TurboShake256(turboshake::TurboShake::default()),
            KdfId::HkdfSha256 | KdfId::HkdfSha384 | KdfId::HkdfSha512 => return None,
        })
    }

    fn absorb(&mut self, data: &[u8]) {
        match self {
            Self::Shake128(s) => {
                lattice_poly_ntt::dispatch!(AnyBackend::best(), |b| s.absorb(b, data));
            }
            Self::Shake256(s) => {
                lattice_poly_ntt::dispatch!(AnyBackend::best(), |b| s.absorb(b, data));
            }
            Self::TurboShake128(t) => t.update(data),
            Self::TurboShake256(t) => t.update(data),
        }
    }

    /// Pads and squeezes `out.len()` bytes (FIPS 202 SHAKE: `d = 8 L`).
    fn squeeze(self, out: &mut [u8]) {
        match self {
            Self::Shake128(mut s) => {
                lattice_poly_ntt::dispatch!(AnyBackend::best(), |b| {
                    s.finalize(b, SHAKE_DOMAIN);
                    s.squeeze(b, out);
                });
            }
            Self::Shake256(mut s) => {
                lattice_poly_ntt::dispatch!(AnyBackend::best(), |b| {
                    s.finalize(b, SHAKE_DOMAIN);
                    s.squeeze(b, out);
                });
            }
            Self::TurboShake128(t) => t.finalize_xof().read(out),
            Self::TurboShake256(t) => t.finalize_xof().read(out),
        }
    }
}

/// `LabeledDerive(ikm, label, context, L)` (`HPKE §4.4`) with `ikm` and `context` given
/// in pieces; `L = out.len()`:
/// `Derive(ikm || "HPKE-v1" || suite_id || I2OSP(len(label), 2) || label || I2OSP(L, 2)
/// || context, L)`.
///
/// # Errors
/// [`Error::ExportLength`] if `L > 65535` (it is encoded in two bytes). `kdf` is
/// one-stage by the callers; a two-stage one writes nothing and returns `Ok` (never
/// reached).
pub(crate) fn labeled_derive(
    kdf: KdfId,
    suite_id: &[u8],
    ikm: &[&[u8]],
    label: &[u8],
    context: &[&[u8]],
    out: &mut [u8],
) -> Result<(), Error> {
    if out.len() > usize::from(u16::MAX) {
        return Err(Error::ExportLength {
            max: usize::from(u16::MAX),
            actual: out.len(),
        });
    }
    labeled_derive_short(kdf, suite_id, ikm, label, context, out);
    Ok(())
}

/// [`labeled_derive`] for an output the caller knows to be at most 65,535 bytes (a constant
/// size); infallible. A longer `out` would get `L` encoded as 65,535.
pub(crate) fn labeled_derive_short(
    kdf: KdfId,
    suite_id: &[u8],
    ikm: &[&[u8]],
    label: &[u8],
    context: &[&[u8]],
    out: &mut [u8],
) {
    let Some(mut xof) = Xof::new(kdf) else {
        return;
    };
    for part in ikm {
        xof.absorb(part);
    }
    xof.absorb(VERSION_LABEL);
    xof.absorb(suite_id);
    xof.absorb(&i2osp2(label.len()));
    xof.absorb(label);
    xof.absorb(&i2osp2(out.len()));
    for part in context {
        xof.absorb(part);
    }
    xof.squeeze(out);
}

/// `LabeledExtract(salt, label, ikm)` for one hash (`HPKE §4.4`):
/// `Extract(salt, "HPKE-v1" || suite_id || label || ikm)`, `ikm` in pieces.
fn extract<H: EagerHash>(suite_id: &[u8], salt: &[u8], label: &[u8], ikm: &[&[u8]]) -> Secret {
    let mut ctx = hkdf::HkdfExtract::<H>::new(Some(salt));
    ctx.input_ikm(VERSION_LABEL);
    ctx.input_ikm(suite_id);
    ctx.input_ikm(label);
    for part in ikm {
        ctx.input_ikm(part);
    }
    let (mut prk, _) = ctx.finalize();
    let out = Secret::from_slice(&prk);
    prk.zeroize();
    out
}

/// `LabeledExpand(prk, label, info, L)` for one hash (`HPKE §4.4`):
/// `Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L)`.
fn expand<H: EagerHash>(
    suite_id: &[u8],
    prk: &[u8],
    label: &[u8],
    info: &[&[u8]],
    out: &mut [u8],
) -> Result<(), Error> {
    // HKDF-Expand's only failure is L > 255 * Nh (RFC 5869 §2.3). `from_prk` refuses a PRK
    // shorter than Nh, which the callers never pass (their PRKs come from `extract`, the
    // exporter secret is Nh bytes); it gets the same error rather than a panic.
    let err = Error::ExportLength {
        max: 255 * <H as hmac::digest::OutputSizeUser>::output_size(),
        actual: out.len(),
    };
    let hk = hkdf::Hkdf::<H>::from_prk(prk).map_err(|_| err)?;
    let length = i2osp2(out.len());
    // I2OSP(L, 2), the version label, the suite, the label, then `info` (at most 3 parts
    // from the callers, room for 5; the array holds them without allocating).
    let mut parts: [&[u8]; 9] = [
        &length,
        VERSION_LABEL,
        suite_id,
        label,
        &[],
        &[],
        &[],
        &[],
        &[],
    ];
    let n = 4 + info.len().min(5);
    for (slot, part) in parts[4..n].iter_mut().zip(info) {
        *slot = part;
    }
    hk.expand_multi_info(&parts[..n], out).map_err(|_| err)
}

/// `LabeledExtract` (`HPKE §4.4`) of a two-stage KDF; an empty secret for a one-stage one
/// (never reached).
pub(crate) fn labeled_extract(
    kdf: KdfId,
    suite_id: &[u8],
    salt: &[u8],
    label: &[u8],
    ikm: &[&[u8]],
) -> Secret {
    match kdf {
        KdfId::HkdfSha256 => extract::<sha2::Sha256>(suite_id, salt, label, ikm),
        KdfId::HkdfSha384 => extract::<sha2::Sha384>(suite_id, salt, label, ikm),
        KdfId::HkdfSha512 => extract::<sha2::Sha512>(suite_id, salt, label, ikm),
        _ => Secret::zeroed(0),
    }
}

/// `LabeledExpand` (`HPKE §4.4`) of a two-stage KDF, `L = out.len()`.
///
/// # Errors
/// [`Error::ExportLength`] if `L > 255 * Nh`.
pub(crate) fn labeled_expand(
    kdf: KdfId,
    suite_id: &[u8],
    prk: &[u8],
    label: &[u8],
    info: &[&[u8]],
    out: &mut [u8],
) -> Result<(), Error> {
    match kdf {
        KdfId::HkdfSha256 => expand::<sha2::Sha256>(suite_id, prk, label, info, out),
        KdfId::HkdfSha384 => expand::<sha2::Sha384>(suite_id, prk, label, info, out),
        KdfId::HkdfSha512 => expand::<sha2::Sha512>(suite_id, prk, label, info, out),
        _ => Ok(()),
    }
}

/// `ExtractAndExpand(dh, kem_context)` of the DHKEM (`HPKE §4.5`), `Nsecret = out.len()`,
/// `kem_context = enc || pkRm` in pieces.
pub(crate) fn extract_and_expand(
    kdf: KdfId,
    suite_id: &[u8],
    dh: &[u8],
    kem_context: &[&[u8]],
    out: &mut [u8],
) -> Result<(), Error> {
    if kdf.is_one_stage() {
        labeled_derive(kdf, suite_id, &[dh], b"shared_secret", kem_context, out)
    } else {
        let eae_prk = labeled_extract(kdf, suite_id, b"", b"eae_prk", &[dh]);
        labeled_expand(
            kdf,
            suite_id,
            eae_prk.as_slice(),
            b"shared_secret",
            kem_context,
            out,
        )
    }
}

/// `DeriveCandidate(ikm, counter)` of the NIST-curve DHKEMs (`HPKE §7.1.3`), `Nsk =
/// out.len()`.
pub(crate) fn derive_candidate(
    kdf: KdfId,
    suite_id: &[u8],
    ikm: &[u8],
    counter: u8,
    out: &mut [u8],
) -> Result<(), Error> {
    if kdf.is_one_stage() {
        labeled_derive(kdf, suite_id, &[ikm], b"candidate", &[&[counter]], out)
    } else {
        let dkp_prk = labeled_extract(kdf, suite_id, b"", b"dkp_prk", &[ikm]);
        labeled_expand(
            kdf,
            suite_id,
            dkp_prk.as_slice(),
            b"candidate",
            &[&[counter]],
            out,
        )
    }
}

/// `DeriveKeyPair(ikm)`'s secret key of the X25519 and X448 DHKEMs (`HPKE §7.1.3`), `Nsk =
/// out.len()`.
pub(crate) fn derive_sk(
    kdf: KdfId,
    suite_id: &[u8],
    ikm: &[u8],
    out: &mut [u8],
) -> Result<(), Error> {
    if kdf.is_one_stage() {
        labeled_derive(kdf, suite_id, &[ikm], b"sk", &[], out)
    } else {
        let dkp_prk = labeled_extract(kdf, suite_id, b"", b"dkp_prk", &[ikm]);
        labeled_expand(kdf, suite_id, dkp_prk.as_slice(), b"sk", &[], out)
    }
}

/// The three outputs of the key schedule, erased on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct ScheduleOutput {
    /// `key`, `Nk` bytes (at most 32) in front.
    pub(crate) key: [u8; 32],
    /// `base_nonce`, `Nn` bytes (12, or 0 for export-only) in front.
    pub(crate) base_nonce: [u8; 12],
    /// `exporter_secret`, `Nh` bytes.
    pub(crate) exporter_secret: Secret,
}

/// `CombineSecrets(mode, shared_secret, info, psk, psk_id)` (`HPKE §5.1`) for the suite's
/// KDF; `n_k` and `n_n` are the AEAD's (`Nk <= 32`, `Nn <= 12`).
///
/// # Errors
/// [`Error::InputTooLong`] for a one-stage KDF and a `psk`, `psk_id` or `info` over 65,535
/// bytes (`HPKE §7.2.1`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn combine_secrets(
    kdf: KdfId,
    suite_id: &[u8; 10],
    mode: u8,
    shared_secret: &[u8],
    info: &[u8],
    psk: &[u8],
    psk_id: &[u8],
    n_k: usize,
    n_n: usize,
) -> Result<ScheduleOutput, Error> {
    let n_h = kdf.n_h();
    let mut out = ScheduleOutput {
        key: [0; 32],
        base_nonce: [0; 12],
        exporter_secret: Secret::zeroed(n_h),
    };
    let (n_k, n_n) = (n_k.min(32), n_n.min(12));
    if kdf.is_one_stage() {
        for (input, value) in [("psk", psk), ("psk_id", psk_id), ("info", info)] {
            if value.len() > usize::from(u16::MAX) {
                return Err(Error::InputTooLong {
                    input,
                    max: usize::from(u16::MAX),
                    actual: value.len(),
                });
            }
        }
        // CombineSecrets_OneStage: secrets = lengthPrefixed(psk) ||
        // lengthPrefixed(shared_secret); context = mode || lengthPrefixed(psk_id) ||
        // lengthPrefixed(info); one LabeledDerive of Nk + Nn + Nh bytes, split in order.
        let mut secret = [0u8; 32 + 12 + MAX_NH];
        let total = n_k + n_n + n_h;
        let derived = labeled_derive(
            kdf,
            suite_id,
            &[
                &i2osp2(psk.len()),
                psk,
                &i2osp2(shared_secret.len()),
                shared_secret,
            ],
            b"secret",
            &[
                &[mode],
                &i2osp2(psk_id.len()),
                psk_id,
                &i2osp2(info.len()),
                info,
            ],
            &mut secret[..total],
        );
        out.key[..n_k].copy_from_slice(&secret[..n_k]);
        out.base_nonce[..n_n].copy_from_slice(&secret[n_k..n_k + n_n]);
        out.exporter_secret
            .as_mut()
            .copy_from_slice(&secret[n_k + n_n..total]);
        secret.zeroize();
        derived?;
    } else {
        // CombineSecrets_TwoStage.
        let psk_id_hash = labeled_extract(kdf, suite_id, b"", b"psk_id_hash", &[psk_id]);
        let info_hash = labeled_extract(kdf, suite_id, b"", b"info_hash", &[info]);
        let context: [&[u8]; 3] = [&[mode], psk_id_hash.as_slice(), info_hash.as_slice()];
        let secret = labeled_extract(kdf, suite_id, shared_secret, b"secret", &[psk]);
        // An export-only AEAD has Nk = Nn = 0: key and base_nonce are empty and not
        // computed (HPKE §5.3 allows skipping them).
        if n_k > 0 {
            labeled_expand(
                kdf,
                suite_id,
                secret.as_slice(),
                b"key",
                &context,
                &mut out.key[..n_k],
            )?;
        }
        if n_n > 0 {
            labeled_expand(
                kdf,
                suite_id,
                secret.as_slice(),
                b"base_nonce",
                &context,
                &mut out.base_nonce[..n_n],
            )?;
        }
        labeled_expand(
            kdf,
            suite_id,
            secret.as_slice(),
            b"exp",
            &context,
            out.exporter_secret.as_mut(),
        )?;
    }
    Ok(out)
}

/// `Context.Export(exporter_context, L)` (`HPKE §5.3`), `L = out.len()`.
///
/// # Errors
/// [`Error::ExportLength`] above [`KdfId::max_export_len`].
pub(crate) fn export(
    kdf: KdfId,
    suite_id: &[u8; 10],
    exporter_secret: &[u8],
    exporter_context: &[u8],
    out: &mut [u8],
) -> Result<(), Error> {
    let max = kdf.max_export_len();
    if out.len() > max {
        return Err(Error::ExportLength {
            max,
            actual: out.len(),
        });
    }
    if kdf.is_one_stage() {
        labeled_derive(
            kdf,
            suite_id,
            &[exporter_secret],
            b"sec",
            &[exporter_context],
            out,
        )
    } else {
        labeled_expand(
            kdf,
            suite_id,
            exporter_secret,
            b"sec",
            &[exporter_context],
            out,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec;

    /// SHAKE on the workspace sponge against the `sha3` crate, across rate boundaries and
    /// in pieces.
    #[test]
    fn shake_matches_sha3_crate() {
        use sha3::digest::{ExtendableOutput as _, Update as _, XofReader as _};
        for len in [0usize, 1, 135, 136, 137, 167, 168, 169, 400] {
            let msg: std::vec::Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let (a, b) = msg.split_at(len / 3);
            for kdf in [KdfId::Shake128, KdfId::Shake256] {
                let mut ours = vec![0u8; 300];
                let mut xof = Xof::new(kdf).unwrap();
                xof.absorb(a);
                xof.absorb(b);
                xof.squeeze(&mut ours);
                let mut theirs = vec![0u8; 300];
                if kdf == KdfId::Shake128 {
                    let mut h = sha3::Shake128::default();
                    h.update(&msg);
                    h.finalize_xof().read(&mut theirs);
                } else {
                    let mut h = sha3::Shake256::default();
                    h.update(&msg);
                    h.finalize_xof().read(&mut theirs);
                }
                assert_eq!(ours, theirs, "{kdf} len {len}");
            }
        }
    }

    /// TurboSHAKE128 of the empty message (RFC 9861 §5, first 32 bytes), so that the
    /// domain byte and round count are the RFC's.
    #[test]
    fn turboshake128_empty_is_rfc9861() {
        let mut out = [0u8; 32];
        Xof::new(KdfId::TurboShake128).unwrap().squeeze(&mut out);
        assert_eq!(
            out,
            [
                0x1e, 0x41, 0x5f, 0x1c, 0x59, 0x83, 0xaf, 0xf2, 0x16, 0x92, 0x17, 0x27, 0x7d, 0x17,
                0xbb, 0x53, 0x8c, 0xd9, 0x45, 0xa3, 0x97, 0xdd, 0xec, 0x54, 0x1f, 0x1c, 0xe4, 0x1a,
                0xf2, 0xc1, 0xb7, 0x4c
            ]
        );
    }

    /// The byte layout of LabeledDerive, checked against one SHAKE256 call on the
    /// concatenation written out by hand.
    #[test]
    fn labeled_derive_layout() {
        use sha3::digest::{ExtendableOutput as _, Update as _, XofReader as _};
        let suite_id = *b"HPKE\x00\x41\x00\x11\x00\x01";
        let mut ours = [0u8; 40];
        labeled_derive(
            KdfId::Shake256,
            &suite_id,
            &[b"ik", b"m"],
            b"label",
            &[b"con", b"text"],
            &mut ours,
        )
        .unwrap();
        let mut msg = std::vec::Vec::new();
        msg.extend_from_slice(b"ikm");
        msg.extend_from_slice(b"HPKE-v1");
        msg.extend_from_slice(&suite_id);
        msg.extend_from_slice(&[0, 5]);
        msg.extend_from_slice(b"label");
        msg.extend_from_slice(&[0, 40]);
        msg.extend_from_slice(b"context");
        let mut h = sha3::Shake256::default();
        h.update(&msg);
        let mut theirs = [0u8; 40];
        h.finalize_xof().read(&mut theirs);
        assert_eq!(ours, theirs);
    }

    #[test]
    fn export_lengths_are_bounded() {
        let suite_id = [0u8; 10];
        let secret = [1u8; 32];
        let mut big = vec![0u8; 255 * 32 + 1];
        assert_eq!(
            export(KdfId::HkdfSha256, &suite_id, &secret, b"", &mut big),
            Err(Error::ExportLength {
                max: 8160,
                actual: 8161
            })
        );
        assert!(export(KdfId::HkdfSha256, &suite_id, &secret, b"", &mut big[..8160]).is_ok());
        let mut huge = vec![0u8; 65536];
        assert_eq!(
            export(KdfId::Shake128, &suite_id, &secret, b"", &mut huge),
            Err(Error::ExportLength {
                max: 65535,
                actual: 65536
            })
        );
        assert!(export(KdfId::Shake128, &suite_id, &secret, b"", &mut huge[..65535]).is_ok());
    }

    #[test]
    fn one_stage_inputs_are_bounded() {
        let long = vec![0u8; 65536];
        let suite_id = [0u8; 10];
        for (psk, id, info, name) in [
            (&long[..], &b"id"[..], &b""[..], "psk"),
            (&b"psk"[..], &long[..], &b""[..], "psk_id"),
            (&b""[..], &b""[..], &long[..], "info"),
        ] {
            let err = combine_secrets(
                KdfId::TurboShake256,
                &suite_id,
                1,
                &[0; 32],
                info,
                psk,
                id,
                16,
                12,
            );
            assert_eq!(
                err.err(),
                Some(Error::InputTooLong {
                    input: name,
                    max: 65535,
                    actual: 65536
                })
            );
        }
        // The longest allowed and two-stage KDFs (no such limit) pass.
        let ok = combine_secrets(
            KdfId::Shake128,
            &suite_id,
            0,
            &[0; 32],
            &long[..65535],
            b"",
            b"",
            16,
            12,
        );
        assert!(ok.is_ok());
        let ok = combine_secrets(
            KdfId::HkdfSha256,
            &suite_id,
            0,
            &[0; 32],
            &long,
            b"",
            b"",
            16,
            12,
        );
        assert!(ok.is_ok());
    }
}
