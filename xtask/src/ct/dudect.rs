//! `cargo xtask dudect`: the statistical timing test of `ct-harness dudect`, decided two of
//! three.
//!
//! One measurement of a target (an operation's two input classes on one backend, or the
//! leaky control) is one `ct-harness dudect --round N` process: a target is *over* when its
//! `|t|` reaches the harness's limit (10). Each round is a new process with its own class
//! order and inputs, so a burst of noise on the shared machine (seen once: `|t|` = 12.98 on
//! a run that passed the next six times) hits one round, while a real leak is over in
//! every round. Rules:
//!
//! - a target fails when two of its measurements are over, and passes once two are under;
//! - the leaky control must be over in two of three, else the test is insensitive and
//!   fails whatever the other targets say;
//! - rounds 1 and 2 measure every target; round 3 only the targets they split. A verdict is
//!   never decided on fewer than two measurements.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Measurements a target may get.
const ROUNDS: usize = 3;
/// Measurements that agree to decide it.
const MAJORITY: usize = 2;
/// The id of the negative control in the harness's output.
const CONTROL: &str = "control";

/// One measurement, as the harness prints it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Measurement {
    t: f64,
    over: bool,
}

/// The decision on one target's measurements so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Over,
    Under,
    Undecided,
}

fn verdict(measurements: &[Measurement]) -> Verdict {
    let over = measurements.iter().filter(|m| m.over).count();
    if over >= MAJORITY {
        Verdict::Over
    } else if measurements.len() - over >= MAJORITY {
        Verdict::Under
    } else {
        Verdict::Undecided
    }
}

/// Parses the harness's `dudect-t ID T over|under ...` lines.
fn parse(stdout: &str) -> Result<Vec<(String, Measurement)>, String> {
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix("dudect-t "))
        .map(|rest| {
            let mut fields = rest.split_whitespace();
            let (Some(id), Some(t), Some(flag)) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(format!("cannot parse the harness line `dudect-t {rest}`"));
            };
            let t = t
                .parse()
                .map_err(|e| format!("bad t `{t}` in `dudect-t {rest}`: {e}"))?;
            let over = match flag {
                "over" => true,
                "under" => false,
                _ => return Err(format!("bad flag `{flag}` in `dudect-t {rest}`")),
            };
            Ok((id.to_owned(), Measurement { t, over }))
        })
        .collect()
}

/// Runs the rounds with the harness `binary` and decides; `Err` names the failed targets.
pub(crate) fn run(binary: &Path) -> Result<(), String> {
    let start = Instant::now();
    // Every target in the order round 1 printed them, with its measurements.
    let mut order: Vec<String> = Vec::new();
    let mut measured: BTreeMap<String, Vec<Measurement>> = BTreeMap::new();
    for round in 1..=ROUNDS {
        let pending: Vec<String> = order
            .iter()
            .filter(|id| verdict(&measured[*id]) == Verdict::Undecided)
            .cloned()
            .collect();
        if round > 1 && pending.is_empty() {
            break;
        }
        let mut command = Command::new(binary);
        command.args(["dudect", "--round", &round.to_string()]);
        if pending.len() < order.len() {
            command.args(["--only", &pending.join(",")]);
        }
        let round_start = Instant::now();
        let output = command
            .output()
            .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        print!("{stdout}");
        if !output.status.success() {
            return Err(format!(
                "ct-harness dudect --round {round} failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let results = parse(&stdout)?;
        if round == 1 {
            order = results.iter().map(|(id, _)| id.clone()).collect();
            if !order.iter().any(|id| id == CONTROL) {
                return Err("the harness measured no control".into());
            }
        } else if let Some(missing) = pending
            .iter()
            .find(|id| !results.iter().any(|(r, _)| r == *id))
        {
            return Err(format!("round {round} did not measure `{missing}`"));
        }
        for (id, m) in results {
            measured.entry(id).or_default().push(m);
        }
        println!(
            "dudect: round {round}: {} targets in {:.1}s",
            if round == 1 {
                order.len()
            } else {
                pending.len()
            },
            round_start.elapsed().as_secs_f64()
        );
    }

    let failures = summary(&order, &measured);
    println!("dudect: {:.1}s", start.elapsed().as_secs_f64());
    if failures.is_empty() {
        println!("dudect: PASS");
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

/// Prints every target's measurements and verdict; returns the failures.
fn summary(order: &[String], measured: &BTreeMap<String, Vec<Measurement>>) -> Vec<String> {
    println!(
        "\n{:<26} {:>9} {:>9} {:>9}  verdict (two of three)",
        "target", "round 1", "round 2", "round 3"
    );
    let mut failures = Vec::new();
    for id in order {
        let ms = &measured[id];
        let cell = |i: usize| {
            ms.get(i)
                .map_or_else(|| "-".into(), |m| format!("{:.2}", m.t))
        };
        let over = ms.iter().filter(|m| m.over).count();
        let text = match (id == CONTROL, verdict(ms)) {
            (true, Verdict::Over) => format!("flagged ({over}/{}), as required", ms.len()),
            (true, _) => {
                failures.push(format!(
                    "the leaky control was flagged in only {over} of {} rounds: the test is insensitive",
                    ms.len()
                ));
                format!("NOT FLAGGED ({over}/{})", ms.len())
            }
            (false, Verdict::Under) => format!("pass ({over}/{} over)", ms.len()),
            (false, _) => {
                failures.push(format!(
                    "{id}: over the limit in {over} of {} rounds (t = {})",
                    ms.len(),
                    ms.iter()
                        .map(|m| format!("{:.2}", m.t))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                format!("LEAK? ({over}/{} over)", ms.len())
            }
        };
        println!(
            "{id:<26} {:>9} {:>9} {:>9}  {text}",
            cell(0),
            cell(1),
            cell(2)
        );
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    const OVER: Measurement = Measurement {
        t: 12.0,
        over: true,
    };
    const UNDER: Measurement = Measurement {
        t: 1.0,
        over: false,
    };

    #[test]
    fn two_agreeing_measurements_decide() {
        assert_eq!(verdict(&[UNDER]), Verdict::Undecided);
        assert_eq!(verdict(&[OVER]), Verdict::Undecided);
        assert_eq!(verdict(&[UNDER, UNDER]), Verdict::Under);
        assert_eq!(verdict(&[OVER, OVER]), Verdict::Over);
        assert_eq!(verdict(&[OVER, UNDER]), Verdict::Undecided);
        assert_eq!(verdict(&[OVER, UNDER, UNDER]), Verdict::Under);
        assert_eq!(verdict(&[UNDER, OVER, OVER]), Verdict::Over);
    }

    #[test]
    fn parses_the_harness_lines() {
        let out = "dudect: round 1, ...\n\
                   dudect-t control                   320.50 over   control\n\
                   dudect-t avx2/encaps                -1.49 under  encapsulate (fixed vs random m)\n\
                   dudect: backend neon: skipped\n";
        let parsed = parse(out).unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].0, "control");
        assert!(parsed[0].1.over);
        assert_eq!(parsed[1].0, "avx2/encaps");
        assert!((parsed[1].1.t + 1.49).abs() < 1e-9);
        assert!(!parsed[1].1.over);
        assert!(parse("dudect-t avx2/encaps 1.0 maybe x").is_err());
        assert!(parse("dudect-t avx2/encaps").is_err());
    }
}
