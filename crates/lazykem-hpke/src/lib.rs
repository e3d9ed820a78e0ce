//! HPKE, Hybrid Public Key Encryption (RFC 9180, as `draft-ietf-hpke-hpke` updates it), with
//! the post-quantum KEMs of `draft-ietf-hpke-pq` (ML-KEM on the `lazykem` crate) and the
//! one-stage SHAKE and TurboSHAKE KDFs, in the Base and PSK modes.
//!
//! ```
//! use lazykem_hpke::{AeadId, KdfId, KemId, Suite};
//!
//! # fn main() -> Result<(), lazykem_hpke::Error> {
//! let mut rng = rand::rng();
//! let suite = Suite::new(KemId::MlKem768, KdfId::HkdfSha256, AeadId::Aes128Gcm);
//!
//! // Recipient: a key pair; publish the public key.
//! let (sk, pk) = suite.generate_key_pair(&mut rng)?;
//!
//! // Sender: set up a context to the public key, seal two messages.
//! let (enc, mut sender) = suite.setup_sender(&pk, b"app info", &mut rng)?;
//! let ct0 = sender.seal(b"header 0", b"first message")?;
//! let ct1 = sender.seal(b"header 1", b"second message")?;
//!
//! // Recipient: the same context from `enc`; open in order.
//! let mut receiver = suite.setup_receiver(&sk, &enc, b"app info")?;
//! assert_eq!(receiver.open(b"header 0", &ct0)?, b"first message");
//! assert_eq!(receiver.open(b"header 1", &ct1)?, b"second message");
//!
//! // Both sides can export the same secrets.
//! assert_eq!(*sender.export(b"label", 32)?, *receiver.export(b"label", 32)?);
//! # Ok(())
//! # }
//! ```
//!
//! # Documents
//! Section numbers in the source and here (greppable tags) are those of:
//!
//! | tag | document |
//! |---|---|
//! | `HPKE §N` | `draft-ietf-hpke-hpke` (editor's copy after -03, hpkewg/hpke `d8cae03`): RFC 9180 with its errata, one-stage KDFs, without the Auth modes. Its sections 5-7 have RFC 9180's numbers; §4.4 (labeled functions) and §4.5 (DHKEM) are RFC 9180's §4 and §4.1 |
//! | `draft-ietf-hpke-pq §N` | `draft-ietf-hpke-pq` (-05 editor's copy, hpkewg/hpke-pq `74dafaa`): ML-KEM (§3), the hybrid KEMs (§4, on draft-irtf-cfrg-concrete-hybrid-kems as `lazykem-hybrid` implements it), SHAKE and TurboSHAKE (§5) |
//! | `RFC 9180 §N` | RFC 9180, where its text is cited as such |
//!
//! The crate's `README.md` maps each section to the code.
//!
//! # What is implemented
//! | | identifiers |
//! |---|---|
//! | KEMs | ML-KEM-512/768/1024 (0x0040-0x0042) on `lazykem`; MLKEM768-P256 (0x0050), MLKEM1024-P384 (0x0051), MLKEM768-X25519 (X-Wing, 0x647a) on `lazykem-hybrid`; DHKEM P-256 (0x0010), P-384 (0x0011), X25519 (0x0020) on `lazykem_hybrid::group`, X448 (0x0021, feature `x448`) |
//! | KDFs | HKDF-SHA256/384/512 (0x0001-0x0003, two-stage); SHAKE128 (0x0010), SHAKE256 (0x0011), TurboSHAKE128 (0x0012), TurboSHAKE256 (0x0013) (one-stage) |
//! | AEADs | AES-128-GCM (0x0001), AES-256-GCM (0x0002), ChaCha20-Poly1305 (0x0003), export-only (0xFFFF) |
//! | modes | Base, PSK (the Auth modes are not in `draft-ietf-hpke-hpke` and not here) |
//!
//! DHKEM(P-521) (0x0012) is not implemented ([`Error::UnknownKem`]).
//!
//! # API
//! A [`Suite`] is three identifiers ([`KemId`], [`KdfId`], [`AeadId`]), usually read from
//! the wire ([`Suite::from_ids`]). Keys are [`PublicKey`] and [`PrivateKey`], each tagged
//! with its KEM and parsed once (an ML-KEM public key keeps its expanded matrix for every
//! encapsulation). The setup functions give a [`SenderContext`] or [`ReceiverContext`];
//! [`Suite::seal`], [`Suite::open`] and their PSK forms are the single-shot API, and
//! [`Suite::send_export`] / [`Suite::receive_export`] the single-shot export.
//!
//! # Errors
//! One error type, [`Error`]: every malformed input (key, `enc`, ciphertext, PSK) and every
//! limit (sequence numbers, export lengths, one-stage input lengths) is a named variant; no
//! input makes a function panic. Sequence numbers never wrap: after `2^96 - 1` messages a
//! context returns [`Error::MessageLimitReached`].
//!
//! # Secrets
//! Private keys, KEM shared secrets, the key schedule's PRKs, `key`, `base_nonce` and
//! `exporter_secret`, and exported values are erased on drop (`zeroize`); the AEAD key
//! schedules by the `aes-gcm` and `chacha20poly1305` crates' `zeroize` features. `Debug`
//! prints none of them. Not erased: the intermediate HMAC blocks inside the `hkdf` crate's
//! `expand` (stack temporaries of that crate).
//!
//! # Features
//! Only `graviola` is on by default; without it (`default-features = false`) the crate is
//! `#![no_std]` and needs only `alloc` (checked on `thumbv7em-none-eabihf`).
//!
//! | feature | what it adds |
//! |---|---|
//! | `graviola` (default) | the DHKEM curves (X25519, P-256, P-384) on graviola's verified assembly where its CPU check passes, through `lazykem_hybrid::group` (links `std`); `x25519-dalek`, `p256` and `p384` otherwise |
//! | `x448` | DHKEM(X448, HKDF-SHA512), on RustCrypto `x448` (a pre-release, pinned) |
//! | `rust-hpke` | the `hpke` crate's (rust-hpke 0.15) `Kem` trait for the six post-quantum KEMs (module [`rust_hpke`]): `hpke`'s key schedule and AEADs with this crate's KEMs |
//! | `hazmat` | deterministic encapsulation ([`PublicKey::encapsulate_deterministic`], `Suite::setup_sender_deterministic`), [`PrivateKey::decapsulate`], and the key schedule's outputs on the contexts (`key`, `base_nonce`, `exporter_secret`, `nonce`), for known-answer tests only; turns on the `hazmat` features of `lazykem` and `lazykem-hybrid` |
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(test)]
extern crate std;

mod aead;
mod context;
mod error;
mod group;
mod ids;
mod kdf;
mod kem;
#[cfg(feature = "rust-hpke")]
pub mod rust_hpke;
mod suite;

pub use context::{ReceiverContext, SenderContext};
pub use error::Error;
pub use ids::{AeadId, KdfId, KemId};
pub use kem::{PrivateKey, PublicKey, SharedSecret};
pub use suite::Suite;

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
