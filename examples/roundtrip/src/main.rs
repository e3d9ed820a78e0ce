//! The main job: a round trip of all three parameter sets, with sizes and median timings.
//!
//! `cargo run --release -p roundtrip`

use lazykem::{
    Ciphertext, DecapsulationKey, EncapsulationKey, MlKem512, MlKem768, MlKem1024, ParameterSet,
};
use std::hint::black_box;
use std::time::{Duration, Instant};

const ITERATIONS: usize = 501;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

fn time<T>(mut f: impl FnMut() -> T) -> Duration {
    let samples = (0..ITERATIONS)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    median(samples)
}

fn micros(d: Duration) -> String {
    format!("{:>8.1} µs", d.as_secs_f64() * 1e6)
}

/// One parameter set: a checked exchange through the byte encodings, then the timings.
fn round_trip<P: ParameterSet>() {
    let name = P::NAME;
    let mut rng = rand::rng();

    // One full exchange through the byte encodings, checked.
    let dk = DecapsulationKey::<P>::generate(&mut rng);
    let ek = EncapsulationKey::<P>::from_bytes(dk.encapsulation_key().as_bytes().as_ref())
        .expect("own key parses");
    let (ct, sender) = ek.encapsulate(&mut rng);
    let ct = Ciphertext::<P>::from_bytes(ct.as_bytes().as_ref()).expect("own ciphertext parses");
    let receiver = dk.decapsulate(&ct);
    assert_eq!(sender, receiver, "{name}: shared secrets differ");
    let (ct_once, sender_once) =
        EncapsulationKey::<P>::encapsulate_encoded(ek.as_bytes().as_ref(), &mut rng)
            .expect("own key parses");
    assert_eq!(
        dk.decapsulate(&ct_once),
        sender_once,
        "{name}: one-shot encapsulation disagrees"
    );
    let dk_bytes = dk.to_expanded_bytes();
    let dk_again = DecapsulationKey::<P>::from_expanded_bytes(dk_bytes.as_ref())
        .expect("own expanded key parses");
    assert_eq!(
        dk_again.decapsulate(&ct),
        sender,
        "{name}: expanded key disagrees"
    );
    let one_shot = DecapsulationKey::<P>::decapsulate_expanded(dk_bytes.as_ref(), &ct)
        .expect("own expanded key parses");
    assert_eq!(one_shot, sender, "{name}: one-shot decapsulation disagrees");

    let seed = *dk
        .seed()
        .expect("generated keys keep their seed")
        .as_bytes();
    let ek_bytes = ek.as_bytes().as_ref().to_vec();
    let ct_bytes = ct.as_bytes().as_ref().to_vec();
    let keygen = time(|| DecapsulationKey::<P>::from_seed(&seed));
    let encaps = time(|| ek.encapsulate(&mut rng));
    let decaps = time(|| dk.decapsulate(&ct));
    // A key seen once (a TLS client's key share): parse, check and encapsulate in one call.
    let encaps_bytes =
        time(|| EncapsulationKey::<P>::encapsulate_encoded(&ek_bytes, &mut rand::rng()));
    // A key seen once: the expanded dk and the ciphertext as bytes, in one call.
    let decaps_bytes = time(|| {
        Ciphertext::<P>::from_bytes(&ct_bytes)
            .and_then(|ct| DecapsulationKey::<P>::decapsulate_expanded(dk_bytes.as_ref(), &ct))
    });
    println!(
        "{:<12} ek {:>4} B  dk {:>4} B (seed 64 B)  ct {:>4} B  ss 32 B  | keygen {}  encaps {} ({} from ek bytes)  decaps {} ({} from expanded dk bytes)",
        name,
        P::ENCAPSULATION_KEY_SIZE,
        P::DECAPSULATION_KEY_SIZE,
        P::CIPHERTEXT_SIZE,
        micros(keygen),
        micros(encaps),
        micros(encaps_bytes),
        micros(decaps),
        micros(decaps_bytes),
    );
}

fn main() {
    println!(
        "ML-KEM round trip: keygen from seed, encaps/decaps on parsed keys (and, in parentheses, from key bytes); median of {ITERATIONS} runs"
    );
    println!("backend: {} (the fastest this CPU has)", lazykem::backend());
    round_trip::<MlKem512>();
    round_trip::<MlKem768>();
    round_trip::<MlKem1024>();
    println!("all three parameter sets: shared secrets match");
}
