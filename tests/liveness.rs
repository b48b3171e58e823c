//! `check --liveness`: exit codes, lasso counterexamples (their stem and cycle, replayed), a
//! forged lasso rejected by `replay`, `terminates` and `progress` on both languages, the engines
//! that refuse it and the reductions it turns off. Every model here is a few states.

use std::process::Output;

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{err, out, unfolded_path, zingrs};

fn regression(name: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/regressions/liveness/").to_string() + name
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-live-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A model written to a scratch file.
fn model(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write model");
    p.display().to_string()
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

/// `check MODEL ARGS -q -o FILE` and the saved report, its choices one per step.
fn saved(model: &str, args: &[&str], file: &std::path::Path) -> (Output, serde_json::Value) {
    let mut all = vec!["check", model, "-q", "-o", file.to_str().expect("utf-8")];
    all.extend_from_slice(args);
    let o = zingrs(&all);
    let r =
        unfolded_path(serde_json::from_slice(&std::fs::read(file).expect("saved")).expect("json"));
    (o, r)
}

fn replay(model: &str, report: &serde_json::Value, file: &std::path::Path) -> Output {
    std::fs::write(file, serde_json::to_vec(report).expect("json")).expect("write");
    zingrs(&[
        "replay",
        model,
        file.to_str().expect("utf-8"),
        "--detail",
        "none",
    ])
}

const TOGGLE: &str = "class Main {
    static int x;
    activate static void main() {
        while (true) {
            x = 1 - x;
            accept(x == 1);
        }
    }
    activate static void other() {
        x = 0;
    }
};
";

#[test]
fn an_accepting_cycle_is_a_lasso_with_its_cycle_marked_exit_6() {
    let dir = scratch("lasso");
    let m = model(&dir, "toggle.zing", TOGGLE);
    let o = zingrs(&["check", &m, "--liveness"]);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("liveness violated: accepting cycle"), "{s}");
    assert!(s.contains("── cycle:"), "{s}");
    // the same lasso in JSON: the verdict says where the cycle starts and how long it is
    let file = dir.join("r.json");
    let (o, r) = saved(&m, &["--liveness", "accept"], &file);
    assert_eq!(code(&o), Some(6));
    let v = &r["verdict"];
    assert_eq!(v["kind"], "liveness-violated");
    assert_eq!(v["property"], "accept");
    // the whole state comes back: no pushdown mark in the report or the trace
    assert!(v.get("pushdown").is_none(), "{v}");
    assert!(s.contains("lead back to the state before #"), "{s}");
    assert_eq!(r["exit_code"], 6);
    let n = r["path"]["choices"].as_array().expect("choices").len() as u64;
    let start = v["cycle_start"].as_u64().expect("cycle_start");
    let len = v["cycle_length"].as_u64().expect("cycle_length");
    assert!(len >= 1 && start + len == n, "{v} with {n} choices");
    // a round of main's loop is 3 steps (the test, the assignment, the accept) and x returns
    // to its value after two rounds: the cycle takes 6 of main's steps (other's one step may
    // fall inside it rather than before it)
    assert!((6..=7).contains(&len), "{v}");
    let o = replay(&m, &r, &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_forged_lasso_is_rejected() {
    let dir = scratch("forged");
    let m = model(&dir, "toggle.zing", TOGGLE);
    let file = dir.join("r.json");
    let (_, good) = saved(&m, &["--liveness"], &file);
    let n = good["path"]["choices"].as_array().expect("choices").len() as u64;
    let start = good["verdict"]["cycle_start"].as_u64().expect("start");
    // a cycle that does not close: the last step dropped
    let mut r = good.clone();
    r["path"]["choices"].as_array_mut().expect("choices").pop();
    r["verdict"]["cycle_length"] = (n - 1 - start).into();
    let o = replay(&m, &r, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(err(&o).contains("its cycle does not close"), "{}", err(&o));
    // the cycle said to start one step later: it does not come back there
    let mut r = good.clone();
    r["verdict"]["cycle_start"] = (start + 1).into();
    r["verdict"]["cycle_length"] = (n - start - 1).into();
    let o = replay(&m, &r, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(err(&o).contains("does not close"), "{}", err(&o));
    // an empty cycle
    let mut r = good.clone();
    r["verdict"]["cycle_start"] = n.into();
    r["verdict"]["cycle_length"] = 0.into();
    let o = replay(&m, &r, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(err(&o).contains("its cycle is empty"), "{}", err(&o));
    // a closed cycle that runs no accepting step: the model with accept(x == 2) has the same
    // steps, so the path replays and closes, but is no accepting cycle there
    let other = model(&dir, "toggle.zing", &TOGGLE.replace("x == 1", "x == 2"));
    let mut r = good.clone();
    r["source_hash"] =
        saved(&other, &["--liveness", "terminates"], &dir.join("t.json")).1["source_hash"].clone();
    let o = replay(&other, &r, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(err(&o).contains("runs no accepting step"), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn terminates_and_progress_on_boolean_programs() {
    let dir = scratch("bp");
    let spin = model(
        &dir,
        "spin.bp",
        "decl g;\nvoid main() begin\n  g := F;\n  L: g := !g;\n  progress_1: skip;\n  goto L;\nend\n",
    );
    let o = zingrs(&["check", &spin, "--liveness", "terminates"]);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    assert!(out(&o).contains("non-terminating cycle"), "{}", out(&o));
    // every round passes the progress label
    let o = zingrs(&["check", &spin, "--liveness=progress", "-q"]);
    assert_eq!(code(&o), Some(0), "{}", out(&o));
    // ... unless the label can be skipped
    let skip = model(
        &dir,
        "skip.bp",
        "decl g;\nvoid main() begin\n  L: if (*) then progress_1: skip; fi\n  goto L;\nend\n",
    );
    let file = dir.join("p.json");
    let (o, r) = saved(&skip, &["--liveness", "progress"], &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    assert_eq!(r["verdict"]["cycle"], "non-progress cycle");
    assert_eq!(code(&replay(&skip, &r, &file)), Some(6));
    // a program that ends has no cycle
    let ends = model(
        &dir,
        "ends.bp",
        "decl g;\nvoid main() begin\n  g := F;\n  while (!g) do g := T; od\nend\n",
    );
    let o = zingrs(&["check", &ends, "--liveness", "terminates", "-q"]);
    assert_eq!(code(&o), Some(0), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn terminates_on_zing_counts_no_end_state_as_a_cycle() {
    // a deadlock ends its run: it is reported as a deadlock, not as a cycle
    let dir = scratch("zing-end");
    let stuck = model(
        &dir,
        "stuck.zing",
        "class Main {
    static bool go;
    activate static void main() {
        select { wait(go) -> go = false; }
    }
};
",
    );
    let o = zingrs(&["check", &stuck, "--liveness", "terminates", "-q"]);
    assert_eq!(code(&o), Some(2), "{}", out(&o));
    let o = zingrs(&[
        "check",
        &regression("terminates_zing_spin_wait.zing"),
        "--liveness",
        "terminates",
        "-q",
    ]);
    assert_eq!(code(&o), Some(6), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn other_engines_refuse_liveness_and_options_that_do_not_apply_are_noted() {
    let m = regression("accept_other_process_keeps_toggling.zing");
    for engine in ["summary", "bdd", "coverability"] {
        let o = zingrs(&["check", &m, "--engine", engine, "--liveness"]);
        assert_eq!(code(&o), Some(7), "{engine}: {}", out(&o));
        assert!(
            err(&o).contains("explicit engine only"),
            "{engine}: {}",
            err(&o)
        );
    }
    let o = zingrs(&["check", &m, "--liveness", "--contexts", "2"]);
    assert_eq!(code(&o), Some(7), "{}", err(&o));
    // auto and all run the explicit engine; the reductions, symmetry, BFS and workers asked
    // for are off, each with a note, and the verdict is the same
    for extra in [
        &["--engine", "all"][..],
        &["--reduction", "all", "--symmetry", "on"],
        &["--bfs"],
        &["--workers", "2"],
    ] {
        let mut args = vec!["check", m.as_str(), "--liveness", "--trace", "none"];
        args.extend_from_slice(extra);
        let o = zingrs(&args);
        assert_eq!(code(&o), Some(6), "{extra:?}: {}", err(&o));
        assert!(err(&o).contains("note:"), "{extra:?}: {}", err(&o));
    }
    // a model without accept says that no cycle can be accepting
    let bp = regression("terminates_bp_loop.bp");
    let o = zingrs(&["check", &bp, "--liveness"]);
    assert_eq!(code(&o), Some(0), "{}", out(&o));
    assert!(err(&o).contains("no `accept` statement"), "{}", err(&o));
}

#[test]
fn zing_misses_a_cycle_whose_state_it_first_reached_unmarked() {
    // ZING's -ndfsliveness passes this model (docs/zing.md); the cycle is there
    let m = regression("accept_zing_misses_state_first_reached_unmarked.zing");
    let dir = scratch("miss");
    let file = dir.join("r.json");
    let (o, r) = saved(&m, &["--liveness"], &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    // p0 sets a and ends (two steps: the assignment and the return), then p1 loops: the cycle
    // is p1's two steps, the loop test and the accept
    assert_eq!(r["verdict"]["cycle_length"], 2, "{}", r["verdict"]);
    assert_eq!(code(&replay(&m, &r, &file)), Some(6));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_accept_run_inside_an_earlier_step_is_refused_not_missed() {
    // the first statement of a foreach body runs in the step of the element fetch: the search
    // would not see that accept, so it refuses the model rather than miss its cycle
    let dir = scratch("glued");
    let text = "array A[2] int;
class Main {
    static int x;
    activate static void main() {
        A a;
        a = new A;
        while (true) {
            foreach (int v in a) {
                accept(true);
                x = 1 - x;
            }
        }
    }
};
";
    let m = model(&dir, "glued.zing", text);
    let o = zingrs(&["check", &m, "--liveness"]);
    assert_eq!(code(&o), Some(7), "{}", out(&o));
    assert!(err(&o).contains("accept` at line 9"), "{}", err(&o));
    // with a step of its own before it, the accept begins a step: the cycle is found
    let m = model(
        &dir,
        "unglued.zing",
        &text.replace("accept(true);", "; accept(true);"),
    );
    let o = zingrs(&["check", &m, "--liveness", "-q"]);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

const ENDS: &str = "class Main {
    static int x;
    activate static void main() {
        x = 1;
    L:  x = x + 1;
    }
};
";

#[test]
fn an_ltl_violation_is_a_lasso_that_replays_and_a_run_that_ends_stutters() {
    let dir = scratch("ltl");
    let toggle = model(&dir, "toggle.zing", TOGGLE);
    let file = dir.join("r.json");
    // x flips for ever: never 0 from some point on
    let (o, r) = saved(&toggle, &["--ltl", "F G (Main.x == 0)"], &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    let v = &r["verdict"];
    assert_eq!(v["property"], "ltl");
    assert_eq!(v["formula"], "F G (Main.x == 0)");
    assert!(v["cycle_length"].as_u64().expect("length") >= 2, "{v}");
    let o = replay(&toggle, &r, &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    // the same path claimed to violate a formula it satisfies: rejected
    let mut forged = r.clone();
    forged["verdict"]["formula"] = "G F (Main.x == 0)".into();
    let o = replay(&toggle, &forged, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(err(&o).contains("satisfies the formula"), "{}", err(&o));
    // a formula every run satisfies passes
    let o = zingrs(&[
        "check",
        &toggle,
        "-q",
        "--ltl",
        "G F (Main.x == 1) && G (Main.x < 2)",
    ]);
    assert_eq!(code(&o), Some(0), "{}", err(&o));

    // a run that ends is its last state for ever: F x == 3 fails with an empty cycle
    let ends = model(&dir, "ends.zing", ENDS);
    let (o, r) = saved(&ends, &["--ltl", "F (Main.x == 3)"], &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    let n = r["path"]["choices"].as_array().expect("choices").len() as u64;
    assert_eq!(r["verdict"]["cycle_length"], 0);
    assert_eq!(r["verdict"]["cycle_start"], n);
    let o = replay(&ends, &r, &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    // an empty cycle claimed where a thread can still move: rejected
    let mut cut = r.clone();
    cut["path"]["choices"]
        .as_array_mut()
        .expect("choices")
        .pop();
    cut["verdict"]["cycle_start"] = (n - 1).into();
    let o = replay(&ends, &cut, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(err(&o).contains("does not end"), "{}", err(&o));
    let o = zingrs(&["check", &ends, "--ltl", "F (Main.x == 3)"]);
    assert!(out(&o).contains("the run ends here"), "{}", out(&o));
    let o = zingrs(&["check", &ends, "-q", "--ltl", "F @L && F G (Main.x == 2)"]);
    assert_eq!(code(&o), Some(0), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_formula_is_shown_with_a_caret_and_other_engines_refuse_ltl() {
    let dir = scratch("ltl-bad");
    let m = model(&dir, "ends.zing", ENDS);
    for (formula, says, caret) in [
        ("G (Main.x == 5", "expected `)`", 15),
        ("G (Main.y < 2)", "unknown field `y`", 9),
        ("F @Nowhere", "no label Nowhere", 0),
        ("G F #", "`#`", 5),
    ] {
        let o = zingrs(&["check", &m, "--ltl", formula]);
        assert_eq!(code(&o), Some(7), "{formula}: {}", err(&o));
        let e = err(&o);
        assert!(e.contains(says), "{formula}: {e}");
        if caret > 0 {
            // the formula, then the caret under the column
            let lines: Vec<&str> = e.lines().collect();
            let at = lines
                .iter()
                .position(|l| l.trim_end() == format!("  {formula}"));
            let at = at.unwrap_or_else(|| panic!("{formula}: no formula line in {e}"));
            assert_eq!(
                lines[at + 1],
                format!("  {}^", " ".repeat(caret - 1)),
                "{e}"
            );
        }
    }
    let o = zingrs(&["check", &m, "--ltl", "F @L", "--engine", "summary"]);
    assert_eq!(code(&o), Some(7), "{}", err(&o));
    assert!(
        err(&o).contains("--ltl is checked by the explicit engine only"),
        "{}",
        err(&o)
    );
    // a thread bound would make a state whose next step creates a thread look like an end
    let o = zingrs(&["check", &m, "--ltl", "F @L", "--threads", "2"]);
    assert_eq!(code(&o), Some(7), "{}", err(&o));
    assert!(
        err(&o).contains("--ltl needs every thread creation enabled"),
        "{}",
        err(&o)
    );
    let spawn = model(&dir, "spawn.bp", &zingrs::gen::random_spawn_bp(1));
    let o = zingrs(&["check", &spawn, "--ltl", "F true"]);
    assert_eq!(code(&o), Some(7), "{}", err(&o));
    let o = zingrs(&["check", &m, "--ltl", "F @L", "--liveness"]);
    assert_eq!(code(&o), Some(7), "conflicting options: {}", err(&o));
    assert!(err(&o).contains("cannot be used with"), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `G !@HIT` is a safety property: wherever both searches decide, the LTL search violates it
/// exactly when the target search reaches HIT (on random boolean programs, assertions and
/// deadlocks off so that neither stops at another error first). A lasso needs an endless
/// run, which the depth bound may cut where the target search needs none: such models count
/// as undecided, never as a disagreement.
#[test]
fn ltl_safety_agrees_with_the_target_search_on_random_programs() {
    let dir = scratch("ltl-random");
    let common = [
        "--engine",
        "explicit",
        "--no-assertions",
        "--no-deadlock",
        "--max-states",
        "20000",
        "-q",
    ];
    let (mut compared, mut reached) = (0, 0);
    for seed in 0..120u64 {
        let text = zingrs::gen::random_bp(seed, 8);
        if !text.contains("HIT:") {
            // (some programs have no target label)
            continue;
        }
        let m = model(&dir, "r.bp", &text);
        let mut args = vec![
            "check",
            m.as_str(),
            "--reduction",
            "none",
            "--target",
            "HIT",
        ];
        args.extend(common);
        let target = code(&zingrs(&args));
        let mut args = vec!["check", m.as_str(), "--ltl", "G !@HIT"];
        args.extend(common);
        let ltl = code(&zingrs(&args));
        match (target, ltl) {
            (Some(3), Some(6)) => reached += 1,
            (Some(0), Some(0)) => {}
            (Some(0 | 3), Some(0 | 6)) => {
                panic!("seed {seed}: target exit {target:?}, LTL exit {ltl:?}")
            }
            _ => continue,
        }
        compared += 1;
    }
    assert!(
        compared >= 45 && reached >= 25,
        "{compared} compared, {reached} reached"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

const SPINNER: &str = "class Main {
    static int x;
    static bool y;
    activate static void spinner() {
        while (true) {
            x = 1 - x;
        }
    }
    activate static void setter() {
        y = true;
    }
};
";

#[test]
fn weak_fairness_drops_cycles_that_starve_an_enabled_process_and_replay_checks_it() {
    let dir = scratch("fair");
    let m = model(&dir, "spinner.zing", SPINNER);
    let file = dir.join("r.json");
    // no fairness: the spinner alone, for ever, never sets y
    let (o, unfair) = saved(&m, &["--ltl", "F Main.y"], &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    assert!(
        unfair["verdict"].get("fairness").is_none(),
        "{}",
        unfair["verdict"]
    );
    // weakly fair runs all set y
    let o = zingrs(&["check", &m, "-q", "--ltl", "F Main.y", "--fairness", "weak"]);
    assert_eq!(code(&o), Some(0), "{}", err(&o));
    // the unfair lasso claimed fair: replay rejects it
    let mut forged = unfair.clone();
    forged["verdict"]["fairness"] = "weak".into();
    let o = replay(&m, &forged, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(
        err(&o).contains("not weakly fair: process 1"),
        "{}",
        err(&o)
    );
    // a fair violation: x does not settle; its lasso moves both processes or ends the setter
    let (o, fair) = saved(
        &m,
        &["--ltl", "F G (Main.x == 1)", "--fairness", "weak"],
        &file,
    );
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    assert_eq!(fair["verdict"]["fairness"], "weak");
    let o = replay(&m, &fair, &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    // fairness needs a liveness property
    let o = zingrs(&["check", &m, "--fairness", "weak"]);
    assert_eq!(code(&o), Some(7), "{}", err(&o));
    assert!(
        err(&o).contains("--fairness applies to --liveness and --ltl"),
        "{}",
        err(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Dining philosophers with a flag per philosopher (`gen philosophers-eating`): under weak
/// fairness a philosopher may still starve (its neighbours take its fork whenever it is
/// free: SPIN's `pan -a -f` agrees, scripts/vs-spin-fairness.sh), while some philosopher
/// always eats again; the lasso found under fairness replays with its fairness checked.
#[test]
fn philosophers_may_starve_under_weak_fairness_but_someone_always_eats() {
    let dir = scratch("phil");
    let text = zingrs::gen::families::philosophers_eating(3);
    let m = model(&dir, "phil.zing", &text);
    let file = dir.join("r.json");
    let all = "G F Main.e0 && G F Main.e1 && G F Main.e2";
    let (o, r) = saved(&m, &["--ltl", all, "--fairness", "weak"], &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    assert_eq!(r["verdict"]["fairness"], "weak");
    let o = replay(&m, &r, &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    let some = "G F (Main.e0 || Main.e1 || Main.e2)";
    let o = zingrs(&["check", &m, "-q", "--ltl", some, "--fairness", "weak"]);
    assert_eq!(code(&o), Some(0), "{}", err(&o));
    let o = zingrs(&["check", &m, "-q", "--ltl", some]);
    assert_eq!(code(&o), Some(0), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A procedure that calls itself for ever, flipping `g` on each call.
const RECURSE: &str = "decl g;
void r() begin
  g := !g;
  r();
end
void main() begin
  g := F;
  r();
end
";

/// `r` called from two places of `main`'s loop: a step sequence from inside one call to the
/// same point of the other has the same top frame and globals but returned on the way.
const TWO_CALLS: &str = "decl g;
void r() begin
  skip;
end
void main() begin
  g := F;
  L: r();
  r();
  g := !g;
  goto L;
end
";

/// The bdd engine decides LTL with unbounded recursion: its lasso's cycle may leave new frames
/// on the stack (a pushdown lasso); `check` and `replay` verify it, and reject cycles that
/// do not come back to the same top frame and globals, or that return from the frame they
/// start in.
#[test]
fn pushdown_ltl_on_the_bdd_engine_lassos_replay_and_forgeries_are_rejected() {
    let dir = scratch("pdltl");
    let file = dir.join("r.json");
    let rec = model(&dir, "rec.bp", RECURSE);
    let bdd = ["--engine", "bdd", "--ltl"];
    // g flips on every call, for ever: F G !g fails, G F g holds; only a growing stack shows it
    let (o, good) = saved(&rec, &[&bdd[..], &["F G !g"]].concat(), &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    let n = good["path"]["choices"].as_array().expect("choices").len() as u64;
    let start = good["verdict"]["cycle_start"].as_u64().expect("start");
    assert!(n - start >= 2, "{}", good["verdict"]);
    // the report says the cycle comes back deeper, not to its whole state
    assert_eq!(good["verdict"]["pushdown"], true, "{}", good["verdict"]);
    let o = replay(&rec, &good, &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    let o = zingrs(&["check", &rec, "--engine", "bdd", "--ltl", "F G !g"]);
    assert!(out(&o).contains("each time deeper in calls"), "{}", out(&o));
    assert!(
        out(&o).contains("lead back to the globals and the frame of the state before"),
        "{}",
        out(&o)
    );
    assert!(
        !out(&o).contains("lead back to the state before"),
        "{}",
        out(&o)
    );
    let o = zingrs(&[
        "check",
        &rec,
        "-q",
        "--engine",
        "bdd",
        "--ltl",
        "G F g && G F !g",
    ]);
    assert_eq!(code(&o), Some(0), "{}", err(&o));
    for f in ["F G !g", "G F g"] {
        let o = zingrs(&[
            "check",
            &rec,
            "-q",
            "--engine",
            "explicit",
            "--max-depth",
            "50",
            "--ltl",
            f,
        ]);
        assert_eq!(code(&o), Some(8), "{f}: {}", err(&o));
    }
    // the cycle said to start one step later: a different top frame at its end
    let mut r = good.clone();
    r["verdict"]["cycle_start"] = (start + 1).into();
    r["verdict"]["cycle_length"] = (n - start - 1).into();
    let o = replay(&rec, &r, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(err(&o).contains("does not close"), "{}", err(&o));
    // one step more: the same top frame, other globals
    let mut r = good.clone();
    r["path"]["choices"]
        .as_array_mut()
        .expect("choices")
        .extend(vec![serde_json::json!({"thread": 0, "outcome": 0}); 2]);
    r["verdict"]["cycle_length"] = (n + 2 - start).into();
    let o = replay(&rec, &r, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(
        err(&o).contains("nor has it the same globals"),
        "{}",
        err(&o)
    );
    // from inside the first call of r to the same point of the second: the same top frame
    // and globals, but the cycle returned from its frame (and the frame below changed)
    let two = model(&dir, "two.bp", TWO_CALLS);
    let (o, good) = saved(&two, &[&bdd[..], &["F G !g"]].concat(), &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    let mut r = good.clone();
    r["path"]["choices"]
        .as_array_mut()
        .expect("choices")
        .truncate(5);
    r["verdict"]["cycle_start"] = 2.into();
    r["verdict"]["cycle_length"] = 3.into();
    let o = replay(&two, &r, &file);
    assert_eq!(code(&o), Some(5), "{}", out(&o));
    assert!(
        err(&o).contains("returns from the frame the cycle starts in"),
        "{}",
        err(&o)
    );
    // r recurses for ever: a non-terminating run, which only a growing stack shows
    let (o, good) = saved(
        &rec,
        &["--engine", "bdd", "--liveness", "terminates"],
        &file,
    );
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    assert_eq!(good["verdict"]["property"], "terminates");
    let o = replay(&rec, &good, &file);
    assert_eq!(code(&o), Some(6), "{}", err(&o));
    // what the bdd engine's liveness does not take: exit 7
    for args in [
        &["--engine", "bdd", "--liveness", "progress"][..],
        &["--engine", "bdd", "--liveness", "accept"],
        &["--engine", "bdd", "--ltl", "F g", "--fairness", "weak"],
    ] {
        let mut all = vec!["check", rec.as_str(), "-q"];
        all.extend_from_slice(args);
        let o = zingrs(&all);
        assert_eq!(code(&o), Some(7), "{args:?}: {}", err(&o));
    }
    let threads = model(
        &dir,
        "t.bp",
        "decl g;\nvoid w() begin g := T; end\nvoid main() begin start_thread w(); end\n",
    );
    let o = zingrs(&["check", &threads, "-q", "--engine", "bdd", "--ltl", "F g"]);
    assert_eq!(code(&o), Some(7), "{}", err(&o));
    assert!(err(&o).contains("sequential"), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// LTL and `--liveness terminates` on random sequential boolean programs: wherever the
/// explicit engine (bounded by the stack depth) decides, the bdd engine says the same (assertions off, so that
/// neither stops at a safety error first; programs with `enforce` are refused by the bdd
/// engine and skipped). Every violation the bdd engine reports has passed its lasso check.
#[test]
fn pushdown_ltl_agrees_with_the_explicit_engine_on_random_programs() {
    let dir = scratch("pdltl-random");
    // (an empty formula: `--liveness terminates`)
    let formulas = [
        "G F g0",
        "F G !g0",
        "G (g0 -> X !g0)",
        "g0 U !g0",
        "F @HIT",
        "",
    ];
    let (mut compared, mut violated, mut held) = (0, 0, 0);
    for seed in 0..45u64 {
        let text = zingrs::gen::random_bp(seed, 8);
        if text.contains("start_thread") || text.contains("enforce") {
            continue;
        }
        let m = model(&dir, "r.bp", &text);
        for f in formulas {
            if f.contains("HIT") && !text.contains("HIT:") {
                continue;
            }
            let run = |engine: &str| {
                let property = if f.is_empty() {
                    ["--liveness", "terminates"]
                } else {
                    ["--ltl", f]
                };
                let o = zingrs(&[
                    "check",
                    &m,
                    "-q",
                    "--no-assertions",
                    "--engine",
                    engine,
                    "--max-depth",
                    "30",
                    "--max-states",
                    "50000",
                    property[0],
                    property[1],
                ]);
                (code(&o), err(&o))
            };
            let (b, why) = run("bdd");
            assert!(
                matches!(b, Some(0 | 6)),
                "seed {seed} {f}: bdd {b:?}: {why}"
            );
            let (x, _) = run("explicit");
            match (b, x) {
                (Some(6), Some(6)) => violated += 1,
                (Some(0), Some(0)) => held += 1,
                (_, Some(0 | 6)) => panic!("seed {seed} {f}: bdd {b:?}, explicit {x:?}"),
                _ => continue,
            }
            compared += 1;
        }
    }
    assert!(
        compared >= 50 && violated >= 20 && held >= 4,
        "{compared} compared, {violated} violated, {held} held"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
