//! Dynamic threads on the command line: the live-thread bound (`--threads N`).

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{out, with_stdin};

/// One worker, safe for any number of threads: the bound never cuts a creation here.
const ONE_WORKER: &str = "decl x;\nvoid w() begin x := T; end\n\
                          void main() begin x := F; start_thread w(); assert(x | !x); end\n";

#[test]
fn a_pass_under_the_thread_bound_is_bounded_never_passed() {
    for engine in ["explicit", "summary", "auto"] {
        let o = with_stdin(
            &[
                "check",
                "-",
                "--lang",
                "bp",
                "--threads",
                "5",
                "--engine",
                engine,
            ],
            ONE_WORKER,
        );
        assert_eq!(o.status.code(), Some(8), "{engine}: {}", out(&o));
        assert!(
            out(&o).contains("thread bound (--threads 5)"),
            "{}",
            out(&o)
        );
    }
    let o = with_stdin(&["check", "-", "--lang", "bp"], ONE_WORKER);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
}

#[test]
fn a_thread_bound_of_zero_is_a_usage_error() {
    let o = with_stdin(
        &["check", "-", "--lang", "bp", "--threads", "0"],
        ONE_WORKER,
    );
    assert_eq!(o.status.code(), Some(7));
}

/// Creation in a loop: without a bound the state space is infinite; with one it is finite.
const LOOP: &str = "decl x;\nvoid w() begin assume(x); end\n\
                    void main() begin x := F; L: start_thread w(); goto L; end\n";

#[test]
fn a_creation_loop_ends_under_the_bound() {
    let o = with_stdin(
        &["check", "-", "--lang", "bp", "--threads", "3", "--stats"],
        LOOP,
    );
    assert_eq!(o.status.code(), Some(8), "{}", out(&o));
}

#[test]
fn a_counterexample_found_under_the_bound_replays_without_it() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let model = dir.join("m.bp");
    let saved = dir.join("r.json");
    std::fs::write(
        &model,
        "decl x, y;\nvoid w() begin if (x) then y := T; else x := T; fi assume(F); end\n\
         void main() begin x, y := F, F; L: start_thread w(); if (*) then goto L; fi assert(!y); end\n",
    )
    .expect("write model");
    let m = model.to_str().expect("utf-8");
    let s = saved.to_str().expect("utf-8");
    // the workers end stuck at assume(F), a deadlock: the question here is the assertion
    let o = with_stdin(
        &["check", m, "--threads", "3", "--no-deadlock", "-o", s],
        "",
    );
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    let o = with_stdin(&["replay", m, s], "");
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    let o = with_stdin(&["check", m, "--threads", "2", "--no-deadlock"], "");
    assert_eq!(o.status.code(), Some(8), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Threads created in a loop, and an error that needs two of them: three steps after `x := F`
/// (start, the first worker's assertion and write, a second start, its assertion).
const SPAWN_LOOP: &str = "decl x;\nvoid w() begin assert(!x); x := T; end\n\
                          void main() begin x := F; L: start_thread w(); goto L; end\n";

#[test]
fn a_shallow_error_among_unboundedly_many_threads_is_found_at_once() {
    for engine in ["auto", "explicit", "summary"] {
        let t = std::time::Instant::now();
        let o = with_stdin(
            &[
                "check",
                "-",
                "--lang",
                "bp",
                "--engine",
                engine,
                "--timeout",
                "10",
            ],
            SPAWN_LOOP,
        );
        assert_eq!(o.status.code(), Some(3), "{engine}: {}", out(&o));
        assert!(out(&o).contains("assertion violated in w"), "{}", out(&o));
        assert!(
            t.elapsed() < std::time::Duration::from_secs(1),
            "{engine}: {:?}",
            t.elapsed()
        );
    }
}

/// A loop whose creations are bounded by its data: the first deepening round cuts nothing, so
/// its pass is a proof (exit 0), not a bounded pass.
const DATA_BOUNDED: &str = "decl x;\nvoid w() begin x := T; end\n\
    void main() begin decl more; x, more := F, T;\n\
    again: if (more) then start_thread w(); more := F; goto again; fi assert(x | !x); end\n";

#[test]
fn deepening_on_threads_ends_with_a_proof_when_no_creation_was_cut() {
    for engine in ["auto", "explicit", "summary"] {
        let o = with_stdin(
            &["check", "-", "--lang", "bp", "--engine", engine, "--stats"],
            DATA_BOUNDED,
        );
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", out(&o));
    }
}

/// Under a context bound the search still deepens on threads: main starts w (context 0), w
/// sets `x` (context 1), main runs on (context 2) and fails its assertion, so two contexts
/// find the error at once; without deepening the search created threads until the time limit.
const SPAWN_THEN_CHECK: &str = "decl x;\nvoid w() begin x := T; end\n\
    void main() begin x := F; while (*) do start_thread w(); od assert(!x); end\n";

#[test]
fn a_context_bound_still_deepens_on_threads() {
    for engine in ["auto", "explicit", "summary"] {
        let o = with_stdin(
            &[
                "check",
                "-",
                "--lang",
                "bp",
                "--engine",
                engine,
                "--contexts",
                "2",
                "--timeout",
                "20",
            ],
            SPAWN_THEN_CHECK,
        );
        assert_eq!(o.status.code(), Some(3), "{engine}: {}", out(&o));
    }
    // one context: main alone never sees x set; every bound cuts a creation, so no round is a
    // proof and the rounds end at the limit
    let o = with_stdin(
        &[
            "check",
            "-",
            "--lang",
            "bp",
            "--engine",
            "explicit",
            "--contexts",
            "1",
            "--timeout",
            "1",
        ],
        SPAWN_THEN_CHECK,
    );
    assert_eq!(o.status.code(), Some(9), "{}", out(&o));
}

/// Workers wait at assume(go) after their write; a second live worker is needed for the error.
const TWO_LIVE: &str = "decl n1, n2, go;\n\
    void w() begin if (!n1) then n1 := T; else n2 := T; fi assume(go); end\n\
    void main() begin n1, n2, go := F, F, F;\n\
    again: start_thread w(); if (*) then goto again; fi assert(!n2); go := T; end\n";

#[test]
fn deepening_on_threads_goes_on_while_the_bound_cuts() {
    // the explicit engine (auto would answer with whichever of it and coverability ends first)
    let o = with_stdin(
        &[
            "check", "-", "--lang", "bp", "--engine", "explicit", "--stats", "--format", "json",
        ],
        TWO_LIVE,
    );
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    // main and two workers: found in the second round, under the bound 3
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let bound = v["stats"]["counters"]
        .as_array()
        .expect("counters")
        .iter()
        .find(|c| c["name"] == "thread_bound")
        .map(|c| c["value"].clone());
    assert_eq!(bound, Some(serde_json::json!(3)), "{}", out(&o));
}

/// A broadcast (`mine$ := F`) writes another thread's `mine`: the counterexample says so in the
/// step that does it, and the saved trace replays through the interpreter.
#[test]
fn a_broadcast_counterexample_shows_the_passive_write_and_replays() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-passive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let model = dir.join("m.bp");
    let saved = dir.join("r.json");
    std::fs::write(
        &model,
        "void w() begin decl mine; mine := T; mine$ := F; assert(mine); end\n\
         void main() begin start_thread w(); start_thread w(); end\n",
    )
    .expect("write model");
    let m = model.to_str().expect("utf-8");
    let s = saved.to_str().expect("utf-8");
    let o = with_stdin(&["check", m, "--engine", "explicit", "-o", s], "");
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    assert!(out(&o).contains(": mine = 0"), "{}", out(&o));
    let o = with_stdin(&["replay", m, s], "");
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
