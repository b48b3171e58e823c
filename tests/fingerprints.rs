//! Incremental fingerprints: the explicit search fingerprints most successors from their
//! parent's fingerprint and the parts the step changed. Every such fingerprint must equal the
//! one the whole canonical walk gives, and the search must store exactly as many states as
//! the search that keeps whole canonical forms (`--exact`), on every regression model and on
//! random boolean programs and Zing models.

use std::path::Path;
use zingrs::explore::{search, Limits, Options, Reduction};
use zingrs::gen::{random_bp, random_zing};
use zingrs::runtime::{Machine, Semantics};
use zingrs_lang::Lang;

/// Searches `text` with incremental fingerprints (checked against the whole walk) and with
/// exact storage, under `reduction`; returns the two state counts, or None if the model does
/// not compile.
fn counts(name: &str, text: &str, lang: Lang, reduction: Reduction) -> Option<(u64, u64)> {
    let program = zingrs_lang::compile(name, text, lang).ok()?.program;
    let m = Machine::new(&program, Semantics::default());
    let limits = Limits {
        max_depth: 12,
        max_states: Some(20_000),
        ..Limits::default()
    };
    let checked = Options {
        limits: limits.clone(),
        check_fingerprints: true,
        reduction,
        ..Options::default()
    };
    let exact = Options {
        limits,
        exact: true,
        reduction,
        ..Options::default()
    };
    Some((
        search(&m, &checked).stats.states,
        search(&m, &exact).stats.states,
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

#[test]
fn incremental_fingerprints_agree_with_the_whole_walk() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    models(&root.join("regressions"), &mut all);
    models(&root.join("examples"), &mut all);
    for seed in 0..300 {
        all.push((format!("random-zing {seed}"), random_zing(seed), Lang::Zing));
        all.push((format!("random-bp {seed}"), random_bp(seed, 8), Lang::Bp));
    }
    let mut compared = 0;
    for (name, text, lang) in &all {
        // chained atomic regions and private steps are fingerprinted from their start state
        for reduction in [Reduction::None, Reduction::All] {
            if let Some((inc, exact)) = counts(name, text, *lang, reduction) {
                assert_eq!(
                    inc, exact,
                    "{name}: states stored with fingerprints and exactly ({reduction:?})"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 1400, "only {compared} models compiled");
}
