//! `GlobalLive::of` (the worklist analysis of issue 37) against the round-robin fixpoint it
//! replaced, `GlobalLive::round_robin`: the same live globals before every node of every
//! regression model, example and random program, and of the benchmark families whose call
//! structure stresses it (calls many levels deep, one procedure called from many sites).

mod common {
    pub mod models;
}

use common::models::models;
use std::path::Path;
use zingrs_lang::global_liveness::GlobalLive;
use zingrs_lang::{compile, Lang};

/// Compares the two analyses on `text`; true if it compiled and the per-node answer (a
/// sequential program small enough to keep one) differs from "read anywhere" somewhere, so
/// that the comparison covered flow-sensitive results.
fn same_on(name: &str, text: &str, lang: Lang) -> Option<bool> {
    let program = compile(name, text, lang).ok()?.program;
    let ours = GlobalLive::of(&program);
    let reference = GlobalLive::round_robin(&program);
    assert!(ours == reference, "{name}: the analyses differ\n{text}");
    let g = program.globals.len();
    let sensitive = program.procs.iter().enumerate().any(|(q, p)| {
        (0..p.nodes.len())
            .any(|pc| (0..g).any(|i| ours.live(q as u32, pc as u32, i) != ours.read_anywhere(i)))
    });
    Some(sensitive)
}

#[test]
fn same_live_globals_on_every_regression_and_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["regressions", "examples", "tests/models"] {
        models(&root.join(d), &mut files);
    }
    let (mut compiled, mut sensitive) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let lang = if f.extension().is_some_and(|x| x == "bp") {
            Lang::Bp
        } else {
            Lang::Zing
        };
        if let Some(s) = same_on(&f.display().to_string(), &text, lang) {
            compiled += 1;
            sensitive += usize::from(s);
        }
    }
    assert!(
        compiled > 400,
        "{compiled} of {} models compiled",
        files.len()
    );
    assert!(
        sensitive > 50,
        "only {sensitive} models had flow-sensitive answers"
    );
}

#[test]
fn same_live_globals_on_random_programs() {
    let mut sensitive = 0;
    for seed in 0..300u64 {
        let size = 4 + (seed % 12) as u32;
        let bp = zingrs::gen::random_bp::random_sequential_bp(seed, size);
        sensitive += usize::from(same_on("r.bp", &bp, Lang::Bp).expect("random bp compiles"));
        let threads = zingrs::gen::random_bp(seed, size);
        same_on("t.bp", &threads, Lang::Bp).expect("random bp compiles");
        if seed % 3 == 0 {
            let z = zingrs::gen::random_zing(seed);
            same_on("r.zing", &z, Lang::Zing).expect("random zing compiles");
        }
    }
    assert!(
        sensitive > 100,
        "only {sensitive} random programs had flow-sensitive answers"
    );
}

#[test]
fn same_live_globals_on_deep_and_wide_calls() {
    use zingrs::gen::families::{bp_call_chain, bp_parity, bp_parity_flat};
    for (name, text) in [
        ("call-chain", bp_call_chain(150)),
        ("parity", bp_parity(90)),
        ("parity-flat", bp_parity_flat(70, false)),
    ] {
        assert_eq!(same_on(name, &text, Lang::Bp), Some(true), "{name}");
    }
    // one procedure called from many sites, reading a different global after each
    let mut s = String::from("decl ");
    let k = 100;
    s.push_str(
        &(0..k)
            .map(|i| format!("g{i}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    s.push_str(";\nvoid f() begin g0 := *; end\nvoid main() begin\n");
    for i in 0..k {
        s.push_str(&format!("  f();\n  assert(g{i});\n  g{i} := *;\n"));
    }
    s.push_str("end\n");
    assert_eq!(same_on("wide", &s, Lang::Bp), Some(true));
}
