//! The hybrid KEMs of `lazykem-hybrid` (MLKEM768-X25519 = X-Wing, MLKEM768-P256,
//! MLKEM1024-P384): encapsulation-key and ciphertext parsing, key derivation, deterministic
//! encapsulation and decapsulation, against the construction recomputed from its parts.
//!
//! The reference is written here from the drafts: SHAKE256 and SHA3-256 from `sha3`, ML-KEM
//! from `lazykem` (fuzzed on its own by the other targets), and the groups from
//! `x25519-dalek` and RustCrypto `p256` / `p384` (an independent check of graviola's curves,
//! which `lazykem-hybrid` runs on this CPU).
//!
//! Properties, for each KEM:
//! - `EncapsulationKey::from_bytes` and `Ciphertext::from_bytes` never panic; an input whose
//!   length is not the KEM's is exactly `Error::Length` naming the KEM, the part, the size
//!   expected and the length given; an encapsulation key with an unreduced ML-KEM part is
//!   `Error::MlKem` with `lazykem`'s own verdict on that part; a NIST group part is accepted
//!   exactly when it is `0x04 || X || Y` and RustCrypto's `PublicKey::from_sec1_bytes`
//!   accepts it (on the curve, coordinates below p), and then re-encodes to the same bytes;
//!   otherwise `Error::InvalidElement` naming the group. X25519 takes any 32 bytes.
//! - an accepted key or ciphertext re-encodes byte-identically and parses again from its
//!   encoding; a parsed ciphertext decapsulates (under a key from the input's seed) to the
//!   same secret as its re-parse, and to the draft's `Decaps` recomputed from the parts,
//!   `SHA3-256(ss_PQ || ss_T || ct_T || ek_T || label)`;
//! - `DecapsulationKey::from_seed` gives the encapsulation key of the draft's
//!   `expandDecapsulationKey` (SHAKE256 of the seed, `RandomScalar` over the group's chunks);
//! - `encapsulate_deterministic` to a parsed key gives the ciphertext and secret of the
//!   draft's `EncapsDerand` recomputed from the parts, accepts randomness of exactly the
//!   lengths the KEM takes (`Error::Length` otherwise), and an honest ciphertext
//!   decapsulates to the encapsulated secret.
//!
//! Input layout: byte 0 is the selector, `selector % 3` the KEM (X-Wing, MLKEM768-P256,
//! MLKEM1024-P384) and `(selector / 3) % 4` the mode; then a 32-byte seed (the decapsulation
//! key), then the rest:
//! - 0: the rest is an encapsulation key to parse (an accepted one is encapsulated to, with
//!   randomness from SHAKE256 of the seed);
//! - 1: the rest is a ciphertext to parse and decapsulate;
//! - 2: `len: u8 || offset: u16 LE || randomness || mask`: an honest ciphertext from the
//!   seed's key and `len % (N + 9)` bytes of randomness (N = the KEM's size; SHAKE256 of the
//!   rest when it is shorter, and then no mask), XORed with the mask from `offset` on,
//!   parsed and decapsulated;
//! - 3: `offset: u16 LE || mask`: the seed's encapsulation key XORed with the mask from
//!   `offset` on, parsed (so most keys have a valid ML-KEM part and a valid point, edited).
#![no_main]

use lazykem::ParameterSet;
use lazykem_hybrid::{
    Ciphertext, DecapsulationKey, EncapsulationKey, Error, HybridKem, MlKem768P256, MlKem1024P384,
    Part, XWing,
};
use libfuzzer_sys::fuzz_target;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::{Digest, Sha3_256};

/// The traditional group of a hybrid, written from RustCrypto / `x25519-dalek`.
trait Reference {
    type Kem: HybridKem;
    /// The group's name in errors.
    const GROUP: &'static str;
    /// `Nscalar`: the chunk size of `RandomScalar`.
    const SCALAR: usize;
    /// `Nseed`.
    const SEED: usize;
    /// A private key.
    type Secret;

    /// A chunk as a scalar, `None` when `RandomScalar` skips it (NIST: 0 or not below n).
    fn scalar(chunk: &[u8]) -> Option<Self::Secret>;
    /// `Exp(g, x)`, encoded.
    fn public(x: &Self::Secret) -> Vec<u8>;
    /// Whether the bytes are an element the drafts accept (and, NIST, that the accepted
    /// point re-encodes to them).
    fn valid(element: &[u8]) -> bool;
    /// `ElementToSharedSecret(Exp(p, x))` for an element [`Self::valid`] accepts.
    fn dh(x: &Self::Secret, element: &[u8]) -> Vec<u8>;

    /// `RandomScalar(seed)`: the first chunk that is a scalar.
    fn random_scalar(seed: &[u8]) -> Option<Self::Secret> {
        (0..seed.len() / Self::SCALAR)
            .find_map(|i| Self::scalar(&seed[i * Self::SCALAR..(i + 1) * Self::SCALAR]))
    }
}

struct XWingRef;

impl Reference for XWingRef {
    type Kem = XWing;
    const GROUP: &'static str = "X25519";
    const SCALAR: usize = 32;
    const SEED: usize = 32;
    type Secret = [u8; 32];

    fn scalar(chunk: &[u8]) -> Option<[u8; 32]> {
        chunk.try_into().ok()
    }

    fn public(x: &[u8; 32]) -> Vec<u8> {
        x25519_dalek::x25519(*x, x25519_dalek::X25519_BASEPOINT_BYTES).to_vec()
    }

    fn valid(element: &[u8]) -> bool {
        element.len() == 32
    }

    fn dh(x: &[u8; 32], element: &[u8]) -> Vec<u8> {
        let u: [u8; 32] = element.try_into().expect("32 bytes");
        x25519_dalek::x25519(*x, u).to_vec()
    }
}

macro_rules! nist_reference {
    ($name:ident, $kem:ty, $rc:ident, $group:literal, $ns:literal, $nseed:literal) => {
        struct $name;

        impl Reference for $name {
            type Kem = $kem;
            const GROUP: &'static str = $group;
            const SCALAR: usize = $ns;
            const SEED: usize = $nseed;
            type Secret = $rc::SecretKey;

            fn scalar(chunk: &[u8]) -> Option<$rc::SecretKey> {
                // `from_slice` would also take shorter chunks; the chunk is whole here.
                (chunk.len() == $ns)
                    .then(|| $rc::SecretKey::from_slice(chunk).ok())
                    .flatten()
            }

            fn public(x: &$rc::SecretKey) -> Vec<u8> {
                use $rc::elliptic_curve::sec1::ToSec1Point;
                x.public_key().to_sec1_point(false).as_bytes().to_vec()
            }

            fn valid(element: &[u8]) -> bool {
                use $rc::elliptic_curve::sec1::ToSec1Point;
                if element.first() != Some(&0x04) {
                    return false;
                }
                match $rc::PublicKey::from_sec1_bytes(element) {
                    Ok(point) => {
                        assert_eq!(
                            point.to_sec1_point(false).as_bytes(),
                            element,
                            "RustCrypto accepted a non-canonical encoding"
                        );
                        true
                    }
                    Err(_) => false,
                }
            }

            fn dh(x: &$rc::SecretKey, element: &[u8]) -> Vec<u8> {
                let point = $rc::PublicKey::from_sec1_bytes(element).expect("a valid element");
                x.diffie_hellman(&point).raw_secret_bytes().to_vec()
            }
        }
    };
}

nist_reference!(P256Ref, MlKem768P256, p256, "P-256", 32, 128);
nist_reference!(P384Ref, MlKem1024P384, p384, "P-384", 48, 48);

fn padded<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let n = bytes.len().min(N);
    out[..n].copy_from_slice(&bytes[..n]);
    out
}

fn shake256(input: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    let mut xof = sha3::Shake256::default();
    xof.update(input);
    xof.finalize_xof().read(&mut out);
    out
}

fn combine<R: Reference>(ss_pq: &[u8], ss_t: &[u8], ct_t: &[u8], ek_t: &[u8]) -> [u8; 32] {
    let mut h = Sha3_256::new();
    for part in [ss_pq, ss_t, ct_t, ek_t, <R::Kem as HybridKem>::LABEL] {
        Digest::update(&mut h, part);
    }
    h.finalize().into()
}

type Pq<R> = <<R as Reference>::Kem as HybridKem>::Pq;

/// The draft's key derivation: ML-KEM's key and the group's private and public keys, or
/// `None` if the seed holds no scalar.
struct ReferenceKey<R: Reference> {
    ml: lazykem::DecapsulationKey<Pq<R>>,
    x: R::Secret,
    ek: Vec<u8>,
}

fn reference_key<R: Reference>(seed: &[u8; 32]) -> Option<ReferenceKey<R>> {
    let expanded = shake256(seed, 64 + R::SEED);
    let ml = lazykem::DecapsulationKey::<Pq<R>>::from_seed(&padded::<64>(&expanded[..64]));
    let x = R::random_scalar(&expanded[64..])?;
    let mut ek = ml.encapsulation_key().as_ref().to_vec();
    ek.extend(R::public(&x));
    Some(ReferenceKey { ml, x, ek })
}

/// The draft's `Decaps` for ciphertext bytes whose group part is valid.
fn reference_decaps<R: Reference>(key: &ReferenceKey<R>, ct: &[u8]) -> [u8; 32] {
    let (ct_pq, ct_t) = ct.split_at(<Pq<R> as ParameterSet>::CIPHERTEXT_SIZE);
    let ct_pq = lazykem::Ciphertext::<Pq<R>>::from_bytes(ct_pq).expect("the ML-KEM length");
    let ss_pq = key.ml.decapsulate(&ct_pq);
    let ek_t = &key.ek[<Pq<R> as ParameterSet>::ENCAPSULATION_KEY_SIZE..];
    combine::<R>(ss_pq.as_bytes(), &R::dh(&key.x, ct_t), ct_t, ek_t)
}

/// The draft's `EncapsDerand` to valid key bytes, or `None` if the randomness holds no
/// scalar.
fn reference_encaps<R: Reference>(ek: &[u8], randomness: &[u8]) -> Option<(Vec<u8>, [u8; 32])> {
    let (ek_pq, ek_t) = ek.split_at(<Pq<R> as ParameterSet>::ENCAPSULATION_KEY_SIZE);
    let pk_pq = lazykem::EncapsulationKey::<Pq<R>>::from_bytes(ek_pq).expect("a valid key");
    let (m, seed_t) = randomness.split_at(32);
    let e = R::random_scalar(seed_t)?;
    let ct_t = R::public(&e);
    let ss_t = R::dh(&e, ek_t);
    let (ct_pq, ss_pq) = pk_pq.encapsulate_deterministic(&padded::<32>(m));
    let mut ct = ct_pq.as_ref().to_vec();
    ct.extend(&ct_t);
    Some((ct, combine::<R>(ss_pq.as_bytes(), &ss_t, &ct_t, ek_t)))
}

/// The lengths of randomness `encapsulate_deterministic` takes: ML-KEM's 32 bytes, then a
/// whole number of scalar chunks up to `Nseed` (X25519: exactly 32).
fn randomness_accepted<R: Reference>(len: usize) -> bool {
    len > 32 && (len - 32).is_multiple_of(R::SCALAR) && len - 32 <= R::SEED
}

fn assert_length<R: Reference>(err: &Error, part: Part, expected: usize, actual: usize) {
    assert_eq!(
        *err,
        Error::Length {
            kem: <R::Kem as HybridKem>::NAME,
            part,
            expected,
            actual,
        }
    );
    assert_ne!(actual, expected);
}

/// Parses `bytes` as an encapsulation key and checks the verdict; the key if accepted.
fn check_ek<R: Reference>(bytes: &[u8]) -> Option<EncapsulationKey<R::Kem>> {
    let size = <R::Kem as HybridKem>::ENCAPSULATION_KEY_SIZE;
    let split = <Pq<R> as ParameterSet>::ENCAPSULATION_KEY_SIZE;
    match EncapsulationKey::<R::Kem>::from_bytes(bytes) {
        Ok(ek) => {
            assert_eq!(ek.as_bytes().as_ref(), bytes, "re-encoding");
            assert!(lazykem::EncapsulationKey::<Pq<R>>::from_bytes(&bytes[..split]).is_ok());
            assert!(R::valid(&bytes[split..]), "accepted an invalid element");
            let again = EncapsulationKey::<R::Kem>::from_bytes(ek.as_bytes().as_ref())
                .expect("an accepted key's encoding parses");
            assert!(again == ek);
            Some(ek)
        }
        Err(err @ Error::Length { .. }) => {
            assert_length::<R>(&err, Part::EncapsulationKey, size, bytes.len());
            None
        }
        Err(Error::MlKem(e)) => {
            assert_eq!(bytes.len(), size);
            let verdict = lazykem::EncapsulationKey::<Pq<R>>::from_bytes(&bytes[..split]);
            assert_eq!(verdict.err(), Some(e), "the ML-KEM part's verdict");
            None
        }
        Err(Error::InvalidElement { group }) => {
            assert_eq!(bytes.len(), size);
            assert_eq!(group, R::GROUP);
            assert!(lazykem::EncapsulationKey::<Pq<R>>::from_bytes(&bytes[..split]).is_ok());
            assert!(!R::valid(&bytes[split..]), "refused a valid element");
            None
        }
        Err(other) => panic!("unexpected error {other:?}"),
    }
}

/// Parses `bytes` as a ciphertext, checks the verdict, and decapsulates an accepted one with
/// `dk` against the reference; the secret if accepted.
fn check_ct<R: Reference>(
    dk: &DecapsulationKey<R::Kem>,
    key: &ReferenceKey<R>,
    bytes: &[u8],
) -> Option<[u8; 32]> {
    let size = <R::Kem as HybridKem>::CIPHERTEXT_SIZE;
    let split = <Pq<R> as ParameterSet>::CIPHERTEXT_SIZE;
    match Ciphertext::<R::Kem>::from_bytes(bytes) {
        Ok(ct) => {
            assert_eq!(ct.as_bytes().as_ref(), bytes, "re-encoding");
            assert!(R::valid(&bytes[split..]), "accepted an invalid element");
            let ss = dk.decapsulate(&ct);
            let again = Ciphertext::<R::Kem>::from_bytes(ct.as_bytes().as_ref())
                .expect("an accepted ciphertext's encoding parses");
            assert!(again == ct);
            assert_eq!(dk.decapsulate(&again), ss, "the re-parsed ciphertext");
            assert_eq!(
                ss.as_bytes(),
                &reference_decaps(key, bytes),
                "decapsulation against the draft's formula"
            );
            Some(*ss.as_bytes())
        }
        Err(err @ Error::Length { .. }) => {
            assert_length::<R>(&err, Part::Ciphertext, size, bytes.len());
            None
        }
        Err(Error::InvalidElement { group }) => {
            assert_eq!(bytes.len(), size);
            assert_eq!(group, R::GROUP);
            assert!(!R::valid(&bytes[split..]), "refused a valid element");
            None
        }
        Err(other) => panic!("unexpected error {other:?}"),
    }
}

/// XORs `mask` into `bytes` from `offset` on, wrapping (the callers compare the bytes to see
/// whether anything changed).
fn apply_mask(bytes: &mut [u8], offset: usize, mask: &[u8]) {
    let n = bytes.len();
    for (i, m) in mask.iter().enumerate() {
        bytes[(offset + i) % n] ^= m;
    }
}

fn run<R: Reference>(mode: u8, seed: &[u8; 32], rest: &[u8]) {
    let reference = reference_key::<R>(seed);
    let dk = match DecapsulationKey::<R::Kem>::from_seed(seed) {
        Ok(dk) => dk,
        Err(err) => {
            assert_eq!(err, Error::ScalarRejected { group: R::GROUP });
            assert!(
                reference.is_none(),
                "a seed the reference takes was refused"
            );
            return;
        }
    };
    let key = reference.expect("the reference refused a seed the crate takes");
    let ek_bytes = dk.encapsulation_key().as_bytes().as_ref().to_vec();
    assert_eq!(ek_bytes, key.ek, "key derivation against the draft's");
    let n = lazykem_hybrid::encapsulation_randomness_size::<R::Kem>();
    match mode {
        0 => {
            if let Some(ek) = check_ek::<R>(rest) {
                let randomness = shake256(seed, n);
                match ek.encapsulate_deterministic(&randomness) {
                    Ok((ct, ss)) => {
                        let (ct_ref, ss_ref) = reference_encaps::<R>(rest, &randomness)
                            .expect("the crate found a scalar");
                        assert_eq!(ct.as_bytes().as_ref(), ct_ref.as_slice());
                        assert_eq!(ss.as_bytes(), &ss_ref);
                    }
                    Err(err) => {
                        assert_eq!(err, Error::ScalarRejected { group: R::GROUP });
                        assert!(reference_encaps::<R>(rest, &randomness).is_none());
                    }
                }
            }
        }
        1 => {
            check_ct::<R>(&dk, &key, rest);
        }
        2 => {
            let len = usize::from(rest.first().copied().unwrap_or_default()) % (n + 9);
            let offset = usize::from(u16::from_le_bytes(padded(
                rest.get(1..).unwrap_or_default(),
            )));
            let tail = rest.get(3..).unwrap_or_default();
            let randomness = shake256(tail, len);
            let randomness = if tail.len() >= len {
                &tail[..len]
            } else {
                &randomness[..]
            };
            let mask = tail.get(len..).unwrap_or_default();
            match dk.encapsulation_key().encapsulate_deterministic(randomness) {
                Ok((ct, ss)) => {
                    assert!(
                        randomness_accepted::<R>(len),
                        "took {len} bytes of randomness"
                    );
                    let (ct_ref, ss_ref) = reference_encaps::<R>(&ek_bytes, randomness)
                        .expect("the crate found a scalar");
                    assert_eq!(ct.as_bytes().as_ref(), ct_ref.as_slice());
                    assert_eq!(ss.as_bytes(), &ss_ref);
                    let mut bytes = ct.as_bytes().as_ref().to_vec();
                    apply_mask(&mut bytes, offset, mask);
                    let got = check_ct::<R>(&dk, &key, &bytes);
                    if bytes == ct.as_bytes().as_ref() {
                        assert_eq!(got, Some(*ss.as_bytes()), "an honest ciphertext");
                    }
                }
                Err(Error::Length { .. }) => {
                    assert!(
                        !randomness_accepted::<R>(len),
                        "refused {len} bytes of randomness"
                    );
                }
                Err(err) => {
                    assert_eq!(err, Error::ScalarRejected { group: R::GROUP });
                    assert!(reference_encaps::<R>(&ek_bytes, randomness).is_none());
                }
            }
        }
        _ => {
            let offset = usize::from(u16::from_le_bytes(padded(rest)));
            let mut bytes = ek_bytes.clone();
            apply_mask(&mut bytes, offset, rest.get(2..).unwrap_or_default());
            let parsed = check_ek::<R>(&bytes);
            if bytes == ek_bytes {
                assert!(parsed.is_some_and(|ek| ek == *dk.encapsulation_key()));
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let seed: [u8; 32] = padded(rest);
    let rest = rest.get(32..).unwrap_or_default();
    let mode = (selector / 3) % 4;
    match selector % 3 {
        0 => run::<XWingRef>(mode, &seed, rest),
        1 => run::<P256Ref>(mode, &seed, rest),
        _ => run::<P384Ref>(mode, &seed, rest),
    }
});
