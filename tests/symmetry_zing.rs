//! Symmetry reduction on Zing models: processes running the same code are interchangeable
//! unless the model reads `self`, so states whose process lists are reorderings of each other
//! (heap objects renamed along) are one state. The counts below are derived by hand from the
//! semantics (completed processes stay in the list with no frames; new processes go to its
//! end), not read off the tool.

use std::process::Command;

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{check_json, with_stdin, zing_model};

/// The exit code and stored states of `zingrs check - --lang zing --format json` with `args`.
fn run(model: &str, args: &[&str]) -> (i32, u64) {
    let mut all = vec!["check", "-", "--lang", "zing", "--format", "json"];
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

use zingrs::gen::families::{lockers, owners};

fn binomial(n: u64, k: u64) -> u64 {
    (1..=k).fold(1, |acc, i| acc * (n + 1 - i) / i)
}

/// The states of [`owners`]`(n)` without any reduction. `main` runs atomic_begin, the `n`
/// starts and atomic_end alone: the initial state and the `n + 1` states inside the block.
/// Then `main` is at its return or completed, and each worker, in creation order, at `new`
/// (`c` null), at the choice (a fresh object holding false), after it holding false, after
/// it holding true, or completed (its object garbage): 2 · 5^n.
fn owners_unreduced(n: u64) -> u64 {
    n + 2 + 2 * 5u64.pow(n as u32)
}

/// The same up to the order of the processes: the workers are a multiset of size `n` over
/// their 5 local states, C(n + 4, 4) of them. A completed `main` has no frames, like a
/// completed worker, and the two are interchangeable too; `main` at its return is not, so
/// `main` completed beside a multiset M of workers is the multiset M plus one completed
/// process, one state for each M still.
fn owners_symmetric(n: u64) -> u64 {
    n + 2 + 2 * binomial(n + 4, 4)
}

/// The states of [`lockers`]`(n)` without any reduction. `main` alone: the initial state,
/// after atomic_begin, after `new`, after each start (`n + 3`). Then `main` at its return or
/// completed, and the workers each at the acquire, inside it (two atomic states: before and
/// after setting `taken`), at the increment, at the release, at the return, or completed;
/// the counter and the lock follow from where the workers are, and at most one worker is
/// among the four states from inside the acquire to the release: 3^n vectors with none
/// there, n · 4 · 3^(n-1) with one.
fn lockers_unreduced(n: u64) -> u64 {
    let three = |k: u64| 3u64.pow(k as u32);
    n + 3 + 2 * (three(n) + n * 4 * three(n - 1))
}

/// The same up to the order of the processes: multisets of the workers over the three free
/// states, C(n + 2, 2), and with one worker in one of the four locked states, 4 · C(n + 1, 2).
fn lockers_symmetric(n: u64) -> u64 {
    n + 3 + 2 * (binomial(n + 2, 2) + 4 * binomial(n + 1, 2))
}

#[test]
fn identical_processes_owning_objects_are_one_state_per_multiset() {
    // the formulas at sizes small enough to count on paper
    assert_eq!((owners_unreduced(1), owners_symmetric(1)), (13, 13));
    assert_eq!((owners_unreduced(2), owners_symmetric(2)), (54, 34));
    for n in 1..=4 {
        let model = owners(n);
        let base = ["--engine", "explicit", "--reduction", "none"];
        let off = run(&model, &[&base[..], &["--symmetry", "off"]].concat());
        let on = run(&model, &base);
        assert_eq!(off, (0, owners_unreduced(n)), "n = {n}, symmetry off");
        assert_eq!(on, (0, owners_symmetric(n)), "n = {n}, symmetry on");
        // exact storage and the breadth-first search store the same classes
        let exact = run(&model, &[&base[..], &["--exact"]].concat());
        assert_eq!(exact, on, "n = {n}, --exact");
        let bfs = run(&model, &["--engine", "explicit", "--bfs"]);
        assert_eq!(bfs, on, "n = {n}, --bfs");
        let exact_off = run(
            &model,
            &[&base[..], &["--exact", "--symmetry", "off"]].concat(),
        );
        assert_eq!(exact_off, off, "n = {n}, --exact --symmetry off");
    }
}

#[test]
fn identical_processes_under_a_lock_object_are_one_state_per_multiset() {
    assert_eq!((lockers_unreduced(1), lockers_symmetric(1)), (18, 18));
    assert_eq!((lockers_unreduced(2), lockers_symmetric(2)), (71, 41));
    for n in 1..=4 {
        let model = lockers(n);
        let base = ["--engine", "explicit", "--reduction", "none"];
        let off = run(&model, &[&base[..], &["--symmetry", "off"]].concat());
        let on = run(&model, &base);
        assert_eq!(off, (0, lockers_unreduced(n)), "n = {n}, symmetry off");
        assert_eq!(on, (0, lockers_symmetric(n)), "n = {n}, symmetry on");
        let exact = run(&model, &[&base[..], &["--exact"]].concat());
        assert_eq!(exact, on, "n = {n}, --exact");
        // the default reductions on top of symmetry store no more
        let all = run(&model, &["--engine", "explicit"]);
        assert_eq!(all.0, 0);
        assert!(all.1 <= on.1, "n = {n}: {} > {}", all.1, on.1);
    }
}

#[test]
fn a_model_that_reads_self_stays_unreduced() {
    // the workers of `owners` also note whether they are process 1: their positions matter
    let model = owners(3).replace(
        "c.v = choose(bool); }",
        "c.v = choose(bool); if (self == 1) { c.v = true; } }",
    );
    assert!(model.contains("self"));
    let base = ["--engine", "explicit", "--reduction", "none"];
    let off = run(&model, &[&base[..], &["--symmetry", "off"]].concat());
    let on = run(&model, &base);
    assert_eq!(on, off);
    assert!(on.1 > owners_symmetric(3), "{on:?}");
}

/// Every Zing regression with more than one process, searched without reductions, under a
/// context bound and cooperatively: the same verdict with symmetry as without, and a whole
/// search stores no more classes than concrete states. Verdicts and counts only: `--trace none`
/// (a_counterexample_found_under_symmetry_replays checks traces; the infinite-loop-in-atomic
/// regression's trace has a million steps, 393 MB of JSON, which this test would parse 8 times).
#[test]
fn every_concurrent_zing_regression_agrees_with_and_without_symmetry() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions/zing");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "zing"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            !text.starts_with("// expect: invalid")
                && (text.contains("async") || text.matches("activate").count() > 1)
        })
        .collect();
    paths.sort();
    assert!(paths.len() >= 60, "{} models", paths.len());
    let mut reduced = 0;
    let mut bad = Vec::new();
    for path in &paths {
        for mode in [
            &["--engine", "explicit", "--reduction", "none"][..],
            &["--engine", "explicit"],
            &["--engine", "explicit", "--contexts", "2"],
            &["--engine", "explicit", "--cooperative"],
        ] {
            let mode = [mode, &["--trace", "none"]].concat();
            let on = check_json(path, &mode);
            let off = check_json(path, &[&mode[..], &["--symmetry", "off"]].concat());
            if (on.0, &on.1) != (off.0, &off.1) || (on.0 == 0 && on.2 > off.2) {
                bad.push(format!(
                    "{} {mode:?}: on {on:?}, off {off:?}",
                    path.display()
                ));
            }
            reduced += (on.2 < off.2) as usize;
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(reduced >= 20, "fewer states in only {reduced} runs");
}

#[test]
fn a_counterexample_found_under_symmetry_replays() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-symmetry-zing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("race.json");
    let model = zing_model("symmetry_identical_workers_lose_an_update.zing");
    for args in [
        &["--engine", "explicit", "--reduction", "none"][..],
        &["--engine", "explicit"],
        &["--engine", "explicit", "--bfs"],
        &["--engine", "explicit", "--exact"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_zingrs"))
            .arg("check")
            .args(args)
            .arg("-o")
            .arg(&report)
            .arg(&model)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        let r = Command::new(env!("CARGO_BIN_EXE_zingrs"))
            .arg("replay")
            .arg(&model)
            .arg(&report)
            .output()
            .unwrap();
        assert_eq!(
            r.status.code(),
            Some(3),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// ZING's layout and order count every order of the process list, as ZING does: symmetry is
/// off there unless asked for, and `--symmetry off` gives the same.
#[test]
fn zing_s_count_is_kept_under_its_format_and_order() {
    let model = zing_model("zing_count_two_process_race.zing");
    let text = std::fs::read_to_string(&model).unwrap();
    let want: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("// zing-states:"))
        .expect("a zing-states header")
        .trim()
        .parse()
        .unwrap();
    let line = format!("{want} distinct states explored");
    for extra in [&[][..], &["--symmetry", "off"]] {
        let o = Command::new(env!("CARGO_BIN_EXE_zingrs"))
            .args(["check", "--format", "zing"])
            .args(extra)
            .arg(&model)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(&line), "{extra:?}: {out}");
    }
    // the JSON count of ZING's order is ZING's too
    let (_, _, zing) = check_json(
        std::path::Path::new(&model),
        &["--search", "zing", "--reduction", "transactions"],
    );
    let (_, _, off) = check_json(
        std::path::Path::new(&model),
        &[
            "--search",
            "zing",
            "--reduction",
            "transactions",
            "--symmetry",
            "off",
        ],
    );
    assert_eq!(zing, off);
}
