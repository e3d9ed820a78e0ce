//! Table rows, the verdict of a lazy (unreduced) site, and the rendering of the table.

use std::fmt::Write as _;

/// How a row was established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    /// Every input of the declared domain run against the exact definition.
    Exhaustive,
    /// A domain too large to enumerate: every boundary input, then a large random sample,
    /// run against the exact definition ([`super::sampled`]). The row's detail gives both
    /// counts.
    Sampled,
    /// The real code run on operands at the extremes of their declared ranges.
    WorstCase,
    /// An inequality between exported constants, asserted at compile time in the library
    /// and re-evaluated here from the same constants.
    ConstAssert,
    /// An inequality between exported constants, evaluated here (the library states it in
    /// a comment at the call site).
    Analytic,
}

impl Method {
    fn label(self) -> &'static str {
        match self {
            Self::Exhaustive => "exhaustive",
            Self::Sampled => "boundaries + random",
            Self::WorstCase => "worst-case",
            Self::ConstAssert => "const-assert",
            Self::Analytic => "analytic",
        }
    }
}

/// One line of the table.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// The lazy site or reduction.
    pub(crate) site: String,
    /// Largest value one term adds (or the input bound of a reduction).
    pub(crate) term_bound: String,
    /// How many terms are summed before the reduction.
    pub(crate) terms: String,
    /// Largest value seen by running the code / largest value the analysis allows.
    pub(crate) worst: String,
    /// What the value must not exceed.
    pub(crate) limit: String,
    /// `limit / analytic worst`.
    pub(crate) headroom: String,
    /// How it was checked.
    pub(crate) method: Method,
    /// Extra detail on the method (input count, time).
    pub(crate) how_detail: String,
    /// Why the row failed (empty when it passed).
    pub(crate) failures: Vec<String>,
    /// Whether the check could not run here (it then neither passes nor fails).
    pub(crate) skipped: bool,
}

impl Row {
    /// A row with no failure yet.
    pub(crate) fn new(site: impl Into<String>, method: Method) -> Self {
        Self {
            site: site.into(),
            term_bound: "-".into(),
            terms: "-".into(),
            worst: "-".into(),
            limit: "-".into(),
            headroom: "-".into(),
            method,
            how_detail: String::new(),
            failures: Vec::new(),
            skipped: false,
        }
    }

    /// A row for a check that cannot run on this machine, with the reason.
    pub(crate) fn skip(site: impl Into<String>, method: Method, why: &str) -> Self {
        let mut row = Self::new(site, method);
        row.skipped = true;
        why.clone_into(&mut row.how_detail);
        row
    }

    /// Records a failure when `ok` is false.
    pub(crate) fn require(&mut self, ok: bool, why: impl FnOnce() -> String) {
        if !ok {
            self.failures.push(why());
        }
    }

    /// Whether every requirement held.
    pub(crate) fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// A place that sums unreduced terms: `terms` values of at most `term_bound` each must stay
/// at most `limit` (the type's maximum, or the domain of the reduction that follows).
#[derive(Clone, Debug)]
pub(crate) struct LazySite {
    /// Name of the site.
    pub(crate) site: String,
    /// Declared bound of one term.
    pub(crate) term_bound: u64,
    /// Declared number of terms.
    pub(crate) terms: u64,
    /// Largest value the sum may reach.
    pub(crate) limit: u64,
    /// Largest sum observed by running the code, if it was run.
    pub(crate) seen: Option<u64>,
    /// How the row was established.
    pub(crate) method: Method,
}

impl LazySite {
    /// `terms * term_bound`, exactly.
    pub(crate) fn analytic(&self) -> u128 {
        u128::from(self.terms) * u128::from(self.term_bound)
    }

    /// The verdict: the analytic worst case fits the limit, and nothing observed exceeds
    /// the analytic worst case (which would mean the declared term bound is wrong).
    pub(crate) fn check(&self) -> Row {
        let analytic = self.analytic();
        let mut row = Row::new(self.site.clone(), self.method);
        row.term_bound = group(u128::from(self.term_bound));
        row.terms = self.terms.to_string();
        row.worst = match self.seen {
            Some(seen) => format!("{} / {}", group(seen.into()), group(analytic)),
            None => format!("- / {}", group(analytic)),
        };
        row.limit = group(self.limit.into());
        row.headroom = headroom(self.limit.into(), analytic);
        row.require(analytic <= u128::from(self.limit), || {
            format!(
                "{} terms of {} can reach {}, above the limit {}",
                self.terms,
                group(self.term_bound.into()),
                group(analytic),
                group(self.limit.into())
            )
        });
        if let Some(seen) = self.seen {
            row.require(u128::from(seen) <= analytic, || {
                format!(
                    "observed {} above the analytic bound {}: the declared term bound is wrong",
                    group(seen.into()),
                    group(analytic)
                )
            });
            row.require(seen <= self.limit, || {
                format!(
                    "observed {} above the limit {}",
                    group(seen.into()),
                    group(self.limit.into())
                )
            });
        }
        row
    }
}

/// `limit / worst` with two decimals, computed in integers.
pub(crate) fn headroom(limit: u128, worst: u128) -> String {
    if worst == 0 {
        return "inf".into();
    }
    let hundredths = limit * 100 / worst;
    format!("{}.{:02}x", hundredths / 100, hundredths % 100)
}

/// A number with `,` every three digits.
pub(crate) fn group(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Same as [`group`] for signed values.
pub(crate) fn group_signed(n: i64) -> String {
    if n < 0 {
        format!("-{}", group(n.unsigned_abs().into()))
    } else {
        group(n.unsigned_abs().into())
    }
}

/// Renders the table, then the failures of every failing row.
pub(crate) fn render(rows: &[Row]) -> String {
    const HEADER: [&str; 8] = [
        "site",
        "term bound",
        "terms",
        "worst sum (seen / analytic)",
        "limit",
        "headroom",
        "how checked",
        "result",
    ];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|r| {
            let how = if r.how_detail.is_empty() {
                r.method.label().to_owned()
            } else {
                format!("{} ({})", r.method.label(), r.how_detail)
            };
            [
                r.site.clone(),
                r.term_bound.clone(),
                r.terms.clone(),
                r.worst.clone(),
                r.limit.clone(),
                r.headroom.clone(),
                how,
                if r.skipped {
                    "SKIP"
                } else if r.passed() {
                    "PASS"
                } else {
                    "FAIL"
                }
                .to_owned(),
            ]
        })
        .collect();
    let mut widths = HEADER.map(str::len);
    for line in &cells {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let mut text = String::from("|");
        for (cell, w) in cells.iter().zip(widths) {
            let _ = write!(text, " {cell:<w$} |");
        }
        out.push_str(&text);
        out.push('\n');
    };
    line(&HEADER.map(str::to_owned));
    line(&widths.map(|w| "-".repeat(w)));
    for c in &cells {
        line(c);
    }
    for r in rows.iter().filter(|r| !r.passed()) {
        let _ = writeln!(out, "FAIL {}:", r.site);
        for f in &r.failures {
            let _ = writeln!(out, "  - {f}");
        }
    }
    out
}
