//! Reading memcheck's log: the error contexts with their stacks and origins, and the
//! `ERROR SUMMARY` line that the parse is cross-checked against.

/// One frame of a valgrind stack: `at 0x1234: function (file:line)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Frame {
    /// The (demangled) function name; inlined frames carry the inlined function's name, or
    /// `UnknownInlinedFun` when valgrind cannot resolve it.
    pub(crate) function: String,
    /// `path:line` (full paths with `--fullpath-after=`), or `in /path/to/object`.
    pub(crate) location: String,
}

/// One error context as memcheck prints it the first time it occurs.
#[derive(Clone, Debug, Default)]
pub(crate) struct ErrorContext {
    /// The first line, e.g. "Conditional jump or move depends on uninitialised value(s)".
    pub(crate) kind: String,
    /// Where it happened, innermost first.
    pub(crate) stack: Vec<Frame>,
    /// With `--track-origins=yes`: e.g. "Uninitialised value was created by a client request".
    pub(crate) origin: Option<String>,
    /// The stack of the origin, innermost first.
    pub(crate) origin_stack: Vec<Frame>,
}

impl ErrorContext {
    /// A branch or a conditional move on undefined data.
    pub(crate) fn is_branch(&self) -> bool {
        self.kind
            .starts_with("Conditional jump or move depends on uninitialised value")
    }

    /// An undefined value used as an address (or otherwise required to be defined).
    pub(crate) fn is_value_use(&self) -> bool {
        self.kind.starts_with("Use of uninitialised value of size")
    }

    /// Whether any frame of the stack is in a function whose name contains `needle`.
    pub(crate) fn in_function(&self, needle: &str) -> bool {
        self.stack.iter().any(|f| f.function.contains(needle))
    }
}

/// `ERROR SUMMARY: E errors from C contexts (suppressed: S from T)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    /// Errors reported (every occurrence).
    pub(crate) errors: u64,
    /// Distinct error contexts: one printed block each.
    pub(crate) contexts: u64,
    /// Errors suppressed.
    pub(crate) suppressed: u64,
}

/// A parsed memcheck log.
#[derive(Debug, Default)]
pub(crate) struct Log {
    /// Every error context, in order.
    pub(crate) errors: Vec<ErrorContext>,
    /// The final summary, if valgrind got to print it.
    pub(crate) summary: Option<Summary>,
    /// With `-v`: each suppression that matched, by name, with the errors it suppressed.
    pub(crate) used_suppressions: Vec<(String, u64)>,
}

/// Strips the `==PID== ` prefix; `None` for lines that are not memcheck's (`--PID--` lines
/// of `-v`, or anything else).
fn strip_prefix(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("==")?;
    let (pid, rest) = rest.split_once("==")?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

/// Parses `at 0x1234: function (location)` / `by 0x...`.
fn parse_frame(line: &str) -> Option<Frame> {
    let line = line.trim_start();
    let rest = line
        .strip_prefix("at 0x")
        .or_else(|| line.strip_prefix("by 0x"))?;
    let (_address, text) = rest.split_once(": ")?;
    let text = text.trim_end();
    if let Some(open) = text.strip_suffix(')').and_then(|t| t.rfind(" (")) {
        Some(Frame {
            function: text[..open].to_string(),
            location: text[open + 2..text.len() - 1].to_string(),
        })
    } else {
        Some(Frame {
            function: text.to_string(),
            location: String::new(),
        })
    }
}

/// Parses the numbers of an `ERROR SUMMARY:` line.
fn parse_summary(line: &str) -> Option<Summary> {
    let rest = line.strip_prefix("ERROR SUMMARY: ")?;
    let numbers: Vec<u64> = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    match numbers.as_slice() {
        [errors, contexts, suppressed, _] => Some(Summary {
            errors: *errors,
            contexts: *contexts,
            suppressed: *suppressed,
        }),
        _ => None,
    }
}

/// Parses `--PID-- used_suppression:   COUNT NAME FILE:LINE` (printed with `-v`).
fn parse_used_suppression(line: &str) -> Option<(String, u64)> {
    let rest = line.split_once("used_suppression:")?.1.trim();
    let (count, rest) = rest.split_once(' ')?;
    let (name, _location) = rest.trim().rsplit_once(' ')?;
    Some((name.to_string(), count.parse().ok()?))
}

/// Parses a log written with `--log-file`.
///
/// Memcheck separates its messages with empty `==PID==` lines. A block with an `at 0x` frame
/// is an error context: the line before that frame is the kind, then come the stack frames, then (with `--track-origins`) a line such as "Uninitialised value was created by
/// a client request" and the origin's frames. With `-v` memcheck lists every context once
/// more after its first `ERROR SUMMARY`: the parse ends its contexts there.
pub(crate) fn parse(text: &str) -> Log {
    let mut log = Log {
        used_suppressions: text.lines().filter_map(parse_used_suppression).collect(),
        ..Log::default()
    };
    let mut block: Vec<&str> = Vec::new();
    let mut summarized = false;
    let lines = text.lines().filter_map(strip_prefix).chain([""]);
    for line in lines {
        if let Some(summary) = parse_summary(line) {
            log.summary = Some(summary);
            summarized = true;
        }
        if summarized {
            continue;
        }
        if !line.trim().is_empty() {
            block.push(line);
            continue;
        }
        // The kind is the line before the first frame. Usually it opens the block, but a
        // notice can share the block ("More than 100 errors detected. Subsequent errors /
        // will still be recorded, ..." comes straight before the 101st context).
        let first_frame = block
            .windows(2)
            .position(|pair| pair[1].trim_start().starts_with("at 0x"));
        if let Some(kind_at) = first_frame {
            let mut error = ErrorContext {
                kind: block[kind_at].trim().to_string(),
                ..ErrorContext::default()
            };
            for line in &block[kind_at + 1..] {
                match parse_frame(line) {
                    Some(frame) if error.origin.is_none() => error.stack.push(frame),
                    Some(frame) => error.origin_stack.push(frame),
                    None => error.origin = Some(line.trim().to_string()),
                }
            }
            log.errors.push(error);
        }
        block.clear();
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
==42== Memcheck, a memory error detector
==42== Command: ./ct-harness leaky
==42== 
==42== Conditional jump or move depends on uninitialised value(s)
==42==    at 0x1470F9: parse_candidates (/w/crates/lattice-sampling/src/sample_ntt.rs:90)
==42==    by 0x1470F9: lattice_sampling::sample_ntt::sample_ntt (/w/crates/lattice-sampling/src/sample_ntt.rs:51)
==42==    by 0x139926: lazykem::kpke::key_gen (/w/crates/lazykem/src/kpke.rs:96)
==42==    by 0x12A74B: main (in /w/target/ct-harness)
==42==  Uninitialised value was created by a client request
==42==    at 0x124024: ct_harness::run_kem (/w/ct-harness/src/main.rs:10)
==42== 
leaky: program output never lands in the log
==42== Use of uninitialised value of size 8
==42==    at 0x1234: ct_harness::leaky::lookup_by_secret (/w/ct-harness/src/leaky.rs:55)
==42== 
==42== More than 100 errors detected.  Subsequent errors
==42== will still be recorded, but in less detail than before.
==42== Conditional jump or move depends on uninitialised value(s)
==42==    at 0x5678: ct_harness::leaky::branch_on_secret (/w/ct-harness/src/leaky.rs:40)
==42== 
==42== ERROR SUMMARY: 8 errors from 3 contexts (suppressed: 1 from 1)
";

    #[test]
    fn parses_contexts_stacks_origins_and_summary() {
        let log = parse(LOG);
        assert_eq!(log.errors.len(), 3);
        let first = &log.errors[0];
        assert!(first.is_branch());
        assert_eq!(first.stack.len(), 4);
        assert_eq!(first.stack[0].function, "parse_candidates");
        assert_eq!(
            first.stack[2].location,
            "/w/crates/lazykem/src/kpke.rs:96".to_string()
        );
        assert_eq!(first.stack[3].location, "in /w/target/ct-harness");
        assert_eq!(
            first.origin.as_deref(),
            Some("Uninitialised value was created by a client request")
        );
        assert_eq!(first.origin_stack[0].function, "ct_harness::run_kem");
        let second = &log.errors[1];
        assert!(second.is_value_use() && second.in_function("lookup_by_secret"));
        // The context that shares its block with memcheck's "More than 100 errors" notice.
        let third = &log.errors[2];
        assert!(third.is_branch() && third.in_function("branch_on_secret"));
        assert_eq!(
            log.summary,
            Some(Summary {
                errors: 8,
                contexts: 3,
                suppressed: 1
            })
        );
    }

    #[test]
    fn the_verbose_listing_and_used_suppressions() {
        let log = parse(concat!(
            "==7== Conditional jump or move depends on uninitialised value(s)\n",
            "==7==    at 0x1: f (a.rs:1)\n",
            "==7== \n",
            "==7== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 5 from 2)\n",
            "==7== \n",
            "==7== 1 errors in context 1 of 1:\n",
            "==7== Conditional jump or move depends on uninitialised value(s)\n",
            "==7==    at 0x1: f (a.rs:1)\n",
            "==7== \n",
            "--7-- used_suppression:      3 graviola: a check ct-harness/hybrid.supp:15\n",
            "--7-- used_suppression:      2 both: RandomScalar verdict /w/hybrid.supp:87\n",
            "==7== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 5 from 2)\n",
        ));
        assert_eq!(log.errors.len(), 1);
        assert_eq!(log.summary.map(|s| s.suppressed), Some(5));
        assert_eq!(
            log.used_suppressions,
            [
                ("graviola: a check".to_string(), 3),
                ("both: RandomScalar verdict".to_string(), 2)
            ]
        );
    }

    #[test]
    fn a_clean_log_has_no_errors() {
        let log =
            parse("==7== \n==7== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)\n");
        assert!(log.errors.is_empty());
        assert_eq!(log.summary.map(|s| s.contexts), Some(0));
    }
}
