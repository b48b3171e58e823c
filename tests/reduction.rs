//! `--reduction`: the reductions of the explicit search keep every verdict and store fewer
//! states (the regressions and the differential test compare verdicts on every model; these
//! tests pin what the reductions save and how they are switched).

use std::path::{Path, PathBuf};

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::zingrs;

/// Writes `zingrs gen FAMILY N` to a file of its own and returns its path.
fn generated(family: &str, n: u32, ext: &str) -> PathBuf {
    let o = zingrs(&["gen", family, &n.to_string()]);
    assert!(o.status.success(), "gen {family} {n}");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-reduction-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{family}-{n}.{ext}"));
    std::fs::write(&path, &o.stdout).expect("model written");
    path
}

/// Exit code and JSON report of `zingrs check MODEL --engine explicit ARGS --format json`.
fn check(model: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["check", model.to_str().expect("utf-8 path")];
    all.extend_from_slice(&["--engine", "explicit", "--format", "json"]);
    all.extend_from_slice(args);
    let o = zingrs(&all);
    let json = serde_json::from_slice(&o.stdout).expect("a JSON report");
    (o.status.code().expect("an exit code"), json)
}

fn states(j: &serde_json::Value) -> u64 {
    j["stats"]["states"].as_u64().expect("a state count")
}

/// Checks a passing model of `family` with and without the default reduction: both pass, and
/// the reduced search stores at most `1/factor` of the states.
fn passes_storing_at_most(family: &str, n: u32, ext: &str, factor: u64) {
    let m = generated(family, n, ext);
    let (plain_code, plain) = check(&m, &["--reduction", "none"]);
    let (code, reduced) = check(&m, &[]);
    assert_eq!((plain_code, code), (0, 0));
    assert!(
        factor * states(&reduced) <= states(&plain),
        "{family} {n}: {} states with the default reduction, {} without",
        states(&reduced),
        states(&plain)
    );
}

#[test]
fn philosophers_ordered_store_less_than_half_and_still_pass() {
    passes_storing_at_most("philosophers-ordered", 6, "zing", 2);
}

#[test]
fn lock_movers_make_each_philosophers_take_a_transaction() {
    // each philosopher's round is two transactions (take the left fork; take the right one and
    // put both back): the reduced search stores a few dozen states where the plain one stores
    // tens of thousands
    passes_storing_at_most("philosophers-ordered", 6, "zing", 500);
}

/// A boolean program whose `main` reads `x` once, at its `if`, in `DEAD`, or once more at its
/// last assignment (`g := x & F`, the same value) in the other.
const DEAD: &str = "decl g;

void worker() begin
  g := !g;
  g := !g;
end

void main() begin
  decl x;
  start_thread worker();
  x := *;
  if (x) then g := T; else g := T; fi
  g := F;
  g := T;
  g := F;
end
";

#[test]
fn states_that_differ_only_in_dead_locals_are_one_state() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-dead-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let dead = dir.join("dead.bp");
    let live = dir.join("live.bp");
    std::fs::write(&dead, DEAD).expect("written");
    let i = DEAD.rfind("  g := F;").expect("the last assignment");
    let text = format!(
        "{}  g := x & F;{}",
        &DEAD[..i],
        &DEAD[i + "  g := F;".len()..]
    );
    std::fs::write(&live, text).expect("written");
    let count = |m: &Path, r: &str| {
        let (code, j) = check(m, &["--reduction", r]);
        assert_eq!(code, 0, "{} passes", m.display());
        states(&j)
    };
    // the same state space without reduction (g takes the same values)...
    assert_eq!(count(&dead, "none"), count(&live, "none"));
    // ...but after the `if`, the two values of a dead `x` make one state
    assert!(count(&dead, "por") < count(&live, "por"));
}

#[test]
fn transactions_alone_keep_zings_count() {
    let m = generated("philosophers-ordered", 5, "zing");
    let (_, plain) = check(&m, &["--reduction", "none", "--symmetry", "off"]);
    let (_, tx) = check(&m, &["--reduction", "transactions", "--symmetry", "off"]);
    let zing = |j: &serde_json::Value| j["stats"]["zing_states"].as_u64();
    assert!(zing(&plain).is_some());
    assert_eq!(zing(&plain), zing(&tx));
    assert!(states(&tx) < states(&plain));
    // partial-order reduction stores other states: ZING's count is not claimed then
    let (_, all) = check(&m, &["--reduction", "all", "--symmetry", "off"]);
    assert_eq!(zing(&all), None);
    // nor under symmetry, which stores one state of each set of reorderings
    let (_, sym) = check(&m, &["--reduction", "none"]);
    assert_eq!(zing(&sym), None);
}

/// A regression model under `regressions/zing/`.
fn regression(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions/zing")
        .join(name)
}

#[test]
fn a_cooperative_run_is_not_stored_step_by_step() {
    // a run of about 9,000 steps that ends at a choice: the same verdict and ZING's count
    // (22, ZING's own) with the reduction as without it, in either order, storing a few
    // dozen states where every step was one
    let m = regression("cooperative_long_run_ends_at_a_choice.zing");
    for search in ["dfs", "zing"] {
        let with = |r: &str| {
            let args = ["--cooperative", "--search", search, "--symmetry", "off"];
            check(&m, &[&args[..], &["--reduction", r]].concat())
        };
        let (plain_code, plain) = with("none");
        let (code, reduced) = with("transactions");
        assert_eq!((plain_code, code), (0, 0), "--search {search}");
        let zing = |j: &serde_json::Value| j["stats"]["zing_states"].as_u64();
        assert_eq!(zing(&plain), Some(22), "--search {search}");
        assert_eq!(zing(&reduced), Some(22), "--search {search}");
        assert!(
            100 * states(&reduced) <= states(&plain),
            "--search {search}: {} states with the reduction, {} without",
            states(&reduced),
            states(&plain)
        );
    }
    // an endless loop reaches ZING's infinite-loop error after 1,000,000 steps, stored a
    // chained transition at a time, not a step at a time
    let m = regression("cooperative_endless_loop_without_yield_is_infinite_loop_error.zing");
    for search in ["dfs", "zing"] {
        let args = ["--cooperative", "--search", search, "--trace", "none"];
        let (code, j) = check(&m, &args);
        assert_eq!(code, 4, "--search {search}");
        assert_eq!(j["verdict"]["kind"], "runtime-error", "--search {search}");
        assert!(states(&j) < 5_000, "--search {search}: {}", states(&j));
    }
}

#[test]
fn the_philosophers_deadlock_is_found_under_every_reduction() {
    let m = generated("philosophers", 5, "zing");
    for r in ["none", "transactions", "por", "all"] {
        let (code, j) = check(&m, &["--reduction", r]);
        assert_eq!(code, 2, "--reduction {r}");
        assert_eq!(j["verdict"]["kind"], "deadlock", "--reduction {r}");
    }
}

#[test]
fn thread_local_steps_run_alone() {
    passes_storing_at_most("threads-local", 4, "bp", 100);
}

#[test]
fn stats_say_what_the_reductions_saved() {
    let m = generated("philosophers-ordered", 4, "zing");
    let o = zingrs(&[
        "check",
        m.to_str().expect("utf-8"),
        "--engine",
        "explicit",
        "--stats",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("states inside transactions not stored"),
        "{text}"
    );
    assert!(text.contains("expanded by one thread"), "{text}");
    let o = zingrs(&[
        "check",
        m.to_str().expect("utf-8"),
        "--engine",
        "explicit",
        "--stats",
        "--reduction",
        "none",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("not stored"), "{text}");
}

#[test]
fn an_unknown_reduction_is_a_usage_error() {
    let m = generated("philosophers-ordered", 2, "zing");
    let o = zingrs(&["check", m.to_str().expect("utf-8"), "--reduction", "some"]);
    assert_eq!(o.status.code(), Some(7));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--reduction"));
}

/// A deadlock that the depth-first search meets first (the chooser's first alternative ends
/// it after four more steps, with the waiter blocked) and a runtime error one ZING step
/// after the other alternative: ZING's level-by-level order reports the error (§6.6).
const BOTH: &str = "class Main {
    static bool go;
    static int zero;

    activate static void Waiter() {
        select { wait(go) -> ; }
    }

    activate static void Chooser() {
        int i = 0;
        bool b;
        b = choose(bool);
        if (b) {
            i = 1 / zero;
        } else {
            i = 1;
            i = 2;
            i = 3;
            i = 4;
        }
    }
};
";

#[test]
fn zings_search_order_reports_the_error_it_meets_first() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let m = dir.join("both.zing");
    std::fs::write(&m, BOTH).expect("model written");
    let (dfs, _) = check(&m, &["--search", "dfs"]);
    assert_eq!(dfs, 2, "depth-first: the deadlock of the first alternative");
    let (zing, j) = check(&m, &["--search", "zing"]);
    assert_eq!(zing, 4, "ZING's order: the runtime error one level up");
    assert_eq!(j["verdict"]["kind"], "runtime-error");
    let m = m.to_str().expect("utf-8");
    let o = zingrs(&["check", m, "--format", "zing", "--engine", "explicit"]);
    assert_eq!(o.status.code(), Some(4), "--format zing uses ZING's order");
    // `--bfs` is `--search bfs`, and the two cannot be mixed
    assert_eq!(zingrs(&["check", m, "--bfs", "-q"]).status.code(), Some(4));
    let o = zingrs(&["check", m, "--bfs", "--search", "dfs"]);
    assert_eq!(o.status.code(), Some(7));
}

#[test]
fn the_summary_engine_summarizes_private_calls_among_threads() {
    // two workers call a recursive method over their own ints: each call is one transaction
    // of both-movers, summarized although other threads run (the deadlock is still found)
    let m = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions/zing/summary_private_calls_between_threads.zing");
    let o = zingrs(&[
        "check",
        m.to_str().expect("utf-8 path"),
        "--engine",
        "summary",
        "--format",
        "json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON report");
    assert_eq!(j["verdict"]["kind"], "deadlock");
    let summarized = j["stats"]["counters"]
        .as_array()
        .expect("counters")
        .iter()
        .find(|c| c["name"] == "transactions_summarized")
        .and_then(|c| c["value"].as_u64());
    assert_eq!(summarized, Some(2), "one summary per worker's call of Sum");
}

/// A Zing model where `n` workers each add 1 to `count` and read it back into `seen`, both
/// only under the global lock `busy`.
fn counter_under_lock(n: u32) -> String {
    let spawns: String = (0..n).map(|_| "            async Worker();\n").collect();
    format!(
        "class Main {{
    static bool busy;
    static int count;
    static int seen;

    static void Worker() {{
        atomic {{ select {{ wait(!busy) -> busy = true; }} }}
        count = count + 1;
        seen = count;
        assert(seen == count);
        busy = false;
    }}

    activate static void main() {{
        atomic {{
{spawns}        }}
    }}
}};
"
    )
}

#[test]
fn lock_protected_data_makes_a_critical_section_one_transaction() {
    // `count` and `seen` are touched only under `busy`, so their steps are both-movers and
    // each worker's whole life (acquire, two shared steps, the assertion, release, end) is one
    // transaction. The stored states are then the initial one, the one after main's atomic
    // block, and one per set of finished workers (count = seen = its size): at most 2 + 2^n.
    // With the shared steps as non-movers, the second one ended the transaction and the
    // workers interleaved there (33 states for n = 3 and 193 for n = 5 before this analysis;
    // 383 and 5,353 without reduction).
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-guarded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for n in [3u32, 5] {
        let m = dir.join(format!("counter-{n}.zing"));
        std::fs::write(&m, counter_under_lock(n)).expect("written");
        let (plain_code, plain) = check(&m, &["--reduction", "none"]);
        let (code, reduced) = check(&m, &[]);
        assert_eq!((plain_code, code), (0, 0), "n = {n} passes either way");
        assert!(
            states(&reduced) <= 2 + (1 << n),
            "n = {n}: {} states with the default reduction ({} without)",
            states(&reduced),
            states(&plain)
        );
    }
}

/// The `transactions_summarized` counter of the summary engine on a regression model, which
/// must give `verdict`.
fn summarized(model: &str, verdict: &str) -> u64 {
    let m = Path::new(env!("CARGO_MANIFEST_DIR")).join(model);
    let o = zingrs(&[
        "check",
        m.to_str().expect("utf-8 path"),
        "--engine",
        "summary",
        "--format",
        "json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON report");
    assert_eq!(j["verdict"]["kind"], verdict, "{model}");
    j["stats"]["counters"]
        .as_array()
        .expect("counters")
        .iter()
        .find(|c| c["name"] == "transactions_summarized")
        .and_then(|c| c["value"].as_u64())
        .expect("the counter")
}

#[test]
fn the_summary_engine_summarizes_calls_inside_lock_transactions() {
    // each worker calls Bump while holding the global lock `busy`, and Bump touches only data
    // that lock guards: the call is one transaction, summarized with other threads around
    // (one summary per visible state it is called in: count 0 and count 1)
    assert_eq!(
        summarized(
            "regressions/zing/summary_call_inside_lock_transaction.zing",
            "passed"
        ),
        2
    );
    // the same with the lock of the object the method is called on (this.lock guarding
    // this.balance), held by the caller and passed in as `this`
    assert!(
        summarized(
            "regressions/zing/summary_call_inside_object_lock.zing",
            "passed"
        ) >= 2
    );
}
