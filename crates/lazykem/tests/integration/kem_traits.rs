//! The RustCrypto `kem` 0.3 traits: one generic function written against them runs with this
//! crate and with RustCrypto `ml-kem` 0.3 (which implements the same traits), and the two
//! must agree byte for byte.

use kem::{Decapsulate, Decapsulator, Encapsulate, FromSeed, Generate, Kem, KeyExport, TryKeyInit};
use rand::TryRng;

/// A deterministic stand-in for an RNG (SplitMix64), so both implementations draw the same
/// bytes.
struct Deterministic(u64);

impl TryRng for Deterministic {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.try_next_u64()? as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Ok(z ^ (z >> 31))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let word = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

impl rand::TryCryptoRng for Deterministic {}

/// What one KEM produces, through the traits only, from one RNG stream.
#[derive(Debug, PartialEq, Eq)]
struct Transcript {
    /// The encapsulation key of the generated key pair, exported.
    generated_ek: Vec<u8>,
    /// The encapsulation key of the key pair from `seed`, exported.
    seeded_ek: Vec<u8>,
    /// A ciphertext and its shared key, and what decapsulation gives.
    ct: Vec<u8>,
    sender: Vec<u8>,
    receiver: Vec<u8>,
    /// Decapsulation of a ciphertext not made for the key (implicit rejection).
    rejected: Vec<u8>,
}

/// Written against the `kem` traits only.
fn transcript<K: Kem + FromSeed>(rng_seed: u64, seed: &kem::Seed<K>) -> Transcript
where
    K::EncapsulationKey: KeyExport,
    K::DecapsulationKey: Decapsulate,
{
    let mut rng = Deterministic(rng_seed);
    let generated = K::DecapsulationKey::generate_from_rng(&mut rng);
    let generated_ek = generated.encapsulation_key().to_bytes().to_vec();
    let (dk, ek) = K::from_seed(seed);
    // The exported encapsulation key parses back to an equal key.
    let parsed = K::EncapsulationKey::new(&ek.to_bytes()).expect("own key");
    assert!(parsed == ek, "TryKeyInit of KeyExport");
    let (ct, sender) = parsed.encapsulate_with_rng(&mut rng);
    let receiver = dk.decapsulate(&ct);
    let mut forged = ct.clone();
    forged[0] ^= 1;
    let rejected = dk.decapsulate(&forged);
    Transcript {
        generated_ek,
        seeded_ek: ek.to_bytes().to_vec(),
        ct: ct.to_vec(),
        sender: sender.to_vec(),
        receiver: receiver.to_vec(),
        rejected: rejected.to_vec(),
    }
}

fn both_agree<Ours: Kem + FromSeed, Theirs: Kem + FromSeed>(name: &str)
where
    Ours::EncapsulationKey: KeyExport,
    Theirs::EncapsulationKey: KeyExport,
    Ours::DecapsulationKey: Decapsulate,
    Theirs::DecapsulationKey: Decapsulate,
{
    for i in 0..8u64 {
        let mut seed_bytes = [0u8; 64];
        Deterministic(1000 + i)
            .try_fill_bytes(&mut seed_bytes)
            .expect("infallible");
        let ours = transcript::<Ours>(i, &seed_bytes.as_slice().try_into().expect("64"));
        let theirs = transcript::<Theirs>(i, &seed_bytes.as_slice().try_into().expect("64"));
        assert_eq!(ours.sender, ours.receiver, "{name} {i}: ours round trip");
        assert_ne!(ours.rejected, ours.sender, "{name} {i}: implicit rejection");
        assert_eq!(ours, theirs, "{name} {i}: this crate vs RustCrypto ml-kem");
    }
}

#[test]
fn generic_code_agrees_with_rustcrypto_ml_kem() {
    both_agree::<lazykem::MlKem512, ml_kem::MlKem512>("ML-KEM-512");
    both_agree::<lazykem::MlKem768, ml_kem::MlKem768>("ML-KEM-768");
    both_agree::<lazykem::MlKem1024, ml_kem::MlKem1024>("ML-KEM-1024");
}

#[test]
fn malformed_encapsulation_keys_are_invalid_keys() {
    type Ek = <lazykem::MlKem768 as Kem>::EncapsulationKey;
    let dk = lazykem::ml_kem_768::DecapsulationKey::from_seed(&[5; 64]);
    let mut bytes = dk.encapsulation_key().to_bytes();
    assert!(Ek::new(&bytes).is_ok());
    bytes[0] = 0xff;
    bytes[1] |= 0x0f;
    assert!(Ek::new(&bytes).is_err(), "modulus check");
    assert!(Ek::new_from_slice(&bytes[1..]).is_err(), "length");
}

/// `getrandom` with `kem` turns on `kem`'s own `getrandom` feature: the traits' OS-RNG
/// methods exist, reached through the re-export `lazykem::kem` (code ported from RustCrypto
/// `ml-kem` calls them). Inherent methods of the same name take an RNG, so the trait's are
/// called by path.
#[cfg(all(feature = "getrandom", feature = "kem"))]
#[test]
fn os_rng_methods_of_the_traits() {
    use lazykem::kem::{Decapsulate, Encapsulate, Generate, Kem};

    fn round_trip<K: Kem>()
    where
        K::DecapsulationKey: Decapsulate,
    {
        let (dk, ek) = K::generate_keypair();
        let (ct, sender) = Encapsulate::encapsulate(&ek);
        assert_eq!(dk.decapsulate(&ct), sender);
        let other = <K::DecapsulationKey as Generate>::generate();
        assert_ne!(other.decapsulate(&ct), sender, "implicit rejection");
    }
    round_trip::<lazykem::MlKem512>();
    round_trip::<lazykem::MlKem768>();
    round_trip::<lazykem::MlKem1024>();
}
