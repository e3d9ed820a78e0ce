//! Differential against RustCrypto `x-wing` 0.1 on random seeds and encapsulation seeds:
//! keys, ciphertexts and shared secrets byte-identical, both ways; then the same through the
//! `kem` traits; then wrong lengths, low-order X25519 points and malformed ML-KEM keys.

use kem::{Decapsulate, Encapsulate, KeyExport, KeyInit, TryKeyInit};
use lazykem_hybrid::x_wing::{Ciphertext, DecapsulationKey, EncapsulationKey};
use lazykem_hybrid::{Error, Part};
use rand::{Rng, RngExt, TryRng};

#[test]
fn agrees_with_rustcrypto_x_wing() {
    let mut rng = rand::rng();
    for _ in 0..64 {
        let seed: [u8; 32] = rng.random();
        let eseed: [u8; 64] = {
            let mut e = [0u8; 64];
            rng.fill_bytes(&mut e);
            e
        };
        let ours = DecapsulationKey::from_seed(&seed).unwrap();
        let theirs = x_wing::DecapsulationKey::from(seed);
        let their_ek = kem::Decapsulator::encapsulation_key(&theirs).clone();
        assert_eq!(
            ours.encapsulation_key().as_bytes().as_slice(),
            their_ek.to_bytes().as_slice(),
            "pk"
        );
        let (ct, ss) = ours
            .encapsulation_key()
            .encapsulate_deterministic(&eseed)
            .unwrap();
        let (their_ct, their_ss) = their_ek.encapsulate_deterministic(&eseed.into());
        assert_eq!(ct.as_bytes().as_slice(), their_ct.as_slice(), "ct");
        assert_eq!(ss.as_bytes().as_slice(), their_ss.as_slice(), "ss");
        // Each decapsulates the other's ciphertext, and a tampered one alike.
        assert_eq!(
            theirs
                .decapsulate(&ct.as_bytes().to_owned().into())
                .as_slice(),
            ss.as_bytes()
        );
        let mut tampered = *ct.as_bytes();
        tampered[rng.random_range(0..tampered.len())] ^= 1 << rng.random_range(0..8);
        assert_eq!(
            DecapsulationKey::from_seed(&seed)
                .unwrap()
                .decapsulate(&Ciphertext::from_bytes(&tampered).unwrap())
                .as_bytes()
                .as_slice(),
            theirs.decapsulate(&tampered.into()).as_slice(),
            "tampered ct"
        );
    }
}

#[test]
fn kem_traits_agree_with_rustcrypto_x_wing() {
    let seed = [0x42u8; 32];
    let ours = <DecapsulationKey as KeyInit>::new(&seed.into());
    let theirs = <x_wing::DecapsulationKey as KeyInit>::new(&seed.into());
    assert_eq!(ours.to_bytes(), theirs.to_bytes(), "seed export");
    let our_ek = kem::Decapsulator::encapsulation_key(&ours).clone();
    let their_ek = kem::Decapsulator::encapsulation_key(&theirs).clone();
    assert_eq!(our_ek.to_bytes().as_slice(), their_ek.to_bytes().as_slice());
    let parsed = <EncapsulationKey as TryKeyInit>::new(&their_ek.to_bytes()).expect("their pk");
    assert!(parsed == our_ek);
    let (ct, ss) = parsed.encapsulate_with_rng(&mut rand::rng());
    assert_eq!(theirs.decapsulate(&ct), ss);
    let (ct, ss) = their_ek.encapsulate_with_rng(&mut rand::rng());
    assert_eq!(Decapsulate::decapsulate(&ours, &ct), ss);
}

#[test]
fn wrong_lengths_are_errors() {
    for len in [0, 32, 1215, 1217, 2000] {
        assert_eq!(
            EncapsulationKey::from_bytes(&vec![0; len]).err(),
            Some(Error::Length {
                kem: "MLKEM768-X25519",
                part: Part::EncapsulationKey,
                expected: 1216,
                actual: len
            })
        );
    }
    for len in [0, 1088, 1119, 1121] {
        assert_eq!(
            Ciphertext::from_bytes(&vec![0; len]).err(),
            Some(Error::Length {
                kem: "MLKEM768-X25519",
                part: Part::Ciphertext,
                expected: 1120,
                actual: len
            })
        );
    }
    for len in [0, 31, 33, 64] {
        assert_eq!(
            DecapsulationKey::from_seed_bytes(&vec![0; len]).err(),
            Some(Error::Length {
                kem: "MLKEM768-X25519",
                part: Part::DecapsulationKey,
                expected: 32,
                actual: len
            })
        );
    }
}

#[test]
fn malformed_ml_kem_part_is_rejected() {
    let dk = DecapsulationKey::from_seed(&[5; 32]).unwrap();
    let mut pk = *dk.encapsulation_key().as_bytes();
    pk[0] = 0xff;
    pk[1] |= 0x0f; // the first ML-KEM coefficient becomes 4095 >= q
    assert_eq!(
        EncapsulationKey::from_bytes(&pk).err(),
        Some(Error::MlKem(lazykem::Error::EncapsulationKeyNotReduced))
    );
}

/// A low-order `pk_X` (here the point 0) makes the X25519 secret all zero; as the draft
/// says, it goes into the combiner and nothing fails; RustCrypto `x-wing`'s default key
/// does the same.
#[test]
fn low_order_x25519_points_are_combined_not_rejected() {
    let dk = DecapsulationKey::from_seed(&[6; 32]).unwrap();
    let mut pk = *dk.encapsulation_key().as_bytes();
    pk[1184..].fill(0);
    let ek = EncapsulationKey::from_bytes(&pk).expect("any 32-byte pk_X");
    let (ct, ss) = ek.encapsulate_deterministic(&[7; 64]).unwrap();
    let their_ek = <x_wing::EncapsulationKey as TryKeyInit>::new(&pk.into()).expect("accepted");
    let (their_ct, their_ss) = their_ek.encapsulate_deterministic(&[7; 64].into());
    assert_eq!(ct.as_bytes().as_slice(), their_ct.as_slice());
    assert_eq!(ss.as_bytes().as_slice(), their_ss.as_slice());
    // A ciphertext whose ct_X is the zero point decapsulates, to the same secret as theirs.
    let (ct, _) = dk
        .encapsulation_key()
        .encapsulate_deterministic(&[8; 64])
        .unwrap();
    let mut low = *ct.as_bytes();
    low[1088..].fill(0);
    let theirs = x_wing::DecapsulationKey::from([6; 32]);
    assert_eq!(
        dk.decapsulate(&Ciphertext::from_bytes(&low).unwrap())
            .as_bytes()
            .as_slice(),
        theirs.decapsulate(&low.into()).as_slice()
    );
}

#[test]
fn fallible_rng_and_os_rng() {
    struct Broken;
    impl TryRng for Broken {
        type Error = std::io::Error;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Err(std::io::Error::other("broken"))
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Err(std::io::Error::other("broken"))
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            Err(std::io::Error::other("broken"))
        }
    }
    impl rand::TryCryptoRng for Broken {}
    assert!(DecapsulationKey::try_generate(&mut Broken).is_err());
    let dk = DecapsulationKey::generate_with_os_rng().expect("OS RNG");
    assert!(dk.encapsulation_key().try_encapsulate(&mut Broken).is_err());
    let (ct, ss) = dk
        .encapsulation_key()
        .encapsulate_with_os_rng()
        .expect("OS RNG");
    assert_eq!(dk.decapsulate(&ct), ss);
}

/// The OS RNG's failure is `lazykem_hybrid::Error::Rng` (so `?` takes it and the crate's other
/// errors into one type); with `kem` too, the `kem` traits' OS-RNG methods exist.
#[test]
fn os_rng_errors_and_trait_methods() {
    fn exchange(peer: &[u8]) -> Result<Ciphertext, Error> {
        let ek = EncapsulationKey::from_bytes(peer)?;
        let (ct, _) = ek.encapsulate_with_os_rng()?;
        let _ = DecapsulationKey::try_generate(&mut getrandom::SysRng)?;
        Ok(ct)
    }
    let dk = DecapsulationKey::generate_with_os_rng().expect("OS RNG");
    assert!(exchange(dk.encapsulation_key().as_bytes()).is_ok());
    assert_eq!(
        exchange(&[0; 7]),
        Err(Error::Length {
            kem: "MLKEM768-X25519",
            part: Part::EncapsulationKey,
            expected: 1216,
            actual: 7
        })
    );
    let err = Error::from(getrandom::Error::UNSUPPORTED);
    assert_eq!(err, Error::Rng(getrandom::Error::UNSUPPORTED));
    let message = err.to_string();
    assert!(
        message.starts_with("the operating system's random number generator failed: "),
        "{message}"
    );
    assert!(core::error::Error::source(&err).is_some());

    // Through the re-export, as code ported from RustCrypto `x-wing` writes it.
    let (dk, ek) = <lazykem_hybrid::XWing as lazykem_hybrid::kem::Kem>::generate_keypair();
    let (ct, sender) = lazykem_hybrid::kem::Encapsulate::encapsulate(&ek);
    assert_eq!(Decapsulate::decapsulate(&dk, &ct), sender);
    let other = <DecapsulationKey as lazykem_hybrid::kem::Generate>::generate();
    assert_ne!(Decapsulate::decapsulate(&other, &ct), sender);
}
