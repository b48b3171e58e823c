//! Incremental fingerprints: the explicit search fingerprints most successors from their
//! parent's fingerprint and the parts the step changed. Every such fingerprint must equal the
//! one the whole canonical walk gives, and the search must store exactly as many states as
//! the search that keeps whole canonical forms (`--exact`), on every regression model and on
//! random boolean programs and Zing models.

use std::path::Path;
use zingrs::explore::{search, ExplicitOptions};
use zingrs::gen::{random_bp, random_zing};
use zingrs::runtime::{Machine, Semantics};
use zingrs::search::{Limits, Options, Reduction};
use zingrs_lang::Lang;

/// Searches `text` with incremental fingerprints (checked against the whole walk) and with
/// exact storage, under `reduction` and with the symmetry reduction on or off; returns the two
/// state counts, or None if the model does not compile.
fn counts(
    name: &str,
    text: &str,
    lang: Lang,
    reduction: Reduction,
    symmetry: bool,
) -> Option<(u64, u64)> {
    counts_sym(name, text, lang, 12, reduction, symmetry, None, false)
}

/// [`counts`] with a stack-depth bound of `max_depth`, without symmetry.
fn counts_to(
    name: &str,
    text: &str,
    lang: Lang,
    max_depth: u32,
    reduction: Reduction,
) -> Option<(u64, u64)> {
    counts_sym(name, text, lang, max_depth, reduction, false, None, false)
}

/// [`counts_to`] with the symmetry reduction on or off, the deep scheme's threshold
/// (`deep_from`, see `canon::deep`; `None`: the search's default), and breadth-first or not.
#[allow(clippy::too_many_arguments)]
fn counts_sym(
    name: &str,
    text: &str,
    lang: Lang,
    max_depth: u32,
    reduction: Reduction,
    symmetry: bool,
    deep_from: Option<u32>,
    bfs: bool,
) -> Option<(u64, u64)> {
    let program = zingrs_lang::compile(name, text, lang).ok()?.program;
    // threads created without bound get a bound, as `check` gives them (its deepening): a
    // depth-first search would otherwise go on creating threads, and each state it stores
    // would hold thousands of them
    let semantics = Semantics {
        thread_bound: zingrs_lang::spawn::unbounded_creation(&program).then_some(4),
        ..Semantics::default()
    };
    let m = Machine::new(&program, semantics);
    let limits = Limits {
        max_depth,
        max_states: Some(20_000),
        ..Limits::default()
    };
    let opts = Options {
        limits,
        ..Options::default()
    };
    let checked = ExplicitOptions {
        check_fingerprints: true,
        deep_from,
        reduction,
        symmetry,
        bfs,
        ..ExplicitOptions::default()
    };
    let exact = ExplicitOptions {
        exact: true,
        reduction,
        symmetry,
        bfs,
        ..ExplicitOptions::default()
    };
    Some((
        search(&m, &opts, &checked).stats.states,
        search(&m, &opts, &exact).stats.states,
    ))
}

fn models(dir: &Path, out: &mut Vec<(String, String, Lang)>) {
    for entry in std::fs::read_dir(dir).expect("the regressions directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            models(&path, out);
            continue;
        }
        let lang = match path.extension().and_then(|e| e.to_str()) {
            Some("bp") => Lang::Bp,
            Some("zing") => Lang::Zing,
            _ => continue,
        };
        let text = std::fs::read_to_string(&path).expect("a readable model");
        out.push((path.display().to_string(), text, lang));
    }
}

/// A model: its name, its text and its language.
type Model = (String, String, Lang);

/// The regression models, the examples, and 300 random boolean programs and Zing models.
fn all_models() -> Vec<Model> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    models(&root.join("regressions"), &mut all);
    models(&root.join("examples"), &mut all);
    for seed in 0..300 {
        all.push((format!("random-zing {seed}"), random_zing(seed), Lang::Zing));
        all.push((format!("random-bp {seed}"), random_bp(seed, 8), Lang::Bp));
    }
    all
}

/// Runs `share(all, k, workers)` for each of `workers` shares of `all` side by side (the
/// models are independent: one share per core); returns the sum.
fn in_shares(all: &[Model], share: fn(&[Model], usize, usize) -> usize) -> usize {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|k| scope.spawn(move || share(all, k, workers)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a share's comparisons hold"))
            .sum()
    })
}

#[test]
fn incremental_fingerprints_agree_with_the_whole_walk() {
    let compared = in_shares(&all_models(), compare_share);
    assert!(compared > 1400, "only {compared} models compiled");
}

/// The deep scheme (`canon::deep`: per-frame parts, references named by the position of
/// their first meeting), which the search uses from the digested depth on, applied to every
/// state with a frame: each incremental fingerprint equals the deep whole walk's (checked in
/// the search), and the search stores as many states as the exact one, so the scheme merges
/// exactly the states equal up to heap renaming.
#[test]
fn the_deep_scheme_agrees_with_the_whole_walk_and_the_exact_search() {
    let compared = in_shares(&all_models(), compare_deep_share);
    assert!(compared > 1400, "only {compared} models compiled");
}

/// [`compare_share`] with the deep scheme from depth 1, with and without symmetry (under
/// which the scheme takes the states of one thread and the plain walk the others), depth- and
/// breadth-first (each queued state keeps its canon).
fn compare_deep_share(all: &[(String, String, Lang)], k: usize, step: usize) -> usize {
    let mut compared = 0;
    for (name, text, lang) in all.iter().skip(k).step_by(step) {
        for (reduction, symmetry, bfs) in [
            (Reduction::None, false, false),
            (Reduction::All, false, false),
            (Reduction::None, true, false),
            (Reduction::None, false, true),
        ] {
            if let Some((inc, exact)) =
                counts_sym(name, text, *lang, 12, reduction, symmetry, Some(1), bfs)
            {
                assert_eq!(
                    inc, exact,
                    "{name}: states stored with deep fingerprints and exactly ({reduction:?}, symmetry {symmetry}, bfs {bfs})"
                );
                compared += 1;
            }
        }
    }
    compared
}

/// Compares the models `k`, `k + step`, … of `all`; returns how many searches compiled.
fn compare_share(all: &[(String, String, Lang)], k: usize, step: usize) -> usize {
    let mut compared = 0;
    for (name, text, lang) in all.iter().skip(k).step_by(step) {
        // chained atomic regions and private steps are fingerprinted from their start state;
        // symmetry (programs with threads) sums thread parts under one seed and walks them in
        // their canonical order
        let threads = match lang {
            Lang::Bp => text.contains("thread"),
            Lang::Zing => text.contains("async") || text.matches("activate").count() > 1,
        };
        for (reduction, symmetry) in [
            (Reduction::None, false),
            (Reduction::All, false),
            (Reduction::None, true),
            (Reduction::All, true),
        ] {
            if symmetry && !threads {
                continue;
            }
            if let Some((inc, exact)) = counts(name, text, *lang, reduction, symmetry) {
                assert_eq!(
                    inc, exact,
                    "{name}: states stored with fingerprints and exactly ({reduction:?}, symmetry {symmetry})"
                );
                compared += 1;
            }
        }
    }
    compared
}

/// Stacks deeper than the digested depth (32) are fingerprinted through each stack node's
/// digest of the frames below the top, unless a frame there holds a reference; either way the
/// fingerprint must be the whole walk's, and the count the exact search's.
#[test]
fn deep_stacks_fingerprint_as_the_whole_walk() {
    // boolean recursion up to the bound, with nondeterministic locals at every level
    let bp = "decl g;\nvoid main() begin r(*); end\n\
              void r(x) begin decl y; y := *; if (*) then r(!x); fi g := x & y; end\n";
    let (inc, exact) = counts_to("deep.bp", bp, Lang::Bp, 60, Reduction::None).expect("compiles");
    assert_eq!(inc, exact, "deep boolean recursion");
    assert!(inc > 60, "{inc} states: the recursion went deep");
    // integer recursion 80 deep, one reference in a frame half-way down, then plain frames
    let zing = "class Node { int v; };\n\
                class Main {\n\
                    static void f(int n, Node keep) {\n\
                        if (n > 0) {\n\
                            if (n == 40) { keep = new Node; keep.v = n; }\n\
                            f(n - 1, null);\n\
                            if (keep != null) { assert(keep.v == 40); }\n\
                        }\n\
                    }\n\
                    activate static void main() { f(80, null); }\n\
                };\n";
    let (inc, exact) =
        counts_to("deep.zing", zing, Lang::Zing, 200, Reduction::None).expect("compiles");
    assert_eq!(inc, exact, "deep Zing recursion with a reference");
    assert!(inc > 160, "{inc} states: the recursion went deep");
    // two references passed down 80 deep, swapped or not at one level, and written at the
    // bottom: every frame holds references, so the digests number them
    let swap = "class Node { int v; };\n\
                class Main {\n\
                    static void f(int n, Node p, Node q) {\n\
                        bool s;\n\
                        if (n > 0) {\n\
                            if (n == 50) { s = choose(bool); }\n\
                            if (s) { f(n - 1, q, p); } else { f(n - 1, p, q); }\n\
                        } else {\n\
                            p.v = p.v + 1;\n\
                        }\n\
                    }\n\
                    activate static void main() { Node a; Node b; a = new Node; b = new Node; f(80, a, b); }\n\
                };\n";
    let (inc, exact) =
        counts_to("swap.zing", swap, Lang::Zing, 200, Reduction::None).expect("compiles");
    assert_eq!(inc, exact, "deep Zing recursion passing references down");
    assert!(inc > 160, "{inc} states: the recursion went deep");
}

/// Two processes each hold an object of their own and set its field to a chosen value: the
/// states where the first holds `false` and the second `true`, and the other way round, are
/// different states (without symmetry), and so are those where one process is a step behind.
/// The fingerprint sums one hash per part, each seeded by the part's position; those seeds
/// must not combine with the parts' bytes so that such swaps cancel out (xxh3 folds a short
/// input's seed in linearly, so neighbouring positions used to collide, and this model stored
/// 52 states instead of 54).
#[test]
fn parts_swapped_between_positions_fingerprint_apart() {
    // main: atomic_begin, two starts, atomic_end (4 states); then main at its return or
    // completed, and each worker at `new` (c null), at the choice, after it with false, after
    // it with true, or completed: 2 · 5 · 5 = 50; 54 in all
    let zing = "class C { bool v; };\n\
                class Main {\n\
                    static void W() { C c; c = new C; c.v = choose(bool); }\n\
                    activate static void main() { atomic { async W(); async W(); } }\n\
                };\n";
    for symmetry in [false, true] {
        let (inc, exact) =
            counts("swap.zing", zing, Lang::Zing, Reduction::None, symmetry).expect("compiles");
        assert_eq!(inc, exact, "symmetry {symmetry}");
        // with symmetry, the workers' states are a multiset: C(6, 2) = 15 of them, 2 · 15 + 4
        assert_eq!(inc, if symmetry { 34 } else { 54 }, "symmetry {symmetry}");
    }
}

/// `zing-deep-alloc N` (a new object per frame, kept in a local and read after the call):
/// stacks whose frames hold more distinct references than a digest keeps (64), over a heap
/// that grows and shrinks with the stack. One path; without reductions every statement is
/// one transition: per level n > 0 `x = new Node`, `x.v = n`, the `if`, the call, the
/// `assert` after it and the return (6), at level 0 the same without the call (5), and in
/// `main` the call and its end (2): 6N + 7 transitions, 6N + 8 states (each has another
/// depth or pc). With incremental fingerprints (checked against the whole walk) and exact
/// storage alike; under the default reductions the two agree too.
#[test]
fn deep_alloc_counts_exactly() {
    for n in [0u64, 1, 40, 100] {
        let text = zingrs::gen::families::zing_deep_alloc(n);
        let name = format!("deep-alloc-{n}.zing");
        let (inc, exact) =
            counts_to(&name, &text, Lang::Zing, 300, Reduction::None).expect("compiles");
        assert_eq!((inc, exact), (6 * n + 8, 6 * n + 8), "N = {n}");
        let (inc, exact) =
            counts_to(&name, &text, Lang::Zing, 300, Reduction::All).expect("compiles");
        assert_eq!(inc, exact, "N = {n}, reduced");
    }
}
