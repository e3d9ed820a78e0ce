//! HPKE open (`lazykem-hpke`): hostile `enc`, `info`, `aad`, ciphertexts and PSK inputs for
//! every (KEM, KDF, AEAD) triple, and messages the target seals itself.
//!
//! Input layout: byte 0 picks the KEM (`% 10`, `KemId::ALL`), byte 1 the KDF (`% 7`), byte
//! 2 the AEAD (`% 4`); byte 3: bit 0 the PSK mode, bit 1 honest (sealed here) or raw, bit 2
//! the longer of two randomness lengths (MLKEM768-P256: 128 + 32 bytes, not 96 + 32). Then
//! fields, each a 16-bit little-endian length and that many bytes (fewer at the end of the
//! input): raw: `enc`, `info`, `aad`, `ct`, `psk`, `psk_id`; honest: `info`, `aad`, `pt`,
//! `psk`, `psk_id`, the KEM randomness (cycled to the length the KEM takes), then a 16-bit
//! position and a byte to XOR into `enc || ct` (a zero byte flips the low bit).
//!
//! The recipient's key pair is the KEM's `DeriveKeyPair` of a fixed `ikm`.
//!
//! Oracle: nothing panics; the single-shot `open` (`open_psk`) and `setup_receiver` +
//! `open` give the same plaintext or the same `Error`; PSK inputs that `VerifyPSKInputs`
//! rejects give `MissingPsk` / `InconsistentPsk`, an `enc` of the wrong length gives
//! `EncapsulatedKeyLength` with the lengths, the export-only AEAD gives `ExportOnly` (or
//! the KEM's verdict on `enc`), any other failure to open an input of the right lengths is
//! `Open` or a DHKEM/NIST-hybrid `enc` error, and a raw input that opens (a seed sealed to
//! the fixed key) gives a plaintext 16 bytes shorter than the ciphertext. A
//! message sealed here through the deterministic sender opens to its plaintext both ways
//! (for the export-only AEAD, both sides export the same secret); with one byte of
//! `enc || ct` changed, it does not open. The sender fails only with `DeriveKeyPair`, for
//! a NIST hybrid whose chosen `RandomScalar` seed holds no scalar.
#![no_main]

use lazykem_hpke::{AeadId, Error, KdfId, KemId, PrivateKey, PublicKey, Suite};
use libfuzzer_sys::fuzz_target;

const IKM: &[u8; 32] = b"hpke_open fuzz target recipient!";

thread_local! {
    static KEYS: Vec<(PrivateKey, PublicKey)> = KemId::ALL
        .iter()
        .map(|kem| kem.derive_key_pair(IKM).expect("the fixed ikm derives a key pair"))
        .collect();
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn u16(&mut self) -> u16 {
        let mut b = [0u8; 2];
        for x in &mut b {
            if let Some((&first, rest)) = self.0.split_first() {
                *x = first;
                self.0 = rest;
            }
        }
        u16::from_le_bytes(b)
    }

    fn field(&mut self) -> &'a [u8] {
        let n = usize::from(self.u16()).min(self.0.len());
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        head
    }
}

/// The length of `Encap`'s deterministic randomness for `kem`; `wide` picks the second
/// length MLKEM768-P256 accepts (and a longer DHKEM `ikm`).
fn randomness_len(kem: KemId, wide: bool) -> usize {
    match kem {
        KemId::MlKem512 | KemId::MlKem768 | KemId::MlKem1024 => 32,
        KemId::MlKem768X25519 => 64,
        KemId::MlKem1024P384 => 80,
        KemId::MlKem768P256 => 32 + if wide { 128 } else { 96 },
        _ => kem.n_sk() + if wide { 16 } else { 0 },
    }
}

/// `open` and `setup_receiver` + `open`: both the same result, which is returned.
fn open_both(
    suite: &Suite,
    sk: &PrivateKey,
    enc: &[u8],
    info: &[u8],
    aad: &[u8],
    ct: &[u8],
    psk: Option<(&[u8], &[u8])>,
) -> Result<Vec<u8>, Error> {
    let single = match psk {
        None => suite.open(sk, enc, info, aad, ct),
        Some((psk, psk_id)) => suite.open_psk(sk, enc, info, aad, ct, psk, psk_id),
    };
    let ctx = match psk {
        None => suite.setup_receiver(sk, enc, info),
        Some((psk, psk_id)) => suite.setup_receiver_psk(sk, enc, info, psk, psk_id),
    };
    let staged = ctx.and_then(|mut ctx| ctx.open(aad, ct));
    assert_eq!(single, staged, "{suite:?}");
    single
}

/// The error the PSK inputs must give before anything else, if any.
fn psk_error(psk: Option<(&[u8], &[u8])>) -> Option<Error> {
    match psk.map(|(p, i)| (p.is_empty(), i.is_empty())) {
        Some((true, true)) => Some(Error::MissingPsk),
        Some((true, false) | (false, true)) => Some(Error::InconsistentPsk),
        _ => None,
    }
}

fn raw(suite: &Suite, sk: &PrivateKey, mut r: Reader<'_>, psk_mode: bool) {
    let (enc, info, aad, ct) = (r.field(), r.field(), r.field(), r.field());
    let (psk, psk_id) = (r.field(), r.field());
    let psk = psk_mode.then_some((psk, psk_id));
    let result = open_both(suite, sk, enc, info, aad, ct, psk);
    if let Some(e) = psk_error(psk) {
        assert_eq!(result, Err(e));
        return;
    }
    if enc.len() != suite.kem.n_enc() {
        assert_eq!(
            result,
            Err(Error::EncapsulatedKeyLength {
                expected: suite.kem.n_enc(),
                actual: enc.len(),
            })
        );
        return;
    }
    match result {
        // A message sealed to the fixed key (the seeds hold some).
        Ok(pt) => {
            assert_ne!(suite.aead, AeadId::ExportOnly);
            assert_eq!(pt.len() + 16, ct.len());
        }
        Err(Error::ExportOnly(aead)) => assert_eq!(aead, AeadId::ExportOnly),
        // The KEM's verdict on `enc` comes before the AEAD's.
        Err(Error::InvalidEncapsulatedKey | Error::Validation) => {
            assert!(!matches!(suite.kem.to_u16(), 0x0040..=0x0042), "{suite:?}");
        }
        Err(Error::Open) => assert_ne!(suite.aead, AeadId::ExportOnly),
        Err(e) => panic!("{suite:?}: unexpected {e:?}"),
    }
}

fn honest(suite: &Suite, sk: &PrivateKey, pk: &PublicKey, mut r: Reader<'_>, flags: u8) {
    let (info, aad, pt) = (r.field(), r.field(), r.field());
    let (psk, psk_id) = (r.field(), r.field());
    let psk = (flags & 1 == 1).then_some((psk, psk_id));
    let seed = r.field();
    let n = randomness_len(suite.kem, flags & 4 != 0);
    let randomness: Vec<u8> = if seed.is_empty() {
        vec![0x5a; n]
    } else {
        seed.iter().copied().cycle().take(n).collect()
    };
    let (position, mask) = (usize::from(r.u16()), r.0.first().copied().unwrap_or(0));

    let sent = suite.setup_sender_deterministic(pk, info, psk, &randomness);
    if let Some(e) = psk_error(psk) {
        assert_eq!(sent.err(), Some(e));
        return;
    }
    let (enc, mut sender) = match sent {
        Ok(sent) => sent,
        // A NIST hybrid's `RandomScalar` seed is used as given: chosen bytes can hold no
        // scalar below the group order (all 0xff, say).
        Err(Error::DeriveKeyPair)
            if matches!(suite.kem, KemId::MlKem768P256 | KemId::MlKem1024P384) =>
        {
            return;
        }
        // Anything else (a DHKEM's ephemeral comes out of the KDF) is a finding.
        Err(e) => panic!("{suite:?}: the deterministic sender failed with {e:?}"),
    };
    assert_eq!(enc.len(), suite.kem.n_enc());

    if suite.aead == AeadId::ExportOnly {
        assert_eq!(
            sender.seal(aad, pt),
            Err(Error::ExportOnly(AeadId::ExportOnly))
        );
        let receiver = match psk {
            None => suite.setup_receiver(sk, &enc, info),
            Some((p, i)) => suite.setup_receiver_psk(sk, &enc, info, p, i),
        }
        .expect("an honest enc sets up");
        let len = 1 + usize::from(r.u16()) % 64;
        assert_eq!(
            *sender.export(aad, len).expect("a short export"),
            *receiver.export(aad, len).expect("a short export")
        );
        assert_eq!(
            open_both(suite, sk, &enc, info, aad, &[0u8; 16], psk),
            Err(Error::ExportOnly(AeadId::ExportOnly))
        );
        return;
    }

    let ct = sender.seal(aad, pt).expect("a short message seals");
    assert_eq!(ct.len(), pt.len() + 16);
    assert_eq!(
        open_both(suite, sk, &enc, info, aad, &ct, psk).as_deref(),
        Ok(pt)
    );

    // One byte of `enc || ct` changed: no longer opens.
    let mut enc = enc;
    let mut ct = ct;
    let position = position % (enc.len() + ct.len());
    let mask = if mask == 0 { 1 } else { mask };
    if position < enc.len() {
        enc[position] ^= mask;
    } else {
        ct[position - enc.len()] ^= mask;
    }
    match open_both(suite, sk, &enc, info, aad, &ct, psk) {
        Ok(_) => panic!("{suite:?}: a changed byte at {position} still opens"),
        Err(Error::Open | Error::InvalidEncapsulatedKey | Error::Validation) => {}
        Err(e) => panic!("{suite:?}: unexpected {e:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let [k, d, a, flags, rest @ ..] = data else {
        return;
    };
    let kem = KemId::ALL[usize::from(*k) % KemId::ALL.len()];
    let kdf = KdfId::ALL[usize::from(*d) % KdfId::ALL.len()];
    let aead = AeadId::ALL[usize::from(*a) % AeadId::ALL.len()];
    let suite = Suite::new(kem, kdf, aead);
    let ids = Suite::from_ids(kem.to_u16(), kdf.to_u16(), aead.to_u16());
    assert_eq!(ids, Ok(suite));
    KEYS.with(|keys| {
        let (sk, pk) = &keys[usize::from(*k) % KemId::ALL.len()];
        assert_eq!(sk.kem(), kem);
        let r = Reader(rest);
        if flags & 2 == 0 {
            raw(&suite, sk, r, flags & 1 == 1);
        } else {
            honest(&suite, sk, pk, r, *flags);
        }
    });
});
