//! Key formats: PKCS#8 private keys and SPKI public keys (IETF LAMPS ML-KEM format), DER and
//! PEM, through the inherent parsers and the RustCrypto traits.
//!
//! Properties: no input makes a parser panic; the trait and the inherent parser agree on
//! accepting; an accepted private key's seed form (expanded form, for a seedless key) is
//! what the trait writes and parses back to the same key; an accepted public key
//! re-encodes to the input bytes exactly (SPKI DER is canonical).
//!
//! Input layout: byte 0 selects the parameter set (`% 3`) and, in bit 2, DER (clear) or PEM
//! (the rest read as UTF-8); the rest is the document.
#![no_main]

use lazykem::pkcs8::{
    DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey, PrivateKeyForm,
};
use lazykem::{DecapsulationKey, EncapsulationKey, MlKem512, MlKem768, MlKem1024, ParameterSet};
use libfuzzer_sys::fuzz_target;

fn check<P: ParameterSet>(pem: bool, bytes: &[u8]) {
    if pem {
        let Ok(text) = core::str::from_utf8(bytes) else {
            return;
        };
        let _ = DecapsulationKey::<P>::from_pkcs8_pem(text);
        let _ = EncapsulationKey::<P>::from_public_key_pem(text);
        return;
    }
    let inherent = DecapsulationKey::<P>::from_pkcs8_der(bytes);
    let via_trait = <DecapsulationKey<P> as DecodePrivateKey>::from_pkcs8_der(bytes);
    assert_eq!(
        inherent.is_ok(),
        via_trait.is_ok(),
        "trait and inherent parser disagree"
    );
    if let Ok(key) = inherent {
        let form = if key.seed().is_some() {
            PrivateKeyForm::Seed
        } else {
            PrivateKeyForm::ExpandedKey
        };
        let der = key.to_pkcs8_der_as(form).expect("an accepted key encodes");
        assert_eq!(
            der.as_bytes(),
            EncodePrivateKey::to_pkcs8_der(&key)
                .expect("encodes")
                .as_bytes(),
            "the trait writes the seed form, or the expanded one"
        );
        let again = DecapsulationKey::<P>::from_pkcs8_der(der.as_bytes()).expect("re-parses");
        assert_eq!(again.encapsulation_key(), key.encapsulation_key());
    }
    let public = EncapsulationKey::<P>::from_public_key_der(bytes);
    assert_eq!(
        public.is_ok(),
        <EncapsulationKey<P> as DecodePublicKey>::from_public_key_der(bytes).is_ok(),
        "SPKI: trait and inherent parser disagree"
    );
    if let Ok(ek) = public {
        assert_eq!(
            EncodePublicKey::to_public_key_der(&ek)
                .expect("encodes")
                .as_bytes(),
            bytes,
            "SPKI re-encoding"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let pem = selector & 4 != 0;
    match selector % 3 {
        0 => check::<MlKem512>(pem, rest),
        1 => check::<MlKem768>(pem, rest),
        _ => check::<MlKem1024>(pem, rest),
    }
});
