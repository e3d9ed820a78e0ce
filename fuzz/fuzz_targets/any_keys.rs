//! `AnyDecapsulationKey` / `AnyEncapsulationKey` against the typed readers, on hostile DER
//! and PEM and on real keys of each set edited byte by byte.
//!
//! Input layout: byte 0: bit 0 private (PKCS#8) or public (SPKI), bit 1 PEM, bit 2 raw
//! (the rest is the document) or edited; an edited input reads a set (`% 3`), a private
//! form (`% 3`), a 64-byte seed, then edits of the real document: 3 bytes each, a position
//! (16 bits, modulo the length + 1) and a byte XORed in, inserted, or, for a zero byte,
//! a truncation there.
//!
//! Oracle: the `Any` reader agrees with the typed reader of the set whose OID the document
//! names (found with `pkcs8`'s own parser): same accept/reject, the same error, the same
//! key bytes; the other sets' readers refuse with `KeyFileError::Algorithm` naming the OID
//! found and their own; a document of no ML-KEM set is `Algorithm { found, expected: None }`
//! from `Any` and `Algorithm { found, expected: Some(set) }` from each typed reader; a
//! document `pkcs8` cannot parse is refused alike by all. An unedited real key is read
//! back to itself.
#![no_main]

use lazykem::pkcs8::{
    AnyDecapsulationKey, AnyEncapsulationKey, AssociatedOid, KeyFileError, ObjectIdentifier,
    PrivateKeyForm,
};
use lazykem::{
    DecapsulationKey, EncapsulationKey, Error, MlKem512, MlKem768, MlKem1024, ParameterSet,
};
use libfuzzer_sys::fuzz_target;
use pkcs8::der::Decode;
use pkcs8::der::pem::LineEnding;

const OIDS: [ObjectIdentifier; 3] = [MlKem512::OID, MlKem768::OID, MlKem1024::OID];

/// A reader's verdict: the key's bytes (expanded dk, or ek) or the error.
type Verdict = Result<Vec<u8>, Error>;

fn private<P: ParameterSet>(pem: bool, text: &str, der: &[u8]) -> Verdict {
    let key = if pem {
        DecapsulationKey::<P>::from_pkcs8_pem(text)
    } else {
        DecapsulationKey::<P>::from_pkcs8_der(der)
    };
    key.map(|k| k.to_expanded_bytes().as_ref().to_vec())
}

fn public<P: ParameterSet>(pem: bool, text: &str, der: &[u8]) -> Verdict {
    let key = if pem {
        EncapsulationKey::<P>::from_public_key_pem(text)
    } else {
        EncapsulationKey::<P>::from_public_key_der(der)
    };
    key.map(|k| k.as_bytes().as_ref().to_vec())
}

/// The readers' verdicts: the three typed ones and `Any`'s (with its set).
fn verdicts(
    is_private: bool,
    pem: bool,
    doc: &[u8],
) -> ([Verdict; 3], Result<(usize, Vec<u8>), Error>) {
    let text = core::str::from_utf8(doc).unwrap_or("");
    let set_of =
        |oid: ObjectIdentifier| OIDS.iter().position(|o| *o == oid).expect("an ML-KEM set");
    if is_private {
        let any = if pem {
            AnyDecapsulationKey::from_pkcs8_pem(text)
        } else {
            AnyDecapsulationKey::from_pkcs8_der(doc)
        };
        let any = any.map(|k| {
            let bytes = match &k {
                AnyDecapsulationKey::MlKem512(k) => k.to_expanded_bytes().as_ref().to_vec(),
                AnyDecapsulationKey::MlKem768(k) => k.to_expanded_bytes().as_ref().to_vec(),
                AnyDecapsulationKey::MlKem1024(k) => k.to_expanded_bytes().as_ref().to_vec(),
                _ => unreachable!("three sets"),
            };
            (set_of(k.oid()), bytes)
        });
        (
            [
                private::<MlKem512>(pem, text, doc),
                private::<MlKem768>(pem, text, doc),
                private::<MlKem1024>(pem, text, doc),
            ],
            any,
        )
    } else {
        let any = if pem {
            AnyEncapsulationKey::from_public_key_pem(text)
        } else {
            AnyEncapsulationKey::from_public_key_der(doc)
        };
        let any = any.map(|k| (set_of(k.oid()), k.as_bytes().to_vec()));
        (
            [
                public::<MlKem512>(pem, text, doc),
                public::<MlKem768>(pem, text, doc),
                public::<MlKem1024>(pem, text, doc),
            ],
            any,
        )
    }
}

/// The algorithm OID the document names, as `pkcs8` / `spki` parse it (PEM: whatever the
/// label; the readers refuse other labels before looking).
fn named_oid(is_private: bool, pem: bool, doc: &[u8]) -> Option<ObjectIdentifier> {
    let owned;
    let der = if pem {
        let text = core::str::from_utf8(doc).ok()?;
        let (label, der) = pkcs8::der::pem::decode_vec(text.as_bytes()).ok()?;
        let expected = if is_private {
            "PRIVATE KEY"
        } else {
            "PUBLIC KEY"
        };
        if label != expected {
            return None;
        }
        owned = der;
        &owned[..]
    } else {
        doc
    };
    if is_private {
        Some(pkcs8::PrivateKeyInfoRef::from_der(der).ok()?.algorithm.oid)
    } else {
        Some(
            pkcs8::spki::SubjectPublicKeyInfoRef::from_der(der)
                .ok()?
                .algorithm
                .oid,
        )
    }
}

fn check(is_private: bool, pem: bool, doc: &[u8]) -> Result<(usize, Vec<u8>), Error> {
    let (typed, any) = verdicts(is_private, pem, doc);
    match named_oid(is_private, pem, doc) {
        Some(oid) => match OIDS.iter().position(|o| *o == oid) {
            Some(set) => {
                assert_eq!(
                    any.as_ref().map(|(s, b)| (*s, b)),
                    typed[set].as_ref().map(|b| (set, b)),
                    "Any and the typed reader of the set named"
                );
                for (i, result) in typed.iter().enumerate() {
                    if i != set {
                        assert_eq!(
                            result.as_ref().err(),
                            Some(&Error::KeyFile(KeyFileError::Algorithm {
                                found: oid,
                                expected: Some(OIDS[i]),
                            }))
                        );
                    }
                }
            }
            None => {
                assert_eq!(
                    any.as_ref().err(),
                    Some(&Error::KeyFile(KeyFileError::Algorithm {
                        found: oid,
                        expected: None,
                    }))
                );
                for (i, result) in typed.iter().enumerate() {
                    assert_eq!(
                        result.as_ref().err(),
                        Some(&Error::KeyFile(KeyFileError::Algorithm {
                            found: oid,
                            expected: Some(OIDS[i]),
                        }))
                    );
                }
            }
        },
        None => {
            // Not a document of the kind: all refuse with the same error.
            let error = any.as_ref().err().copied();
            assert!(error.is_some(), "Any accepted an unparsable document");
            for result in &typed {
                assert_eq!(result.as_ref().err().copied(), error, "same refusal");
            }
        }
    }
    any
}

/// Reads `n` bytes, or zeros past the end.
fn take<const N: usize>(data: &mut &[u8]) -> [u8; N] {
    let mut out = [0; N];
    let n = data.len().min(N);
    out[..n].copy_from_slice(&data[..n]);
    *data = &data[n..];
    out
}

fn real<P: ParameterSet>(is_private: bool, form: u8, seed: &[u8; 64]) -> (Vec<u8>, Vec<u8>) {
    let dk = DecapsulationKey::<P>::from_seed(seed);
    if is_private {
        let form = match form % 3 {
            0 => PrivateKeyForm::Seed,
            1 => PrivateKeyForm::ExpandedKey,
            _ => PrivateKeyForm::Both,
        };
        (
            dk.to_pkcs8_der_as(form)
                .expect("writes")
                .as_bytes()
                .to_vec(),
            dk.to_expanded_bytes().as_ref().to_vec(),
        )
    } else {
        let ek = dk.encapsulation_key();
        (
            ek.to_public_key_der().expect("writes").as_bytes().to_vec(),
            ek.as_bytes().as_ref().to_vec(),
        )
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, mut rest)) = data.split_first() else {
        return;
    };
    let is_private = selector & 1 == 0;
    let pem = selector & 2 != 0;
    if selector & 4 == 0 {
        let _ = check(is_private, pem, rest);
        return;
    }
    let [set, form] = take::<2>(&mut rest);
    let seed: [u8; 64] = take(&mut rest);
    let set = usize::from(set % 3);
    let (mut der, key) = match set {
        0 => real::<MlKem512>(is_private, form, &seed),
        1 => real::<MlKem768>(is_private, form, &seed),
        _ => real::<MlKem1024>(is_private, form, &seed),
    };
    let edited = !rest.is_empty();
    for edit in rest.chunks(3).take(16) {
        let [a, b, x] = take::<3>(&mut &edit[..]);
        let pos = usize::from(u16::from_le_bytes([a, b])) % (der.len() + 1);
        match (x, pos < der.len()) {
            (0, _) => der.truncate(pos),
            (_, true) if a & 1 == 0 => der[pos] ^= x,
            _ => der.insert(pos, x),
        }
    }
    let doc = if pem {
        let label = if is_private {
            "PRIVATE KEY"
        } else {
            "PUBLIC KEY"
        };
        let Ok(text) = pkcs8::der::pem::encode_string(label, LineEnding::LF, &der) else {
            return;
        };
        text.into_bytes()
    } else {
        der
    };
    let any = check(is_private, pem, &doc);
    if !edited {
        assert_eq!(any.ok(), Some((set, key)), "a real key reads back");
    }
});
