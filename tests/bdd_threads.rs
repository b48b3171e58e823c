//! The bdd engine under `--contexts K` on boolean programs in the standard layout, whose
//! threads are started by `start_thread` / `ASYNC_` a bounded number of times (issue 15 item
//! 1): verdicts per bound derived by hand, agreement with the explicit engine on every
//! regression it accepts, counterexamples that show the threads, and refusals.

use std::path::{Path, PathBuf};

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::zingrs;

/// Writes `text` to a file named `name` in a directory of this test process.
fn model(name: &str, text: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-bdd-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write model");
    path
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Exit codes of `check -q --engine ENGINE --contexts K EXTRA MODEL` for K in `ks`.
fn codes(
    model: &Path,
    engine: &str,
    ks: std::ops::RangeInclusive<u32>,
    extra: &[&str],
) -> Vec<i32> {
    ks.map(|k| {
        let k = k.to_string();
        let mut args = vec!["check", "-q", "--engine", engine, "--contexts", &k];
        args.extend_from_slice(extra);
        args.push(path_str(model));
        zingrs(&args).status.code().expect("exit code")
    })
    .collect()
}

/// main clears `x`, starts `w` (which sets it) and waits for it: HIT needs main, w, main.
const RACE: &str = "decl x;
void w() begin
  x := T;
end
void main() begin
  x := F;
  start_thread w();
  assume(x);
  HIT: skip;
end
";

#[test]
fn a_started_thread_is_decided_at_the_smallest_sufficient_bound() {
    // two switches: main (x := F, start), w (x := T), main (assume x, HIT)
    let m = model("race.bp", RACE);
    for engine in ["bdd", "explicit", "all"] {
        assert_eq!(
            codes(&m, engine, 0..=3, &["--target", "HIT"]),
            vec![8, 8, 3, 3],
            "{engine}"
        );
    }
}

#[test]
fn an_async_call_is_a_thread_too() {
    let m = model(
        "async.bp",
        &RACE.replace("start_thread w();", "ASYNC_1: w();"),
    );
    assert_eq!(
        codes(&m, "bdd", 0..=3, &["--target", "HIT"]),
        vec![8, 8, 3, 3]
    );
}

/// A creation site that runs twice (in `s`, called twice) fills two thread slots: HIT needs
/// both workers (the first sets `a`, the second, seeing `a`, sets `b`), so main, w, w, main.
const TWO_WORKERS: &str = "decl a, b;
void w() begin
  if (a) then b := T; else a := T; fi
end
void s() begin
  start_thread w();
end
void main() begin
  a, b := F, F;
  s();
  s();
  assume(b);
  HIT: skip;
end
";

#[test]
fn a_site_that_runs_twice_starts_two_threads() {
    let m = model("two_workers.bp", TWO_WORKERS);
    for engine in ["bdd", "all"] {
        assert_eq!(
            codes(&m, engine, 1..=4, &["--target", "HIT"]),
            vec![8, 8, 3, 3],
            "{engine}"
        );
    }
}

/// `check --engine bdd --contexts K --format json` on `m`: the thread of each step.
fn step_threads(m: &Path, k: &str, extra: &[&str]) -> Vec<u64> {
    let mut args = vec![
        "check",
        "--engine",
        "bdd",
        "--contexts",
        k,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    args.push(path_str(m));
    let out = zingrs(&args);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    assert_eq!(json["engine"], "bdd");
    json["trace"]["steps"]
        .as_array()
        .expect("a trace")
        .iter()
        .map(|s| s["thread"].as_u64().expect("a thread per step"))
        .collect()
}

#[test]
fn the_counterexample_interleaves_the_started_threads() {
    let m = model("race_trace.bp", RACE);
    let mut runs = step_threads(&m, "3", &["--target", "HIT"]);
    runs.dedup();
    assert_eq!(runs, vec![0, 1, 0]);
    // three threads: main, then the first worker, then the second (numbered as created)
    let m = model("two_workers_trace.bp", TWO_WORKERS);
    let mut runs = step_threads(&m, "3", &["--target", "HIT"]);
    runs.dedup();
    // either worker may run first (the first to run sets `a`)
    assert!(runs == [0, 1, 2, 0] || runs == [0, 2, 1, 0], "{runs:?}");
}

#[test]
fn a_section_is_released_when_its_owner_ends() {
    // main ends inside its section; w may then run (one switch) and HIT
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/regressions/bp-threads/");
    for name in [
        "atomic_released_when_bottom_frame_returns.bp",
        "atomic_released_when_owner_ends_thread.bp",
    ] {
        let m = PathBuf::from(dir).join(name);
        assert_eq!(
            codes(&m, "bdd", 1..=2, &["--target", "HIT"]),
            vec![3, 3],
            "{name}"
        );
    }
}

#[test]
fn unbounded_creation_is_refused_at_its_site() {
    let m = model(
        "loop.bp",
        "decl x;\nvoid w() begin x := T; end\nvoid main() begin\n  while (*) do\n    start_thread w();\n  od\nend\n",
    );
    let out = zingrs(&["check", "--engine", "bdd", "--contexts", "2", path_str(&m)]);
    assert_eq!(out.status.code(), Some(7));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("loop.bp:5:5"), "{err}");
    assert!(err.contains("start_thread w()"), "{err}");
    assert!(err.contains("--engine explicit --threads N"), "{err}");
    assert!(err.contains("--engine coverability"), "{err}");
    assert!(err.contains('^'), "{err}");
    // and without the bound it asks for one
    let out = zingrs(&["check", "--engine", "bdd", path_str(&m)]);
    assert_eq!(out.status.code(), Some(7));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --contexts K"));
}

#[test]
fn the_bdd_engine_takes_no_thread_bound() {
    let m = model("bound.bp", RACE);
    let out = zingrs(&[
        "check",
        "--engine",
        "bdd",
        "--contexts",
        "2",
        "--threads",
        "2",
        path_str(&m),
    ]);
    assert_eq!(out.status.code(), Some(7));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--threads 2"));
}

#[test]
fn engine_all_with_no_engine_for_the_options_is_a_usage_error() {
    // threads created in a loop under --contexts: only coverability would apply, and it
    // takes no context bound (this panicked)
    let m = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/regressions/bp-threads/spawn_loop_race_needs_two_live_workers.bp"
    ));
    let out = zingrs(&["check", "--engine", "all", "--contexts", "1", path_str(&m)]);
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no engine checks this model"));
}

/// The regressions of `regressions/bp-threads` that fix no engine, bound or thread bound.
fn thread_regressions() -> Vec<(PathBuf, Vec<String>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions/bp-threads");
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("regressions")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let options: Vec<String> = text
            .lines()
            .find_map(|l| l.strip_prefix("// options:"))
            .map(|o| o.split_whitespace().map(String::from).collect())
            .unwrap_or_default();
        if options
            .iter()
            .any(|o| o == "--engine" || o == "--contexts" || o == "--threads")
        {
            continue;
        }
        out.push((f, options));
    }
    out
}

#[test]
fn engine_all_compares_bdd_with_explicit_on_the_thread_regressions() {
    // `--engine all --contexts K` runs the bdd engine beside explicit and summary and exits 5
    // if their conclusive verdicts differ; every regression the bdd engine accepts is checked
    // at K = 0..=3
    let mut compared = 0;
    for (f, options) in thread_regressions() {
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        let accepted = zingrs(
            &[
                &["check", "-q", "--engine", "bdd", "--contexts", "0"],
                &options[..],
                &[path_str(&f)],
            ]
            .concat(),
        );
        if accepted.status.code() == Some(7) {
            continue;
        }
        for k in 0..=3 {
            let k = k.to_string();
            let args = [
                &[
                    "check",
                    "--engine",
                    "all",
                    "--contexts",
                    &k,
                    "--format",
                    "json",
                ][..],
                &options[..],
                &[path_str(&f)],
            ]
            .concat();
            let out = zingrs(&args);
            let json: serde_json::Value =
                serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{f:?}: {out:?}"));
            assert!(
                json["engine"].as_str().is_some_and(|e| e.contains("bdd")),
                "{f:?} K = {k}: {json}"
            );
            assert!(
                matches!(out.status.code(), Some(0 | 2 | 3 | 8)),
                "{f:?} K = {k}: {json}"
            );
        }
        compared += 1;
    }
    assert!(compared >= 25, "only {compared} regressions compared");
}
