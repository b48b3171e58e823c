//! Symmetry reduction (`--symmetry`): in a boolean program, states whose thread lists are
//! permutations of each other are one state. The counts below are derived by hand from the
//! semantics (threads that end are removed; the rest keep their creation order), not read off
//! the tool.

use std::process::Command;

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{check_json, with_stdin};

/// The exit code and stored states of `zingrs check - --format json` with `args`.
fn run(model: &str, args: &[&str]) -> (i32, u64) {
    let mut all = vec!["check", "-", "--lang", "bp", "--format", "json"];
    all.extend_from_slice(args);
    let o = with_stdin(&all, model);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: no JSON ({e}): {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let states = json["stats"]["states"].as_u64().expect("a state count");
    (o.status.code().expect("an exit code"), states)
}

/// `main` starts `n` workers that each take one step (`skip`) and return.
fn workers(n: u64) -> String {
    let mut s = String::from("void w() begin skip; end\nvoid main() begin\n");
    for _ in 0..n {
        s.push_str("  start_thread w();\n");
    }
    s.push_str("end\n");
    s
}

fn binomial(n: u64, k: u64) -> u64 {
    (1..=k).fold(1, |acc, i| acc * (n + 1 - i) / i)
}

/// The states of [`workers`]`(n)` searched without any reduction. A worker is at its `skip`
/// (0), at its return (1), or gone. With `main` at its i-th statement (i = 0..=n: i workers
/// started) the live workers, in creation order, are any word over {0, 1} of length at most
/// i: 2^(i+1) - 1 states; once `main` has returned, those of length at most n once more.
fn unreduced(n: u64) -> u64 {
    (0..=n).map(|i| (1 << (i + 1)) - 1).sum::<u64>() + (1 << (n + 1)) - 1
}

/// The same up to the order of the workers: a multiset of workers at 0 or 1 of size at most
/// i, C(i + 2, 2) of them, summed: C(n + 3, 3), plus C(n + 2, 2) after `main` has returned.
fn symmetric(n: u64) -> u64 {
    binomial(n + 3, 3) + binomial(n + 2, 2)
}

#[test]
fn identical_threads_grow_polynomially_under_symmetry() {
    // the formulas themselves, at sizes small enough to count on paper
    assert_eq!((unreduced(1), symmetric(1)), (7, 7));
    assert_eq!((unreduced(2), symmetric(2)), (18, 16));
    for n in 1..=9 {
        let model = workers(n);
        let base = ["--engine", "explicit", "--reduction", "none"];
        let off = run(&model, &[&base[..], &["--symmetry", "off"]].concat());
        let on = run(&model, &base);
        assert_eq!(off, (0, unreduced(n)), "n = {n}, symmetry off");
        assert_eq!(on, (0, symmetric(n)), "n = {n}, symmetry on");
        // exact storage sorts the threads' bytes: the same states
        let exact = run(&model, &[&base[..], &["--exact"]].concat());
        assert_eq!(exact, on, "n = {n}, --exact");
        let bfs = run(&model, &["--engine", "explicit", "--bfs"]);
        assert_eq!(bfs, on, "n = {n}, --bfs");
        if n >= 2 {
            assert!(on.1 < off.1, "n = {n}: {} !< {}", on.1, off.1);
        }
    }
    // 2^(n+2) + 2^(n+1) - n - 4 against about n^3/6: at n = 9, 3,059 states against 275
    assert_eq!(unreduced(9), 3059);
    assert_eq!(symmetric(9), 275);
}

/// Three identical workers race on a check-then-set; the error needs two of them past the
/// check before either sets the flag (`regressions/bp-threads/symmetry_*` derive both).
const RACE: &str = "decl a, b;\n\
    void w() begin decl t; t := a; if (!t) then a := T; assert(!b); b := T; fi end\n\
    void main() begin a, b := F, F; start_thread w(); start_thread w(); start_thread w(); end\n";
const PROTECTED: &str = "decl a, b;\n\
    void w() begin decl t; t, a := a, T; if (!t) then assert(!b); b := T; fi end\n\
    void main() begin a, b := F, F; start_thread w(); start_thread w(); start_thread w(); end\n";

#[test]
fn verdicts_agree_with_and_without_symmetry_and_store_fewer_states() {
    for (model, code) in [(RACE, 3), (PROTECTED, 0)] {
        for reduction in ["none", "all"] {
            let base = ["--engine", "explicit", "--reduction", reduction];
            let off = run(model, &[&base[..], &["--symmetry", "off"]].concat());
            let on = run(model, &base);
            assert_eq!((off.0, on.0), (code, code), "{reduction}: {model}");
            if code == 0 {
                // a full search: strictly fewer states under symmetry
                assert!(on.1 < off.1, "{reduction}: {} !< {}", on.1, off.1);
            }
        }
    }
}

#[test]
fn a_counterexample_found_under_symmetry_replays() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-symmetry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("race.bp");
    std::fs::write(&model, RACE).unwrap();
    let report = dir.join("race.json");
    let o = Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .args(["check", "--engine", "explicit", "--reduction", "none", "-o"])
        .arg(&report)
        .arg(&model)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    let r = Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .arg("replay")
        .arg(&model)
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(
        r.status.code(),
        Some(3),
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_context_bound_keeps_symmetry() {
    // three identical workers, the bound high enough to cut nothing they can do: the states
    // that differ only in which (non-running) worker is where are one state
    let model = workers(3);
    let base = ["--engine", "explicit", "--reduction", "none", "--contexts"];
    for k in ["1", "2", "3", "8"] {
        let on = run(&model, &[&base[..], &[k]].concat());
        let off = run(&model, &[&base[..], &[k, "--symmetry", "off"]].concat());
        assert_eq!(on.0, off.0, "--contexts {k}");
        assert!(on.1 < off.1, "--contexts {k}: {} !< {}", on.1, off.1);
    }
    // cooperative scheduling names the thread that holds the processor: marked the same way
    let coop = ["--engine", "explicit", "--cooperative"];
    let on = run(&model, &coop);
    let off = run(&model, &[&coop[..], &["--symmetry", "off"]].concat());
    assert_eq!((on.0, off.0), (0, 0), "--cooperative");
    assert!(on.1 < off.1, "--cooperative: {} !< {}", on.1, off.1);
    // without yields each worker runs to its end once it starts, so the race cannot happen
    for sym in ["on", "off"] {
        assert_eq!(run(RACE, &[&coop[..], &["--symmetry", sym]].concat()).0, 0);
    }
    // the race of three identical workers needs three switches: main starts them all, a
    // worker reads `a` (1), another runs to its end setting `a` and `b` (2), the first sets
    // `a` and fails (3); under fewer the pass is a bounded one (exit 8), with symmetry as without
    for (k, code) in [("1", 8), ("2", 8), ("3", 3)] {
        let args = [&base[..], &[k]].concat();
        let on = run(RACE, &args);
        let off = run(RACE, &[&args[..], &["--symmetry", "off"]].concat());
        assert_eq!((on.0, off.0), (code, code), "--contexts {k}");
    }
}

/// Every concurrent boolean-program regression under `--contexts 1`, `2` and `3`: the same
/// verdict with symmetry as without (a model's own `--contexts` and engine are replaced; models
/// pinned to coverability are bounded to two live threads, all others to three).
#[test]
fn every_concurrent_regression_agrees_under_a_context_bound() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions/bp-threads");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bp"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 60, "{} models", paths.len());
    let mut reduced = 0;
    let mut bad = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let mut options: Vec<String> = Vec::new();
        let mut unbounded = false;
        for line in text
            .lines()
            .take_while(|l| l.starts_with("//") || l.trim().is_empty())
        {
            let Some(v) = line.trim_start_matches('/').trim().strip_prefix("options:") else {
                continue;
            };
            let mut words = v.split_whitespace();
            while let Some(w) = words.next() {
                match w {
                    "--contexts" | "--engine" => {
                        unbounded |= words.next() == Some("coverability");
                    }
                    // a schedule bound does not combine with the context bound added here
                    "--preemptions" | "--preemptions-from" | "--delays" | "--delays-from"
                    | "--scheduler" => {
                        words.next();
                    }
                    "--delay-choices" => {}
                    _ => options.push(w.to_string()),
                }
            }
        }
        // some models create threads in a loop (not all of them pin coverability): bound them
        if !options.iter().any(|o| o == "--threads") {
            let n = if unbounded { "2" } else { "3" };
            options.extend(["--threads".to_string(), n.to_string()]);
        }
        options.extend(["--engine", "explicit"].map(String::from));
        for k in ["1", "2", "3"] {
            let mut args = options.clone();
            args.extend(["--contexts".to_string(), k.to_string()]);
            let on = check_json(path, &args);
            args.extend(["--symmetry".to_string(), "off".to_string()]);
            let off = check_json(path, &args);
            // a whole search stores no more classes than concrete states
            if (on.0, &on.1) != (off.0, &off.1) || (on.0 == 0 && on.2 > off.2) {
                bad.push(format!(
                    "{} --contexts {k}: on {on:?}, off {off:?}",
                    path.display()
                ));
            }
            reduced += (on.2 < off.2) as usize;
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // symmetry merges something in a fair share of them
    assert!(reduced >= 10, "fewer states in only {reduced} runs");
}
