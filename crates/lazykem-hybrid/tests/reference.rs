//! Differential against a from-spec reference of the CG framework (draft-irtf-cfrg-hybrid-
//! kems §5.1 with draft-irtf-cfrg-concrete-hybrid-kems §3), written here on independent
//! parts: RustCrypto `ml-kem` (FIPS 203), `sha3` (SHAKE256, SHA3-256) and `p256` / `p384`
//! arithmetic. On random seeds and randomness, for MLKEM768-P256 and MLKEM1024-P384: the
//! encapsulation key, the ciphertext and the shared secret byte for byte, and decapsulation
//! of the reference's ciphertexts, tampered ones included.

use lazykem_hybrid::{Ciphertext, DecapsulationKey, EncapsulationKey, HybridKem};
use rand::{Rng, RngExt};
use sha3::digest::{Digest, ExtendableOutput, Update, XofReader};

fn shake256(input: &[u8], len: usize) -> Vec<u8> {
    let mut h = sha3::Shake256::default();
    h.update(input);
    let mut out = vec![0; len];
    h.finalize_xof().read(&mut out);
    out
}

fn sha3_256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = sha3::Sha3_256::new();
    for p in parts {
        Digest::update(&mut h, p);
    }
    h.finalize().into()
}

/// The reference: one ML-KEM and one NIST curve, each step as the drafts write it.
trait Reference {
    type Ours: HybridKem;
    const NSCALAR: usize;
    const NSEED: usize;
    /// ML-KEM.KeyGen_internal(d, z): (ek, the seed to decapsulate with).
    fn ml_keygen(seed: &[u8; 64]) -> Vec<u8>;
    fn ml_encaps(ek: &[u8], m: &[u8; 32]) -> (Vec<u8>, [u8; 32]);
    fn ml_decaps(seed: &[u8; 64], ct: &[u8]) -> [u8; 32];
    /// OS2IP of one chunk, if 0 < x < n.
    fn scalar(chunk: &[u8]) -> Option<Vec<u8>>;
    /// Exp(g, x), uncompressed.
    fn exp_base(x: &[u8]) -> Vec<u8>;
    /// ElementToSharedSecret(Exp(p, x)).
    fn exp(p: &[u8], x: &[u8]) -> Vec<u8>;

    fn random_scalar(seed: &[u8]) -> Vec<u8> {
        seed.chunks_exact(Self::NSCALAR)
            .find_map(Self::scalar)
            .expect("negligible: no scalar in the seed")
    }

    /// DeriveKeyPair(seed): (ek, d||z, sk_T).
    fn derive(seed: &[u8; 32]) -> (Vec<u8>, [u8; 64], Vec<u8>) {
        let expanded = shake256(seed, 64 + Self::NSEED);
        let pq: [u8; 64] = expanded[..64].try_into().unwrap();
        let sk_t = Self::random_scalar(&expanded[64..]);
        let mut ek = Self::ml_keygen(&pq);
        ek.extend(Self::exp_base(&sk_t));
        (ek, pq, sk_t)
    }

    fn ek_split(ek: &[u8]) -> (&[u8], &[u8]) {
        ek.split_at(ek.len() - (1 + 2 * Self::NSCALAR))
    }

    /// EncapsDerand(ek, randomness): (ct, ss).
    fn encaps(ek: &[u8], randomness: &[u8]) -> (Vec<u8>, [u8; 32]) {
        let (ek_pq, ek_t) = Self::ek_split(ek);
        let m: [u8; 32] = randomness[..32].try_into().unwrap();
        let sk_e = Self::random_scalar(&randomness[32..]);
        let ct_t = Self::exp_base(&sk_e);
        let ss_t = Self::exp(ek_t, &sk_e);
        let (mut ct, ss_pq) = Self::ml_encaps(ek_pq, &m);
        let ss = sha3_256(&[&ss_pq, &ss_t, &ct_t, ek_t, <Self::Ours as HybridKem>::LABEL]);
        ct.extend(&ct_t);
        (ct, ss)
    }

    /// Decaps(dk, ct).
    fn decaps(seed: &[u8; 32], ct: &[u8]) -> [u8; 32] {
        let (ek, pq, sk_t) = Self::derive(seed);
        let (_, ek_t) = Self::ek_split(&ek);
        let (ct_pq, ct_t) = ct.split_at(ct.len() - (1 + 2 * Self::NSCALAR));
        let ss_pq = Self::ml_decaps(&pq, ct_pq);
        let ss_t = Self::exp(ct_t, &sk_t);
        sha3_256(&[&ss_pq, &ss_t, ct_t, ek_t, <Self::Ours as HybridKem>::LABEL])
    }
}

macro_rules! reference {
    ($marker:ident, $ours:ty, $ml:ident, $curve:ident, $nscalar:literal, $nseed:literal) => {
        struct $marker;

        impl Reference for $marker {
            type Ours = $ours;
            const NSCALAR: usize = $nscalar;
            const NSEED: usize = $nseed;

            fn ml_keygen(seed: &[u8; 64]) -> Vec<u8> {
                use ml_kem::KeyExport as _;
                let dk = ml_kem::$ml::DecapsulationKey::from_seed(ml_kem::Seed::from(*seed));
                dk.encapsulation_key().to_bytes().as_slice().to_vec()
            }

            fn ml_encaps(ek: &[u8], m: &[u8; 32]) -> (Vec<u8>, [u8; 32]) {
                let ek = ml_kem::array::Array::try_from(ek).unwrap();
                let ek = ml_kem::$ml::EncapsulationKey::new(&ek).unwrap();
                let (c, k) = ek.encapsulate_deterministic(&ml_kem::B32::from(*m));
                (c.as_slice().to_vec(), k.into())
            }

            fn ml_decaps(seed: &[u8; 64], ct: &[u8]) -> [u8; 32] {
                use ml_kem::Decapsulate as _;
                let dk = ml_kem::$ml::DecapsulationKey::from_seed(ml_kem::Seed::from(*seed));
                let ct = ml_kem::$ml::Ciphertext::try_from(ct).unwrap();
                dk.decapsulate(&ct).into()
            }

            fn scalar(chunk: &[u8]) -> Option<Vec<u8>> {
                let field = $curve::FieldBytes::try_from(chunk).ok()?;
                let nz: Option<$curve::NonZeroScalar> =
                    $curve::NonZeroScalar::from_repr(field).into();
                nz.map(|_| chunk.to_vec())
            }

            fn exp_base(x: &[u8]) -> Vec<u8> {
                use $curve::elliptic_curve::sec1::ToSec1Point;
                let k = $curve::SecretKey::from_slice(x).unwrap();
                k.public_key().to_sec1_point(false).as_bytes().to_vec()
            }

            fn exp(p: &[u8], x: &[u8]) -> Vec<u8> {
                let k = $curve::SecretKey::from_slice(x).unwrap();
                let p = $curve::PublicKey::from_sec1_bytes(p).unwrap();
                let s = $curve::ecdh::diffie_hellman(k.to_nonzero_scalar(), p.as_affine());
                s.raw_secret_bytes().as_slice().to_vec()
            }
        }
    };
}

reference!(
    P256Ref,
    lazykem_hybrid::MlKem768P256,
    ml_kem_768,
    p256,
    32,
    128
);
reference!(
    P384Ref,
    lazykem_hybrid::MlKem1024P384,
    ml_kem_1024,
    p384,
    48,
    48
);

fn agrees<R: Reference>(rounds: usize) {
    let mut rng = rand::rng();
    for _ in 0..rounds {
        let seed: [u8; 32] = rng.random();
        let mut randomness = vec![0u8; 32 + R::NSEED];
        rng.fill_bytes(&mut randomness);
        let (ek_ref, _, _) = R::derive(&seed);
        let dk = DecapsulationKey::<R::Ours>::from_seed(&seed).expect("a uniform seed");
        assert_eq!(dk.encapsulation_key().as_ref(), ek_ref.as_slice(), "ek");
        let ek = EncapsulationKey::<R::Ours>::from_bytes(&ek_ref).expect("the reference's ek");
        let (ct, ss) = ek
            .encapsulate_deterministic(&randomness)
            .expect("randomness");
        let (ct_ref, ss_ref) = R::encaps(&ek_ref, &randomness);
        assert_eq!(ct.as_ref(), ct_ref.as_slice(), "ct");
        assert_eq!(ss.as_bytes(), &ss_ref, "ss");
        assert_eq!(dk.decapsulate(&ct).as_bytes(), &ss_ref, "decaps");
        // A tampered ML-KEM part: implicit rejection, the same on both sides.
        let mut tampered = ct_ref.clone();
        let i = rng.random_range(0..tampered.len() - (1 + 2 * R::NSCALAR));
        tampered[i] ^= 1 << rng.random_range(0..8);
        let parsed = Ciphertext::<R::Ours>::from_bytes(&tampered).expect("the point is intact");
        assert_eq!(
            dk.decapsulate(&parsed).as_bytes(),
            &R::decaps(&seed, &tampered),
            "tampered"
        );
    }
}

#[test]
fn mlkem768_p256_agrees_with_the_reference() {
    agrees::<P256Ref>(24);
}

#[test]
fn mlkem1024_p384_agrees_with_the_reference() {
    agrees::<P384Ref>(24);
}

/// `EncapsDerand` takes ML-KEM's 32 bytes and whole group scalars up to `Nseed`; any other
/// length is `Error::Length` naming the KEM and the randomness.
#[test]
fn randomness_lengths() {
    use lazykem_hybrid::{Error, Part};
    fn check<H: HybridKem>(accepted: &[usize]) {
        let dk = DecapsulationKey::<H>::from_seed(&[9; 32]).unwrap();
        let max = lazykem_hybrid::encapsulation_randomness_size::<H>();
        for len in 0..=max + 40 {
            let result = dk
                .encapsulation_key()
                .encapsulate_deterministic(&vec![1; len]);
            if accepted.contains(&len) {
                let (ct, ss) = result.unwrap_or_else(|e| panic!("{} {len}: {e}", H::NAME));
                assert_eq!(dk.decapsulate(&ct), ss);
            } else {
                assert_eq!(
                    result.err(),
                    Some(Error::Length {
                        kem: H::NAME,
                        part: Part::Randomness,
                        expected: max,
                        actual: len
                    }),
                    "{} {len}",
                    H::NAME
                );
            }
        }
    }
    check::<lazykem_hybrid::XWing>(&[64]);
    check::<lazykem_hybrid::MlKem768P256>(&[64, 96, 128, 160]);
    check::<lazykem_hybrid::MlKem1024P384>(&[80]);
}
