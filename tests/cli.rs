//! The command line as a user meets it: exit codes, messages, output formats, limits.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn zingrs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .args(args)
        .output()
        .expect("zingrs runs")
}

fn with_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zingrs runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("zingrs ends")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

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
    assert!(step0["values"].as_array().is_some());
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
    assert!(out(&o).contains("summaries (effects)"), "{}", out(&o));
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
fn missing_target_label_is_warned_about() {
    let o = zingrs(&["check", FIG1, "--target", "NOWHERE"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(err(&o).contains("NOWHERE does not occur"));
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
    let dir = std::env::temp_dir().join(format!("zingrs-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let json = dir.join("fig1.json");
    let o = zingrs(&["check", FIG1, "--target", "R", "--format", "json"]);
    std::fs::write(&json, &o.stdout).expect("write report");
    let o = zingrs(&["replay", FIG1, json.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("The trace replays"), "{s}");
    assert!(s.contains("line 12: skip"), "{s}");
    // a report without a counterexample cannot be replayed
    let o = zingrs(&["check", FIG1, "--format", "json"]);
    std::fs::write(&json, &o.stdout).expect("write report");
    let o = zingrs(&["replay", FIG1, json.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(7));
    // a path that does not fit the model is an internal error, not a verdict
    let bogus =
        r#"{"path": {"init": [], "choices": [{"thread": 0, "outcome": 99}]}, "exit_code": 3}"#;
    std::fs::write(&json, bogus).expect("write report");
    let o = zingrs(&["replay", FIG1, json.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(5), "{}", out(&o));
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
