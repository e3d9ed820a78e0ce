//! The convenience API around the algorithms: fallible randomness, conversions, hashing.

use lazykem::ml_kem_768::{CIPHERTEXT_SIZE, Ciphertext, DecapsulationKey, EncapsulationKey};
use rand::TryRng;

/// An RNG that fails after handing out `budget` bytes.
struct Failing {
    budget: usize,
}

#[derive(Debug, PartialEq, Eq)]
struct Exhausted;

impl core::fmt::Display for Exhausted {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("exhausted")
    }
}

impl core::error::Error for Exhausted {}

impl TryRng for Failing {
    type Error = Exhausted;
    fn try_next_u32(&mut self) -> Result<u32, Exhausted> {
        let mut b = [0; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn try_next_u64(&mut self) -> Result<u64, Exhausted> {
        let mut b = [0; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Exhausted> {
        if dst.len() > self.budget {
            return Err(Exhausted);
        }
        self.budget -= dst.len();
        dst.fill(0x5a);
        Ok(())
    }
}

impl rand::TryCryptoRng for Failing {}

#[test]
fn fallible_rng_errors_are_returned() {
    // Key generation takes 64 bytes, encapsulation 32.
    assert_eq!(
        DecapsulationKey::try_generate(&mut Failing { budget: 63 }).err(),
        Some(Exhausted)
    );
    let dk = DecapsulationKey::try_generate(&mut Failing { budget: 64 }).expect("64 bytes");
    assert_eq!(dk.seed().map(|s| *s.as_bytes()), Some([0x5a; 64]));
    let ek = dk.encapsulation_key();
    assert_eq!(
        ek.try_encapsulate(&mut Failing { budget: 31 }).err(),
        Some(Exhausted)
    );
    let (ct, ss) = ek
        .try_encapsulate(&mut Failing { budget: 32 })
        .expect("32 bytes");
    // The RNG's bytes are the message of Encaps_internal.
    let (ct2, ss2) = ek.encapsulate_deterministic(&[0x5a; 32]);
    assert_eq!((ct.as_bytes(), &ss), (ct2.as_bytes(), &ss2));
    assert_eq!(dk.decapsulate(&ct), ss);
}

#[cfg(feature = "getrandom")]
#[test]
fn os_rng_round_trip() {
    let dk = DecapsulationKey::generate_with_os_rng().expect("OS RNG");
    let (ct, ss) = dk
        .encapsulation_key()
        .encapsulate_with_os_rng()
        .expect("OS RNG");
    assert_eq!(dk.decapsulate(&ct), ss);
}

/// The OS RNG's failure is `lazykem::Error::Rng`: `?` takes it, and every other error of the
/// crate, into one error type; its message says what failed and `source` is `getrandom`'s.
#[cfg(feature = "getrandom")]
#[test]
fn os_rng_errors_are_the_crate_error() {
    fn exchange(peer: &[u8]) -> Result<Ciphertext, lazykem::Error> {
        let dk = DecapsulationKey::generate_with_os_rng()?;
        let ek = EncapsulationKey::from_bytes(peer)?;
        let (ct, ss) = ek.encapsulate_with_os_rng()?;
        assert_ne!(dk.decapsulate(&ct), ss, "not this key's ciphertext");
        // A caller's `try_*` with the OS RNG: its error converts with `?` too.
        let _ = DecapsulationKey::try_generate(&mut getrandom::SysRng)?;
        Ok(ct)
    }
    let peer = DecapsulationKey::from_seed(&[4; 64]);
    assert!(exchange(peer.encapsulation_key().as_bytes()).is_ok());
    assert_eq!(
        exchange(&[0; 3]),
        Err(lazykem::Error::EncapsulationKeyLength {
            expected: 1184,
            actual: 3
        })
    );

    let err = lazykem::Error::from(getrandom::Error::UNSUPPORTED);
    assert_eq!(err, lazykem::Error::Rng(getrandom::Error::UNSUPPORTED));
    let message = err.to_string();
    assert!(
        message.starts_with("the operating system's random number generator failed: "),
        "{message}"
    );
    assert!(
        message.ends_with(&getrandom::Error::UNSUPPORTED.to_string()),
        "{message}"
    );
    let source = core::error::Error::source(&err).expect("getrandom's error");
    assert_eq!(
        source.to_string(),
        getrandom::Error::UNSUPPORTED.to_string()
    );
}

#[test]
fn conversions() {
    let dk = DecapsulationKey::from_seed(&[3; 64]);
    let ek = dk.encapsulation_key();
    let (ct, ss) = ek.encapsulate_deterministic(&[4; 32]);
    // Byte views.
    assert_eq!(AsRef::<[u8]>::as_ref(ek), ek.as_bytes());
    assert_eq!(AsRef::<[u8]>::as_ref(&ss), ss.as_bytes());
    assert_eq!(AsRef::<[u8]>::as_ref(&ct), ct.as_bytes());
    // Ciphertexts to and from arrays and slices.
    let array: [u8; CIPHERTEXT_SIZE] = ct.clone().into();
    assert_eq!(Ciphertext::from(array), ct);
    assert_eq!(Ciphertext::try_from(&array[..]), Ok(ct.clone()));
    assert!(Ciphertext::try_from(&array[1..]).is_err());
    // Keys from slices.
    assert_eq!(
        EncapsulationKey::try_from(&ek.as_bytes()[..]).as_ref(),
        Ok(ek)
    );
    assert_eq!(lazykem::Seed::from([3; 64]), *dk.seed().expect("seeded"));
}

#[test]
fn encapsulation_keys_hash_by_their_encoding() {
    use std::collections::HashSet;
    let a = DecapsulationKey::from_seed(&[1; 64]);
    let b = DecapsulationKey::from_seed(&[2; 64]);
    let a_again = EncapsulationKey::from_bytes(a.encapsulation_key().as_bytes()).expect("own key");
    let mut set = HashSet::new();
    assert!(set.insert(a.encapsulation_key().clone()));
    assert!(set.insert(b.encapsulation_key().clone()));
    assert!(!set.insert(a_again), "the same key twice");
    assert_eq!(set.len(), 2);
}

/// No `Debug` output of a type that can hold secret-derived data shows it: every secret
/// here is made of the byte 0xab (171), which must not appear in any form.
#[test]
fn debug_output_shows_no_secret() {
    use lattice_poly_ntt::mlkem::{CachedNttVector, NttVector, Poly, PolyVector};
    let dk = DecapsulationKey::from_seed(&[0xab; 64]);
    let (ct, ss) = dk
        .encapsulation_key()
        .encapsulate_deterministic(&[0xab; 32]);
    let poly = Poly::from_coeffs([171; 256]).expect("canonical");
    let vector = PolyVector::<3>::new([poly.clone(), poly.clone(), poly.clone()]);
    let ntt: NttVector<3> = vector.ntt(lattice_poly_ntt::backend::Portable);
    let cached: CachedNttVector<3> = ntt.cached(lattice_poly_ntt::backend::Portable);
    let secret = [0xabu8; 64];
    let mut out = [0u8; 32];
    let digest = lattice_sampling::Digest32::shake256([&secret, &secret], &mut out);
    let outputs = [
        format!("{dk:?}"),
        format!("{ss:?}"),
        format!("{:?}", dk.seed().expect("seeded")),
        format!("{ct:?}"),
        format!("{poly:?}"),
        format!("{vector:?}"),
        format!("{ntt:?}"),
        format!("{cached:?}"),
        format!("{digest:?}"),
    ];
    for text in &outputs {
        for pattern in ["171", "ab", "AB"] {
            assert!(!text.contains(pattern), "{pattern} in {text}");
        }
    }
}

#[test]
fn set_from_seed_replaces_every_part_of_a_key() {
    let mut slot = DecapsulationKey::from_seed(&[1; 64]);
    let ct_for_old = slot
        .encapsulation_key()
        .encapsulate_deterministic(&[2; 32])
        .0;
    slot.set_from_seed(&[3; 64]);
    let fresh = DecapsulationKey::from_seed(&[3; 64]);
    assert_eq!(slot.encapsulation_key(), fresh.encapsulation_key());
    assert_eq!(slot.seed(), fresh.seed());
    assert_eq!(*slot.to_expanded_bytes(), *fresh.to_expanded_bytes());
    // The replaced key decapsulates as the new one does (z and s-hat replaced too).
    assert_eq!(
        slot.decapsulate(&ct_for_old),
        fresh.decapsulate(&ct_for_old)
    );
    let (ct, secret) = fresh
        .encapsulation_key()
        .encapsulate_deterministic(&[4; 32]);
    assert_eq!(slot.decapsulate(&ct), secret);
}
