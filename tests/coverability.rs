//! The coverability engine from the command line: `auto` runs it for thread creation in a
//! loop (beside the explicit engine: the first conclusive answer wins), its verdicts on the
//! issue's targets come within a second, counterexamples replay from a saved report, and what
//! it cannot check is refused with exit 7 and a location.

use std::process::Output;
use std::time::{Duration, Instant};

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::zingrs;

fn model(name: &str) -> String {
    format!(
        "{}/regressions/bp-threads/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `zingrs check` with the engine `auto` picks; returns the output and the wall time.
fn check(file: &str, extra: &[&str]) -> (Output, Duration) {
    let path = model(file);
    let mut args = vec!["check", path.as_str()];
    args.extend_from_slice(extra);
    let t = Instant::now();
    let o = zingrs(&args);
    (o, t.elapsed())
}

#[test]
fn auto_runs_coverability_beside_the_explicit_engine_for_creation_in_a_loop() {
    // (model, extra options, exit code): verdicts derived in each model's `why:`
    let cases: &[(&str, &[&str], i32)] = &[
        ("coverability_flag_won_by_one_thread.bp", &[], 0),
        ("coverability_four_flags_all_cleared.bp", &[], 3),
        ("coverability_four_flags_one_kept.bp", &[], 0),
        ("coverability_two_threads_race.bp", &["--target", "HIT"], 3),
        ("coverability_async_in_loop_reads_stale_flag.bp", &[], 3),
    ];
    for &(file, extra, code) in cases {
        let (o, _) = check(file, extra);
        let out = text(&o.stdout);
        assert_eq!(
            o.status.code(),
            Some(code),
            "{file}:\n{out}{}",
            text(&o.stderr)
        );
        assert!(
            out.contains("with the auto (explicit, coverability) engine"),
            "{file}: auto did not run coverability beside the explicit engine:\n{out}"
        );
        // the engine that answered is marked in the table
        assert!(out.contains("Engines (* the answer reported):"), "{out}");
        // a pass is coverability's proof: the explicit engine never proves these programs
        if code == 0 {
            assert!(
                out.lines()
                    .any(|l| l.starts_with("  * coverability  passed")),
                "{file}: {out}"
            );
        }
    }
}

/// A row of a report's `engines`: engine, verdict, reported.
type Row = (String, String, bool);

/// The JSON report of `--engine auto` on `path`: the exit code, the engine that answered,
/// the rows of `engines`, and the time the run took.
fn auto_json(path: &str) -> (Option<i32>, String, Vec<Row>, Duration) {
    let t = Instant::now();
    // the timeout only ends the run if the losing engine were not stopped
    let o = zingrs(&["check", path, "--format", "json", "--timeout", "60"]);
    let took = t.elapsed();
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON report");
    common::schema::check(&j);
    let rows = j["engines"]
        .as_array()
        .expect("an engines table")
        .iter()
        .map(|r| {
            (
                r["engine"].as_str().unwrap_or("").to_string(),
                r["verdict"].as_str().unwrap_or("").to_string(),
                r["reported"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    let engine = j["engine"].as_str().unwrap_or("").to_string();
    (o.status.code(), engine, rows, took)
}

#[test]
fn auto_answers_with_the_explicit_engine_where_coverability_would_run_long() {
    // one worker and two steps reach the error; coverability alone ran past 15 s on it
    let path = format!(
        "{}/tests/models/spawn_havoc_early_error.bp",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, engine, rows, took) = auto_json(&path);
    assert_eq!(code, Some(3));
    assert_eq!(engine, "explicit");
    assert_eq!(
        rows,
        vec![
            ("explicit".into(), "assertion-failed".into(), true),
            ("coverability".into(), "stopped".into(), false),
        ]
    );
    // the process did not wait for coverability (60 s or more): the explicit engine answers
    // in a tenth of a second, the stopped engine sees its flag at its next node
    assert!(took < Duration::from_secs(10), "took {took:?}");
    // the counterexample replays like any other
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-auto-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let saved = dir.join("cex.json");
    let saved = saved.to_str().expect("utf-8 path");
    let o = zingrs(&["check", &path, "-q", "-o", saved]);
    assert_eq!(o.status.code(), Some(3));
    let r = zingrs(&["replay", &path, saved]);
    assert_eq!(r.status.code(), Some(3), "{}", text(&r.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn auto_proves_a_safe_program_with_coverability() {
    // safe for any number of threads: only coverability ends, with its proof, which leaves
    // the explicit engine nothing to find
    let (code, engine, rows, _) = auto_json(&model("coverability_flag_won_by_one_thread.bp"));
    assert_eq!(code, Some(0));
    assert_eq!(engine, "coverability");
    assert_eq!(
        rows,
        vec![
            ("explicit".into(), "stopped".into(), false),
            ("coverability".into(), "passed".into(), true),
        ]
    );
}

/// A deadlock and an assertion error that the two engines of `auto`'s portfolio find in
/// different times: the answer is the same every run, and it is the explicit engine's
/// (coverability never answers while the explicit engine may still).
#[test]
fn auto_gives_the_same_answer_whichever_engine_ends_first() {
    let path = format!(
        "{}/tests/models/spawn_deadlock_and_assertion.bp",
        env!("CARGO_MANIFEST_DIR")
    );
    let runs: Vec<_> = (0..6)
        .map(|_| {
            let (code, engine, rows, _) = auto_json(&path);
            (code, engine, rows[0].clone())
        })
        .collect();
    for r in &runs {
        assert_eq!(r, &runs[0], "{runs:?}");
    }
    assert_eq!(runs[0].1, "explicit");
}

#[test]
fn a_saved_counterexample_replays() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-cov-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let saved = dir.join("cex.json");
    let saved = saved.to_str().expect("utf-8 path");
    let path = model("coverability_four_flags_all_cleared.bp");
    let o = zingrs(&["check", &path, "-q", "-o", saved]);
    assert_eq!(o.status.code(), Some(3));
    let r = zingrs(&["replay", &path, saved]);
    assert_eq!(r.status.code(), Some(3), "{}", text(&r.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn all_runs_coverability_where_it_applies() {
    // creation in a loop: the explicit and summary engines would not end, coverability runs
    let (o, _) = check(
        "coverability_two_threads_race.bp",
        &["--target", "HIT", "--engine", "all"],
    );
    assert_eq!(o.status.code(), Some(3));
    assert!(
        text(&o.stdout).contains("all (coverability)"),
        "{}",
        text(&o.stdout)
    );
    // a fixed number of threads: compared with the explicit and summary engines
    let (o, _) = check("race_lost_update.bp", &["--engine", "all"]);
    let out = text(&o.stdout);
    assert!(
        out.contains("all (explicit, summary, coverability)"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(3), "{out}");
}

#[test]
fn what_it_cannot_check_is_refused_with_exit_7() {
    // an engine's refusal, not invalid input: kept out of regressions/, where `invalid` means
    // that the front end rejects the file
    let path = format!(
        "{}/tests/models/coverability_recursive_thread.bp",
        env!("CARGO_MANIFEST_DIR")
    );
    let o = zingrs(&["check", &path, "--engine", "coverability"]);
    assert_eq!(o.status.code(), Some(7));
    let err = text(&o.stderr);
    assert!(err.contains("threads that do not recurse"), "{err}");
    assert!(
        err.contains("coverability_recursive_thread.bp:5:15"),
        "{err}"
    );
    // a broadcast writes other threads' locals, which thread counters do not follow
    let (o, _) = check(
        "passive_broadcast_breaks_other_assertion.bp",
        &["--engine", "coverability"],
    );
    assert_eq!(o.status.code(), Some(7));
    assert!(
        text(&o.stderr).contains("broadcasts to passive variables"),
        "{}",
        text(&o.stderr)
    );
    // a context bound would make a pass a bounded answer
    let (o, _) = check(
        "race_lost_update.bp",
        &["--engine", "coverability", "--contexts", "1"],
    );
    assert_eq!(o.status.code(), Some(7));
    assert!(
        text(&o.stderr).contains("--contexts"),
        "{}",
        text(&o.stderr)
    );
}
