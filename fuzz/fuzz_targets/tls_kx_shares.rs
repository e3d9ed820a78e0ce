//! TLS layer: the key-share parsers of `rustls-lazykem` (draft-ietf-tls-ecdhe-mlkem hybrids,
//! pure ML-KEM and plain ECDHE groups), on both sides of the exchange.
//!
//! A share must be either accepted or rejected with exactly
//! `PeerMisbehaved::InvalidKeyShare` (what rustls answers with `illegal_parameter`), never a
//! panic; an accepted client share must give a server share and a secret of the group's
//! lengths; an untouched share must complete with matching secrets on both sides.
//!
//! Input layout: byte 0 is a selector: `selector % 9` picks the group in `ALL_KX_GROUPS`
//! order, and `(selector / 9) % 4` how the rest becomes a share:
//! - 0: the rest as is, as a client share to the server side and as a server share to a
//!   fresh client (length and content both fuzzed);
//! - 1: a real client share of the group, edited by the rest (below), to the server side;
//! - 2: a real server share answering a real client, edited, to that client;
//! - 3: as 2, completed through `complete_hybrid_component` with a real share of the
//!   hybrid's classical group, edited (plain groups: as 2).
//!
//! Edits (modes 1-3): the rest is read in 4-byte records `offset: u16 LE, value: u8, op: u8`:
//! op % 4 = 0 overwrites the byte at `offset % len`, 1 XORs it, 2 truncates the share to
//! `offset % (len + 1)` bytes, 3 appends `value`. No record leaves the share untouched, and
//! then the secrets must agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rustls::crypto::SupportedKxGroup;
use rustls::{Error, PeerMisbehaved};
use rustls_lazykem::ALL_KX_GROUPS;

const BAD_SHARE: Error = Error::PeerMisbehaved(PeerMisbehaved::InvalidKeyShare);

/// (client share, server share, secret) lengths, in `ALL_KX_GROUPS` order.
const SIZES: [(usize, usize, usize); 9] = [
    (1216, 1120, 64), // X25519MLKEM768
    (1249, 1153, 64), // SecP256r1MLKEM768
    (1665, 1665, 80), // SecP384r1MLKEM1024
    (32, 32, 32),     // X25519
    (65, 65, 32),     // secp256r1
    (97, 97, 48),     // secp384r1
    (1184, 1088, 32), // MLKEM768
    (1568, 1568, 32), // MLKEM1024
    (800, 768, 32),   // MLKEM512
];

/// Applies the edit records; true if there was at least one.
fn edit(share: &mut Vec<u8>, records: &[u8]) -> bool {
    let mut edited = false;
    for record in records.chunks_exact(4) {
        edited = true;
        let offset = usize::from(u16::from_le_bytes([record[0], record[1]]));
        let value = record[2];
        match record[3] % 4 {
            0 if !share.is_empty() => {
                let at = offset % share.len();
                share[at] = value;
            }
            1 if !share.is_empty() => {
                let at = offset % share.len();
                share[at] ^= value;
            }
            2 => share.truncate(offset % (share.len() + 1)),
            3 => share.push(value),
            _ => {}
        }
    }
    edited
}

fn server_side(group: &dyn SupportedKxGroup, index: usize, share: &[u8]) {
    match group.start_and_complete(share) {
        Ok(done) => {
            assert_eq!(
                share.len(),
                SIZES[index].0,
                "accepted a client share of a wrong length"
            );
            assert_eq!(done.pub_key.len(), SIZES[index].1);
            assert_eq!(done.secret.secret_bytes().len(), SIZES[index].2);
        }
        Err(err) => assert_eq!(err, BAD_SHARE),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let index = usize::from(selector) % ALL_KX_GROUPS.len();
    let group = ALL_KX_GROUPS[index];
    match (selector / 9) % 4 {
        0 => {
            server_side(group, index, rest);
            let client = group.start().expect("the OS RNG works");
            match client.complete(rest) {
                Ok(secret) => {
                    assert_eq!(rest.len(), SIZES[index].1);
                    assert_eq!(secret.secret_bytes().len(), SIZES[index].2);
                }
                Err(err) => assert_eq!(err, BAD_SHARE),
            }
        }
        1 => {
            let client = group.start().expect("the OS RNG works");
            let mut share = client.pub_key().to_vec();
            edit(&mut share, rest);
            server_side(group, index, &share);
        }
        mode => {
            let client = group.start().expect("the OS RNG works");
            let component = client.hybrid_component().map(|(name, _)| name);
            let (server, whole) = match (mode, component) {
                (3, Some(name)) => {
                    let plain = ALL_KX_GROUPS
                        .iter()
                        .find(|g| g.name() == name)
                        .expect("the plain group is listed");
                    let (_, part) = client.hybrid_component().expect("a component");
                    (plain.start_and_complete(part).expect("a real share"), false)
                }
                _ => (
                    group
                        .start_and_complete(client.pub_key())
                        .expect("a real share"),
                    true,
                ),
            };
            let mut share = server.pub_key.clone();
            let edited = edit(&mut share, rest);
            let result = if whole {
                client.complete(&share)
            } else {
                client.complete_hybrid_component(&share)
            };
            match result {
                Ok(secret) if !edited => {
                    assert_eq!(secret.secret_bytes(), server.secret.secret_bytes());
                }
                // An edited ML-KEM ciphertext of the right length decapsulates to the
                // implicit-rejection key (FIPS 203): accepted, with a different secret.
                Ok(secret) => assert_eq!(
                    secret.secret_bytes().len(),
                    server.secret.secret_bytes().len()
                ),
                Err(err) => {
                    assert!(edited, "an untouched share was rejected: {err:?}");
                    assert_eq!(err, BAD_SHARE);
                }
            }
        }
    }
});
