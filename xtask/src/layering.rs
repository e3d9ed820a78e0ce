//! `cargo xtask layering [CRATE ...] [--graph]`: the module dependency graph of a crate, and
//! every import circle in it.
//!
//! A module is a file (`foo.rs`, or `foo/mod.rs` for its folder) or an inline `mod foo { .. }`
//! block; `mod` declarations are followed from `src/lib.rs` (or `src/main.rs`) as rustc
//! does (`#[path]` included), under every `cfg` at once, so a circle on any target counts.
//! Module `A` depends on module `B` when code in `A` names an item of `B` by a path:
//! a `use` tree or a path expression starting with `crate`, `$crate`, `super`, `self` or
//! the name of one of `A`'s child modules. A path is resolved to the module that defines
//! the item, following `use` re-exports (a module that names `crate::Poly`, re-exported at
//! the root from `poly`, depends on `poly`, not on the root). Comments (doc links
//! included), string literals and the `mod` declarations themselves add no edge. Paths into
//! other crates are ignored.
//!
//! The check fails if a strongly connected component has more than one module, listing
//! each such circle with one reference per edge inside it (file, line, path as written).
//! `--graph` prints the whole graph in layers (a module's layer is one more than the
//! highest layer among its dependencies), modules with their dependencies.
//!
//! CRATE is a package directory under `crates/` (`lattice-poly-ntt`) or a path to a crate
//! directory; without one, the crates whose module graph must stay acyclic
//! ([`ACYCLIC`]) are checked.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The crates checked when none is named: those whose layering is a promise.
pub(crate) const ACYCLIC: &[&str] = &["lattice-poly-ntt"];

/// `cargo xtask layering [CRATE ...] [--graph]`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut graph_wanted = false;
    let mut crates = Vec::new();
    for arg in args {
        match arg.as_str() {
            "--graph" => graph_wanted = true,
            "-h" | "--help" => {
                println!("usage: cargo xtask layering [CRATE ...] [--graph]");
                return Ok(());
            }
            flag if flag.starts_with('-') => return Err(format!("unknown option `{flag}`")),
            name => crates.push(name.to_string()),
        }
    }
    if crates.is_empty() {
        crates = ACYCLIC.iter().map(|c| (*c).to_string()).collect();
    }
    let root = workspace_root();
    let mut failed = Vec::new();
    for name in &crates {
        let dir = if Path::new(name).join("src").is_dir() {
            PathBuf::from(name)
        } else {
            root.join("crates").join(name)
        };
        let graph = Graph::of_crate(&dir)?;
        println!(
            "{name}: {} modules, {} dependencies",
            graph.modules.len(),
            graph.edges.len()
        );
        if graph_wanted {
            print!("{}", graph.layers_text());
        }
        let cycles = graph.cycles();
        if cycles.is_empty() {
            println!("{name}: no import circle");
        } else {
            print!("{}", graph.cycles_text(&cycles));
            failed.push(format!("{name} ({} circle(s))", cycles.len()));
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("import circles in {}", failed.join(", ")))
    }
}

/// The workspace root (the parent of this package's directory).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

// ---------------------------------------------------------------------------- tokens

/// A token of Rust source, as far as paths are concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    /// An identifier or keyword (raw identifiers without their `r#`).
    Ident(String),
    /// `::`.
    PathSep,
    /// A string literal's contents (only `#[path = ".."]` reads one).
    Str(String),
    /// Any other punctuation character.
    Punct(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

impl Token {
    fn is_ident(&self, s: &str) -> bool {
        matches!(&self.tok, Tok::Ident(i) if i == s)
    }

    fn is_punct(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }

    fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(i) => Some(i),
            _ => None,
        }
    }
}

/// The tokens of `src`, without comments, whitespace, numbers, character literals and
/// lifetimes.
fn lex(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if ch == '"' {
            let start_line = line;
            let (text, next) = quoted(&c, i + 1, &mut line);
            out.push(Token {
                tok: Tok::Str(text),
                line: start_line,
            });
            i = next;
        } else if ch == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime / label ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            i = lex_word(&c, i, &mut line, &mut out);
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Token {
                tok: Tok::PathSep,
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                tok: Tok::Punct(ch),
                line,
            });
            i += 1;
        }
    }
    out
}

/// Lexes the identifier, keyword or prefixed literal (`r".."`, `b'x'`, `r#name`, ...) at
/// `i`; returns the index after it.
fn lex_word(c: &[char], mut i: usize, line: &mut usize, out: &mut Vec<Token>) -> usize {
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let start = i;
    while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
        i += 1;
    }
    let word: String = c[start..i].iter().collect();
    let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
    if raw_prefix && (at(i) == '"' || (at(i) == '#' && matches!(at(i + 1), '"' | '#'))) {
        // A raw string: r"..", r#".."#, ...
        let mut hashes = 0;
        while at(i) == '#' {
            hashes += 1;
            i += 1;
        }
        i += 1;
        let start_line = *line;
        let body_start = i;
        loop {
            if i >= c.len() {
                break;
            }
            if c[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                break;
            }
            if c[i] == '\n' {
                *line += 1;
            }
            i += 1;
        }
        let text: String = c[body_start..i.min(c.len())].iter().collect();
        i += 1 + hashes;
        out.push(Token {
            tok: Tok::Str(text),
            line: start_line,
        });
    } else if word == "r" && at(i) == '#' {
        // A raw identifier: r#name.
        let start = i + 1;
        i += 1;
        while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
            i += 1;
        }
        out.push(Token {
            tok: Tok::Ident(c[start..i].iter().collect()),
            line: *line,
        });
    } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
        let start_line = *line;
        let (text, next) = quoted(c, i + 1, line);
        out.push(Token {
            tok: Tok::Str(text),
            line: start_line,
        });
        i = next;
    } else if word == "b" && at(i) == '\'' {
        // A byte literal: b'x', b'\n'.
        i += 1;
        if at(i) == '\\' {
            i += 1;
        }
        i += 1;
        while i < c.len() && c[i] != '\'' {
            i += 1;
        }
        i += 1;
    } else {
        out.push(Token {
            tok: Tok::Ident(word),
            line: *line,
        });
    }
    i
}

/// The contents of a string literal whose body starts at `i`, and the index after its
/// closing quote.
fn quoted(c: &[char], mut i: usize, line: &mut usize) -> (String, usize) {
    let mut text = String::new();
    while i < c.len() && c[i] != '"' {
        if c[i] == '\\' {
            i += 1;
        }
        if let Some(&ch) = c.get(i) {
            if ch == '\n' {
                *line += 1;
            }
            text.push(ch);
        }
        i += 1;
    }
    (text, i + 1)
}

// ---------------------------------------------------------------------------- modules

/// Where a reference was written.
#[derive(Clone, Debug)]
struct Site {
    file: String,
    line: usize,
    text: String,
}

/// A path as written, relative to its module.
#[derive(Clone, Debug)]
struct RawPath {
    segments: Vec<String>,
    site: Site,
}

/// A `use` leaf: the name it binds (`None` for a glob) and the path it names.
#[derive(Clone, Debug)]
struct UseLeaf {
    binds: Option<String>,
    path: RawPath,
}

#[derive(Debug, Default)]
struct Module {
    /// Segments from the crate root (`[]` for the root).
    path: Vec<String>,
    /// The file it is written in, relative to the crate directory.
    file: String,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// Names of the items defined here.
    items: BTreeSet<String>,
    uses: Vec<UseLeaf>,
    /// Every path reference (the `use` leaves included).
    refs: Vec<RawPath>,
}

impl Module {
    fn name(&self) -> String {
        if self.path.is_empty() {
            "crate".to_string()
        } else {
            self.path.join("::")
        }
    }
}

/// Reads the files of a crate: the file system, or a map in the unit tests.
trait Source {
    fn read(&self, path: &Path) -> Option<String>;
}

struct Disk;

impl Source for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

impl Source for BTreeMap<PathBuf, String> {
    fn read(&self, path: &Path) -> Option<String> {
        self.get(path).cloned()
    }
}

/// The module dependency graph of one crate.
#[derive(Debug)]
pub(crate) struct Graph {
    modules: Vec<Module>,
    /// `(from, to)` with the first reference that makes it.
    edges: BTreeMap<(usize, usize), Site>,
}

struct Builder<'s, S: Source> {
    source: &'s S,
    crate_dir: PathBuf,
    modules: Vec<Module>,
    /// Tokens of each module (its inline child modules cut out).
    tokens: Vec<Vec<Token>>,
    /// `#[macro_export]` macros: their name and the module defining them (they live at the
    /// crate root).
    exported_macros: Vec<(String, usize)>,
    errors: Vec<String>,
}

impl Graph {
    /// The graph of the crate in `dir` (`src/lib.rs`, or `src/main.rs`).
    pub(crate) fn of_crate(dir: &Path) -> Result<Self, String> {
        let root = if dir.join("src/lib.rs").is_file() {
            "src/lib.rs"
        } else {
            "src/main.rs"
        };
        Self::build(&Disk, dir, Path::new(root))
    }

    fn build<S: Source>(source: &S, crate_dir: &Path, root_file: &Path) -> Result<Self, String> {
        let mut b = Builder {
            source,
            crate_dir: crate_dir.to_path_buf(),
            modules: Vec::new(),
            tokens: Vec::new(),
            exported_macros: Vec::new(),
            errors: Vec::new(),
        };
        let text = source
            .read(&crate_dir.join(root_file))
            .ok_or_else(|| format!("cannot read {}", crate_dir.join(root_file).display()))?;
        let children_dir = root_file.parent().unwrap_or(Path::new("")).to_path_buf();
        b.add_module(&[], None, root_file, &children_dir, &lex(&text));
        if !b.errors.is_empty() {
            return Err(b.errors.join("\n"));
        }
        for id in 0..b.modules.len() {
            b.scan(id);
        }
        let (exported, mut modules) = (b.exported_macros, b.modules);
        for (name, id) in exported {
            let segments = std::iter::once("crate".to_string())
                .chain(modules[id].path.iter().cloned())
                .chain(std::iter::once(name.clone()))
                .collect();
            modules[0].uses.push(UseLeaf {
                binds: Some(name),
                path: RawPath {
                    segments,
                    site: Site {
                        file: String::new(),
                        line: 0,
                        text: String::new(),
                    },
                },
            });
        }
        let mut graph = Self {
            modules,
            edges: BTreeMap::new(),
        };
        graph.resolve_edges();
        Ok(graph)
    }

    fn resolve_edges(&mut self) {
        let mut edges = BTreeMap::new();
        for from in 0..self.modules.len() {
            for r in &self.modules[from].refs {
                let Some(abs) = self.absolute(from, &r.segments) else {
                    continue;
                };
                let mut seen = BTreeSet::new();
                if let Some(to) = self.resolve(&abs, &mut seen)
                    && to != from
                {
                    edges.entry((from, to)).or_insert_with(|| r.site.clone());
                }
            }
        }
        self.edges = edges;
    }

    /// The path from the crate root that `segments`, written in module `m`, names, or `None`
    /// for a path into another crate.
    fn absolute(&self, m: usize, segments: &[String]) -> Option<Vec<String>> {
        self.absolute_within(m, segments, 0)
    }

    /// [`Self::absolute`], at most `depth` imports deep (`use a::b; use b::a;` ends).
    fn absolute_within(&self, m: usize, segments: &[String], depth: usize) -> Option<Vec<String>> {
        if depth > 8 {
            return None;
        }
        let first = segments.first()?;
        let mut module = m;
        let mut rest = segments;
        match first.as_str() {
            "crate" => return Some(segments[1..].to_vec()),
            "self" => rest = &segments[1..],
            "super" => {
                while rest.first().is_some_and(|s| s == "super") {
                    module = self.modules[module].parent?;
                    rest = &rest[1..];
                }
            }
            name if self.modules[m].children.contains_key(name) => {}
            name => {
                // A name this module imported (`use super::model; model::X`).
                let leaf = self.modules[m]
                    .uses
                    .iter()
                    .find(|u| u.binds.as_deref() == Some(name))?;
                if leaf.path.segments.first() == Some(first) {
                    // `use name::..` read as an import of `name` itself: another crate.
                    return None;
                }
                let mut base = self.absolute_within(m, &leaf.path.segments, depth + 1)?;
                base.extend_from_slice(&segments[1..]);
                return Some(base);
            }
        }
        let mut abs = self.modules[module].path.clone();
        abs.extend_from_slice(rest);
        Some(abs)
    }

    /// The module defining the item at absolute path `abs` (a module path names the module
    /// itself), following re-exports; `None` if it leaves the crate.
    fn resolve(&self, abs: &[String], seen: &mut BTreeSet<Vec<String>>) -> Option<usize> {
        if !seen.insert(abs.to_vec()) {
            return None;
        }
        let mut module = 0;
        let mut i = 0;
        while i < abs.len() {
            let name = &abs[i];
            let m = &self.modules[module];
            if let Some(&child) = m.children.get(name) {
                module = child;
                i += 1;
                continue;
            }
            if m.items.contains(name) {
                return Some(module);
            }
            // Imported here (re-exported, or visible to the children through `super::`).
            if let Some(leaf) = m.uses.iter().find(|u| u.binds.as_deref() == Some(name)) {
                let mut target = self.absolute(module, &leaf.path.segments)?;
                target.extend_from_slice(&abs[i + 1..]);
                return self.resolve(&target, seen);
            }
            for glob in m.uses.iter().filter(|u| u.binds.is_none()) {
                let Some(mut target) = self.absolute(module, &glob.path.segments) else {
                    continue;
                };
                target.extend_from_slice(&abs[i..]);
                if let Some(found) = self.resolve(&target, seen)
                    && self.defines_or_reexports(found, name)
                {
                    return Some(found);
                }
            }
            // Not found (a variant, an associated item, generated code): this module.
            return Some(module);
        }
        Some(module)
    }

    fn defines_or_reexports(&self, m: usize, name: &str) -> bool {
        let m = &self.modules[m];
        m.items.contains(name)
            || m.children.contains_key(name)
            || m.uses.iter().any(|u| u.binds.as_deref() == Some(name))
    }

    /// The strongly connected components with more than one module (Tarjan), each sorted.
    pub(crate) fn cycles(&self) -> Vec<Vec<usize>> {
        let n = self.modules.len();
        let mut adjacency = vec![Vec::new(); n];
        for &(a, b) in self.edges.keys() {
            adjacency[a].push(b);
        }
        let mut tarjan = Tarjan {
            adjacency: &adjacency,
            index: vec![None; n],
            low: vec![0; n],
            on_stack: vec![false; n],
            stack: Vec::new(),
            next: 0,
            components: Vec::new(),
        };
        for v in 0..n {
            if tarjan.index[v].is_none() {
                tarjan.visit(v);
            }
        }
        let mut out: Vec<Vec<usize>> = tarjan
            .components
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|mut c| {
                c.sort_by_key(|&m| self.modules[m].name());
                c
            })
            .collect();
        out.sort_by_key(|c| self.modules[c[0]].name());
        out
    }

    /// Each circle: its modules and the references that make its edges.
    fn cycles_text(&self, cycles: &[Vec<usize>]) -> String {
        let mut s = String::new();
        for (k, c) in cycles.iter().enumerate() {
            let names: Vec<String> = c.iter().map(|&m| self.modules[m].name()).collect();
            let _ = writeln!(
                s,
                "circle {}: {} modules: {}",
                k + 1,
                c.len(),
                names.join(", ")
            );
            let members: BTreeSet<usize> = c.iter().copied().collect();
            for (&(a, b), site) in &self.edges {
                if members.contains(&a) && members.contains(&b) {
                    let _ = writeln!(
                        s,
                        "  {} -> {}   ({}:{} `{}`)",
                        self.modules[a].name(),
                        self.modules[b].name(),
                        site.file,
                        site.line,
                        site.text
                    );
                }
            }
        }
        s
    }

    /// The graph in layers: layer 0 depends on no module of the crate; a module in a circle
    /// is listed with its circle's layer.
    fn layers_text(&self) -> String {
        let n = self.modules.len();
        let mut component = (0..n).collect::<Vec<_>>();
        for c in self.cycles() {
            for &m in &c {
                component[m] = c[0];
            }
        }
        let mut layer = vec![0usize; n];
        // Longest path on the condensation: relax n times (small graphs).
        for _ in 0..n {
            let mut changed = false;
            for &(a, b) in self.edges.keys() {
                if component[a] != component[b] && layer[a] < layer[b] + 1 {
                    layer[a] = layer[b] + 1;
                    changed = true;
                }
                if component[a] == component[b] && layer[a] != layer[b] {
                    let l = layer[a].max(layer[b]);
                    layer[a] = l;
                    layer[b] = l;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut by_layer: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for m in 0..n {
            by_layer.entry(layer[m]).or_default().push(m);
        }
        let mut s = String::new();
        for (l, mut ms) in by_layer {
            ms.sort_by_key(|&m| self.modules[m].name());
            let _ = writeln!(s, "layer {l}:");
            for m in ms {
                let deps: Vec<String> = self
                    .edges
                    .keys()
                    .filter(|&&(a, _)| a == m)
                    .map(|&(_, b)| self.modules[b].name())
                    .collect();
                let _ = writeln!(s, "  {} -> [{}]", self.modules[m].name(), deps.join(", "));
            }
        }
        s
    }
}

struct Tarjan<'a> {
    adjacency: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    components: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for k in 0..self.adjacency[v].len() {
            let w = self.adjacency[v][k];
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

impl<S: Source> Builder<'_, S> {
    /// Adds the module of `tokens` (its inline and file children too); returns its id.
    fn add_module(
        &mut self,
        path: &[String],
        parent: Option<usize>,
        file: &Path,
        children_dir: &Path,
        tokens: &[Token],
    ) -> usize {
        let id = self.modules.len();
        self.modules.push(Module {
            path: path.to_vec(),
            file: file.display().to_string(),
            parent,
            ..Module::default()
        });
        self.tokens.push(Vec::new());
        let mut own = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            let is_decl = t.is_ident("mod")
                && (i == 0 || !matches!(tokens[i - 1].tok, Tok::PathSep))
                && tokens.get(i + 1).and_then(Token::ident).is_some()
                && tokens
                    .get(i + 2)
                    .is_some_and(|t| t.is_punct(';') || t.is_punct('{'));
            if !is_decl {
                own.push(t.clone());
                i += 1;
                continue;
            }
            let name = tokens[i + 1].ident().unwrap_or_default().to_string();
            if tokens[i + 2].is_punct(';') && self.modules[id].children.contains_key(&name) {
                // The same file declared again under another `cfg`.
                i += 3;
                continue;
            }
            let mut child_path = path.to_vec();
            child_path.push(name.clone());
            if tokens[i + 2].is_punct('{') {
                let close = matching_brace(tokens, i + 2);
                let child = self.add_module(
                    &child_path,
                    Some(id),
                    file,
                    &children_dir.join(&name),
                    &tokens[i + 3..close],
                );
                self.modules[id].children.insert(name, child);
                i = close + 1;
            } else {
                let (child_file, grandchildren_dir) = if let Some(p) = path_attribute(tokens, i) {
                    let f = children_dir.join(p);
                    let d = f.parent().unwrap_or(Path::new("")).to_path_buf();
                    (f, d)
                } else {
                    let flat = children_dir.join(format!("{name}.rs"));
                    let folder = children_dir.join(&name);
                    if self.source.read(&self.crate_dir.join(&flat)).is_some() {
                        (flat, folder)
                    } else {
                        (folder.join("mod.rs"), folder)
                    }
                };
                match self.source.read(&self.crate_dir.join(&child_file)) {
                    Some(text) => {
                        let child = self.add_module(
                            &child_path,
                            Some(id),
                            &child_file,
                            &grandchildren_dir,
                            &lex(&text),
                        );
                        self.modules[id].children.insert(name, child);
                    }
                    None => self.errors.push(format!(
                        "{}:{}: `mod {name};` but no {}",
                        file.display(),
                        t.line,
                        child_file.display()
                    )),
                }
                i += 3;
            }
        }
        self.tokens[id] = own;
        id
    }

    /// Collects the items, `use` leaves and path references of module `id`.
    fn scan(&mut self, id: usize) {
        let tokens = std::mem::take(&mut self.tokens[id]);
        let file = self.modules[id].file.clone();
        let children: BTreeSet<String> = self.modules[id].children.keys().cloned().collect();
        let site = |t: &Token, text: String| Site {
            file: file.clone(),
            line: t.line,
            text,
        };
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            let after_sep = i > 0 && tokens[i - 1].tok == Tok::PathSep;
            let Some(word) = t.ident() else {
                i += 1;
                continue;
            };
            if after_sep {
                i += 1;
                continue;
            }
            match word {
                "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union" => {
                    if let Some(name) = tokens.get(i + 1).and_then(Token::ident) {
                        self.modules[id].items.insert(name.to_string());
                    }
                    i += 1;
                }
                "macro_rules" if tokens.get(i + 1).is_some_and(|t| t.is_punct('!')) => {
                    if let Some(name) = tokens.get(i + 2).and_then(Token::ident) {
                        self.modules[id].items.insert(name.to_string());
                        if macro_exported(&tokens, i) {
                            self.exported_macros.push((name.to_string(), id));
                        }
                    }
                    i += 3;
                }
                "use" => {
                    let mut leaves = Vec::new();
                    let mut end = use_tree(&tokens, i + 1, &mut Vec::new(), &mut leaves);
                    // Past the declaration's end.
                    while tokens.get(end).is_some_and(|t| !t.is_punct(';')) {
                        end += 1;
                    }
                    for (prefix, binds) in leaves {
                        let text = prefix.join("::");
                        let path = RawPath {
                            segments: prefix,
                            site: site(t, text),
                        };
                        self.modules[id].refs.push(path.clone());
                        self.modules[id].uses.push(UseLeaf { binds, path });
                    }
                    i = end;
                }
                _ => {
                    let dollar_crate = word == "crate" && i > 0 && tokens[i - 1].is_punct('$');
                    let starts = matches!(word, "crate" | "super" | "self")
                        || dollar_crate
                        || children.contains(word);
                    if starts && tokens.get(i + 1).is_some_and(|t| t.tok == Tok::PathSep) {
                        let mut segments = vec![word.to_string()];
                        let mut j = i + 1;
                        while tokens.get(j).is_some_and(|t| t.tok == Tok::PathSep)
                            && let Some(next) = tokens.get(j + 1).and_then(Token::ident)
                        {
                            segments.push(next.to_string());
                            j += 2;
                        }
                        let text = segments.join("::");
                        self.modules[id].refs.push(RawPath {
                            segments,
                            site: site(t, text),
                        });
                        i = j;
                    } else {
                        i += 1;
                    }
                }
            }
        }
    }
}

/// The index of the `}` matching the `{` at `open`.
fn matching_brace(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        if t.is_punct('{') {
            depth += 1;
        } else if t.is_punct('}') {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    tokens.len()
}

/// The `#[path = ".."]` attribute of the `mod` at `at`, if any (looking back over its
/// attributes and visibility).
fn path_attribute(tokens: &[Token], at: usize) -> Option<String> {
    let mut k = at;
    while k > 0 {
        k -= 1;
        let t = &tokens[k];
        if t.is_punct(';') || t.is_punct('{') || t.is_punct('}') {
            return None;
        }
        if t.is_ident("path")
            && tokens.get(k + 1).is_some_and(|t| t.is_punct('='))
            && let Some(Tok::Str(p)) = tokens.get(k + 2).map(|t| &t.tok)
        {
            return Some(p.clone());
        }
    }
    None
}

/// Whether the `macro_rules!` at `at` carries `#[macro_export]`.
fn macro_exported(tokens: &[Token], at: usize) -> bool {
    let mut k = at;
    while k > 0 {
        k -= 1;
        let t = &tokens[k];
        if t.is_punct(';') || t.is_punct('}') {
            return false;
        }
        if t.is_ident("macro_export") {
            return true;
        }
    }
    false
}

/// Parses the use tree starting at `i` with the segments `prefix` before it; pushes each leaf
/// (its full path, the name it binds or `None` for a glob) and returns the index after the
/// tree (at the `;`, `,` or `}` that ends it).
fn use_tree(
    tokens: &[Token],
    mut i: usize,
    prefix: &mut Vec<String>,
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let depth = prefix.len();
    if tokens.get(i).is_some_and(|t| t.tok == Tok::PathSep) {
        i += 1;
    }
    while let Some(t) = tokens.get(i) {
        match &t.tok {
            // `$crate` in a macro: the path starts at `crate`.
            Tok::Punct('$') => i += 1,
            Tok::Ident(word) => {
                prefix.push(word.clone());
                i += 1;
                if tokens.get(i).is_some_and(|t| t.tok == Tok::PathSep) {
                    i += 1;
                    continue;
                }
                // A leaf: `name`, `name as alias`, `self`.
                let mut binds = word.clone();
                if tokens.get(i).is_some_and(|t| t.is_ident("as"))
                    && let Some(alias) = tokens.get(i + 1).and_then(Token::ident)
                {
                    binds = alias.to_string();
                    i += 2;
                }
                let mut path = prefix.clone();
                if word == "self" && path.len() > 1 {
                    path.pop();
                    if binds == "self" {
                        binds = path.last().cloned().unwrap_or_default();
                    }
                }
                leaves.push((path, Some(binds)));
                break;
            }
            Tok::Punct('*') => {
                leaves.push((prefix.clone(), None));
                i += 1;
                break;
            }
            Tok::Punct('{') => {
                i += 1;
                loop {
                    match tokens.get(i) {
                        None => break,
                        Some(t) if t.is_punct('}') => {
                            i += 1;
                            break;
                        }
                        Some(t) if t.is_punct(',') => i += 1,
                        Some(_) => {
                            let mut inner = prefix.clone();
                            let next = use_tree(tokens, i, &mut inner, leaves);
                            // Always move on (an unexpected token is skipped).
                            i = next.max(i + 1);
                        }
                    }
                }
                break;
            }
            _ => break,
        }
    }
    prefix.truncate(depth);
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(files: &[(&str, &str)]) -> Graph {
        let map: BTreeMap<PathBuf, String> = files
            .iter()
            .map(|(p, s)| (Path::new("/c").join(p), (*s).to_string()))
            .collect();
        Graph::build(&map, Path::new("/c"), Path::new("src/lib.rs")).expect("builds")
    }

    fn edges(g: &Graph) -> Vec<String> {
        g.edges
            .keys()
            .map(|&(a, b)| format!("{} -> {}", g.modules[a].name(), g.modules[b].name()))
            .collect()
    }

    fn cycle_names(g: &Graph) -> Vec<Vec<String>> {
        g.cycles()
            .iter()
            .map(|c| c.iter().map(|&m| g.modules[m].name()).collect())
            .collect()
    }

    /// A seam below its backends, a registry above them, a facade re-exporting everything:
    /// no circle, and a path through a re-export lands on the defining module.
    const LAYERED: &[(&str, &str)] = &[
        (
            "src/lib.rs",
            "//! Docs naming crate::registry::Any do not count.\n\
             pub mod backend;\nmod ring;\nmod poly;\n\
             pub use backend::{Backend, Portable};\npub use poly::Poly;\n\
             #[doc(hidden)]\npub mod __private { pub struct Token; }\n",
        ),
        (
            "src/ring.rs",
            "pub trait Ring {}\nconst S: &str = \"crate::poly::Poly\";\n",
        ),
        (
            "src/backend/mod.rs",
            "mod seam;\nmod portable;\n#[path = \"arch/x86.rs\"]\nmod x86;\n\
             #[cfg(x)]\npub mod registry;\n#[cfg(not(x))]\nmod registry;\n\
             pub use seam::Backend;\npub use portable::Portable;\npub use registry::*;\n",
        ),
        (
            "src/backend/seam.rs",
            "use {crate::ring::Ring, core::fmt};\npub trait Backend<R: Ring> { fn f(&self) {} }\n",
        ),
        (
            "src/backend/portable.rs",
            "use super::seam::Backend;\npub struct Portable;\n\
             impl<R: crate::ring::Ring> Backend<R> for Portable {}\n",
        ),
        (
            "src/backend/arch/x86.rs",
            "use crate::backend::Backend;\npub struct Fast;\n\
             mod kernels {\n    pub(super) fn k() -> char { '{' }\n}\n\
             impl<R: crate::ring::Ring> Backend<R> for Fast { fn f(&self) { kernels::k(); } }\n",
        ),
        (
            "src/backend/registry.rs",
            "pub enum Any { P(super::Portable), F(super::x86::Fast) }\n\
             #[macro_export]\nmacro_rules! dispatch { () => { $crate::backend::Any::P }; }\n",
        ),
        (
            "src/poly.rs",
            "use crate::{Backend, ring::{self, Ring}};\n\
             pub struct Poly(crate::__private::Token);\n\
             fn g() { let _ = r#\"crate::dispatch!\"#; let _l: &'static str = \"\"; }\n\
             #[cfg(test)]\nmod tests { use super::*; fn t() { crate::dispatch!(); } }\n",
        ),
    ];

    #[test]
    fn a_layered_crate_has_no_circle() {
        let g = graph(LAYERED);
        assert_eq!(g.modules.len(), 11, "{:?}", edges(&g));
        let mut found = edges(&g);
        found.sort();
        let mut want = [
            "crate -> backend::portable",
            "crate -> backend::seam",
            "crate -> poly",
            "backend -> backend::portable",
            "backend -> backend::registry",
            "backend -> backend::seam",
            "backend::seam -> ring",
            "backend::portable -> ring",
            "backend::portable -> backend::seam",
            "backend::x86 -> ring",
            "backend::x86 -> backend::seam",
            "backend::x86 -> backend::x86::kernels",
            "backend::registry -> backend::portable",
            "backend::registry -> backend::x86",
            "poly -> ring",
            "poly -> backend::seam",
            "poly -> __private",
            "poly::tests -> backend::registry",
            "poly::tests -> poly",
        ];
        want.sort_unstable();
        assert_eq!(found, want);
        assert!(g.cycles().is_empty());
        assert!(g.layers_text().starts_with("layer 0:\n"));
    }

    #[test]
    fn an_upward_import_is_a_circle() {
        // The seam's default body reaches the typed API, which depends on the seam.
        let mut files = LAYERED.to_vec();
        files[3].1 = "use crate::ring::Ring;\n\
                      pub trait Backend<R: Ring> { fn f(&self) { let _ = crate::Poly::new; } }\n";
        // And a two-module circle of its own: the registry and a backend naming it.
        files[5].1 = "use crate::backend::{Backend, registry::Any};\npub struct Fast;\n";
        let g = graph(&files);
        assert_eq!(
            cycle_names(&g),
            [
                vec!["backend::registry", "backend::x86"],
                vec!["backend::seam", "poly"],
            ]
        );
        let text = g.cycles_text(&g.cycles());
        assert!(
            text.contains("circle 2: 2 modules: backend::seam, poly"),
            "{text}"
        );
        assert!(
            text.contains("backend::seam -> poly   (src/backend/seam.rs:2 `crate::Poly::new`)"),
            "{text}"
        );
    }

    #[test]
    fn a_missing_module_file_is_an_error() {
        let map: BTreeMap<PathBuf, String> =
            [(PathBuf::from("/c/src/lib.rs"), "mod gone;".to_string())].into();
        let err = Graph::build(&map, Path::new("/c"), Path::new("src/lib.rs")).unwrap_err();
        assert!(err.contains("`mod gone;` but no src/gone"), "{err}");
    }

    #[test]
    fn lexer_skips_comments_strings_and_lifetimes() {
        let t = lex(
            "/* a /* nested */ crate::x */ f::<'a>('b', b'c', \"crate::y\", r#\"z\"#) // crate::w\n::",
        );
        let kinds: Vec<Tok> = t.into_iter().map(|t| t.tok).collect();
        assert_eq!(
            kinds,
            [
                Tok::Ident("f".into()),
                Tok::PathSep,
                Tok::Punct('<'),
                Tok::Punct('>'),
                Tok::Punct('('),
                Tok::Punct(','),
                Tok::Punct(','),
                Tok::Str("crate::y".into()),
                Tok::Punct(','),
                Tok::Str("z".into()),
                Tok::Punct(')'),
                Tok::PathSep,
            ]
        );
    }
}
