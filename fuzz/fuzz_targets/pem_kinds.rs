//! PEM documents of every kind (`PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`, `PUBLIC KEY`, and
//! foreign labels) through every PEM reader: `from_pkcs8_pem`, `from_pkcs8_encrypted_pem`
//! and `from_public_key_pem` of the three sets and of the `Any` keys.
//!
//! Input layout: byte 0 selects raw (`% 2 == 0`: the rest, as UTF-8, is the document) or
//! structured; a structured input reads a kind (`% 4`: the three labels or a foreign label
//! taken from the input), a body source (a real document of the kind, from a 64-byte seed
//! and a set, or fuzzed bytes), a line width and line ending, and a few byte edits of the
//! PEM text.
//!
//! Properties: no reader panics; whenever `der`'s PEM decoder reads a label other than the
//! one a reader expects, that reader's error is `KeyFileError::PemLabel` whose `found` is
//! that label (its first 32 bytes, flagged as truncated beyond) and whose `expected` is the
//! reader's label; a real document of the right kind, unedited, is read back to the same
//! key by the reader of its set and by `Any`, with LF or CRLF line endings (other base64
//! line widths are fed to the readers too, which `der` refuses: RFC 7468's strict form).
#![no_main]

use lazykem::pkcs8::{
    AnyDecapsulationKey, AnyEncapsulationKey, AssociatedOid, ENCRYPTED_PRIVATE_KEY_LABEL,
    KeyFileError, PRIVATE_KEY_LABEL, PUBLIC_KEY_LABEL, PrivateKeyForm,
};
use lazykem::{
    DecapsulationKey, EncapsulationKey, Error, MlKem512, MlKem768, MlKem1024, ParameterSet,
};
use libfuzzer_sys::fuzz_target;
use pkcs8::der::Decode;
use pkcs8::der::pem::LineEnding;
use pkcs8::pkcs5::pbes2;

const PASSWORD: &[u8] = b"pw";

/// The label `der` reads, if it reads one.
fn label_of(text: &str) -> Option<&str> {
    pkcs8::der::pem::decode_label(text.as_bytes()).ok()
}

fn check_label(result: Result<(), Error>, label: Option<&str>, expected: &'static str) {
    let Some(label) = label else {
        return;
    };
    if label == expected {
        if let Err(Error::KeyFile(KeyFileError::PemLabel { .. })) = result {
            panic!("label {label:?} is the expected one but PemLabel was returned");
        }
        return;
    }
    match result {
        Err(Error::KeyFile(KeyFileError::PemLabel { found, expected: e })) => {
            assert_eq!(e, expected, "expected label");
            if label.len() <= 32 {
                assert!(!found.is_truncated());
                assert_eq!(found.as_str(), label, "found label");
                assert!(found == label);
            } else {
                assert!(found.is_truncated());
                assert!(label.starts_with(found.as_str()));
                assert!(found.as_str().len() > 28, "at most a char cut");
            }
        }
        other => panic!("label {label:?} read as {expected:?}: {other:?}"),
    }
}

/// Every PEM reader; `Some` key bytes where a reader accepts (the set's index and the
/// encapsulation key).
fn read_all(text: &str) -> Vec<(&'static str, Option<(usize, Vec<u8>)>)> {
    let label = label_of(text);
    let mut out = Vec::new();
    let mut record = |expected: &'static str, r: Result<(usize, Vec<u8>), Error>| {
        check_label(r.as_ref().map(|_| ()).map_err(|e| *e), label, expected);
        out.push((expected, r.ok()));
    };
    fn typed<P: ParameterSet>(
        set: usize,
        text: &str,
        record: &mut impl FnMut(&'static str, Result<(usize, Vec<u8>), Error>),
    ) {
        let ek =
            |dk: DecapsulationKey<P>| (set, dk.encapsulation_key().as_bytes().as_ref().to_vec());
        record(
            PRIVATE_KEY_LABEL,
            DecapsulationKey::<P>::from_pkcs8_pem(text).map(ek),
        );
        record(
            ENCRYPTED_PRIVATE_KEY_LABEL,
            DecapsulationKey::<P>::from_pkcs8_encrypted_pem(text, PASSWORD).map(ek),
        );
        record(
            PUBLIC_KEY_LABEL,
            EncapsulationKey::<P>::from_public_key_pem(text)
                .map(|k| (set, k.as_bytes().as_ref().to_vec())),
        );
    }
    typed::<MlKem512>(0, text, &mut record);
    typed::<MlKem768>(1, text, &mut record);
    typed::<MlKem1024>(2, text, &mut record);
    let any_ek = |ek: AnyEncapsulationKey| {
        let set = match ek.oid() {
            o if o == MlKem512::OID => 0,
            o if o == MlKem768::OID => 1,
            _ => 2,
        };
        (set, ek.as_bytes().to_vec())
    };
    record(
        PRIVATE_KEY_LABEL,
        AnyDecapsulationKey::from_pkcs8_pem(text).map(|k| any_ek(k.encapsulation_key())),
    );
    record(
        ENCRYPTED_PRIVATE_KEY_LABEL,
        AnyDecapsulationKey::from_pkcs8_encrypted_pem(text, PASSWORD)
            .map(|k| any_ek(k.encapsulation_key())),
    );
    record(
        PUBLIC_KEY_LABEL,
        AnyEncapsulationKey::from_public_key_pem(text).map(any_ek),
    );
    out
}

/// Reads `n` bytes, or zeros past the end.
fn take<const N: usize>(data: &mut &[u8]) -> [u8; N] {
    let mut out = [0; N];
    let n = data.len().min(N);
    out[..n].copy_from_slice(&data[..n]);
    *data = &data[n..];
    out
}

/// A real document of `kind` (0 private, 1 encrypted, 2 public) of set `set`, DER, and the
/// set's encapsulation key.
fn real_document(kind: u8, set: u8, form: u8, seed: &[u8; 64]) -> (Vec<u8>, Vec<u8>) {
    fn doc<P: ParameterSet>(kind: u8, form: u8, seed: &[u8; 64]) -> (Vec<u8>, Vec<u8>) {
        let dk = DecapsulationKey::<P>::from_seed(seed);
        let ek = dk.encapsulation_key().as_bytes().as_ref().to_vec();
        let form = match form % 3 {
            0 => PrivateKeyForm::Seed,
            1 => PrivateKeyForm::ExpandedKey,
            _ => PrivateKeyForm::Both,
        };
        let der = match kind {
            0 => dk
                .to_pkcs8_der_as(form)
                .expect("writes")
                .as_bytes()
                .to_vec(),
            1 => {
                // Cheap scrypt: the library's writer (N = 2^14) is too slow per input.
                let plain = dk.to_pkcs8_der_as(form).expect("writes");
                let params = pbes2::Parameters {
                    kdf: pbes2::Kdf::Scrypt(pbes2::ScryptParams {
                        salt: pbes2::Salt::new([7; 16]).expect("salt"),
                        cost_parameter: 2,
                        block_size: 1,
                        parallelization: 1,
                        key_length: None,
                    }),
                    encryption: pbes2::EncryptionScheme::Aes256Cbc { iv: [8; 16] },
                };
                pkcs8::PrivateKeyInfoRef::from_der(plain.as_bytes())
                    .expect("own DER")
                    .encrypt_with_params(params, PASSWORD)
                    .expect("encrypts")
                    .as_bytes()
                    .to_vec()
            }
            _ => dk
                .encapsulation_key()
                .to_public_key_der()
                .expect("writes")
                .as_bytes()
                .to_vec(),
        };
        (der, ek)
    }
    match set % 3 {
        0 => doc::<MlKem512>(kind, form, seed),
        1 => doc::<MlKem768>(kind, form, seed),
        _ => doc::<MlKem1024>(kind, form, seed),
    }
}

fn structured(mut data: &[u8]) {
    let [kind_byte, source, set, form, width, ending, edits] = take::<7>(&mut data);
    let kind = kind_byte % 4;
    let label_len = usize::from(kind_byte >> 2) % 48;
    let foreign = String::from_utf8_lossy(&take::<48>(&mut data)[..label_len]).into_owned();
    let label = match kind {
        0 => PRIVATE_KEY_LABEL,
        1 => ENCRYPTED_PRIVATE_KEY_LABEL,
        2 => PUBLIC_KEY_LABEL,
        _ => foreign.as_str(),
    };
    let real = source & 1 == 0 && kind < 3;
    let seed: [u8; 64] = if real { take(&mut data) } else { [0; 64] };
    let (der, ek) = if real {
        real_document(kind, set, form, &seed)
    } else {
        let n = data.len().min(usize::from(source >> 1) * 16);
        let (body, rest) = data.split_at(n);
        data = rest;
        (body.to_vec(), Vec::new())
    };
    let line_ending = if ending & 1 == 0 {
        LineEnding::LF
    } else {
        LineEnding::CRLF
    };
    let Ok(pem) = pkcs8::der::pem::encode_string(label, line_ending, &der) else {
        return;
    };
    // Rewrap the base64 at another width (PEM readers must accept any width <= 64).
    let mut text = pem;
    let width = usize::from(width % 65);
    // `der`'s PEM decoder wants 64-column lines (RFC 7468's strict form): other widths are
    // explored for panics, not expected to round-trip.
    let rewrapped = width >= 4 && width % 4 == 0 && width != 64;
    if rewrapped {
        let eol = if matches!(line_ending, LineEnding::LF) {
            "\n"
        } else {
            "\r\n"
        };
        let lines: Vec<&str> = text.split(eol).collect();
        if lines.len() >= 3 {
            let body: String = lines[1..lines.len() - 2].concat();
            let mut rewrapped = format!("{}{eol}", lines[0]);
            for chunk in body.as_bytes().chunks(width) {
                rewrapped.push_str(core::str::from_utf8(chunk).expect("base64"));
                rewrapped.push_str(eol);
            }
            rewrapped.push_str(lines[lines.len() - 2]);
            rewrapped.push_str(eol);
            text = rewrapped;
        }
    }
    let edited = edits % 8 != 0 && !data.is_empty();
    if edited {
        let mut bytes = text.into_bytes();
        for pair in data.chunks(3).take(usize::from(edits % 8)) {
            let [a, b, c] = take::<3>(&mut &pair[..]);
            let pos = usize::from(u16::from_le_bytes([a, b]));
            match c % 3 {
                0 if pos < bytes.len() => bytes[pos] = c >> 2 | 0x20,
                1 if pos < bytes.len() => {
                    bytes.remove(pos);
                }
                _ => bytes.insert(pos.min(bytes.len()), c >> 2 | 0x20),
            }
        }
        let Ok(t) = String::from_utf8(bytes) else {
            return;
        };
        text = t;
    }
    let results = read_all(&text);
    if real && !edited && !rewrapped {
        let set = usize::from(set % 3);
        for (i, (expected, result)) in results.iter().enumerate() {
            // Order: per set (private, encrypted, public), then Any.
            let reader_set = if i < 9 { Some(i / 3) } else { None };
            let right_kind = *expected == label;
            let right_set = reader_set.is_none_or(|s| s == set);
            if right_kind && right_set {
                assert_eq!(
                    result.as_ref(),
                    Some(&(set, ek.clone())),
                    "{label} round trip"
                );
            } else {
                assert!(result.is_none(), "{label} read by a reader of {expected}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    if selector % 2 == 0 {
        if let Ok(text) = core::str::from_utf8(rest) {
            read_all(text);
        }
    } else {
        structured(rest);
    }
});
