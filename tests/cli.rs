//! The command line as a user meets it: exit codes, messages, output formats, limits.

use std::process::{Command, Output, Stdio};

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{err, out, unfolded_path, with_stdin, zing_model, zingrs};

const FIG1: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/bebop-fig1.bp");

#[test]
fn help_and_version_exit_zero() {
    let o = zingrs(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains("check"));
    let o = zingrs(&["check", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains("--target"));
    let o = zingrs(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors_exit_7() {
    assert_eq!(zingrs(&["check"]).status.code(), Some(7));
    assert_eq!(zingrs(&["frobnicate"]).status.code(), Some(7));
    assert_eq!(
        zingrs(&["check", FIG1, "--engine", "nonsense"])
            .status
            .code(),
        Some(7)
    );
    let o = zingrs(&["check", "/nonexistent/model.bp"]);
    assert_eq!(o.status.code(), Some(7));
    assert!(err(&o).contains("cannot read /nonexistent/model.bp"));
    let o = zingrs(&["check", "Cargo.toml"]);
    assert_eq!(o.status.code(), Some(7));
    assert!(err(&o).contains("cannot tell the language"));
}

#[test]
fn figure_1_reaches_r_with_a_replayed_trace() {
    let o = zingrs(&["check", FIG1, "--target", "R"]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("label R reached in main"), "{s}");
    assert!(s.contains("Counterexample"), "{s}");
    // the trace starts in main with g = 1 (R is unreachable from g = 0)
    let first = s
        .lines()
        .find(|l| l.trim_start().starts_with("#0"))
        .expect("a first step");
    assert!(first.contains("g=1"), "{first}");
}

#[test]
fn figure_1_passes_without_the_target() {
    let o = zingrs(&["check", FIG1]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(out(&o).contains("Check passed"));
}

#[test]
fn bfs_gives_a_trace_no_longer_than_dfs() {
    let steps = |mode: &[&str]| {
        let mut args = vec!["check", FIG1, "--target", "R", "--format", "json"];
        args.extend_from_slice(mode);
        let o = zingrs(&args);
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        j["trace"]["steps"].as_array().expect("steps").len()
    };
    assert!(steps(&["--bfs"]) <= steps(&[]));
}

#[test]
fn json_report_has_a_stable_shape() {
    let o = zingrs(&["check", FIG1, "--target", "R", "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["verdict"]["kind"], "target-reached");
    assert_eq!(j["verdict"]["label"], "R");
    assert_eq!(j["exit_code"], 3);
    assert_eq!(j["engine"], "summary");
    assert!(j["stats"]["states"].as_u64().unwrap() > 0);
    let step0 = &j["trace"]["steps"][0];
    assert_eq!(step0["procedure"], "main");
    assert!(step0["line"].as_u64().is_some());
    let values = step0["values"].as_array().expect("values");
    // a boolean program's values are JSON booleans (the text trace shows them as 0/1)
    assert!(!values.is_empty());
    assert!(values.iter().all(|b| b["value"].is_boolean()), "{values:?}");
}

#[test]
fn bebop_format_lists_lines_in_reverse_indented_by_depth() {
    let o = zingrs(&["check", FIG1, "--target", "R", "--format", "bebop"]);
    let s = out(&o);
    let mut lines = s.lines();
    assert_eq!(lines.next(), Some("Label R reachable by following path:"));
    let body: Vec<&str> = lines.collect();
    assert!(body.first().expect("a line").starts_with("Line "), "{s}");
    assert!(body.iter().any(|l| l.starts_with("  Line ")), "{s}");
    assert!(body.iter().all(|l| l.contains(" State ")), "{s}");
}

#[test]
fn syntax_errors_are_located_and_exit_7() {
    let o = with_stdin(
        &["check", "-", "--lang", "bp"],
        "void main() begin\n  decl x;\n  x := @;\nend\n",
    );
    assert_eq!(o.status.code(), Some(7));
    let e = err(&o);
    assert!(e.contains("-:3:8"), "{e}");
    assert!(e.contains('^'), "{e}");
}

#[test]
fn unbounded_recursion_is_bounded_not_a_hang() {
    let o = with_stdin(
        &[
            "check",
            "-",
            "--lang",
            "bp",
            "--engine",
            "explicit",
            "--max-depth",
            "50",
        ],
        "void f() begin f(); end\nvoid main() begin f(); end\n",
    );
    assert_eq!(o.status.code(), Some(8), "{}", out(&o));
    assert!(out(&o).contains("stack-depth bound"));
}

#[test]
fn summaries_decide_unbounded_recursion() {
    // two call sites make 2^depth distinct stacks for a plain search; summaries need two roots
    let prog = "decl g;\nvoid f() begin\n  if (*) then f(); g := !g; f(); fi\nend\nvoid main() begin\n  g := F;\n  f();\n  if (g) then HIT: skip; fi\n  assert(!g | g);\nend\n";
    let o = with_stdin(&["check", "-", "--lang", "bp", "--target", "HIT"], prog);
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    assert!(out(&o).contains("summary engine"));
    let unreachable = "void f() begin\n  if (*) then f(); f(); fi\nend\nvoid main() begin\n  f();\n  assert(T);\nend\n";
    let o = with_stdin(&["check", "-", "--lang", "bp", "--stats"], unreachable);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    // the engine's counters, named in JSON as lower-case words joined by `_`
    assert!(out(&o).contains(" summaries effects"), "{}", out(&o));
    let o = with_stdin(
        &["check", "-", "--lang", "bp", "--format", "json"],
        unreachable,
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let names: Vec<&str> = j["stats"]["counters"]
        .as_array()
        .expect("counters")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(names.contains(&"summaries_effects"), "{names:?}");
}

#[test]
fn limits_end_inconclusive_with_exit_9() {
    let prog = "decl a, b, c, d, e, f;\nvoid main() begin\n  while (*) do a, b := !b, a; od\nend\n";
    let o = with_stdin(&["check", "-", "--lang", "bp", "--max-states", "3"], prog);
    assert_eq!(o.status.code(), Some(9), "{}", out(&o));
    assert!(out(&o).contains("state limit"));
    let o = with_stdin(&["check", "-", "--lang", "bp", "--timeout", "0"], prog);
    assert_eq!(o.status.code(), Some(9), "{}", out(&o));
}

#[test]
fn no_assertions_turns_asserts_into_filters() {
    let prog = "decl g;\nvoid main() begin\n  assert(g);\n  if (!g) then HIT: skip; fi\nend\n";
    let o = with_stdin(&["check", "-", "--lang", "bp"], prog);
    assert_eq!(o.status.code(), Some(3));
    assert!(out(&o).contains("assertion violated in main at line 3"));
    let o = with_stdin(
        &[
            "check",
            "-",
            "--lang",
            "bp",
            "--no-assertions",
            "--target",
            "HIT",
        ],
        prog,
    );
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
}

#[test]
fn keep_going_reports_every_distinct_error() {
    let prog = "decl g;\nvoid main() begin\n  if (g) then assert(F); else assert(F); fi\nend\n";
    let o = with_stdin(
        &[
            "check",
            "-",
            "--lang",
            "bp",
            "--keep-going",
            "--format",
            "json",
        ],
        prog,
    );
    assert_eq!(o.status.code(), Some(3));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["more"].as_array().map(|m| m.len()), Some(1));
}

#[test]
fn missing_target_label_is_a_usage_error() {
    // a typo in a label must not end in "Check passed"
    let o = zingrs(&["check", FIG1, "--target", "NOWHERE"]);
    assert_eq!(o.status.code(), Some(7), "{}", out(&o));
    assert!(err(&o).contains("NOWHERE does not occur"), "{}", err(&o));
    assert!(!out(&o).contains("passed"), "{}", out(&o));
}

#[test]
fn stats_are_printed_on_request() {
    let o = zingrs(&["check", FIG1, "--stats"]);
    let s = out(&o);
    assert!(s.contains("distinct states"), "{s}");
    assert!(s.contains("omission probability"), "{s}");
}

#[test]
fn cfg_prints_text_and_dot() {
    let o = zingrs(&["cfg", FIG1]);
    assert_eq!(o.status.code(), Some(0));
    let s = out(&o);
    assert!(s.contains("proc main"), "{s}");
    assert!(s.contains("proc A(a1, a2)"), "{s}");
    let o = zingrs(&["cfg", FIG1, "--dot", "--proc", "A"]);
    let s = out(&o);
    assert!(s.starts_with("digraph"), "{s}");
    assert!(s.contains("label = \"T\""), "{s}");
    assert!(!s.contains("main:"), "{s}");
    assert_eq!(
        zingrs(&["cfg", FIG1, "--proc", "nope"]).status.code(),
        Some(7)
    );
}

#[test]
fn a_saved_counterexample_replays() {
    let dir = scratch("replay");
    let json = dir.join("fig1.json");
    let json_s = json.to_str().expect("utf-8 path");
    let o = zingrs(&["check", FIG1, "--target", "R", "-q", "-o", json_s]);
    assert_eq!(o.status.code(), Some(3));
    let o = zingrs(&["replay", FIG1, json_s]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("the path ends in the reported verdict"), "{s}");
    assert!(s.contains("label R reached in main at line 12"), "{s}");
    // the trace looks like check's
    assert!(s.contains("bebop-fig1.bp:12  skip"), "{s}");
    // a report without a counterexample cannot be replayed
    let o = zingrs(&["check", FIG1, "-o", json_s]);
    assert_eq!(o.status.code(), Some(0));
    let o = zingrs(&["replay", FIG1, json_s]);
    assert_eq!(o.status.code(), Some(7));
    assert!(err(&o).contains("reports no error"), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Saves the report of `check MODEL ARGS -o` and returns it parsed, its path's choices one
/// per step (a report folds repeated runs as `{"repeat": N, "choices": [...]}`, which replay
/// reads in either form), so that a test can edit any one of them.
fn saved_report(model: &str, args: &[&str], file: &std::path::Path) -> serde_json::Value {
    let mut all = vec![
        "check",
        model,
        "-q",
        "-o",
        file.to_str().expect("utf-8 path"),
    ];
    all.extend_from_slice(args);
    zingrs(&all);
    unfolded_path(
        serde_json::from_slice(&std::fs::read(file).expect("saved report")).expect("json"),
    )
}

/// Replays `report` (written to `file`) on `model`.
fn replay_of(model: &str, report: &serde_json::Value, file: &std::path::Path) -> Output {
    std::fs::write(file, serde_json::to_vec(report).expect("json")).expect("write report");
    zingrs(&["replay", model, file.to_str().expect("utf-8 path")])
}

#[test]
fn tampered_reports_are_rejected() {
    let dir = scratch("tampered");
    let file = dir.join("r.json");
    let good = saved_report(FIG1, &["--target", "R"], &file);
    assert_eq!(replay_of(FIG1, &good, &file).status.code(), Some(3));
    let n = good["path"]["choices"].as_array().expect("choices").len();
    assert!(n > 2);
    // the path emptied: the initial state is not at R
    let mut r = good.clone();
    r["path"]["choices"] = serde_json::json!([]);
    let o = replay_of(FIG1, &r, &file);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
    assert!(
        err(&o).contains("no process stands at label R"),
        "{}",
        out(&o)
    );
    // truncated by its last step: one step short of R
    let mut r = good.clone();
    r["path"]["choices"].as_array_mut().expect("choices").pop();
    let o = replay_of(FIG1, &r, &file);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
    assert!(err(&o).contains("counterexample is wrong"), "{}", out(&o));
    // a choice that does not exist
    let mut r = good.clone();
    r["path"]["choices"][0]["outcome"] = serde_json::json!(7);
    let o = replay_of(FIG1, &r, &file);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
    assert!(err(&o).contains("does not replay"), "{}", out(&o));
    // the verdict moved to another line
    let mut r = good.clone();
    r["verdict"]["line"] = serde_json::json!(11);
    let o = replay_of(FIG1, &r, &file);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
    // the report of another model
    let other = zing_model("null_deref_field_read.zing");
    let o = replay_of(&other, &good, &file);
    assert_eq!(o.status.code(), Some(7), "{}", out(&o));
    assert!(err(&o).contains("is a report of"), "{}", err(&o));
    // the same file name but other text
    let edited = dir.join("bebop-fig1.bp");
    let text = std::fs::read_to_string(FIG1).expect("model");
    std::fs::write(&edited, format!("{text}\n")).expect("write model");
    let o = replay_of(edited.to_str().expect("utf-8 path"), &good, &file);
    assert_eq!(o.status.code(), Some(7), "{}", out(&o));
    // a report of schema 1 (values as text, the path the same) still replays; a later one not
    let mut r = good.clone();
    r["schema"] = serde_json::json!(1);
    assert_eq!(replay_of(FIG1, &r, &file).status.code(), Some(3));
    r["schema"] = serde_json::json!(3);
    let o = replay_of(FIG1, &r, &file);
    assert_eq!(o.status.code(), Some(7), "{}", out(&o));
    assert!(err(&o).contains("schema 3"), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_changed_choice_that_replays_elsewhere_is_rejected() {
    // in Figure 1 only the branches have several outcomes: a changed outcome either does not
    // exist or takes the other branch, after which the rest of the path no longer ends at R
    let dir = scratch("changed-choice");
    let file = dir.join("r.json");
    let good = saved_report(FIG1, &["--target", "R"], &file);
    let mut found = false;
    let choices = good["path"]["choices"].as_array().expect("choices").clone();
    for (i, c) in choices.iter().enumerate() {
        for k in 0..4u32 {
            if c["outcome"] == k {
                continue;
            }
            let mut r = good.clone();
            r["path"]["choices"][i]["outcome"] = serde_json::json!(k);
            let o = replay_of(FIG1, &r, &file);
            // whatever the change, it never passes for the reported counterexample
            assert_eq!(o.status.code(), Some(5), "choice {i} -> {k}: {}", out(&o));
            found = true;
        }
    }
    assert!(found);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn replay_names_the_kind_of_error() {
    let dir = scratch("replay-kind");
    let file = dir.join("r.json");
    let null = zing_model("null_deref_field_read.zing");
    let r = saved_report(&null, &[], &file);
    let o = replay_of(&null, &r, &file);
    assert_eq!(o.status.code(), Some(4), "{}", out(&o));
    assert!(out(&o).contains("null dereference"), "{}", out(&o));
    assert!(!out(&o).contains("assertion"), "{}", out(&o));
    let dead = zing_model("deadlock_lock_order_inversion.zing");
    let r = saved_report(&dead, &[], &file);
    let o = replay_of(&dead, &r, &file);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert!(
        out(&o).contains("deadlock (2 processes blocked"),
        "{}",
        out(&o)
    );
    // a deadlock report whose path stops early: some process can still move
    let mut r = r.clone();
    r["path"]["choices"].as_array_mut().expect("choices").pop();
    let o = replay_of(&dead, &r, &file);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
    assert!(err(&o).contains("not a deadlock"), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn output_writes_the_json_report_whatever_the_format() {
    let dir = scratch("output");
    let file = dir.join("r.json");
    let o = zingrs(&[
        "check",
        FIG1,
        "--target",
        "R",
        "--format",
        "bebop",
        "-o",
        file.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(out(&o).starts_with("Label R reachable"), "{}", out(&o));
    let j: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("report")).expect("json");
    assert_eq!(j["schema"], 2);
    assert_eq!(j["verdict"]["kind"], "target-reached");
    assert!(j["path"]["choices"]
        .as_array()
        .is_some_and(|c| !c.is_empty()));
    assert!(j["trace"]["steps"]
        .as_array()
        .is_some_and(|c| !c.is_empty()));
    // an unwritable place is an error of its own (exit 10), not a silent loss, and the
    // verdict is printed before it
    let o = zingrs(&["check", FIG1, "-o", "/nonexistent-dir/r.json"]);
    assert_eq!(o.status.code(), Some(10));
    assert!(out(&o).contains("Check passed"), "{}", out(&o));
    assert!(
        err(&o).contains("the report could not be saved to /nonexistent-dir/r.json"),
        "{}",
        err(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// K globals with arbitrary initial values whose parity main preserves (benchmarks.md
/// bp-parity): 2^K initial states for an explicit engine, small BDDs for the symbolic one.
fn parity(k: usize) -> String {
    let gs: Vec<String> = (1..=k).map(|i| format!("g{i}")).collect();
    let mut s = format!("decl {};\n", gs.join(", "));
    for i in 1..k {
        s.push_str(&format!(
            "void flip{i}() begin g{i}, g{} := !g{i}, !g{}; end\n",
            i + 1,
            i + 1
        ));
    }
    s.push_str(&format!(
        "void main() begin\n  decl p;\n  p := {};\n",
        gs.join(" ^ ")
    ));
    for i in 1..k {
        s.push_str(&format!("  flip{i}();\n"));
    }
    s.push_str(&format!("  assert(p = ({}));\nend\n", gs.join(" ^ ")));
    s
}

#[test]
fn auto_uses_bdds_for_many_unconstrained_bits_and_engines_agree() {
    let prog = parity(40);
    let o = with_stdin(&["check", "-", "--lang", "bp", "--format", "json"], &prog);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["engine"], "bdd");
    let small = parity(6);
    let o = with_stdin(&["check", "-", "--lang", "bp", "--engine", "all"], &small);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(
        out(&o).contains("all (explicit, summary, bdd)"),
        "{}",
        out(&o)
    );
    // the same property broken: every engine must find it
    let broken = small.replace("assert(p = (", "assert(p != (");
    let o = with_stdin(&["check", "-", "--lang", "bp", "--engine", "all"], &broken);
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    for e in ["explicit", "summary", "bdd"] {
        let o = with_stdin(&["check", "-", "--lang", "bp", "--engine", e], &broken);
        assert_eq!(o.status.code(), Some(3), "{e}: {}", out(&o));
    }
}

// --- the values each step changed ---------------------------------------------------------------

const CHANGES: &str = "class Node {
    Node next;
    int v;
};
class Main {
    static Node head;
    static int x;
    activate static void main() {
        Node n;
        n = new Node;
        head = n;
        n.next = n;
        x = 1;
        assert(x == 2);
    }
};
";

#[test]
fn text_trace_shows_what_each_step_changed() {
    let o = with_stdin(&["check", "-", "--lang", "zing"], CHANGES);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    let changed: Vec<&str> = s
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("changed: "))
        .collect();
    assert!(changed.contains(&"n = #1, Node#1 = new Node"), "{s}");
    assert!(changed.contains(&"Main.head = #1"), "{s}");
    assert!(changed.contains(&"Node#1.next = #1"), "{s}");
    assert!(changed.contains(&"Main.x = 1"), "{s}");
    // the changes are printed under their step
    let i = s
        .lines()
        .position(|l| l.contains("head = n;"))
        .expect("step");
    assert_eq!(
        s.lines().nth(i + 1).map(str::trim),
        Some("changed: Main.head = #1"),
        "{s}"
    );
    // --trace short prints no values
    let o = with_stdin(
        &["check", "-", "--lang", "zing", "--trace", "short"],
        CHANGES,
    );
    assert!(!out(&o).contains("changed:"), "{}", out(&o));
}

#[test]
fn json_trace_steps_carry_changed_values() {
    let o = with_stdin(
        &["check", "-", "--lang", "zing", "--format", "json"],
        CHANGES,
    );
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let j: serde_json::Value = serde_json::from_str(&out(&o)).expect("json");
    let steps = j["trace"]["steps"].as_array().expect("steps");
    let all: Vec<(String, serde_json::Value)> = steps
        .iter()
        .flat_map(|s| s["changed"].as_array().expect("changed").clone())
        .map(|b| (b["name"].as_str().unwrap().to_string(), b["value"].clone()))
        .collect();
    // values are typed: a reference is {"ref": N}, an integer a number, a new object text
    use serde_json::json;
    assert!(
        all.contains(&("Node#1.next".into(), json!({"ref": 1}))),
        "{all:?}"
    );
    assert!(all.contains(&("Main.x".into(), json!(1))), "{all:?}");
    assert!(
        all.contains(&("Node#1".into(), json!("new Node"))),
        "{all:?}"
    );
    // before `x = 1` runs, x is the number 0 and n the reference #1
    let before_x = steps
        .iter()
        .find(|s| s["statement"].as_str().is_some_and(|t| t.contains("x = 1")))
        .expect("step x = 1");
    let vals: Vec<(String, serde_json::Value)> = before_x["values"]
        .as_array()
        .expect("values")
        .iter()
        .map(|b| (b["name"].as_str().unwrap().to_string(), b["value"].clone()))
        .collect();
    assert!(vals.contains(&("Main.x".into(), json!(0))), "{vals:?}");
    assert!(vals.contains(&("n".into(), json!({"ref": 1}))), "{vals:?}");
    // the failing assert changes nothing
    assert_eq!(steps.last().unwrap()["changed"], serde_json::json!([]));
}

#[test]
fn changed_mentions_started_processes() {
    let o = zingrs(&[
        "check",
        &zing_model("deadlock_lock_order_inversion.zing"),
        "--format",
        "json",
    ]);
    let j: serde_json::Value = serde_json::from_str(&out(&o)).expect("json");
    let text = j["trace"]["steps"].to_string();
    assert!(text.contains("started Main.Worker"), "{text}");
}

#[test]
fn replay_shows_what_each_step_changed() {
    let dir = scratch("replay-changed");
    let model = dir.join("changes.zing");
    std::fs::write(&model, CHANGES).expect("write model");
    let model = model.to_str().expect("utf-8 path");
    let json = dir.join("changes.json");
    let o = zingrs(&["check", model, "--format", "json"]);
    std::fs::write(&json, &o.stdout).expect("write report");
    let o = zingrs(&["replay", model, json.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("changed: Node#1.next = #1\n"), "{s}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scratch directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn deadlock_counts_only_blocked_processes_and_says_where_they_wait() {
    // main has completed after starting the two workers; each worker holds one lock and waits
    // for the other in Take, whose atomic select is on line 14: two processes are blocked
    let model = zing_model("deadlock_lock_order_inversion.zing");
    let o = zingrs(&["check", &model, "--trace", "none"]);
    assert_eq!(o.status.code(), Some(2));
    let s = out(&o);
    assert!(s.contains("deadlock (2 processes blocked"), "{s}");
    let waits: Vec<&str> = s.lines().filter(|l| l.contains(" waits in ")).collect();
    assert_eq!(waits.len(), 2, "{s}");
    // `        atomic { select {`: the select starts at column 18
    for (w, process) in waits.iter().zip(["process 1", "process 2"]) {
        assert!(
            w.starts_with(&format!(
                "{model}:14:18: {process} waits in Main.Take: select {{"
            )),
            "{w}"
        );
    }
    let o = zingrs(&["check", &model, "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["verdict"]["blocked"], 2);
    assert_eq!(j["verdict"]["waiting"].as_array().map(|w| w.len()), Some(2));
    assert_eq!(j["verdict"]["waiting"][0]["line"], 14);
}

#[test]
fn a_closed_stdout_does_not_panic() {
    let dir = scratch("pipe");
    let big = dir.join("big.bp");
    let o = zingrs(&["gen", "bebop-t", "3000"]);
    std::fs::write(&big, &o.stdout).expect("write model");
    let big = big.to_str().expect("utf-8 path");
    // each prints far more than a pipe holds, so the writes meet the closed pipe
    for args in [
        vec!["gen", "bebop-t", "3000"],
        vec!["cfg", big],
        vec!["cfg", big, "--dot"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zingrs"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("zingrs runs");
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("zingrs ends");
        assert_ne!(o.status.code(), Some(101), "{args:?}: {}", err(&o));
        assert!(!err(&o).contains("panicked"), "{args:?}: {}", err(&o));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verbose_warns_about_options_without_effect() {
    let o = zingrs(&["check", FIG1, "--engine", "explicit", "--no-mod-ref", "-v"]);
    assert!(
        err(&o).contains("--no-mod-ref has no effect on the explicit engine"),
        "{}",
        err(&o)
    );
    assert!(err(&o).contains("--no-mod-ref"), "{}", err(&o));
    let o = zingrs(&[
        "check",
        FIG1,
        "--engine",
        "bdd",
        "--no-mod-ref",
        "--bfs",
        "-v",
    ]);
    assert!(
        !err(&o).contains("--no-mod-ref has no effect"),
        "{}",
        err(&o)
    );
    assert!(
        err(&o).contains("--bfs has no effect on the bdd engine"),
        "{}",
        err(&o)
    );
    let o = zingrs(&["check", FIG1, "--engine", "explicit", "--no-mod-ref"]);
    assert!(!err(&o).contains("no effect"), "{}", err(&o));
}

#[test]
fn the_header_comes_before_the_search() {
    let dir = scratch("header");
    let model = dir.join("po9.zing");
    let o = zingrs(&["gen", "philosophers-ordered", "9"]);
    std::fs::write(&model, &o.stdout).expect("write model");
    // the search of this model takes seconds; the header must be on stdout while it runs
    let mut child = Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .args([
            "check",
            model.to_str().expect("utf-8 path"),
            "--engine",
            "explicit",
            "--timeout",
            "60",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("zingrs runs");
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().expect("stdout")),
        &mut first,
    )
    .expect("read");
    let running = child.try_wait().expect("status").is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        first.contains("checking") && first.contains("with the explicit engine"),
        "{first}"
    );
    assert!(running, "the header came only after the search ended");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_header_says_how_the_summary_engine_runs_a_concurrent_model() {
    // on threads the summary engine is the explicit search with transactional calls
    // summarized; "with the summary engine" alone would claim the sequential algorithm ran
    let o = zingrs(&[
        "check",
        "examples/philosophers-3.zing",
        "--engine",
        "summary",
    ]);
    let first = out(&o).lines().next().unwrap_or_default().to_string();
    assert!(
        first.ends_with(
            "with the summary engine (calls that run as one transaction summarized, threads \
             interleaved)"
        ),
        "{first}"
    );
    let o = zingrs(&["check", FIG1, "--engine", "summary"]);
    let first = out(&o).lines().next().unwrap_or_default().to_string();
    assert!(first.ends_with("with the summary engine"), "{first}");
}

#[test]
fn quiet_keeps_the_statistics_asked_for() {
    let o = zingrs(&["check", FIG1, "-q", "--stats"]);
    let s = out(&o);
    assert!(s.starts_with("Check passed"), "{s}");
    assert!(s.contains("distinct states"), "{s}");
    assert!(s.contains("omission probability"), "{s}");
}

#[test]
fn long_traces_keep_the_step_column_aligned() {
    // 1,200 iterations of two steps each: step numbers past 1,000
    let model = "class Main {\n    activate static void main() {\n        int i = 0;\n        while (i < 1200) {\n            i = i + 1;\n        }\n        assert(false);\n    }\n};\n";
    let o = with_stdin(&["check", "-", "--lang", "zing", "--trace", "short"], model);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    let steps: Vec<&str> = s.lines().filter(|l| l.starts_with("  #")).collect();
    // (the loop is folded: its last iteration, past step 2,000, is shown)
    assert!(steps.iter().any(|l| l.starts_with("  #2")), "{s}");
    // the number, then blanks, then the procedure, at the same column on every line
    let at = |l: &str| l.find("Main.main");
    for l in &steps {
        assert_eq!(at(l), at(steps[0]), "{l}");
        let number = &l[3..at(l).expect("procedure")];
        assert!(number.ends_with(' '), "{l}");
        assert!(number.trim_end().chars().all(|c| c.is_ascii_digit()), "{l}");
    }
}

#[test]
fn single_model_families_take_no_size() {
    let o = zingrs(&["gen", "zing-alloc"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains("class"), "{}", out(&o));
    assert_eq!(zingrs(&["gen", "zing-patterns"]).status.code(), Some(0));
    assert_eq!(zingrs(&["gen", "zing-alloc", "3"]).status.code(), Some(7));
    let o = zingrs(&["gen", "bebop-t"]);
    assert_eq!(o.status.code(), Some(7));
    assert!(err(&o).contains("needs a seed or size N"), "{}", err(&o));
}

#[test]
fn a_file_that_is_not_utf8_is_named_as_such() {
    let dir = scratch("utf8");
    let model = dir.join("latin1.bp");
    // outside a comment (inside one it is read as Latin-1, with a warning)
    std::fs::write(&model, b"void main()\nbegin\n  caf\xe9\nend\n").expect("write");
    let o = zingrs(&["check", model.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(7));
    assert!(
        err(&o).contains("latin1.bp:3:6: the file is not UTF-8"),
        "{}",
        err(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verdict_lines_say_where_and_what_failed() {
    // `        assert(x == 1, "x must be one");` on line 8: column 9
    let model = zing_model("assert_with_message_fails.zing");
    let o = zingrs(&["check", &model, "--trace", "none"]);
    assert_eq!(o.status.code(), Some(3));
    let s = out(&o);
    let want = format!("{model}:8:9: assertion `x == 1` failed: x must be one (in Main.main)\n");
    assert!(s.contains(&want), "{s}");
    let o = zingrs(&["check", &model, "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["verdict"]["column"], 9);
    assert_eq!(j["verdict"]["condition"], "x == 1");
    assert_eq!(j["verdict"]["message"], "x must be one");
    // `        v = c.x;` on line 11
    let model = zing_model("null_deref_field_read.zing");
    let s = out(&zingrs(&["check", &model, "--trace", "none"]));
    // the failing statement, the values it reads (c is the null reference, v still 0), and
    // what the failing operation wanted of the null reference
    let want = format!(
        "{model}:11:9: null dereference in `v = c.x;` with c = null, v = 0: \
         `c` is null (reading its field `x`) (in Main.main)\n"
    );
    assert!(s.contains(&want), "{s}");
    let o = zingrs(&["check", &model, "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["verdict"]["statement"], "v = c.x;");
    // Figure 1, line 12 `    R: skip;`: the labelled statement starts at column 8
    let s = out(&zingrs(&[
        "check", FIG1, "--target", "R", "--trace", "none",
    ]));
    assert!(
        s.contains(&format!("{FIG1}:12:8: label R reached (in main)\n")),
        "{s}"
    );
}

#[test]
fn reports_follow_the_schema() {
    // every kind of verdict, with and without a trace; zingrs() checks each one
    let reports = [
        vec!["check", FIG1, "--target", "R", "--format", "json"],
        vec!["check", FIG1, "--format", "json", "--stats"],
        vec!["check", FIG1, "--engine", "explicit", "--format", "json"],
        vec![
            "check", FIG1, "--target", "R", "--engine", "all", "--format", "json",
        ],
        vec![
            "check", FIG1, "--target", "R", "--trace", "none", "--format", "json",
        ],
        vec![
            "check",
            FIG1,
            "--max-states",
            "2",
            "--engine",
            "explicit",
            "--format",
            "json",
        ],
    ];
    for args in &reports {
        let o = zingrs(args);
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(j["schema"], 2, "{args:?}");
    }
    for m in [
        "assert_with_message_fails.zing",
        "null_deref_field_read.zing",
        "deadlock_lock_order_inversion.zing",
    ] {
        let o = zingrs(&["check", &zing_model(m), "--format", "json", "--keep-going"]);
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(j["schema"], 2, "{m}");
        // the initial valuation is typed: no Rust enum tags
        let init = j["path"]["init"].to_string();
        assert!(!init.contains("Bool") && !init.contains("Int"), "{init}");
    }
}

#[test]
fn a_report_that_breaks_the_schema_is_caught() {
    // the check itself can fail: a string where the schema has a number
    let o = zingrs(&["check", FIG1, "--target", "R", "--format", "json"]);
    let mut j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    j["verdict"]["line"] = serde_json::json!("12");
    let caught = std::panic::catch_unwind(|| common::schema::check(&j));
    assert!(caught.is_err());
}

#[test]
fn a_model_without_processes_is_invalid() {
    // an empty Zing file declares no activate method: nothing runs, nothing can be checked
    let o = with_stdin(&["check", "-", "--lang", "zing"], "");
    assert_eq!(o.status.code(), Some(7), "{}", out(&o));
    assert!(err(&o).contains("no `activate` method"), "{}", err(&o));
    assert!(!out(&o).contains("passed"), "{}", out(&o));
}

#[test]
fn diagnostics_escape_control_characters_and_say_when_they_stop() {
    // an escape sequence in a source line would retitle the terminal if echoed raw
    let o = with_stdin(
        &["check", "-", "--lang", "bp"],
        "void main() begin x := \u{1b}]0;pwned\u{7}; end\n",
    );
    assert_eq!(o.status.code(), Some(7));
    let e = err(&o);
    assert!(!e.contains('\u{1b}') && !e.contains('\u{7}'), "{e:?}");
    assert!(e.contains("\\x1b]0;pwned\\x07"), "{e}");
    // 60 bad characters: the report stops at 50 errors and says so
    let o = with_stdin(
        &["check", "-", "--lang", "bp"],
        &format!("void main() begin {} end\n", "@ ".repeat(60)),
    );
    assert_eq!(o.status.code(), Some(7));
    assert!(err(&o).contains("the report stops at 50"), "{}", err(&o));
    let o = with_stdin(&["check", "-", "--lang", "bp"], "void main() begin @ end\n");
    assert!(!err(&o).contains("the report stops"), "{}", err(&o));
}

#[test]
fn invalid_input_with_json_prints_the_diagnostics_as_json() {
    // line 2: `x := ;` misses its expression; x is undeclared as well
    let o = with_stdin(
        &["check", "-", "--lang", "bp", "--format", "json"],
        "void main()\nbegin x := ; end\n",
    );
    assert_eq!(o.status.code(), Some(7));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json on stdout");
    assert_eq!(j["verdict"]["kind"], "invalid-input");
    assert_eq!(j["exit_code"], 7);
    let d = &j["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 2);
    assert!(d["column"].as_u64().is_some_and(|c| c > 1), "{d}");
    // the text diagnostics still go to stderr
    assert!(err(&o).contains("-:2:"), "{}", err(&o));
}

#[test]
fn cfg_dot_labels_are_source_text_with_lines() {
    let o = zingrs(&["cfg", FIG1, "--dot", "--proc", "A"]);
    assert_eq!(o.status.code(), Some(0));
    let s = out(&o);
    // no Debug quoting inside the labels
    assert!(!s.contains("\\\""), "{s}");
    // Figure 1, line 21: `A(a2,a1);` inside A
    assert!(s.contains("A line 21: A(a2,a1)"), "{s}");
}

#[test]
fn loop_iterations_are_folded_in_text_and_json() {
    // 1,000 iterations of `while (i < 1000)` (line 4) and `i = i + 1;` (line 5); the first two
    // and the last are shown, the other 997 folded into one line
    let model = "class Main {\n    activate static void main() {\n        int i = 0;\n        while (i < 1000) {\n            i = i + 1;\n        }\n        assert(false);\n    }\n};\n";
    let o = with_stdin(&["check", "-", "--lang", "zing"], model);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    assert!(
        s.contains("  … 997 more iterations of lines 4–5 …\n"),
        "{s}"
    );
    assert!(
        s.lines().filter(|l| l.starts_with("  #")).count() < 20,
        "{s}"
    );
    // what the loop did before the fold and after it
    assert!(
        s.contains("changed: i = 1\n") && s.contains("changed: i = 1000\n"),
        "{s}"
    );
    let o = with_stdin(&["check", "-", "--lang", "zing", "--format", "json"], model);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    // JSON folds the same run (issue 35): the first step, two iterations, one item for the
    // 997 others (steps 5 to 1998), the last iteration, the last test and the assert
    let steps = j["trace"]["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 10, "{steps:?}");
    assert_eq!(
        steps[5],
        serde_json::json!({"folded": {"iterations": 997, "period": 2, "from": 5, "to": 1998, "lines": [4, 5]}})
    );
    let numbers: Vec<u64> = steps.iter().filter_map(|s| s["step"].as_u64()).collect();
    assert_eq!(numbers, [0, 1, 2, 3, 4, 1999, 2000, 2001, 2002]);
    // the path loses nothing: its 2,003 choices are one run of the same choice
    assert_eq!(
        j["path"]["choices"],
        serde_json::json!([{"repeat": 2003, "choices": [{"thread": 0, "outcome": 0}]}])
    );
}

#[test]
fn trace_changes_prints_only_what_each_step_changed() {
    let model = "class Main {\n    activate static void main() {\n        int i = 0;\n        i = i + 1;\n        assert(i == 0);\n    }\n};\n";
    let o = with_stdin(
        &["check", "-", "--lang", "zing", "--trace", "changes"],
        model,
    );
    assert_eq!(o.status.code(), Some(3));
    let s = out(&o);
    assert!(!s.contains("[i="), "{s}");
    assert!(s.contains("changed: i = 1\n"), "{s}");
    // the full trace has both
    let s = out(&with_stdin(&["check", "-", "--lang", "zing"], model));
    assert!(s.contains("[i=0]") && s.contains("changed: i = 1\n"), "{s}");
}

#[test]
fn help_lists_exit_codes_and_every_engine_format_and_trace_value() {
    for args in [vec!["--help"], vec!["check", "--help"]] {
        let s = out(&zingrs(&args));
        for code in [
            "  0  passed",
            "  2  deadlock",
            "  3  ",
            "  4  runtime error",
            "  5  ",
            "  7  ",
            "  8  ",
            "  9  ",
        ] {
            assert!(s.contains(code), "{args:?} lacks {code:?}:\n{s}");
        }
        assert!(!s.contains("seed 0") && !s.contains("spec/"), "{s}");
    }
    let s = out(&zingrs(&["check", "--help"]));
    for value in [
        "auto:",
        "explicit:",
        "summary:",
        "bdd:",
        "all:",
        "text:",
        "json:",
        "bebop:",
        "zing:",
        "full:",
        "short:",
        "changes:",
        "none:",
    ] {
        assert!(s.contains(value), "check --help lacks {value}:\n{s}");
    }
}

#[test]
fn completions_and_man_page() {
    let o = zingrs(&["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains("zingrs"), "{}", out(&o));
    assert_eq!(
        zingrs(&["completions", "nosuchshell"]).status.code(),
        Some(7)
    );
    let o = zingrs(&["manpage"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains(".TH zingrs 1"), "{}", out(&o));
}

/// A Zing model whose assertion depends on the static `s` (statics start at 0): `fails` picks
/// the value that fails. Both have the same slots and steps.
fn static_model(dir: &std::path::Path, name: &str, fails: u8) -> String {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!(
            "class Main {{\n    static int s;\n    static Main r;\n    activate static void main() {{\n        if (s == {fails}) {{\n            assert(false);\n        }}\n    }}\n}};\n"
        ),
    )
    .expect("write model");
    p.display().to_string()
}

/// Replay checks a path's start against the model's initial states: a Zing static set to 1
/// (statics start at 0), a dangling reference, a boolean set to 2, a value too few are each
/// refused, even where the rest of the report is what the forged start gives (here the trace
/// is left out, so only the start can tell).
#[test]
fn replay_refuses_a_start_that_is_not_an_initial_state() {
    let dir = scratch("forged-start");
    let file = dir.join("r.json");
    let fails = static_model(&dir, "fails.zing", 0);
    let passes = static_model(&dir, "passes.zing", 1);
    let o = zingrs(&["check", &passes, "--engine", "all", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let real = saved_report(&fails, &[], &file);
    assert_eq!(real["exit_code"], 3);
    assert_eq!(replay_of(&fails, &real, &file).status.code(), Some(3));
    // the same report made out to the passing model (its name and source hash), starting at
    // s = 1: without the check on the start it replays to the assertion
    let hash = saved_report(&passes, &[], &file)["source_hash"].clone();
    let mut forged = real.clone();
    forged["model"] = serde_json::json!(passes);
    forged["source_hash"] = hash;
    forged["trace"] = serde_json::Value::Null;
    let init = real["path"]["init"].as_array().expect("init").clone();
    let s = init.iter().position(|v| v == 0).expect("an int slot");
    let r = init
        .iter()
        .position(|v| v.is_null())
        .expect("a reference slot");
    let mut one = forged.clone();
    one["path"]["init"][s] = serde_json::json!(1);
    let o = replay_of(&passes, &one, &file);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
    assert!(
        err(&o).contains("gives Main.s the value 1, but it starts at 0"),
        "{}",
        err(&o)
    );
    let mut dangling = forged.clone();
    dangling["path"]["init"][r] = serde_json::json!({"ref": 99999});
    let o = replay_of(&passes, &dangling, &file);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
    assert!(err(&o).contains("the value {\"ref\":99999}"), "{}", err(&o));
    let mut short = forged.clone();
    short["path"]["init"].as_array_mut().expect("init").pop();
    let o = replay_of(&passes, &short, &file);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
    // a boolean program: a boolean that starts as 2
    let good = saved_report(FIG1, &["--target", "R"], &file);
    let mut two = good.clone();
    two["path"]["init"][0] = serde_json::json!(2);
    let o = replay_of(FIG1, &two, &file);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
    assert!(err(&o).contains("gives the boolean"), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Replay regenerates the trace from the path and refuses a report whose trace, verdict or
/// exit code a reader would see differ from it: an edited value, a dropped or moved step, an
/// emptied trace, another thread count, an exit code of 0, a changed column.
#[test]
fn replay_refuses_a_report_whose_trace_or_verdict_differs_from_its_path() {
    let dir = scratch("forged-trace");
    let file = dir.join("r.json");
    let good = saved_report(FIG1, &["--target", "R"], &file);
    let o = replay_of(FIG1, &good, &file);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(out(&o).contains("gives the reported trace"), "{}", out(&o));
    let steps = good["trace"]["steps"].as_array().expect("steps").clone();
    assert!(steps.len() > 4);
    let value_at = steps
        .iter()
        .position(|s| !s["values"].as_array().expect("values").is_empty())
        .expect("a step with values");
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let edits: Vec<(&str, Edit)> = vec![
        (
            "a value",
            Box::new(move |r| {
                let v = &mut r["trace"]["steps"][value_at]["values"][0]["value"];
                *v = serde_json::json!(!v.as_bool().expect("a boolean"));
            }),
        ),
        (
            "a dropped step",
            Box::new(|r| {
                r["trace"]["steps"].as_array_mut().expect("steps").remove(2);
            }),
        ),
        (
            "the last step dropped",
            Box::new(|r| {
                r["trace"]["steps"].as_array_mut().expect("steps").pop();
            }),
        ),
        (
            "an emptied trace",
            Box::new(|r| r["trace"]["steps"] = serde_json::json!([])),
        ),
        (
            "a line",
            Box::new(|r| r["trace"]["steps"][1]["line"] = serde_json::json!(99)),
        ),
        (
            "a step added",
            Box::new(|r| {
                let last = r["trace"]["steps"][0].clone();
                r["trace"]["steps"]
                    .as_array_mut()
                    .expect("steps")
                    .push(last);
            }),
        ),
        (
            "the thread count",
            Box::new(|r| r["trace"]["threads"] = serde_json::json!(2)),
        ),
        (
            "a field added",
            Box::new(|r| r["trace"]["note"] = serde_json::json!("all fine")),
        ),
        (
            "a full trace said to be cut",
            Box::new(|r| r["trace"]["interrupted"] = serde_json::json!(true)),
        ),
        (
            "the exit code",
            Box::new(|r| r["exit_code"] = serde_json::json!(0)),
        ),
        (
            "the exit code removed",
            Box::new(|r| {
                r.as_object_mut().expect("report").remove("exit_code");
            }),
        ),
        (
            "the verdict's column",
            Box::new(|r| r["verdict"]["column"] = serde_json::json!(1)),
        ),
    ];
    for (what, edit) in &edits {
        let mut r = good.clone();
        edit(&mut r);
        let o = replay_of(FIG1, &r, &file);
        assert_eq!(o.status.code(), Some(5), "{what}: {}", out(&o));
        assert!(
            err(&o).contains("counterexample is wrong"),
            "{what}: {}",
            err(&o)
        );
        assert!(!out(&o).contains("Replaying"), "{what}: {}", out(&o));
    }
    // a trace cut short that says so (Ctrl-C while it was written) is a prefix: accepted
    let mut cut = good.clone();
    cut["trace"]["steps"]
        .as_array_mut()
        .expect("steps")
        .truncate(3);
    cut["trace"]["interrupted"] = serde_json::json!(true);
    assert_eq!(replay_of(FIG1, &cut, &file).status.code(), Some(3));
    // a report written without its trace (`--trace none`) shows nothing to compare
    let o = zingrs(&[
        "check", FIG1, "--target", "R", "--format", "json", "--trace", "none",
    ]);
    let bare: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(bare["trace"].is_null(), "{bare}");
    assert!(bare["path"].is_object(), "{bare}");
    let o = replay_of(FIG1, &bare, &file);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(out(&o).contains("no trace to compare"), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The files in `dir`, sorted.
fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A Zing model whose counterexample has 2n + 3 steps (a report of about 400 bytes a step).
fn loop_model(dir: &std::path::Path, n: u32) -> String {
    let p = dir.join(format!("loop{n}.zing"));
    std::fs::write(
        &p,
        format!(
            "class Main {{\n    activate static void main() {{\n        int i;\n        i = 0;\n        while (i < {n}) {{\n            i = i + 1;\n        }}\n        assert(i == 0);\n    }}\n}};\n"
        ),
    )
    .expect("write model");
    p.display().to_string()
}

/// `-o FILE` writes through a temporary file of its own, created exclusively next to FILE:
/// two runs saving to one file at once leave one whole report and nothing else, and a
/// symbolic link at the name the temporary file once had (`FILE.tmp`) is neither followed
/// nor removed.
#[test]
fn concurrent_saves_to_one_file_leave_one_valid_report() {
    let dir = scratch("concurrent-o");
    let model = loop_model(&dir, 5000);
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).expect("out dir");
    let file = out_dir.join("r.json");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep me").expect("victim");
    std::os::unix::fs::symlink(&victim, out_dir.join("r.json.tmp")).expect("symlink");
    let file_s = file.to_str().expect("utf-8 path");
    let runs: Vec<_> = (0..2)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_zingrs"))
                .args(["check", &model, "--engine", "explicit", "-q", "-o", file_s])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("zingrs runs")
        })
        .collect();
    for r in runs {
        let o = r.wait_with_output().expect("zingrs ends");
        assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("report")).expect("valid JSON");
    assert_eq!(report["exit_code"], 3);
    // every step of the 10,003, the loop's repetitions folded (a fold stands for steps
    // `from..=to`)
    let steps: u64 = report["trace"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|item| match item.get("folded") {
            Some(f) => f["to"].as_u64().unwrap() - f["from"].as_u64().unwrap() + 1,
            None => 1,
        })
        .sum();
    assert_eq!(steps, 10003);
    assert_eq!(files_in(&out_dir), ["r.json", "r.json.tmp"]);
    assert!(std::fs::symlink_metadata(out_dir.join("r.json.tmp"))
        .expect("the link")
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep me");
    // the report replays
    let o = zingrs(&["replay", &model, file_s, "--detail", "none"]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report that cannot be saved (`-o` a directory, a path through a file, a place nobody
/// may create files in, a full device) does not hide the verdict: it is printed first, then
/// the failed save is reported on its own, with exit 10; no temporary file is left.
#[test]
fn a_report_that_cannot_be_saved_keeps_the_verdict() {
    let dir = scratch("unsaved");
    let plain = dir.join("plain");
    std::fs::write(&plain, "").expect("a file");
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).expect("a directory");
    let through_file = plain.join("r.json");
    for target in [
        sub.to_str().expect("utf-8"),
        through_file.to_str().expect("utf-8"),
        "/proc/zingrs-report.json",
        "/dev/full",
    ] {
        // (not `zingrs()`, which reads the `-o` file back: /dev/full reads as endless zeros)
        let o = Command::new(env!("CARGO_BIN_EXE_zingrs"))
            .args(["check", FIG1, "--target", "R", "-q", "-o", target])
            .output()
            .expect("zingrs runs");
        assert_eq!(o.status.code(), Some(10), "{target}: {}", err(&o));
        assert_eq!(
            out(&o),
            "Check failed: label R reached in main at line 12\n",
            "{target}"
        );
        assert!(
            err(&o).contains(&format!("the report could not be saved to {target}")),
            "{target}: {}",
            err(&o)
        );
        assert!(err(&o).contains("exit code 3"), "{target}: {}", err(&o));
    }
    assert_eq!(files_in(&dir), ["plain", "sub"]);
    assert!(files_in(&sub).is_empty());
    assert!(std::fs::metadata("/dev/full").is_ok_and(|m| !m.is_file()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Standard output on a full device: a clear error and exit 10 in every command that prints,
/// never a panic (exit 101); `check` and `replay` give the verdict on standard error.
#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let dir = scratch("full-stdout");
    let file = dir.join("r.json");
    let file_s = file.to_str().expect("utf-8 path");
    let o = zingrs(&["check", FIG1, "--target", "R", "-q", "-o", file_s]);
    assert_eq!(o.status.code(), Some(3));
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
    };
    for args in [
        &["check", FIG1, "--target", "R"][..],
        &["check", FIG1, "--format", "json"][..],
        &["replay", FIG1, file_s][..],
        &["gen", "bebop-t", "3"][..],
        &["completions", "bash"][..],
        &["cfg", FIG1][..],
        &["manpage"][..],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_zingrs"))
            .args(args)
            .stdout(full())
            .output()
            .expect("zingrs runs");
        assert_eq!(o.status.code(), Some(10), "{args:?}: {}", err(&o));
        assert!(
            err(&o).contains("cannot write") && err(&o).contains("standard output"),
            "{args:?}: {}",
            err(&o)
        );
        assert!(!err(&o).contains("panicked"), "{args:?}: {}", err(&o));
        if matches!(args[0], "check" | "replay") {
            assert!(err(&o).contains("Check "), "{args:?}: {}", err(&o));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Statistics name what an engine does not count instead of printing a false 0: the bdd
/// engine keeps no stack and stores no fingerprints, and it prints no line per context
/// without path edges.
#[test]
fn statistics_say_what_was_not_counted() {
    let o = zingrs(&[
        "check", FIG1, "--engine", "bdd", "--stats", "--format", "json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let s = &j["stats"];
    assert!(s["max_stack_depth"].is_null(), "{s}");
    assert!(s["max_search_depth"].is_null(), "{s}");
    assert!(s["omission_probability"].is_null(), "{s}");
    assert!(s["transitions"].as_u64().is_some_and(|t| t > 0), "{s}");
    let o = zingrs(&["check", FIG1, "--engine", "bdd", "--stats"]);
    let text = out(&o);
    assert!(!text.contains("max stack depth"), "{text}");
    assert!(!text.contains("hash-compaction"), "{text}");
    assert!(text.contains("not counted: stack depth"), "{text}");
    // the explicit engines count them all
    let o = zingrs(&[
        "check", FIG1, "--engine", "explicit", "--stats", "--format", "json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    for k in [
        "transitions",
        "initial_states",
        "max_stack_depth",
        "max_search_depth",
    ] {
        assert!(j["stats"][k].as_u64().is_some_and(|n| n > 0), "{k}: {j}");
    }
    assert!(j["stats"]["omission_probability"].is_number(), "{j}");
}

/// A file in a fresh temporary directory holding `bytes`.
fn temp_model(name: &str, bytes: &[u8]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("written");
    (dir, path.display().to_string())
}

const OPPOSITE_LOCKS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/regressions/bp-threads/deadlock_locks_taken_in_opposite_order.bp"
);

#[test]
fn boolean_program_threads_that_block_each_other_deadlock() {
    // issue 35 item 12: exit 2, where each thread waits, and --no-deadlock turns it off
    for engine in ["auto", "explicit", "summary"] {
        let o = zingrs(&["check", OPPOSITE_LOCKS, "--engine", engine]);
        assert_eq!(o.status.code(), Some(2), "{engine}: {}", out(&o));
        let s = out(&o);
        assert!(
            s.contains("Check failed: deadlock (2 processes blocked, none runnable)"),
            "{s}"
        );
        assert!(s.contains("waits in t1: atomic_begin"), "{s}");
        assert!(s.contains("waits in t2: atomic_begin"), "{s}");
        let o = zingrs(&["check", OPPOSITE_LOCKS, "--engine", engine, "--no-deadlock"]);
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", out(&o));
    }
    // the report replays as a deadlock
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("r.json");
    let json = saved_report(OPPOSITE_LOCKS, &[], &file);
    assert_eq!(json["verdict"]["kind"], "deadlock");
    let o = replay_of(OPPOSITE_LOCKS, &json, &file);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    // Zing's deadlocks are switched off by the same option
    let phil = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/philosophers-3.zing");
    assert_eq!(zingrs(&["check", phil]).status.code(), Some(2));
    assert_eq!(
        zingrs(&["check", phil, "--no-deadlock"]).status.code(),
        Some(0)
    );
}

#[test]
fn engines_that_do_not_look_for_deadlocks_do_not_pass_a_program_that_can_block() {
    // the coverability engine proves assertions for any number of threads but not the absence
    // of deadlocks: inconclusive (exit 8), and a pass with --no-deadlock
    let o = zingrs(&["check", OPPOSITE_LOCKS, "--engine", "coverability"]);
    assert_eq!(o.status.code(), Some(8), "{}", out(&o));
    assert!(
        out(&o).contains("does not look for deadlocks"),
        "{}",
        out(&o)
    );
    let o = zingrs(&[
        "check",
        OPPOSITE_LOCKS,
        "--engine",
        "coverability",
        "--no-deadlock",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    // `all`: the deadlock stands, the coverability row says why it did not decide
    let o = zingrs(&["check", OPPOSITE_LOCKS, "--engine", "all"]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    // the bdd engine on the Getafix layout, complete at 2 switches
    let getafix = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/regressions/bp-threads/getafix_threads_waiting_for_each_other_deadlock.bp"
    );
    let bdd = ["check", getafix, "--engine", "bdd", "--contexts", "2"];
    let o = zingrs(&bdd);
    assert_eq!(o.status.code(), Some(8), "{}", out(&o));
    assert!(
        out(&o).contains("does not look for deadlocks"),
        "{}",
        out(&o)
    );
    let o = zingrs(&[&bdd[..], &["--no-deadlock"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let o = zingrs(&["check", getafix, "--engine", "all", "--contexts", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
}

#[test]
fn a_byte_order_mark_is_skipped_and_latin1_in_comments_is_tolerated() {
    // issue 35 item 14, both languages
    let (_d, bp) = temp_model("bom.bp", b"\xEF\xBB\xBFvoid main() begin assert(F); end\n");
    assert_eq!(zingrs(&["check", &bp]).status.code(), Some(3));
    let zing = b"\xEF\xBB\xBFclass M { static activate void main() { assert(false); } };\n";
    let (_d2, z) = temp_model("bom.zing", zing);
    assert_eq!(zingrs(&["check", &z]).status.code(), Some(3));
    let (_d3, bp) = temp_model(
        "latin1.bp",
        b"// caf\xE9, by Ren\xE9\nvoid main() begin /* \xE0 */ assert(F); end\n",
    );
    let o = zingrs(&["check", &bp]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(
        err(&o).contains(
            "latin1.bp:1:7: byte 0xe9 in a comment is not UTF-8; read as Latin-1 (and 2 more"
        ),
        "{}",
        err(&o)
    );
    let (_d4, z) = temp_model(
        "latin1.zing",
        b"// \xE9\nclass M { static activate void main() { assert(false); } };\n",
    );
    let o = zingrs(&["check", &z]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(err(&o).contains("warning: "), "{}", err(&o));
    // outside a comment (here in a string) it is still an error
    let (_d5, z) = temp_model(
        "string.zing",
        b"class M { static activate void main() { assert(false, \"\xE9\"); } };\n",
    );
    let o = zingrs(&["check", &z]);
    assert_eq!(o.status.code(), Some(7), "{}", err(&o));
    assert!(err(&o).contains("not UTF-8 text"), "{}", err(&o));
}

#[test]
fn a_model_under_the_other_languages_extension_gets_one_error() {
    let zing = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/zing-patterns.zing"
    ))
    .expect("the example");
    let (_d, bp) = temp_model("model.bp", &zing);
    let o = zingrs(&["check", &bp]);
    assert_eq!(o.status.code(), Some(7));
    let e = err(&o);
    assert!(
        e.contains("it is a Zing model: check it with --lang zing"),
        "{e}"
    );
    assert!(e.contains("(1 error)"), "{e}");
    assert_eq!(
        zingrs(&["check", &bp, "--lang", "zing"]).status.code(),
        Some(3)
    );
    let fig1 = std::fs::read(FIG1).expect("the example");
    let (_d2, z) = temp_model("model.zing", &fig1);
    let o = zingrs(&["check", &z]);
    assert_eq!(o.status.code(), Some(7));
    let e = err(&o);
    assert!(
        e.contains("it is a boolean program: check it with --lang bp"),
        "{e}"
    );
    assert!(e.contains("(1 error)"), "{e}");
}

#[test]
fn three_hundred_nested_ifs_give_one_error() {
    let n = 300;
    let text = format!(
        "void main() begin decl x;\n{}skip;{}\nend\n",
        "if (x) then ".repeat(n),
        " fi".repeat(n)
    );
    let (_d, bp) = temp_model("deep.bp", text.as_bytes());
    let o = zingrs(&["check", &bp]);
    assert_eq!(o.status.code(), Some(7));
    let e = err(&o);
    assert_eq!(e.matches("error: nesting too deep").count(), 1, "{e}");
    assert!(e.contains("(1 error)"), "{e}");
}

#[test]
fn gen_refuses_absurd_sizes() {
    // issue 35 item 17: a clear error and exit 7, at once, instead of building gigabytes
    let start = std::time::Instant::now();
    for args in [
        &["gen", "fib-bp", "1000000"][..],
        &["gen", "bebop-t", "18446744073709551615"],
        &["gen", "random-bp", "1", "--size", "4000000000"],
        &["gen", "bluetooth-bp", "1", "100000000000"],
    ] {
        let o = zingrs(args);
        assert_eq!(o.status.code(), Some(7), "{args:?}");
        assert!(
            err(&o).contains("more than the 1024 MB `gen`"),
            "{}",
            err(&o)
        );
    }
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    // sizes below the limit are written as before
    assert_eq!(zingrs(&["gen", "fib-bp", "3"]).status.code(), Some(0));
    assert_eq!(zingrs(&["gen", "bebop-t", "2000"]).status.code(), Some(0));
}

#[test]
fn replay_takes_trace_as_check_does() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("r.json");
    let json = saved_report(FIG1, &["--target", "R"], &file);
    let f = file.to_str().expect("utf-8 path");
    for detail in ["--trace", "--detail"] {
        let o = zingrs(&["replay", FIG1, f, detail, "none"]);
        assert_eq!(o.status.code(), Some(3), "{detail}: {}", err(&o));
        assert!(!out(&o).contains("#0"), "{detail}: {}", out(&o));
    }
    assert_eq!(json["verdict"]["kind"], "target-reached");
}

#[test]
fn every_subcommand_has_a_man_page_with_every_option() {
    for sub in [
        "check",
        "cfg",
        "replay",
        "regress",
        "gen",
        "bench",
        "completions",
    ] {
        let o = zingrs(&["manpage", sub]);
        assert_eq!(o.status.code(), Some(0), "{sub}");
        assert!(out(&o).contains(&format!(".TH zingrs-{sub} 1")), "{sub}");
    }
    let check = out(&zingrs(&["manpage", "check"]));
    for option in [
        "no\\-deadlock",
        "contexts",
        "max\\-depth",
        "output",
        "reduction",
    ] {
        assert!(
            check.contains(&format!("\\fB\\-\\-{option}\\fR")),
            "{option}"
        );
    }
    let o = zingrs(&["manpage", "nope"]);
    assert_eq!(o.status.code(), Some(7));
    assert!(err(&o).contains("one of: check, cfg"), "{}", err(&o));
}

/// `--max-atomic-steps N`: an atomic loop is the infinite-loop error after N steps instead of
/// ZING's 1,000,000; the saved report records N, so that its counterexample replays; 0 is
/// refused.
#[test]
fn the_atomic_step_limit_can_be_set_and_replays() {
    let dir = scratch("atomic-steps");
    let model = zing_model("atomic_endless_loop_is_infinite_loop_error.zing");
    let json = dir.join("loop.json");
    let json_s = json.to_str().expect("utf-8 path");
    let o = zingrs(&[
        "check",
        &model,
        "--engine",
        "explicit",
        "--max-atomic-steps",
        "10",
        "-o",
        json_s,
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("infinite loop inside an atomic region"), "{s}");
    // the loop's 11 steps of the region, each a trace step, and the step into it
    let steps: usize = s
        .lines()
        .find_map(|l| l.strip_prefix("Counterexample ("))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a counterexample's length");
    assert!(steps < 20, "{s}");
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("saved report")).expect("json");
    assert_eq!(saved["max_atomic_steps"], 10, "{saved}");
    let o = zingrs(&["replay", &model, json_s]);
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    assert!(
        out(&o).contains("the path ends in the reported verdict"),
        "{}",
        out(&o)
    );
    // the default limit is not written
    let o = zingrs(&["check", FIG1, "--target", "R", "-q", "-o", json_s]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("saved report")).expect("json");
    assert!(saved.get("max_atomic_steps").is_none(), "{saved}");
    let o = zingrs(&["check", &model, "--max-atomic-steps", "0"]);
    assert_eq!(o.status.code(), Some(7), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
