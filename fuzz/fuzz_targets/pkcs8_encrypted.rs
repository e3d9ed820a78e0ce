//! Encrypted PKCS#8 (`EncryptedPrivateKeyInfo`, PBES2) through `from_pkcs8_encrypted_der` /
//! `_pem` of the three parameter sets and of `AnyDecapsulationKey`.
//!
//! Input layout: byte 0 selects the path (`% 4`: 0 hostile DER, 1 hostile PEM, 2 and 3
//! structured); byte 1 is the password length (`% 17`), then the password, then the rest.
//!
//! - Hostile paths: the rest is the document. Properties: no panic; every reader gives the
//!   same verdict before the key is reached (decryption failure, refused scheme,
//!   `KdfCost`, malformed document), and the set the decrypted key names gives the `Any`
//!   reader's verdict (the same key, or the same error from inside the key) while the
//!   other sets name both OIDs. To keep executions fast, the readers run only when
//!   the derivation is cheap (PBKDF2 up to 256 iterations, scrypt `128 * r * N * p` up to
//!   64 KiB) or over the library's documented limits, where the answer must be
//!   `KdfCost` naming the parameter and limit, and a scrypt N that is not a power of two
//!   above 1 must be `EncryptionScheme` (no derivation either way); between the two the
//!   document is skipped.
//! - Structured path: the rest gives a 64-byte seed, a private form, and PBES2 parameters at
//!   cheap costs (PBKDF2-HMAC-SHA-256/512 with 1..=64 iterations or scrypt N = 2..16,
//!   r = 1..2, p = 1..2; AES-128/256-CBC or -GCM), with which `pkcs8` encrypts the key
//!   (the library's writer uses scrypt N = 2^14, far too slow per input). Properties: DER
//!   and PEM read back to the same key with the password, through the typed reader of its
//!   set and `Any`; another set's reader names both OIDs; a wrong password is
//!   `KeyFileError::Decryption`.
#![no_main]

use lazykem::pkcs8::{
    AnyDecapsulationKey, AssociatedOid, KdfParameter, KeyFileError, MAX_PBKDF2_ITERATIONS,
    MAX_SCRYPT_MEMORY, MAX_SCRYPT_PARALLELIZATION, ObjectIdentifier, PrivateKeyForm,
};
use lazykem::{DecapsulationKey, Error, MlKem512, MlKem768, MlKem1024, ParameterSet};
use libfuzzer_sys::fuzz_target;
use pkcs8::der::{Decode, pem::LineEnding};
use pkcs8::pkcs5::{self, pbes2};

/// The encrypted readers of every set and `Any`, DER or PEM.
struct Verdicts {
    typed: [Result<Vec<u8>, Error>; 3],
    any: Result<AnyDecapsulationKey, Error>,
}

const OIDS: [ObjectIdentifier; 3] = [MlKem512::OID, MlKem768::OID, MlKem1024::OID];

fn typed<P: ParameterSet>(pem: bool, doc: &[u8], password: &[u8]) -> Result<Vec<u8>, Error> {
    let key = if pem {
        let text = core::str::from_utf8(doc).unwrap_or("");
        DecapsulationKey::<P>::from_pkcs8_encrypted_pem(text, password)
    } else {
        DecapsulationKey::<P>::from_pkcs8_encrypted_der(doc, password)
    };
    key.map(|k| k.to_expanded_bytes().as_ref().to_vec())
}

fn read_all(pem: bool, doc: &[u8], password: &[u8]) -> Verdicts {
    let any = if pem {
        let text = core::str::from_utf8(doc).unwrap_or("");
        AnyDecapsulationKey::from_pkcs8_encrypted_pem(text, password)
    } else {
        AnyDecapsulationKey::from_pkcs8_encrypted_der(doc, password)
    };
    Verdicts {
        typed: [
            typed::<MlKem512>(pem, doc, password),
            typed::<MlKem768>(pem, doc, password),
            typed::<MlKem1024>(pem, doc, password),
        ],
        any,
    }
}

/// The expanded key of an `Any` key and the index of its set.
fn any_bytes(any: &AnyDecapsulationKey) -> (usize, Vec<u8>) {
    match any {
        AnyDecapsulationKey::MlKem512(k) => (0, k.to_expanded_bytes().as_ref().to_vec()),
        AnyDecapsulationKey::MlKem768(k) => (1, k.to_expanded_bytes().as_ref().to_vec()),
        AnyDecapsulationKey::MlKem1024(k) => (2, k.to_expanded_bytes().as_ref().to_vec()),
        _ => unreachable!("three sets"),
    }
}

/// Whether the error is decided before the key's algorithm is looked at (so every reader
/// must give it alike).
fn before_key(e: &Error) -> bool {
    matches!(
        e,
        Error::KeyFile(
            KeyFileError::PemLabel { .. }
                | KeyFileError::Decryption
                | KeyFileError::EncryptionScheme { .. }
                | KeyFileError::KdfCost { .. }
        )
    )
}

/// The readers agree: errors decided before the key are the same everywhere; an accepted
/// key is accepted by its set's reader alone, with the same bytes, and refused by the
/// others naming both OIDs.
fn check_agreement(v: &Verdicts) {
    match &v.any {
        Ok(any) => {
            let (set, bytes) = any_bytes(any);
            assert_eq!(
                v.typed[set].as_ref().ok(),
                Some(&bytes),
                "Any and typed keys"
            );
            other_sets_refuse(v, set);
        }
        Err(e) if before_key(e) => {
            for result in &v.typed {
                assert_eq!(result.as_ref().err(), Some(e), "verdict before the key");
            }
        }
        Err(Error::KeyFile(KeyFileError::Algorithm {
            found,
            expected: None,
        })) => {
            for (i, result) in v.typed.iter().enumerate() {
                assert_eq!(
                    result.as_ref().err(),
                    Some(&Error::KeyFile(KeyFileError::Algorithm {
                        found: *found,
                        expected: Some(OIDS[i]),
                    }))
                );
            }
        }
        Err(e) => {
            // Malformed DER is found before the key (every reader says it) or inside the
            // key of the set named (that set's reader says it, the others name both OIDs);
            // a key that fails a check, inside the key only.
            let same: Vec<usize> = (0..3)
                .filter(|&i| v.typed[i].as_ref().err() == Some(e))
                .collect();
            let before = matches!(e, Error::KeyFile(KeyFileError::Der(_)));
            if !(before && same.len() == 3) {
                let [set] = same[..] else {
                    panic!("one set's reader gives {e:?}: {:?}", v.typed);
                };
                other_sets_refuse(v, set);
            }
        }
    }
}

/// The readers of every set but `set` (the one the document's OID names) refuse it,
/// naming the OID found and the one they expect.
fn other_sets_refuse(v: &Verdicts, set: usize) {
    for (i, result) in v.typed.iter().enumerate() {
        if i != set {
            assert_eq!(
                result.as_ref().err(),
                Some(&Error::KeyFile(KeyFileError::Algorithm {
                    found: OIDS[set],
                    expected: Some(OIDS[i]),
                })),
                "another set's reader"
            );
        }
    }
}

/// Cheap enough to derive on every execution.
fn cheap(kdf: &pbes2::Kdf) -> bool {
    match kdf {
        pbes2::Kdf::Pbkdf2(p) => p.iteration_count <= 256,
        pbes2::Kdf::Scrypt(s) => {
            u128::from(s.cost_parameter)
                * 128
                * u128::from(s.block_size)
                * u128::from(s.parallelization)
                <= 64 << 10
        }
        _ => true,
    }
}

/// The error the library must give without deriving, if any.
fn refused(kdf: &pbes2::Kdf) -> Option<Error> {
    let cost = |parameter, value, limit| {
        Some(Error::KeyFile(KeyFileError::KdfCost {
            parameter,
            value,
            limit,
        }))
    };
    match kdf {
        pbes2::Kdf::Pbkdf2(p) if p.iteration_count == 0 => {
            Some(Error::KeyFile(KeyFileError::EncryptionScheme {
                oid: pbes2::PBKDF2_OID,
            }))
        }
        pbes2::Kdf::Pbkdf2(p) if p.iteration_count > MAX_PBKDF2_ITERATIONS => cost(
            KdfParameter::Pbkdf2Iterations,
            u64::from(p.iteration_count),
            u64::from(MAX_PBKDF2_ITERATIONS),
        ),
        pbes2::Kdf::Scrypt(s) => {
            let n = s.cost_parameter;
            let memory = u128::from(n) * 128 * u128::from(s.block_size);
            if n < 2 || !n.is_power_of_two() {
                Some(Error::KeyFile(KeyFileError::EncryptionScheme {
                    oid: pbes2::SCRYPT_OID,
                }))
            } else if memory > u128::from(MAX_SCRYPT_MEMORY) {
                cost(
                    KdfParameter::ScryptMemory,
                    u64::try_from(memory).unwrap_or(u64::MAX),
                    MAX_SCRYPT_MEMORY,
                )
            } else if s.parallelization > MAX_SCRYPT_PARALLELIZATION {
                cost(
                    KdfParameter::ScryptParallelization,
                    u64::from(s.parallelization),
                    u64::from(MAX_SCRYPT_PARALLELIZATION),
                )
            } else {
                None
            }
        }
        _ => None,
    }
}

fn hostile(pem: bool, doc: &[u8], password: &[u8]) {
    // The document's DER, to see its key derivation before asking the library.
    let der: Option<Vec<u8>> = if pem {
        core::str::from_utf8(doc)
            .ok()
            .and_then(|t| pkcs8::der::pem::decode_vec(t.as_bytes()).ok())
            .map(|(_, der)| der)
    } else {
        Some(doc.to_vec())
    };
    let kdf = der.as_deref().and_then(|der| {
        match pkcs8::EncryptedPrivateKeyInfoRef::from_der(der)
            .ok()?
            .encryption_algorithm
        {
            pkcs5::EncryptionScheme::Pbes2(params) => Some(params.kdf),
            _ => None,
        }
    });
    let expected = kdf.as_ref().and_then(refused);
    if let Some(kdf) = &kdf
        && expected.is_none()
        && !cheap(kdf)
    {
        return;
    }
    let verdicts = read_all(pem, doc, password);
    // A PEM of another label is refused before its key derivation is looked at.
    let labelled = !pem
        || !matches!(
            verdicts.any,
            Err(Error::KeyFile(KeyFileError::PemLabel { .. }))
        );
    if let Some(expected) = expected
        && labelled
    {
        assert_eq!(verdicts.any.as_ref().err(), Some(&expected), "refused KDF");
    }
    check_agreement(&verdicts);
}

/// Reads `n` bytes, or zeros past the end.
fn take<const N: usize>(data: &mut &[u8]) -> [u8; N] {
    let mut out = [0; N];
    let n = data.len().min(N);
    out[..n].copy_from_slice(&data[..n]);
    *data = &data[n..];
    out
}

fn structured(password: &[u8], mut data: &[u8]) {
    let seed: [u8; 64] = take(&mut data);
    let [set, form, kdf_choice, cost, cipher] = take::<5>(&mut data);
    let salt: [u8; 16] = take(&mut data);
    let iv: [u8; 16] = take(&mut data);
    let form = match form % 3 {
        0 => PrivateKeyForm::Seed,
        1 => PrivateKeyForm::ExpandedKey,
        _ => PrivateKeyForm::Both,
    };
    let kdf = if kdf_choice & 1 == 0 {
        pbes2::Kdf::Pbkdf2(pbes2::Pbkdf2Params {
            salt: pbes2::Salt::new(&salt[..8 + usize::from(kdf_choice >> 1) % 9]).expect("salt"),
            iteration_count: 1 + u32::from(cost % 64),
            key_length: None,
            prf: if kdf_choice & 2 == 0 {
                pbes2::Pbkdf2Prf::HmacWithSha256
            } else {
                pbes2::Pbkdf2Prf::HmacWithSha512
            },
        })
    } else {
        pbes2::Kdf::Scrypt(pbes2::ScryptParams {
            salt: pbes2::Salt::new(&salt[..8 + usize::from(kdf_choice >> 1) % 9]).expect("salt"),
            cost_parameter: 2 << (cost % 4),
            block_size: 1 + u16::from((cost >> 2) & 1),
            parallelization: 1 + u16::from((cost >> 3) & 1),
            key_length: None,
        })
    };
    let encryption = match cipher % 4 {
        0 => pbes2::EncryptionScheme::Aes128Cbc { iv },
        1 => pbes2::EncryptionScheme::Aes256Cbc { iv },
        2 => pbes2::EncryptionScheme::Aes128Gcm {
            nonce: take::<12>(&mut &iv[..]),
        },
        _ => pbes2::EncryptionScheme::Aes256Gcm {
            nonce: take::<12>(&mut &iv[..]),
        },
    };
    let params = pbes2::Parameters { kdf, encryption };
    match set % 3 {
        0 => round_trip::<MlKem512>(0, &seed, form, params, password),
        1 => round_trip::<MlKem768>(1, &seed, form, params, password),
        _ => round_trip::<MlKem1024>(2, &seed, form, params, password),
    }
}

fn round_trip<P: ParameterSet>(
    set: usize,
    seed: &[u8; 64],
    form: PrivateKeyForm,
    params: pbes2::Parameters,
    password: &[u8],
) {
    let dk = DecapsulationKey::<P>::from_seed(seed);
    let plain = dk
        .to_pkcs8_der_as(form)
        .expect("a seeded key writes every form");
    let info = pkcs8::PrivateKeyInfoRef::from_der(plain.as_bytes()).expect("own DER");
    let doc = info
        .encrypt_with_params(params, password)
        .expect("cheap parameters encrypt");
    let pem = doc
        .to_pem("ENCRYPTED PRIVATE KEY", LineEnding::LF)
        .expect("PEM");
    let expanded = dk.to_expanded_bytes().as_ref().to_vec();
    for (is_pem, bytes) in [(false, doc.as_bytes()), (true, pem.as_bytes())] {
        let verdicts = read_all(is_pem, bytes, password);
        let any = verdicts.any.as_ref().expect("round trip through Any");
        assert_eq!(
            any_bytes(any),
            (set, expanded.clone()),
            "Any reads the key back"
        );
        check_agreement(&verdicts);
        let again = DecapsulationKey::<P>::from_pkcs8_encrypted_der(doc.as_bytes(), password)
            .expect("round trip");
        assert_eq!(again.seed().is_some(), form != PrivateKeyForm::ExpandedKey);
        let mut wrong = password.to_vec();
        wrong.push(b'!');
        let wrong = read_all(is_pem, bytes, &wrong);
        assert_eq!(
            wrong.any.as_ref().err(),
            Some(&Error::KeyFile(KeyFileError::Decryption)),
            "wrong password"
        );
        check_agreement(&wrong);
    }
}

fuzz_target!(|data: &[u8]| {
    let [selector, password_len, ..] = *data else {
        return;
    };
    let rest = &data[2..];
    let password_len = usize::from(password_len % 17).min(rest.len());
    let (password, rest) = rest.split_at(password_len);
    match selector % 4 {
        0 => hostile(false, rest, password),
        1 => hostile(true, rest, password),
        _ => structured(password, rest),
    }
});
