use super::*;
use crate::runtime::Semantics;
use crate::search::replay;

fn program(text: &str) -> zingrs_lang::ir::Program {
    zingrs_lang::compile("t.zing", text, zingrs_lang::Lang::Zing)
        .expect("the generated model compiles")
        .program
}

/// The default (depth-first) search and the breadth-first one.
fn dfs_and_bfs(m: &Machine) -> (SearchResult, SearchResult) {
    let bfs = ExplicitOptions {
        bfs: true,
        ..Default::default()
    };
    let opts = Options::default();
    (
        search(m, &opts, &ExplicitOptions::default()),
        search(m, &opts, &bfs),
    )
}

/// Paths far deeper than the window of live path nodes: depth-first search rebuilds the
/// dropped states from checkpoints and must find what breadth-first search finds.
#[test]
fn deep_searches_rebuild_dropped_states_exactly() {
    let p = program(&crate::gen::families::philosophers(5, true));
    let m = Machine::new(&p, Semantics::default());
    let (dfs, bfs) = dfs_and_bfs(&m);
    assert!(dfs.findings.is_empty() && bfs.findings.is_empty());
    assert!(dfs.stats.max_path > (WINDOW + 4 * CHECKPOINT) as u64);
    assert_eq!(dfs.stats.states, bfs.stats.states);
    assert_eq!(dfs.stats.transitions, bfs.stats.transitions);
    // whole canonical forms, and keys with the context bookkeeping: no fingerprints are
    // computed ahead
    let exact = search(
        &m,
        &Options::default(),
        &ExplicitOptions {
            exact: true,
            ..Default::default()
        },
    );
    assert!(exact.stats.max_path > (WINDOW + 4 * CHECKPOINT) as u64);
    assert_eq!(exact.stats.states, bfs.stats.states);
    let bounded = Options {
        contexts: Some(3),
        ..Default::default()
    };
    let bfs_if = |bfs| ExplicitOptions {
        bfs,
        ..Default::default()
    };
    let dfs = search(&m, &bounded, &bfs_if(false));
    let bfs = search(&m, &bounded, &bfs_if(true));
    assert_eq!(dfs.stats.states, bfs.stats.states);
    let cooperative = Options {
        cooperative: true,
        ..Default::default()
    };
    // a process that yields often, for long cooperative paths
    let p = program(
        "class Main {
                static int x;
                activate static void a() {
                    int i = 0;
                    while (i < 3000) { i = i + 1; yield; }
                }
                activate static void b() {
                    while (x < 3) { x = x + 1; yield; }
                }
            };",
    );
    let m = Machine::new(&p, Semantics::default());
    let dfs = search(&m, &cooperative, &bfs_if(false));
    let bfs = search(&m, &cooperative, &bfs_if(true));
    assert!(
        dfs.stats.max_path > (WINDOW + 4 * CHECKPOINT) as u64,
        "{}",
        dfs.stats.max_path
    );
    assert_eq!(dfs.stats.states, bfs.stats.states);
}

/// A node with more outcomes than [`Entry::pending`] has bits, dropped while some are
/// still pending (each outcome starts a path far deeper than the window): the positions
/// spill to the side map and every outcome is still explored once.
#[test]
fn wide_nodes_dropped_deep_down_keep_their_pending_outcomes() {
    let p = program(
        "range R 0 .. 99;
            class Main {
                static int x;
                activate static void main() {
                    int i = 0;
                    x = choose(R);
                    while (i < 200) { i = i + 1; }
                    x = choose(R);
                    while (i < 400) { i = i + 1; }
                }
            };",
    );
    let m = Machine::new(&p, Semantics::default());
    let (dfs, bfs) = dfs_and_bfs(&m);
    assert!(dfs.stats.max_path > (WINDOW + 4 * CHECKPOINT) as u64);
    assert!(dfs.stats.states > 100 * 400, "{}", dfs.stats.states);
    assert_eq!(dfs.stats.states, bfs.stats.states);
    assert_eq!(dfs.stats.transitions, bfs.stats.transitions);
}

/// Lone successors inside atomic regions are stored only after their own successors are
/// computed; one that was known already (two choices met again) must be dropped with
/// that work, and the search must store what breadth-first search stores.
#[test]
fn deferred_successors_that_were_known_are_dropped() {
    let p = program(
        "class Main {
                static int x;
                static bool b;
                activate static void a() {
                    while (x < 3) {
                        atomic { b = choose(bool); b = false; x = x + 1; }
                    }
                }
                activate static void c() {
                    while (x < 3) {
                        atomic { b = choose(bool); b = false; x = x + 1; }
                    }
                }
            };",
    );
    let m = Machine::new(&p, Semantics::default());
    let (dfs, bfs) = dfs_and_bfs(&m);
    assert!(dfs.findings.is_empty() && bfs.findings.is_empty());
    assert_eq!(dfs.stats.states, bfs.stats.states);
    assert_eq!(dfs.stats.transitions, bfs.stats.transitions);
    assert_eq!(dfs.stats.zing_states, bfs.stats.zing_states);
}

#[test]
fn a_deep_deadlock_path_replays() {
    let p = program(&crate::gen::families::philosophers(5, false));
    let m = Machine::new(&p, Semantics::default());
    let r = search(
        &m,
        &Options {
            keep_going: true,
            ..Default::default()
        },
        &ExplicitOptions::default(),
    );
    let Some(Finding::Deadlock { path }) = r.findings.first() else {
        panic!("philosophers deadlock: {:?}", r.findings);
    };
    assert!(path.choices.len() > WINDOW + CHECKPOINT);
    let end = replay(&m, path).expect("the path replays");
    assert!(m.deadlocked(end.states.last().expect("a state")));
}
