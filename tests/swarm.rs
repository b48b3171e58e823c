//! Swarm runs: `check --seed` (a permuted successor order, the same states stored),
//! `check --search random` (random walks that never pass), `gen deep-bug`, `zingrs collect`,
//! and the GNU parallel recipe of docs/scale.md.

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{err, out, unfolded_path, zing_model, zingrs};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A scratch directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-swarm-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The JSON report and exit code of `check MODEL ARGS --format json`.
fn report(model: &str, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["check", model, "--format", "json", "--timeout", "60"];
    all.extend_from_slice(args);
    let o = zingrs(&all);
    let json = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{all:?}: no JSON ({e}): {}", err(&o)));
    (o.status.code().expect("an exit code"), json)
}

/// The verdict kind, states stored and transitions of a report.
fn counts(r: &serde_json::Value) -> (String, u64, u64) {
    (
        r["verdict"]["kind"].as_str().unwrap_or("").to_string(),
        r["stats"]["states"].as_u64().unwrap_or(0),
        r["stats"]["transitions"].as_u64().unwrap_or(0),
    )
}

/// Writes `zingrs gen deep-bug n` into `dir`.
fn deep_bug(dir: &std::path::Path, n: u32) -> String {
    let o = zingrs(&["gen", "deep-bug", &n.to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let file = dir.join(format!("deep-bug-{n}.zing"));
    std::fs::write(&file, &o.stdout).expect("write model");
    file.display().to_string()
}

#[test]
fn state_counts_do_not_depend_on_the_seed() {
    let models = [
        "regressions/zing/peterson_mutex_passes.zing",
        "regressions/zing/mover_lock_keeps_mutual_exclusion.zing",
        "regressions/zing/symmetry_identical_workers_under_a_lock_pass.zing",
        "regressions/bp-threads/interleaving_write_then_read_sees_one_write.bp",
        "regressions/bp-threads/passive_constrain_ties_next_values.bp",
        "regressions/bp-threads/wide_step_then_race_passes.bp",
    ];
    let settings: [&[&str]; 4] = [
        &[],
        &["--reduction", "none"],
        &["--bfs"],
        &["--reduction", "transactions", "--exact"],
    ];
    for m in models {
        let m = format!("{ROOT}/{m}");
        for s in settings {
            let mut base = vec!["--engine", "explicit"];
            base.extend_from_slice(s);
            let (code, plain) = report(&m, &base);
            assert_eq!(code, 0, "{m} {s:?}");
            let plain = counts(&plain);
            for seed in ["1", "2", "987654321"] {
                let mut args = base.clone();
                args.extend(["--seed", seed]);
                let (code, seeded) = report(&m, &args);
                assert_eq!(code, 0, "{m} {args:?}");
                assert_eq!(counts(&seeded), plain, "{m} {args:?}");
                assert_eq!(seeded["seed"].as_u64(), seed.parse().ok());
            }
        }
    }
}

#[test]
fn a_seed_gives_one_run_and_other_seeds_other_orders() {
    let dir = scratch("determinism");
    let m = deep_bug(&dir, 3);
    let run = |seed: &str| {
        let (code, r) = report(&m, &["--seed", seed, "--trace", "none"]);
        assert_eq!(code, 3, "seed {seed}");
        (counts(&r), unfolded_path(r)["path"].clone())
    };
    let first = run("11");
    assert_eq!(run("11"), first, "the same seed, the same run");
    // the error is found after a different number of states, or by another path, under other
    // seeds: the order is permuted
    let others: Vec<_> = ["12", "13", "14", "15"].iter().map(|s| run(s)).collect();
    assert!(others.iter().any(|o| *o != first), "{first:?} {others:?}");
    // without a seed the report has none, and the run is today's
    let (_, plain) = report(&m, &["--trace", "none"]);
    assert!(plain.get("seed").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn seeded_and_random_counterexamples_replay() {
    let dir = scratch("replay");
    let model = zing_model("chan_two_producers_order_varies.zing");
    for (i, args) in [
        vec!["--seed", "5"],
        vec!["--seed", "6", "--bfs"],
        vec!["--seed", "7", "--workers", "2"],
        vec!["--search", "random", "--seed", "3"],
    ]
    .into_iter()
    .enumerate()
    {
        let file = dir.join(format!("r{i}.json"));
        let f = file.to_str().expect("utf-8");
        let mut all = vec!["check", &model, "-q", "-o", f];
        all.extend_from_slice(&args);
        let o = zingrs(&all);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", err(&o));
        let o = zingrs(&["replay", &model, f, "--detail", "none"]);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", err(&o));
        assert!(out(&o).contains("the path ends in the reported verdict"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn random_search_finds_a_shallow_bug_and_never_passes() {
    let bug = zing_model("chan_two_producers_order_varies.zing");
    let (code, r) = report(&bug, &["--search", "random"]);
    assert_eq!(code, 3);
    assert_eq!(r["random_walks"], true);
    // the documented default seed
    assert_eq!(r["seed"].as_u64(), Some(24301));
    let (_, again) = report(&bug, &["--search", "random"]);
    assert_eq!(unfolded_path(again)["path"], unfolded_path(r)["path"]);
    // a correct model: the step budget ends it, inconclusive
    let ok = format!("{ROOT}/regressions/zing/peterson_mutex_passes.zing");
    let (code, r) = report(&ok, &["--search", "random", "--max-states", "3000"]);
    assert_eq!(code, 9);
    assert_eq!(r["verdict"]["kind"], "limit-reached");
    let counter = |name: &str| {
        r["stats"]["counters"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["name"] == name))
            .and_then(|c| c["value"].as_u64())
            .unwrap_or_else(|| panic!("no counter {name}: {r}"))
    };
    assert_eq!(counter("random_walk_steps"), 3000);
    assert!(counter("random_walks") >= 1);
    let deepest = counter("deepest_random_walk");
    assert!((1..=1000).contains(&deepest), "{deepest}");
    // --max-depth bounds each walk
    let (code, r) = report(
        &ok,
        &[
            "--search",
            "random",
            "--max-states",
            "500",
            "--max-depth",
            "7",
        ],
    );
    assert_eq!(code, 9);
    assert!(
        r["stats"]["max_search_depth"].as_u64().unwrap_or(99) <= 7,
        "{r}"
    );
}

#[test]
fn deep_bug_is_found_by_the_dfs_and_by_random_walks() {
    let dir = scratch("deep-bug");
    let m = deep_bug(&dir, 3);
    let text = std::fs::read_to_string(&m).expect("model");
    assert_eq!(text.matches("activate static void P").count(), 3);
    let o = zingrs(&["check", &m, "--engine", "explicit", "-q"]);
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    assert!(out(&o).contains("assertion violated"), "{}", out(&o));
    let o = zingrs(&["check", &m, "--search", "random", "-q"]);
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn options_that_mean_nothing_with_swarm_runs_are_refused() {
    let model = zing_model("chan_two_producers_order_varies.zing");
    for (args, says) in [
        (
            vec!["--seed", "1", "--engine", "summary"],
            "explicit engine",
        ),
        (vec!["--seed", "1", "--liveness"], "--liveness"),
        (vec!["--seed", "1", "--search", "zing"], "ZING's order"),
        (vec!["--search", "random", "--workers", "2"], "--workers"),
        (vec!["--search", "random", "--keep-going"], "--keep-going"),
        (vec!["--search", "random", "--contexts", "2"], "--contexts"),
        (
            vec!["--search", "random", "--engine", "bdd"],
            "explicit engine",
        ),
        (vec!["--seed=-1"], "--seed"),
    ] {
        let mut all = vec!["check", model.as_str()];
        all.extend_from_slice(&args);
        let o = zingrs(&all);
        assert_eq!(o.status.code(), Some(7), "{args:?}");
        assert!(err(&o).contains(says), "{args:?}: {}", err(&o));
    }
}

/// `zingrs collect FILES`: exit code and standard output.
fn collect(files: &[&std::path::Path]) -> (i32, String) {
    let mut all = vec!["collect".to_string()];
    all.extend(files.iter().map(|f| f.display().to_string()));
    let args: Vec<&str> = all.iter().map(String::as_str).collect();
    let o = zingrs(&args);
    (o.status.code().expect("an exit code"), out(&o) + &err(&o))
}

#[test]
fn collect_gives_one_verdict_by_the_rules() {
    let dir = scratch("collect");
    let bug = dir.join("bug.zing");
    std::fs::copy(zing_model("chan_two_producers_order_varies.zing"), &bug).expect("copy");
    let ok = dir.join("ok.zing");
    std::fs::copy(zing_model("peterson_mutex_passes.zing"), &ok).expect("copy");
    let save = |model: &std::path::Path, name: &str, args: &[&str]| {
        let file = dir.join(name);
        let m = model.display().to_string();
        let f = file.display().to_string();
        let mut all = vec!["check", m.as_str(), "-q", "-o", f.as_str()];
        all.extend_from_slice(args);
        zingrs(&all);
        file
    };
    // inconclusive: random walks that found nothing (a limit: 9)
    let walk1 = save(
        &ok,
        "w1.json",
        &["--search", "random", "--max-states", "200"],
    );
    let walk2 = save(
        &ok,
        "w2.json",
        &["--search", "random", "--seed", "2", "--max-states", "200"],
    );
    let (code, text) = collect(&[&walk1, &walk2]);
    assert_eq!(code, 9, "{text}");
    assert!(text.contains("Inconclusive"), "{text}");
    assert!(text.contains("random"), "{text}");
    // passed: one complete search among them
    let full = save(&ok, "full.json", &["--seed", "4"]);
    let (code, text) = collect(&[&walk1, &full, &walk2]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("Passed: 1 of 3 runs"), "{text}");
    // violated: a counterexample that replays, whatever the others say
    let w = save(
        &bug,
        "bw.json",
        &["--search", "random", "--max-states", "1"],
    );
    let v = save(&bug, "bv.json", &["--seed", "9"]);
    let (code, text) = collect(&[&w, &v]);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("Violated: 1 of 2 runs"), "{text}");
    assert!(text.contains("(replayed)"), "{text}");
    // a directory of reports is read whole
    let sub = dir.join("runs");
    std::fs::create_dir_all(&sub).expect("dir");
    std::fs::copy(&v, sub.join("a.json")).expect("copy");
    std::fs::copy(&w, sub.join("b.json")).expect("copy");
    let (code, text) = collect(&[&sub]);
    assert_eq!(code, 3, "{text}");
    // a forged violation (its path cut short) is rejected, and proves nothing
    let mut forged =
        unfolded_path(serde_json::from_slice(&std::fs::read(&v).expect("report")).expect("json"));
    let choices = forged["path"]["choices"].as_array_mut().expect("choices");
    choices.truncate(choices.len() - 1);
    let forged_file = dir.join("forged.json");
    std::fs::write(&forged_file, serde_json::to_vec(&forged).expect("json")).expect("write");
    let (code, text) = collect(&[&w, &forged_file]);
    assert_eq!(code, 5, "{text}");
    assert!(text.contains("REJECTED"), "{text}");
    // the same judgement as JSON, for scripts
    let (w_s, f_s) = (w.display().to_string(), forged_file.display().to_string());
    let o = zingrs(&["collect", "--format", "json", &w_s, &f_s]);
    assert_eq!(o.status.code(), Some(5), "{}", err(&o));
    let j: serde_json::Value = serde_json::from_str(&out(&o)).expect("collect's JSON");
    assert_eq!(j["verdict"], "internal-error", "{j}");
    assert_eq!(j["exit_code"], 5, "{j}");
    let runs = j["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2, "{j}");
    assert_eq!(runs[0]["search"], "random", "{j}");
    assert_eq!(runs[0]["judged"], "inconclusive", "{j}");
    assert_eq!(runs[1]["judged"], "rejected", "{j}");
    assert!(runs[1]["rejected_because"].is_string(), "{j}");
    let (v_s, full_s) = (v.display().to_string(), full.display().to_string());
    let o = zingrs(&["collect", "--format", "json", &w_s, &v_s]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let j: serde_json::Value = serde_json::from_str(&out(&o)).expect("collect's JSON");
    assert_eq!(j["verdict"], "violated", "{j}");
    assert_eq!(j["runs"][1]["judged"], "replayed", "{j}");
    let o = zingrs(&["collect", "--format", "json", &full_s]);
    let j: serde_json::Value = serde_json::from_str(&out(&o)).expect("collect's JSON");
    assert_eq!(
        (o.status.code(), &j["verdict"]),
        (Some(0), &"passed".into()),
        "{j}"
    );
    let (code, _) = collect(&[&forged_file, &v]);
    assert_eq!(code, 3);
    // reports of two models, or a file that is no report: bad input
    let (code, text) = collect(&[&walk1, &v]);
    assert_eq!(code, 7, "{text}");
    assert!(text.contains("collect the reports of one model"), "{text}");
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{}").expect("write");
    let (code, text) = collect(&[&junk]);
    assert_eq!(code, 7, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The options of the 64 runs that docs/scale/ dispatches (one run per line).
fn swarm_lines() -> Vec<String> {
    let text = std::fs::read_to_string(format!("{ROOT}/docs/scale/swarm-options.txt"))
        .expect("docs/scale/swarm-options.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn the_recipes_runs_are_valid_checks_and_collect() {
    let lines = swarm_lines();
    assert_eq!(lines.len(), 64);
    // the recipes take their lines from that file, and name the same command
    for recipe in ["swarm-parallel.sh", "swarm-slurm.sh", "swarm-k8s.yaml"] {
        let text = std::fs::read_to_string(format!("{ROOT}/docs/scale/{recipe}")).expect(recipe);
        assert!(text.contains("swarm-options.txt"), "{recipe}");
        assert!(text.contains("zingrs check"), "{recipe}");
        assert!(text.contains("zingrs collect") || recipe != "swarm-parallel.sh");
    }
    let dir = scratch("recipe");
    let m = deep_bug(&dir, 2);
    let mut files = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        // as the recipe runs it: zingrs check MODEL OPTIONS --timeout T -q -o runs/run-I.json
        let file = dir.join(format!("run-{i}.json"));
        let f = file.display().to_string();
        let mut args = vec!["check", m.as_str()];
        args.extend(line.split_whitespace());
        args.extend(["--timeout", "60", "-q", "-o", f.as_str()]);
        let o = zingrs(&args);
        let code = o.status.code();
        assert!(
            matches!(code, Some(3) | Some(8) | Some(9)),
            "{line}: exit {code:?}: {}",
            err(&o)
        );
        assert!(file.exists(), "{line}");
        files.push(file);
    }
    let refs: Vec<&std::path::Path> = files.iter().map(|f| f.as_path()).collect();
    let (code, text) = collect(&refs);
    assert_eq!(code, 3, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Random walks store no states and end only at a limit: the text report says so, in place
/// of a search's "0 distinct states" and "reached before the search ended".
#[test]
fn random_walks_text_report_speaks_of_walks_not_a_search() {
    let ok = format!("{ROOT}/regressions/zing/peterson_mutex_passes.zing");
    let o = zingrs(&[
        "check",
        &ok,
        "-q",
        "--stats",
        "--search",
        "random",
        "--max-states",
        "2000",
    ]);
    assert_eq!(o.status.code(), Some(9), "{}", err(&o));
    let text = out(&o);
    assert!(
        text.contains("the random walks found no error before the step limit"),
        "{text}"
    );
    assert!(text.contains("no states stored (random walks)"), "{text}");
    assert!(!text.contains("distinct states"), "{text}");
    assert!(!text.contains("search ended"), "{text}");
    assert!(!text.contains("omission probability"), "{text}");
}
