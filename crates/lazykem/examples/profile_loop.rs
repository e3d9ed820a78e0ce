//! Runs one operation in a loop, for profilers:
//! `profile_loop <op> [iterations] [512|768|1024]` (default ML-KEM-768), op one of keygen,
//! encaps, encaps_from_bytes (the one-shot), decaps, decaps_from_bytes (the one-shot), import_then_decaps,
//! ek_parse, dk_parse.
use lazykem::{
    Ciphertext, DecapsulationKey, EncapsulationKey, MlKem512, MlKem768, MlKem1024, ParameterSet,
};
use std::hint::black_box;

/// Runs `op` `n` times on parameter set `P`.
fn run_set<P: ParameterSet>(op: &str, n: usize) {
    let dk = DecapsulationKey::<P>::from_seed(&[7u8; 64]);
    let (ct, _) = dk.encapsulation_key().encapsulate_deterministic(&[9u8; 32]);
    let ct = Ciphertext::<P>::from_bytes(ct.as_bytes().as_ref()).unwrap();
    let ek_bytes = dk.encapsulation_key().as_bytes().as_ref().to_vec();
    let dk_bytes = dk.to_expanded_bytes().as_ref().to_vec();
    for i in 0..n {
        match op {
            "keygen" => drop(black_box(DecapsulationKey::<P>::from_seed(&[i as u8; 64]))),
            "encaps" => drop(black_box(
                dk.encapsulation_key()
                    .encapsulate_deterministic(&[i as u8; 32]),
            )),
            "encaps_from_bytes" => drop(black_box(
                EncapsulationKey::<P>::encapsulate_encoded_deterministic(
                    black_box(&ek_bytes),
                    &[i as u8; 32],
                )
                .unwrap(),
            )),
            "decaps_from_bytes" => drop(black_box(
                DecapsulationKey::<P>::decapsulate_expanded(black_box(&dk_bytes[..]), &ct).unwrap(),
            )),
            "import_then_decaps" => drop(black_box(
                DecapsulationKey::<P>::from_expanded_bytes(black_box(&dk_bytes[..]))
                    .unwrap()
                    .decapsulate(&ct),
            )),
            "ek_parse" => drop(black_box(
                EncapsulationKey::<P>::from_bytes(black_box(&ek_bytes)).unwrap(),
            )),
            "dk_parse" => drop(black_box(
                DecapsulationKey::<P>::from_expanded_bytes(black_box(&dk_bytes[..])).unwrap(),
            )),
            _ => drop(black_box(dk.decapsulate(&ct))),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("decaps", String::as_str);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20_000);
    match args.get(3).map_or("768", String::as_str) {
        "512" => run_set::<MlKem512>(op, n),
        "1024" => run_set::<MlKem1024>(op, n),
        _ => run_set::<MlKem768>(op, n),
    }
}
