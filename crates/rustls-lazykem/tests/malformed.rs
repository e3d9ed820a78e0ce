//! Malformed key shares end the handshake with `illegal_parameter`, never a panic: wrong
//! lengths, an encapsulation key with a coefficient >= q (FIPS 203 §7.2), X25519
//! points that give the all-zero secret (RFC 8446 section 7.4.2), NIST points that are
//! compressed, the identity or off the curve (RFC 8446 section 4.2.8.2). The corrupted share
//! comes from AWS-LC's implementation of the group (an empty share cannot be sent: rustls's
//! codec refuses it on both ends, and the unit tests call the groups with one directly); where rustls's aws-lc-rs provider has the
//! group, the same corruption is also sent to its side, which must end the same way.

mod common;

use std::ops::Range;

use common::{
    AWS_MLKEM512, AWS_SECP384R1MLKEM1024, Corruption, Failure, Group, Stack, client, in_memory,
    mangled, server,
};
use rustls::crypto::aws_lc_rs::kx_group as aws;
use rustls::{AlertDescription, Error, PeerMisbehaved};

const BAD_SHARE: Error = Error::PeerMisbehaved(PeerMisbehaved::InvalidKeyShare);
const GOT_ILLEGAL_PARAMETER: Error = Error::AlertReceived(AlertDescription::IllegalParameter);

/// Where the parts of a group's shares sit.
struct Layout {
    name: &'static str,
    ours: Group,
    /// AWS-LC's implementation: rustls's own group, or the test's composition of AWS-LC
    /// primitives (`rustls_aws_lc` false).
    aws_lc: Group,
    rustls_aws_lc: bool,
    /// Offset of the encapsulation key in the client's share.
    ek_at: usize,
    /// The ECDH part of the client's share and of the server's share, if any.
    ecdh: Option<(Curve, Range<usize>, Range<usize>)>,
    /// The ciphertext in the server's share.
    ct: Range<usize>,
}

#[derive(Clone, Copy, PartialEq)]
enum Curve {
    X25519,
    Nist,
}

fn layouts() -> Vec<Layout> {
    vec![
        Layout {
            name: "X25519MLKEM768",
            ours: rustls_lazykem::X25519MLKEM768,
            aws_lc: aws::X25519MLKEM768,
            rustls_aws_lc: true,
            ek_at: 0,
            ecdh: Some((Curve::X25519, 1184..1216, 1088..1120)),
            ct: 0..1088,
        },
        Layout {
            name: "SecP256r1MLKEM768",
            ours: rustls_lazykem::SECP256R1MLKEM768,
            aws_lc: aws::SECP256R1MLKEM768,
            rustls_aws_lc: true,
            ek_at: 65,
            ecdh: Some((Curve::Nist, 0..65, 0..65)),
            ct: 65..65 + 1088,
        },
        Layout {
            name: "SecP384r1MLKEM1024",
            ours: rustls_lazykem::SECP384R1MLKEM1024,
            aws_lc: AWS_SECP384R1MLKEM1024,
            rustls_aws_lc: false,
            ek_at: 97,
            ecdh: Some((Curve::Nist, 0..97, 0..97)),
            ct: 97..97 + 1568,
        },
        Layout {
            name: "MLKEM512",
            ours: rustls_lazykem::MLKEM512,
            aws_lc: AWS_MLKEM512,
            rustls_aws_lc: false,
            ek_at: 0,
            ecdh: None,
            ct: 0..768,
        },
        Layout {
            name: "MLKEM768",
            ours: rustls_lazykem::MLKEM768,
            aws_lc: aws::MLKEM768,
            rustls_aws_lc: true,
            ek_at: 0,
            ecdh: None,
            ct: 0..1088,
        },
        Layout {
            name: "MLKEM1024",
            ours: rustls_lazykem::MLKEM1024,
            aws_lc: aws::MLKEM1024,
            rustls_aws_lc: true,
            ek_at: 0,
            ecdh: None,
            ct: 0..1568,
        },
    ]
}

/// The corrupted client share goes to our server (and to rustls's aws-lc-rs server when it
/// has the group): the server fails with `InvalidKeyShare` and the client hears
/// `illegal_parameter`.
fn server_rejects(
    what: &str,
    layout: &Layout,
    corrupt: impl Fn(&mut Vec<u8>) + Send + Sync + Copy + 'static,
) {
    let bad_client = client(Stack::AwsLc, &[mangled(layout.aws_lc, corrupt)]);
    let failure = in_memory(bad_client.clone(), server(Stack::Ring, &[layout.ours]))
        .expect_err("a corrupted share must fail");
    assert_failure(&failure, Side::Server, what, layout.name);
    if layout.rustls_aws_lc {
        let failure = in_memory(bad_client, server(Stack::AwsLc, &[layout.aws_lc]))
            .expect_err("a corrupted share must fail");
        assert_failure(
            &failure,
            Side::Server,
            &format!("{what} (aws-lc-rs server)"),
            layout.name,
        );
    }
}

/// The corrupted server share goes to our client (and to rustls's aws-lc-rs client): the
/// client fails with `InvalidKeyShare` and the server hears `illegal_parameter`.
fn client_rejects(
    what: &str,
    layout: &Layout,
    corrupt: impl Fn(&mut Vec<u8>) + Send + Sync + Copy + 'static,
) {
    let bad_server = server(Stack::AwsLc, &[mangled(layout.aws_lc, corrupt)]);
    let failure = in_memory(client(Stack::Ring, &[layout.ours]), bad_server.clone())
        .expect_err("a corrupted share must fail");
    assert_failure(&failure, Side::Client, what, layout.name);
    if layout.rustls_aws_lc {
        let failure = in_memory(client(Stack::AwsLc, &[layout.aws_lc]), bad_server)
            .expect_err("a corrupted share must fail");
        assert_failure(
            &failure,
            Side::Client,
            &format!("{what} (aws-lc-rs client)"),
            layout.name,
        );
    }
}

#[derive(Clone, Copy)]
enum Side {
    Client,
    Server,
}

fn assert_failure(failure: &Failure, rejecting: Side, what: &str, group: &str) {
    let (rejecter, peer) = match rejecting {
        Side::Client => (&failure.client, &failure.server),
        Side::Server => (&failure.server, &failure.client),
    };
    assert_eq!(
        rejecter.as_ref(),
        Some(&BAD_SHARE),
        "{group}: {what}: {failure:?}"
    );
    assert_eq!(
        peer.as_ref(),
        Some(&GOT_ILLEGAL_PARAMETER),
        "{group}: {what}: {failure:?}"
    );
}

#[test]
fn client_share_one_byte_short() {
    for layout in layouts() {
        server_rejects("one byte short", &layout, |s| {
            s.pop();
        });
    }
}

#[test]
fn client_share_one_byte_long() {
    for layout in layouts() {
        server_rejects("one byte long", &layout, |s| s.push(0));
    }
}

#[test]
fn client_share_without_its_ecdh_part() {
    for layout in layouts() {
        if let Some((_, ecdh, _)) = layout.ecdh.clone() {
            server_rejects(
                "only the ek",
                &layout,
                leak(move |s| {
                    s.drain(ecdh.clone());
                }),
            );
        }
    }
}

/// FIPS 203 §7.2: every 12-bit coefficient of ek must be below q = 3329. The first
/// coefficient is set to q (the smallest illegal value) and to 4095 (the largest).
#[test]
fn client_share_ek_coefficient_not_below_q() {
    for layout in layouts() {
        let at = layout.ek_at;
        let end = at + ek_len(layout.name) - 32;
        server_rejects("ek coefficient = q", &layout, move |s| {
            // ByteEncode_12: coefficient 0 is byte 0 and the low nibble of byte 1.
            s[at] = 0x01;
            s[at + 1] = (s[at + 1] & 0xf0) | 0x0d;
        });
        server_rejects("ek coefficient = 4095", &layout, move |s| {
            s[at] = 0xff;
            s[at + 1] |= 0x0f;
        });
        // The last coefficient of the last polynomial (before rho): the check covers it all.
        server_rejects("last ek coefficient = 4095", &layout, move |s| {
            s[end - 1] = 0xff;
            s[end - 2] |= 0xf0;
        });
    }
}

fn ek_len(group: &str) -> usize {
    match group {
        "MLKEM512" => 800,
        "X25519MLKEM768" | "SecP256r1MLKEM768" | "MLKEM768" => 1184,
        _ => 1568,
    }
}

/// X25519 u-coordinates of small order (RFC 7748 section 5; the list of libsodium and
/// Wycheproof): with the clamped scalar a multiple of 8, each gives the all-zero secret,
/// which RFC 8446 section 7.4.2 says must abort.
const X25519_SMALL_ORDER: [[u8; 32]; 3] = [
    [0; 32],
    {
        let mut one = [0; 32];
        one[0] = 1;
        one
    },
    [
        0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4,
        0x6a, 0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49,
        0xb8, 0x00,
    ],
];

/// The NIST-curve corruptions: a compressed-point prefix, the identity's prefix, a point off
/// the curve (one bit of y flipped), and x = p (not a field element).
fn nist_corruptions(range: Range<usize>) -> Vec<(&'static str, Corruption)> {
    let r = range.clone();
    let compressed: Corruption = Box::new(move |s| s[r.start] = 0x02);
    let r = range.clone();
    let identity: Corruption = Box::new(move |s| s[r.start] = 0x00);
    let r = range.clone();
    let off_curve: Corruption = Box::new(move |s| s[r.end - 1] ^= 1);
    let r = range;
    let x_all_ones: Corruption = Box::new(move |s| {
        let field = (r.len() - 1) / 2;
        s[r.start + 1..r.start + 1 + field].fill(0xff);
    });
    vec![
        ("compressed prefix 0x02", compressed),
        ("identity prefix 0x00", identity),
        ("point off the curve", off_curve),
        ("x >= p", x_all_ones),
    ]
}

#[test]
fn client_share_bad_ecdh_part() {
    for layout in layouts() {
        let Some((curve, client_range, _)) = layout.ecdh.clone() else {
            continue;
        };
        match curve {
            Curve::X25519 => {
                for point in X25519_SMALL_ORDER {
                    let r = client_range.clone();
                    server_rejects(
                        "X25519 small-order point",
                        &layout,
                        leak(move |s| {
                            s[r.clone()].copy_from_slice(&point);
                        }),
                    );
                }
            }
            Curve::Nist => {
                for (what, corrupt) in nist_corruptions(client_range) {
                    server_rejects(what, &layout, leak(corrupt));
                }
            }
        }
    }
}

#[test]
fn server_share_one_byte_short() {
    for layout in layouts() {
        client_rejects("one byte short", &layout, |s| {
            s.pop();
        });
    }
}

#[test]
fn server_share_one_byte_long() {
    for layout in layouts() {
        client_rejects("one byte long", &layout, |s| s.push(0));
    }
}

#[test]
fn server_share_short_ciphertext() {
    for layout in layouts() {
        let ct = layout.ct.clone();
        client_rejects(
            "ciphertext 32 bytes short",
            &layout,
            leak(move |s| {
                s.drain(ct.end - 32..ct.end);
            }),
        );
    }
}

#[test]
fn server_share_bad_ecdh_part() {
    for layout in layouts() {
        let Some((curve, _, server_range)) = layout.ecdh.clone() else {
            continue;
        };
        match curve {
            Curve::X25519 => {
                for point in X25519_SMALL_ORDER {
                    let r = server_range.clone();
                    client_rejects(
                        "X25519 small-order point",
                        &layout,
                        leak(move |s| {
                            s[r.clone()].copy_from_slice(&point);
                        }),
                    );
                }
            }
            Curve::Nist => {
                for (what, corrupt) in nist_corruptions(server_range) {
                    client_rejects(what, &layout, leak(corrupt));
                }
            }
        }
    }
}

/// A ciphertext of the right length is never rejected (FIPS 203 implicit rejection): the
/// client derives a different key, cannot read the server's encrypted flight and ends the
/// handshake with a `bad_record_mac` alert that the server, holding other keys, cannot read
/// either: both sides fail with `DecryptError`, on our side as on AWS-LC's.
#[test]
fn server_share_altered_ciphertext() {
    for layout in layouts() {
        let at = layout.ct.start + 7;
        let bad_server = server(
            Stack::AwsLc,
            &[mangled(layout.aws_lc, move |s| s[at] ^= 0x40)],
        );
        let mut clients = vec![("our client", client(Stack::Ring, &[layout.ours]))];
        if layout.rustls_aws_lc {
            clients.push(("aws-lc-rs client", client(Stack::AwsLc, &[layout.aws_lc])));
        }
        for (who, config) in clients {
            let failure =
                in_memory(config, bad_server.clone()).expect_err("a different key must fail");
            assert_eq!(
                failure.client,
                Some(Error::DecryptError),
                "{}, {who}: {failure:?}",
                layout.name
            );
            assert_eq!(
                failure.server,
                Some(Error::DecryptError),
                "{}, {who}: {failure:?}",
                layout.name
            );
        }
    }
}

/// A boxed corruption as the `Copy` closure the helpers take (tests only: leaked).
fn leak(
    corrupt: impl Fn(&mut Vec<u8>) + Send + Sync + 'static,
) -> impl Fn(&mut Vec<u8>) + Send + Sync + Copy + 'static {
    let corrupt: &'static (dyn Fn(&mut Vec<u8>) + Send + Sync) = Box::leak(Box::new(corrupt));
    move |s: &mut Vec<u8>| corrupt(s)
}
