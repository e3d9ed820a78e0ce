//! [`KemUnderTest`](crate::kem::KemUnderTest) adapters for peer ML-KEM implementations
//! (feature `peers`).
//!
//! | label | crate | API used | deterministic |
//! |---|---|---|---|
//! | `libcrux` | `libcrux-ml-kem` (Cryspen; AVX2 when the CPU has it) | `generate_key_pair(seed)`, `encapsulate(pk, m)`, `decapsulate`; parsed keys: its `unpacked` API | yes |
//! | `rustcrypto` | `ml-kem` (RustCrypto, `hazmat`) | `DecapsulationKey::from_seed`, `EncapsulationKey::encapsulate_deterministic` | yes |
//! | `aws-lc-rs` | `aws-lc-rs` (AWS-LC, C and assembly) | `kem::DecapsulationKey::generate`, `EncapsulationKey::encapsulate` | **no**: randomized API only |
//! | `pqcrypto` | `pqcrypto-mlkem` (PQClean, C; AVX2 when the CPU has it) | `keypair`, `encapsulate`, `decapsulate` | **no**: randomized API only |
//! | `graviola` | `graviola` (ML-KEM-768 only; x86_64: AVX2 assembly arithmetic, AVX-512 Keccak when the CPU has it) | `DecapKey::keygen_internal`, `EncapKey::encaps_internal`, `DecapKey::decaps_internal` | yes |
//!
//! Randomized libraries ignore the seed and message: their `keygen` and `encaps` figures
//! include drawing 64 / 32 bytes from their own RNG (aws-lc-rs: AWS-LC's DRBG; PQClean:
//! `randombytes`, i.e. the OS through `getrandom`), which a deterministic call does not pay.
//! Decapsulation is deterministic everywhere, so every library decapsulates exactly the same
//! ciphertext with exactly the same key.
//!
//! "From bytes" figures use each library's own parsing, with the FIPS 203 input checks
//! where the library offers them: libcrux's packed functions do not check keys, so its
//! `*_from_bytes` adapters call `validate_public_key` / `validate_private_key` first (as
//! FIPS 203 sections 7.2 and 7.3 require). PQClean's API takes raw byte arrays, so its
//! "parsed" and "from bytes" figures differ only by a copy.
//!
//! graviola ([`ml_kem_768::Graviola`], x86_64 and aarch64 builds only) offers ML-KEM-768
//! alone, and cannot import an expanded decapsulation key: it has no `decaps_from_bytes`
//! figure ([`KemUnderTest::supports`](crate::kem::KemUnderTest::supports)), and its parsed
//! decapsulation key comes from the seed, as for ours and RustCrypto. Its deterministic
//! entry points are `#[doc(hidden)]`; unlike its public `generate` / `encaps` / `decaps`,
//! they skip its per-call entry guard (a CPU-feature assertion, and `vzeroall` on exit from
//! a secret operation), so the adapter reports the library unavailable on CPUs without the
//! features it needs instead of letting it fault.

/// libcrux's parsed keys come from its `unpacked` API, which is not multiplexed: pick the
/// AVX2 instantiation when the CPU has AVX2 (the condition libcrux's own multiplexing uses)
/// and the portable one otherwise.
#[cfg(target_arch = "x86_64")]
fn libcrux_avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// A parsed (unpacked) libcrux key, in the instantiation chosen when it was parsed.
#[derive(Clone)]
pub enum LibcruxKey<A, P> {
    /// AVX2 instantiation.
    #[cfg(target_arch = "x86_64")]
    Avx2(A),
    /// Portable instantiation.
    Portable(P),
}

/// graviola's ML-KEM-768 (the only parameter set it offers), re-exported by [`ml_kem_768`].
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod graviola_768 {
    use crate::kem::{KemUnderTest, Operation};
    use graviola::key_agreement::mlkem768::{
        Ciphertext, DecapKey, EncapKey, Message, SharedSecret,
    };

    /// graviola, through its deterministic (`*_internal`) entry points. No
    /// `decaps_from_bytes`: graviola cannot import an expanded decapsulation key.
    #[derive(Clone, Copy, Debug)]
    pub struct Graviola;

    impl KemUnderTest for Graviola {
        const NAME: &'static str = "graviola";
        const DETERMINISTIC: bool = true;
        type KeyPair = DecapKey;
        type Ek = EncapKey;
        type Dk = DecapKey;
        type Ct = Ciphertext;
        type Ss = SharedSecret;

        #[inline]
        fn keygen(seed: &[u8; 64]) -> Self::KeyPair {
            DecapKey::keygen_internal(seed)
        }

        fn key_pair_bytes(key_pair: &Self::KeyPair) -> (Vec<u8>, Vec<u8>) {
            (
                key_pair.encapsulation_key().as_bytes().to_vec(),
                key_pair.as_bytes().to_vec(),
            )
        }

        #[inline]
        fn parse_ek(ek: &[u8]) -> Self::Ek {
            EncapKey::from_bytes(ek.try_into().expect("ek length"))
                .expect("valid encapsulation key")
        }

        #[inline]
        fn encaps(ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
            // `encaps_internal` consumes the key, so each call encapsulates to a clone: this
            // adds a 1184-byte copy to graviola's parsed-key figure (tens of nanoseconds,
            // against microseconds for the operation). Its parsed key is the checked
            // encoding itself (t-hat and rho bytes, nothing precomputed: A-hat is expanded
            // again on every call), so its `encaps` and `encaps_from_bytes` figures differ by
            // little more than the modulus check of `EncapKey::from_bytes`.
            let (ss, ct) = ek.clone().encaps_internal(Message(*m));
            (ct, ss)
        }

        #[inline]
        fn encaps_from_bytes(ek: &[u8], m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
            let (ss, ct) = Self::parse_ek(ek).encaps_internal(Message(*m));
            (ct, ss)
        }

        #[inline]
        fn parse_dk(seed: &[u8; 64], _dk: &[u8]) -> Self::Dk {
            DecapKey::keygen_internal(seed)
        }

        #[inline]
        fn parse_ct(ct: &[u8]) -> Self::Ct {
            Ciphertext::from(<[u8; 1088]>::try_from(ct).expect("ct length"))
        }

        #[inline]
        fn decaps(dk: &Self::Dk, ct: &Self::Ct) -> Self::Ss {
            dk.decaps_internal(ct)
        }

        fn decaps_from_bytes(_dk: &[u8], _ct: &[u8]) -> Self::Ss {
            unreachable!("graviola cannot import an expanded decapsulation key")
        }

        fn ct_bytes(ct: &Self::Ct) -> &[u8] {
            ct.as_ref()
        }

        fn ss_bytes(ss: &Self::Ss) -> &[u8] {
            ss.as_ref()
        }

        fn supports(operation: Operation) -> bool {
            operation != Operation::DecapsFromBytes
        }

        fn available() -> bool {
            graviola::util::is_cpu_supported()
        }
    }
}

/// Implements `KemUnderTest` for libcrux; `$lc` is a module re-exporting one parameter
/// set's items under set-independent names.
macro_rules! libcrux {
    ($(#[$doc:meta])* $name:ident, $lc:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;

        impl KemUnderTest for $name {
            const NAME: &'static str = "libcrux";
            const DETERMINISTIC: bool = true;
            type KeyPair = $lc::KeyPair;
            type Ek = LibcruxKey<$lc::Avx2Ek, $lc::PortableEk>;
            type Dk = LibcruxKey<$lc::Avx2Dk, $lc::PortableDk>;
            type Ct = $lc::Ciphertext;
            type Ss = [u8; 32];

            #[inline]
            fn keygen(seed: &[u8; 64]) -> Self::KeyPair {
                $lc::generate_key_pair(*seed)
            }

            fn key_pair_bytes(key_pair: &Self::KeyPair) -> (Vec<u8>, Vec<u8>) {
                (key_pair.pk().to_vec(), key_pair.sk().to_vec())
            }

            #[inline]
            fn parse_ek(ek: &[u8]) -> Self::Ek {
                let ek = $lc::PublicKey::try_from(ek).expect("ek length");
                assert!($lc::validate_public_key(&ek), "invalid encapsulation key");
                #[cfg(target_arch = "x86_64")]
                if libcrux_avx2() {
                    let mut unpacked = $lc::avx2::unpacked::init_public_key();
                    $lc::avx2::unpacked::unpacked_public_key(&ek, &mut unpacked);
                    return LibcruxKey::Avx2(unpacked);
                }
                let mut unpacked = $lc::portable::unpacked::init_public_key();
                $lc::portable::unpacked::unpacked_public_key(&ek, &mut unpacked);
                LibcruxKey::Portable(unpacked)
            }

            #[inline]
            fn encaps(ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                match ek {
                    #[cfg(target_arch = "x86_64")]
                    LibcruxKey::Avx2(ek) => $lc::avx2::unpacked::encapsulate(ek, *m),
                    LibcruxKey::Portable(ek) => $lc::portable::unpacked::encapsulate(ek, *m),
                }
            }

            #[inline]
            fn encaps_from_bytes(ek: &[u8], m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                let ek = $lc::PublicKey::try_from(ek).expect("ek length");
                assert!($lc::validate_public_key(&ek), "invalid encapsulation key");
                $lc::encapsulate(&ek, *m)
            }

            #[inline]
            fn parse_dk(_seed: &[u8; 64], dk: &[u8]) -> Self::Dk {
                let dk = $lc::PrivateKey::try_from(dk).expect("dk length");
                #[cfg(target_arch = "x86_64")]
                if libcrux_avx2() {
                    let mut unpacked = $lc::avx2::unpacked::init_key_pair();
                    $lc::avx2::unpacked::key_pair_from_private_mut(&dk, &mut unpacked);
                    return LibcruxKey::Avx2(unpacked);
                }
                let mut unpacked = $lc::portable::unpacked::init_key_pair();
                $lc::portable::unpacked::key_pair_from_private_mut(&dk, &mut unpacked);
                LibcruxKey::Portable(unpacked)
            }

            #[inline]
            fn parse_ct(ct: &[u8]) -> Self::Ct {
                $lc::Ciphertext::try_from(ct).expect("ct length")
            }

            #[inline]
            fn decaps(dk: &Self::Dk, ct: &Self::Ct) -> Self::Ss {
                match dk {
                    #[cfg(target_arch = "x86_64")]
                    LibcruxKey::Avx2(dk) => $lc::avx2::unpacked::decapsulate(dk, ct),
                    LibcruxKey::Portable(dk) => $lc::portable::unpacked::decapsulate(dk, ct),
                }
            }

            #[inline]
            fn decaps_from_bytes(dk: &[u8], ct: &[u8]) -> Self::Ss {
                let dk = $lc::PrivateKey::try_from(dk).expect("dk length");
                let ct = Self::parse_ct(ct);
                assert!($lc::validate_private_key(&dk, &ct), "invalid decapsulation key");
                $lc::decapsulate(&dk, &ct)
            }

            fn ct_bytes(ct: &Self::Ct) -> &[u8] {
                ct.as_ref()
            }

            fn ss_bytes(ss: &Self::Ss) -> &[u8] {
                ss
            }
        }
    };
}

macro_rules! rustcrypto {
    ($(#[$doc:meta])* $name:ident, $set:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;

        #[allow(deprecated)] // the expanded dk encoding: the common input of every library
        impl KemUnderTest for $name {
            const NAME: &'static str = "rustcrypto";
            const DETERMINISTIC: bool = true;
            type KeyPair = ml_kem::$set::DecapsulationKey;
            type Ek = ml_kem::$set::EncapsulationKey;
            type Dk = ml_kem::$set::DecapsulationKey;
            type Ct = ml_kem::$set::Ciphertext;
            type Ss = ml_kem::SharedKey;

            #[inline]
            fn keygen(seed: &[u8; 64]) -> Self::KeyPair {
                Self::Dk::from_seed(ml_kem::Seed::from(*seed))
            }

            fn key_pair_bytes(key_pair: &Self::KeyPair) -> (Vec<u8>, Vec<u8>) {
                use ml_kem::{ExpandedKeyEncoding as _, KeyExport as _};
                (
                    key_pair.encapsulation_key().to_bytes().to_vec(),
                    key_pair.to_expanded_bytes().to_vec(),
                )
            }

            #[inline]
            fn parse_ek(ek: &[u8]) -> Self::Ek {
                let ek = ml_kem::array::Array::try_from(ek).expect("ek length");
                Self::Ek::new(&ek).expect("valid encapsulation key")
            }

            #[inline]
            fn encaps(ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                ek.encapsulate_deterministic(&ml_kem::B32::from(*m))
            }

            #[inline]
            fn encaps_from_bytes(ek: &[u8], m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                Self::parse_ek(ek).encapsulate_deterministic(&ml_kem::B32::from(*m))
            }

            #[inline]
            fn parse_dk(seed: &[u8; 64], _dk: &[u8]) -> Self::Dk {
                Self::keygen(seed)
            }

            #[inline]
            fn parse_ct(ct: &[u8]) -> Self::Ct {
                Self::Ct::try_from(ct).expect("ct length")
            }

            #[inline]
            fn decaps(dk: &Self::Dk, ct: &Self::Ct) -> Self::Ss {
                use ml_kem::Decapsulate as _;
                dk.decapsulate(ct)
            }

            #[inline]
            fn decaps_from_bytes(dk: &[u8], ct: &[u8]) -> Self::Ss {
                use ml_kem::{Decapsulate as _, ExpandedKeyEncoding as _};
                let dk = ml_kem::array::Array::try_from(dk).expect("dk length");
                let dk = Self::Dk::from_expanded_bytes(&dk).expect("valid decapsulation key");
                dk.decapsulate(&Self::parse_ct(ct))
            }

            fn ct_bytes(ct: &Self::Ct) -> &[u8] {
                ct.as_slice()
            }

            fn ss_bytes(ss: &Self::Ss) -> &[u8] {
                ss.as_slice()
            }
        }
    };
}

macro_rules! aws_lc {
    ($(#[$doc:meta])* $name:ident, $alg:ident) => {
        $(#[$doc])*
        ///
        /// aws-lc-rs only offers a randomized API (no seeded key generation, no caller-chosen
        /// encapsulation message): `keygen` ignores the seed, `encaps` the message.
        #[derive(Clone, Copy, Debug)]
        pub struct $name;

        impl KemUnderTest for $name {
            const NAME: &'static str = "aws-lc-rs";
            const DETERMINISTIC: bool = false;
            type KeyPair = aws_lc_rs::kem::DecapsulationKey;
            type Ek = aws_lc_rs::kem::EncapsulationKey;
            type Dk = aws_lc_rs::kem::DecapsulationKey;
            type Ct = Vec<u8>;
            type Ss = aws_lc_rs::kem::SharedSecret;

            #[inline]
            fn keygen(_seed: &[u8; 64]) -> Self::KeyPair {
                aws_lc_rs::kem::DecapsulationKey::generate(&aws_lc_rs::kem::$alg)
                    .expect("aws-lc key generation")
            }

            fn key_pair_bytes(key_pair: &Self::KeyPair) -> (Vec<u8>, Vec<u8>) {
                let ek = key_pair.encapsulation_key().expect("aws-lc ek");
                (
                    ek.key_bytes().expect("aws-lc ek bytes").as_ref().to_vec(),
                    key_pair.key_bytes().expect("aws-lc dk bytes").as_ref().to_vec(),
                )
            }

            #[inline]
            fn parse_ek(ek: &[u8]) -> Self::Ek {
                aws_lc_rs::kem::EncapsulationKey::new(&aws_lc_rs::kem::$alg, ek)
                    .expect("valid encapsulation key")
            }

            #[inline]
            fn encaps(ek: &Self::Ek, _m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                let (ct, ss) = ek.encapsulate().expect("aws-lc encapsulation");
                // Moving the ciphertext out of aws-lc's type costs one allocation and copy of
                // ~1 KB, far below the cost of the operation.
                (ct.as_ref().to_vec(), ss)
            }

            #[inline]
            fn encaps_from_bytes(ek: &[u8], m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                Self::encaps(&Self::parse_ek(ek), m)
            }

            #[inline]
            fn parse_dk(_seed: &[u8; 64], dk: &[u8]) -> Self::Dk {
                aws_lc_rs::kem::DecapsulationKey::new(&aws_lc_rs::kem::$alg, dk)
                    .expect("valid decapsulation key")
            }

            #[inline]
            fn parse_ct(ct: &[u8]) -> Self::Ct {
                ct.to_vec()
            }

            #[inline]
            fn decaps(dk: &Self::Dk, ct: &Self::Ct) -> Self::Ss {
                dk.decapsulate(aws_lc_rs::kem::Ciphertext::from(ct.as_slice()))
                    .expect("aws-lc decapsulation")
            }

            #[inline]
            fn decaps_from_bytes(dk: &[u8], ct: &[u8]) -> Self::Ss {
                Self::parse_dk(&[0; 64], dk)
                    .decapsulate(aws_lc_rs::kem::Ciphertext::from(ct))
                    .expect("aws-lc decapsulation")
            }

            fn ct_bytes(ct: &Self::Ct) -> &[u8] {
                ct
            }

            fn ss_bytes(ss: &Self::Ss) -> &[u8] {
                ss.as_ref()
            }
        }
    };
}

macro_rules! pqclean {
    ($(#[$doc:meta])* $name:ident, $set:ident) => {
        $(#[$doc])*
        ///
        /// pqcrypto-mlkem (PQClean) only offers a randomized API (`keypair()`,
        /// `encapsulate(pk)`): `keygen` ignores the seed, `encaps` the message.
        #[derive(Clone, Copy, Debug)]
        pub struct $name;

        impl KemUnderTest for $name {
            const NAME: &'static str = "pqcrypto";
            const DETERMINISTIC: bool = false;
            type KeyPair = (pqcrypto_mlkem::$set::PublicKey, pqcrypto_mlkem::$set::SecretKey);
            type Ek = pqcrypto_mlkem::$set::PublicKey;
            type Dk = pqcrypto_mlkem::$set::SecretKey;
            type Ct = pqcrypto_mlkem::$set::Ciphertext;
            type Ss = pqcrypto_mlkem::$set::SharedSecret;

            #[inline]
            fn keygen(_seed: &[u8; 64]) -> Self::KeyPair {
                pqcrypto_mlkem::$set::keypair()
            }

            fn key_pair_bytes(key_pair: &Self::KeyPair) -> (Vec<u8>, Vec<u8>) {
                use pqcrypto_traits::kem::{PublicKey as _, SecretKey as _};
                (key_pair.0.as_bytes().to_vec(), key_pair.1.as_bytes().to_vec())
            }

            #[inline]
            fn parse_ek(ek: &[u8]) -> Self::Ek {
                use pqcrypto_traits::kem::PublicKey as _;
                Self::Ek::from_bytes(ek).expect("ek length")
            }

            #[inline]
            fn encaps(ek: &Self::Ek, _m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                let (ss, ct) = pqcrypto_mlkem::$set::encapsulate(ek);
                (ct, ss)
            }

            #[inline]
            fn encaps_from_bytes(ek: &[u8], m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                Self::encaps(&Self::parse_ek(ek), m)
            }

            #[inline]
            fn parse_dk(_seed: &[u8; 64], dk: &[u8]) -> Self::Dk {
                use pqcrypto_traits::kem::SecretKey as _;
                Self::Dk::from_bytes(dk).expect("dk length")
            }

            #[inline]
            fn parse_ct(ct: &[u8]) -> Self::Ct {
                use pqcrypto_traits::kem::Ciphertext as _;
                Self::Ct::from_bytes(ct).expect("ct length")
            }

            #[inline]
            fn decaps(dk: &Self::Dk, ct: &Self::Ct) -> Self::Ss {
                pqcrypto_mlkem::$set::decapsulate(ct, dk)
            }

            #[inline]
            fn decaps_from_bytes(dk: &[u8], ct: &[u8]) -> Self::Ss {
                pqcrypto_mlkem::$set::decapsulate(&Self::parse_ct(ct), &Self::parse_dk(&[0; 64], dk))
            }

            fn ct_bytes(ct: &Self::Ct) -> &[u8] {
                use pqcrypto_traits::kem::Ciphertext as _;
                ct.as_bytes()
            }

            fn ss_bytes(ss: &Self::Ss) -> &[u8] {
                use pqcrypto_traits::kem::SharedSecret as _;
                ss.as_bytes()
            }
        }
    };
}

use crate::kem::KemUnderTest;

/// What a benchmark does with each peer of a parameter set; `ml_kem_*::visit` calls it for
/// every peer of the set, so the peer lists are written once, here.
pub trait PeerVisitor {
    /// One peer, which runs on this CPU and agrees with ours on the fixture.
    fn visit<L: KemUnderTest>(&mut self);
}

/// Checks `Peer` against `Ours` on `fx` and hands it to `visitor`, or says it does not run
/// on this CPU. A peer that disagrees panics: a benchmark of a wrong result is worthless.
fn visit_one<Peer: KemUnderTest, Ours: KemUnderTest>(
    fx: &crate::kem::Fixture,
    visitor: &mut impl PeerVisitor,
) {
    if Peer::available() {
        if let Err(message) = crate::kem::check::<Peer, Ours>(fx) {
            panic!("{message}");
        }
        visitor.visit::<Peer>();
    } else {
        eprintln!("{} does not run on this CPU: not measured", Peer::NAME);
    }
}

/// Generates the per-set module of peer adapters.
macro_rules! parameter_set {
    (
        $(#[$doc:meta])* $module:ident,
        libcrux: $lc_set:ident ($pk:ident, $sk:ident, $ct:ident, $kp:ident, $upk:ident, $ukp:ident),
        rustcrypto: $rc_set:ident,
        aws_lc: $alg:ident,
        pqclean: $pq_set:ident
        $(, more: { $($more:item)* } [$($(#[$mcfg:meta])* $more_peer:ident),*])? $(,)?
    ) => {
        $(#[$doc])*
        pub mod $module {
            use super::LibcruxKey;
            #[cfg(target_arch = "x86_64")]
            use super::libcrux_avx2;
            use crate::kem::KemUnderTest;

            /// This set's libcrux items under set-independent names.
            mod lc {
                #[cfg(target_arch = "x86_64")]
                pub(super) use libcrux_ml_kem::$lc_set::avx2;
                pub(super) use libcrux_ml_kem::$lc_set::{
                    $ct as Ciphertext, $kp as KeyPair, $pk as PublicKey, $sk as PrivateKey,
                    decapsulate, encapsulate, generate_key_pair, portable, validate_private_key,
                    validate_public_key,
                };
                pub(super) type PortableEk = portable::unpacked::$upk;
                pub(super) type PortableDk = portable::unpacked::$ukp;
                #[cfg(target_arch = "x86_64")]
                pub(super) type Avx2Ek = avx2::unpacked::$upk;
                #[cfg(target_arch = "x86_64")]
                pub(super) type Avx2Dk = avx2::unpacked::$ukp;
                #[cfg(not(target_arch = "x86_64"))]
                pub(super) type Avx2Ek = ();
                #[cfg(not(target_arch = "x86_64"))]
                pub(super) type Avx2Dk = ();
            }

            libcrux!(
                /// libcrux-ml-kem.
                Libcrux,
                lc
            );
            rustcrypto!(
                /// RustCrypto `ml-kem`.
                RustCrypto,
                $rc_set
            );
            aws_lc!(
                /// aws-lc-rs.
                AwsLc,
                $alg
            );
            pqclean!(
                /// pqcrypto-mlkem (PQClean).
                PqClean,
                $pq_set
            );
            $($($more)*)?

            /// Every peer of this set, in table order, checked against `Ours` on `fx` and
            /// handed to `visitor` (those that do not run on this CPU are left out).
            pub fn visit<Ours: KemUnderTest>(
                fx: &crate::kem::Fixture,
                visitor: &mut impl super::PeerVisitor,
            ) {
                super::visit_one::<Libcrux, Ours>(fx, visitor);
                super::visit_one::<RustCrypto, Ours>(fx, visitor);
                super::visit_one::<AwsLc, Ours>(fx, visitor);
                super::visit_one::<PqClean, Ours>(fx, visitor);
                $($(
                    $(#[$mcfg])*
                    super::visit_one::<$more_peer, Ours>(fx, visitor);
                )*)?
            }
        }
    };
}

parameter_set!(
    /// ML-KEM-512 peers.
    ml_kem_512,
    libcrux: mlkem512 (
        MlKem512PublicKey, MlKem512PrivateKey, MlKem512Ciphertext, MlKem512KeyPair,
        MlKem512PublicKeyUnpacked, MlKem512KeyPairUnpacked
    ),
    rustcrypto: ml_kem_512,
    aws_lc: ML_KEM_512,
    pqclean: mlkem512,
);
parameter_set!(
    /// ML-KEM-768 peers.
    ml_kem_768,
    libcrux: mlkem768 (
        MlKem768PublicKey, MlKem768PrivateKey, MlKem768Ciphertext, MlKem768KeyPair,
        MlKem768PublicKeyUnpacked, MlKem768KeyPairUnpacked
    ),
    rustcrypto: ml_kem_768,
    aws_lc: ML_KEM_768,
    pqclean: mlkem768,
    more: {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        pub use super::graviola_768::Graviola;
    } [
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        Graviola
    ],
);
parameter_set!(
    /// ML-KEM-1024 peers.
    ml_kem_1024,
    libcrux: mlkem1024 (
        MlKem1024PublicKey, MlKem1024PrivateKey, MlKem1024Ciphertext, MlKem1024KeyPair,
        MlKem1024PublicKeyUnpacked, MlKem1024KeyPairUnpacked
    ),
    rustcrypto: ml_kem_1024,
    aws_lc: ML_KEM_1024,
    pqclean: mlkem1024,
);

/// RustCrypto `x-wing` 0.1 (X-Wing, ML-KEM-768 + X25519): its closures for the X-Wing rows
/// of `kem_compare`, in the order keygen, encaps, encaps_from_bytes, decaps,
/// decaps_from_bytes, after checking that it agrees with ours on the fixture. Its
/// decapsulation key holds only the seed, so its decapsulation expands the key each time.
#[must_use]
pub fn xwing_cells<'a>(
    seed: &'a [u8; 32],
    eseed: &'a [u8; 64],
    ek: &'a [u8],
    ct: &'a [u8],
) -> Vec<(crate::kem::Operation, Box<dyn FnMut() + 'a>)> {
    use crate::kem::Operation;
    use kem::{Decapsulate, Decapsulator, TryKeyInit};
    use std::hint::black_box;
    let dk = x_wing::DecapsulationKey::from(*seed);
    let parsed = x_wing::EncapsulationKey::new_from_slice(ek).expect("x-wing parses our key");
    assert_eq!(dk.encapsulation_key(), &parsed, "x-wing: same key as ours");
    let (their_ct, _) = parsed.encapsulate_deterministic(&(*eseed).into());
    assert_eq!(their_ct.as_slice(), ct, "x-wing: same ciphertext as ours");
    let ct: x_wing::Ciphertext = ct.try_into().expect("1120 bytes");
    let ours = lazykem_hybrid::x_wing::DecapsulationKey::from_seed(seed)
        .expect("X-Wing keys never fail")
        .decapsulate(
            &lazykem_hybrid::x_wing::Ciphertext::from_bytes(ct.as_slice()).expect("length"),
        );
    assert_eq!(
        dk.decapsulate(&ct).as_slice(),
        ours.as_bytes(),
        "x-wing: same secret"
    );
    let eseed_array = kem::common::array::Array::from(*eseed);
    let eseed2 = eseed_array;
    let ct2 = ct;
    let dk2 = x_wing::DecapsulationKey::from(*seed);
    vec![
        (
            Operation::Keygen,
            Box::new(move || {
                let dk = x_wing::DecapsulationKey::from(black_box(*seed));
                // Its key generation is lazy: the encapsulation key is what costs.
                drop(black_box(dk.encapsulation_key().clone()));
            }),
        ),
        (
            Operation::Encaps,
            Box::new(move || {
                black_box(parsed.encapsulate_deterministic(black_box(&eseed_array)));
            }),
        ),
        (
            Operation::EncapsFromBytes,
            Box::new(move || {
                let ek = x_wing::EncapsulationKey::new_from_slice(black_box(ek)).expect("valid");
                black_box(ek.encapsulate_deterministic(black_box(&eseed2)));
            }),
        ),
        (
            Operation::Decaps,
            Box::new(move || {
                black_box(dk2.decapsulate(black_box(&ct2)));
            }),
        ),
        (
            Operation::DecapsFromBytes,
            Box::new(move || {
                let dk = x_wing::DecapsulationKey::from(black_box(*seed));
                black_box(dk.decapsulate(black_box(&ct)));
            }),
        ),
    ]
}

/// libcrux's X-Wing (`libcrux-kem` 0.0.10, `XWingKemDraft06`): its closures for the X-Wing
/// rows of `kem_compare`, as [`xwing_cells`], after checking that it agrees with ours. Its
/// private key is the seed, so its decapsulation expands the key each time.
#[must_use]
pub fn libcrux_xwing_cells<'a>(
    seed: &'a [u8; 32],
    eseed: &'a [u8; 64],
    ek: &'a [u8],
    ct: &'a [u8],
) -> Vec<(crate::kem::Operation, Box<dyn FnMut() + 'a>)> {
    use crate::kem::Operation;
    use libcrux_kem::{Algorithm, Ct, PrivateKey, PublicKey, key_gen_derand};
    use std::hint::black_box;
    const ALG: Algorithm = Algorithm::XWingKemDraft06;
    let (sk, pk) = key_gen_derand(ALG, seed).expect("libcrux key generation");
    assert_eq!(pk.encode(), ek, "libcrux: same key as ours");
    let parsed = PublicKey::decode(ALG, ek).expect("libcrux parses our key");
    let (_, their_ct) = parsed
        .encapsulate_derand(eseed)
        .expect("libcrux encapsulation");
    assert_eq!(their_ct.encode(), ct, "libcrux: same ciphertext as ours");
    let ours = lazykem_hybrid::x_wing::DecapsulationKey::from_seed(seed)
        .expect("X-Wing keys never fail")
        .decapsulate(&lazykem_hybrid::x_wing::Ciphertext::from_bytes(ct).expect("length"));
    let their_ct = Ct::decode(ALG, ct).expect("libcrux parses our ciphertext");
    assert_eq!(
        their_ct
            .decapsulate(&sk)
            .expect("libcrux decapsulation")
            .encode(),
        ours.as_bytes(),
        "libcrux: same secret"
    );
    vec![
        (
            Operation::Keygen,
            Box::new(move || drop(black_box(key_gen_derand(ALG, black_box(seed))))),
        ),
        (
            Operation::Encaps,
            Box::new(move || drop(black_box(parsed.encapsulate_derand(black_box(eseed))))),
        ),
        (
            Operation::EncapsFromBytes,
            Box::new(move || {
                let pk = PublicKey::decode(ALG, black_box(ek)).expect("valid");
                drop(black_box(pk.encapsulate_derand(black_box(eseed))));
            }),
        ),
        (
            Operation::Decaps,
            Box::new(move || drop(black_box(their_ct.decapsulate(black_box(&sk))))),
        ),
        (
            Operation::DecapsFromBytes,
            Box::new(move || {
                let sk = PrivateKey::decode(ALG, black_box(seed)).expect("valid");
                let ct = Ct::decode(ALG, black_box(ct)).expect("valid");
                drop(black_box(ct.decapsulate(&sk)));
            }),
        ),
    ]
}

/// An RNG that hands out the given bytes, from the start again when they run out: the
/// encapsulation randomness of the fixture, for a peer that takes only an RNG.
struct Replay<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl hpke::rand_core::TryRng for Replay<'_> {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut word = [0; 4];
        self.try_fill_bytes(&mut word)?;
        Ok(u32::from_le_bytes(word))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut word = [0; 8];
        self.try_fill_bytes(&mut word)?;
        Ok(u64::from_le_bytes(word))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for byte in dst {
            *byte = self.bytes[self.at % self.bytes.len()];
            self.at += 1;
        }
        Ok(())
    }
}

impl hpke::rand_core::TryCryptoRng for Replay<'_> {}

/// rust-hpke 0.15's hybrid KEM `K` (MLKEM768-P256 or MLKEM1024-P384: RustCrypto `ml-kem`,
/// `p256` / `p384`, `sha3`) through its `Kem` trait alone: its closures for the rows of the
/// same hybrid `H` in `kem_compare`, as [`xwing_cells`], after checking that it derives our
/// encapsulation key from the seed and that each side decapsulates the other's ciphertext
/// to the same secret. Its encapsulation draws its randomness from an RNG (here one
/// replaying `eseed`); its private key is the seed, expanded when parsed (keygen is that
/// parse), and its decapsulation checks the ciphertext's point and recomputes its own
/// public point each time.
#[must_use]
pub fn hpke_hybrid_cells<'a, K, H>(
    seed: &'a [u8; 32],
    eseed: &'a [u8],
    ek: &'a [u8],
    ct: &'a [u8],
) -> Vec<(crate::kem::Operation, Box<dyn FnMut() + 'a>)>
where
    K: hpke::Kem + 'static,
    H: lazykem_hybrid::HybridKem,
{
    use crate::kem::Operation;
    use hpke::{Deserializable, Serializable};
    use std::hint::black_box;
    let sk = K::PrivateKey::from_bytes(seed).expect("hpke takes the 32-byte seed");
    let pk = K::PublicKey::from_bytes(ek).expect("hpke parses our key");
    assert_eq!(
        K::sk_to_pk(&sk).to_bytes().as_slice(),
        ek,
        "hpke: same key as ours"
    );
    let ours = lazykem_hybrid::DecapsulationKey::<H>::from_seed(seed).expect("our key");
    let our_ct = lazykem_hybrid::Ciphertext::<H>::from_bytes(ct).expect("our ciphertext");
    let our_secret = ours.decapsulate(&our_ct);
    let encapped = K::EncappedKey::from_bytes(ct).expect("hpke parses our ciphertext");
    let theirs = K::decap(&sk, None, &encapped).expect("hpke decapsulates");
    assert_eq!(
        theirs.0.as_slice(),
        our_secret.as_bytes(),
        "hpke: same secret"
    );
    let (their_secret, their_ct) = K::encap_with_rng(
        &pk,
        None,
        &mut Replay {
            bytes: eseed,
            at: 0,
        },
    )
    .expect("hpke encapsulates");
    let their_ct = lazykem_hybrid::Ciphertext::<H>::from_bytes(&their_ct.to_bytes())
        .expect("we parse hpke's ciphertext");
    assert_eq!(
        ours.decapsulate(&their_ct).as_bytes(),
        their_secret.0.as_slice(),
        "hpke: we decapsulate its ciphertext"
    );
    let pk2 = pk.clone();
    vec![
        (
            Operation::Keygen,
            Box::new(move || drop(black_box(K::PrivateKey::from_bytes(black_box(seed))))),
        ),
        (
            Operation::Encaps,
            Box::new(move || {
                let mut rng = Replay {
                    bytes: black_box(eseed),
                    at: 0,
                };
                drop(black_box(K::encap_with_rng(&pk2, None, &mut rng)));
            }),
        ),
        (
            Operation::EncapsFromBytes,
            Box::new(move || {
                let pk = K::PublicKey::from_bytes(black_box(ek)).expect("valid");
                let mut rng = Replay {
                    bytes: black_box(eseed),
                    at: 0,
                };
                drop(black_box(K::encap_with_rng(&pk, None, &mut rng)));
            }),
        ),
        (
            Operation::Decaps,
            Box::new(move || drop(black_box(K::decap(&sk, None, black_box(&encapped))))),
        ),
        (
            Operation::DecapsFromBytes,
            Box::new(move || {
                let sk = K::PrivateKey::from_bytes(black_box(seed)).expect("valid");
                let ct = K::EncappedKey::from_bytes(black_box(ct)).expect("valid");
                drop(black_box(K::decap(&sk, None, &ct)));
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use crate::kem::{Fixture, Ours512, Ours768, Ours1024, check};

    macro_rules! check_set {
        ($test:ident, $ours:ty, $set:literal, $peers:ident) => {
            #[test]
            fn $test() {
                let fx = Fixture::new::<$ours>($set);
                check::<super::$peers::Libcrux, $ours>(&fx).unwrap();
                check::<super::$peers::RustCrypto, $ours>(&fx).unwrap();
                check::<super::$peers::AwsLc, $ours>(&fx).unwrap();
                check::<super::$peers::PqClean, $ours>(&fx).unwrap();
            }
        };
    }

    check_set!(peers_agree_512, Ours512, "ML-KEM-512", ml_kem_512);
    check_set!(peers_agree_768, Ours768, "ML-KEM-768", ml_kem_768);
    check_set!(peers_agree_1024, Ours1024, "ML-KEM-1024", ml_kem_1024);

    /// rust-hpke's hybrids agree with ours (the checks of `hpke_hybrid_cells`), and the
    /// closures run.
    fn hpke_agrees<K: hpke::Kem + 'static, H: lazykem_hybrid::HybridKem>(tag: u64) {
        let seed = crate::inputs::bytes::<32>(tag);
        let eseed = crate::inputs::bytes::<160>(tag + 1)
            [..lazykem_hybrid::encapsulation_randomness_size::<H>()]
            .to_vec();
        let dk = lazykem_hybrid::DecapsulationKey::<H>::from_seed(&seed).unwrap();
        let (ct, _) = dk
            .encapsulation_key()
            .encapsulate_deterministic(&eseed)
            .unwrap();
        let ek = dk.encapsulation_key().as_ref().to_vec();
        for (_, mut run) in super::hpke_hybrid_cells::<K, H>(&seed, &eseed, &ek, ct.as_ref()) {
            run();
        }
    }

    #[test]
    fn hpke_agrees_p256_and_p384() {
        hpke_agrees::<hpke::kem::MlKem768P256, lazykem_hybrid::MlKem768P256>(1);
        hpke_agrees::<hpke::kem::MlKem1024P384, lazykem_hybrid::MlKem1024P384>(2);
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn graviola_agrees_768() {
        use super::ml_kem_768::Graviola;
        use crate::kem::{KemUnderTest as _, Operation};
        assert!(!Graviola::supports(Operation::DecapsFromBytes));
        if !Graviola::available() {
            eprintln!("graviola does not run on this CPU: not checked");
            return;
        }
        check::<Graviola, Ours768>(&Fixture::new::<Ours768>("ML-KEM-768")).unwrap();
    }
}
