//! `--format zing`: ZING's -entireZingTrace layout (zing-language.md §8): banners, the error
//! trace with per-state dumps, ZING's messages, the stack trace and the count line.

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{err, out, with_stdin, zing_model, zingrs};

const HASHES: &str = "##################";

/// The three banner lines that open every `--format zing` output.
fn assert_banner(s: &str, verdict: &str) {
    let lines: Vec<&str> = s.lines().collect();
    assert!(lines.len() >= 4, "{s}");
    assert_eq!(&lines[..3], &[HASHES, verdict, HASHES], "{s}");
}

/// The last line is `<N> distinct states explored`; returns N.
fn final_count(s: &str) -> u64 {
    let last = s.lines().last().expect("output");
    let n = last
        .strip_suffix(" distinct states explored")
        .unwrap_or_else(|| panic!("last line is not the count line: {last:?}\n{s}"));
    n.parse().expect("a count")
}

#[test]
fn zing_format_assertion_failure() {
    let o = zingrs(&[
        "check",
        &zing_model("assert_with_message_fails.zing"),
        "--format",
        "zing",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    assert_banner(&s, "Check Failed");
    // x = 2 runs, then the assert fails: the initial state, one after x = 2, the error state
    assert!(
        s.contains(&format!(
            " {}\n Error trace 0: length: 3 states\n",
            "*".repeat(79)
        )),
        "{s}"
    );
    assert!(s.contains("#### State 0 :\n"), "{s}");
    assert!(s.contains("#### State 1 (ran process 0) :\n"), "{s}");
    assert!(s.contains("#### State 2 (ran process 0) :\n"), "{s}");
    assert!(!s.contains("#### State 3"), "{s}");
    // the activated process is named after its method
    assert!(s.contains("main"), "{s}");
    assert!(s.contains("Main.x = 2"), "{s}");
    assert!(
        s.contains(
            "\nError in state:\nZing Assertion failed:\n    Expression: x == 1\n    Comment: x must be one\n"
        ),
        "{s}"
    );
    assert!(
        s.contains("\nStack trace:\n    Main.main (assert_with_message_fails.zing, Line 8)\n"),
        "{s}"
    );
    // ZING's count (§6.7): one process and no choice, so only the initial state
    assert_eq!(final_count(&s), 1, "{s}");
}

#[test]
fn zing_format_assertion_without_message_has_an_empty_comment() {
    let o = zingrs(&[
        "check",
        &zing_model("aliasing_write_through_alias_breaks_assert.zing"),
        "--format",
        "zing",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    assert!(
        s.contains("Zing Assertion failed:\n    Expression: a.x == 0\n    Comment: \n"),
        "{s}"
    );
    // the heap object both locals point to is dumped with its field
    assert!(s.contains("Box#1"), "{s}");
}

#[test]
fn zing_format_stack_trace_lists_call_sites_innermost_first() {
    let model = "class Main {
    static int g;
    static void Inner() {
        g = 1;
        assert(g == 0, \"inner\");
    }
    static void Outer() {
        Inner();
    }
    activate static void main() {
        Outer();
    }
};
";
    let o = with_stdin(&["check", "-", "--lang", "zing", "--format", "zing"], model);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    assert!(
        s.contains(
            "\nStack trace:\n    Main.Inner (-, Line 5)\n    Main.Outer (-, Line 8)\n    Main.main (-, Line 11)\n"
        ),
        "{s}"
    );
    assert!(s.contains("    Comment: inner\n"), "{s}");
}

#[test]
fn zing_format_deadlock() {
    let o = zingrs(&[
        "check",
        &zing_model("deadlock_lock_order_inversion.zing"),
        "--format",
        "zing",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let s = out(&o);
    assert_banner(&s, "Deadlock Detected !");
    assert!(s.contains(" Error trace 0: length: "), "{s}");
    assert!(
        s.contains("\nError in state:\nDeadlock: no processes are runnable and one or more processes is blocked in an invalid end state\n"),
        "{s}"
    );
    // no stack trace for a deadlock
    assert!(!s.contains("Stack trace:"), "{s}");
    // async processes are named Class.method; the blocked ones say so
    assert!(s.contains("Main.Worker"), "{s}");
    assert!(s.contains("blocked"), "{s}");
    let n = final_count(&s);
    assert!(n > 0, "{s}");
    // the trace has one state more than it has steps
    let states = s.lines().filter(|l| l.starts_with("#### State ")).count();
    assert!(
        s.contains(&format!(" Error trace 0: length: {states} states\n")),
        "{s}"
    );
}

#[test]
fn zing_format_null_dereference() {
    let o = zingrs(&[
        "check",
        &zing_model("null_deref_field_write.zing"),
        "--format",
        "zing",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    let s = out(&o);
    assert_banner(&s, "Program Runtime Error");
    assert!(s.contains(" Error trace 0: length: 2 states\n"), "{s}");
    assert!(
        s.contains("\nError in state:\nA Zing null pointer was dereferenced.\n"),
        "{s}"
    );
    assert!(
        s.contains("\nStack trace:\n    Main.main (null_deref_field_write.zing, Line 11)\n"),
        "{s}"
    );
    final_count(&s);
}

#[test]
fn zing_format_passing_model_is_banner_and_count() {
    let o = zingrs(&[
        "check",
        &zing_model("deadlock_same_lock_order_passes.zing"),
        "--format",
        "zing",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let s = out(&o);
    assert_banner(&s, "Check Passed");
    assert_eq!(s.lines().count(), 4, "{s}");
    assert!(final_count(&s) > 0);
}

#[test]
fn zing_format_depth_bound_and_no_trace() {
    let o = zingrs(&[
        "check",
        &zing_model("recursion_unbounded_explicit_bounded.zing"),
        "--engine",
        "explicit",
        "--max-depth",
        "5",
        "--format",
        "zing",
    ]);
    assert_eq!(o.status.code(), Some(8), "{}", err(&o));
    let s = out(&o);
    assert_banner(&s, "Check Failed");
    assert_eq!(s.lines().nth(3), Some("DFS Stack Size Exceeded 5"), "{s}");
    final_count(&s);
    // --trace none: the verdict banner and the count only
    let o = zingrs(&[
        "check",
        &zing_model("assert_with_message_fails.zing"),
        "--format",
        "zing",
        "--trace",
        "none",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let s = out(&o);
    assert_banner(&s, "Check Failed");
    assert!(!s.contains("Error trace"), "{s}");
    final_count(&s);
}

/// ZING's trace has one state per ZING step (zing-language.md §6.2): a whole atomic block or
/// atomic method body is one state, and a `choose` is a process step ending at the choice
/// point and a "took choice" step. ZING itself (`-entirezingtrace`) gives this model's one
/// path as 12 states: the block, `x = x + 1`, the call of am and its body, the call of pm,
/// its body and return, the block calling pm, the step to the choice, the choice, the error.
#[test]
fn zing_format_trace_shows_atomic_blocks_and_choices_as_zing_steps() {
    let model = "class C {
    static int x;
    static bool b;
    atomic static void am() { x = x + 1; x = x + 1; }
    static void pm() { x = x + 1; }
    activate static void main() {
        int t;
        atomic { t = x; x = t + 1; }
        x = x + 1;
        am();
        pm();
        atomic { x = x + 1; pm(); }
        b = choose(bool);
        atomic { x = x + 1; assert(x == 3); }
    }
};
";
    let o = with_stdin(&["check", "-", "--lang", "zing", "--format", "zing"], model);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains(" Error trace 0: length: 12 states\n"), "{s}");
    let heads: Vec<&str> = s.lines().filter(|l| l.starts_with("#### State")).collect();
    assert_eq!(heads.len(), 12, "{s}");
    assert_eq!(heads[9], "#### State 9 (ran process 0) :", "{s}");
    assert_eq!(heads[10], "#### State 10 (took choice 0) :", "{s}");
    assert_eq!(heads[11], "#### State 11 (ran process 0) :", "{s}");
}

/// Checks `model` with `--format zing` (ZING's order) and the extra options: the exit code, the
/// banner and the count, as ZING itself gave them.
fn zing_order_verdict(model: &str, extra: &[&str], code: i32, verdict: &str, count: u64) {
    let mut args = vec!["check", "-", "--lang", "zing", "--format", "zing"];
    args.extend_from_slice(extra);
    let o = with_stdin(&args, model);
    let s = out(&o);
    assert_eq!(o.status.code(), Some(code), "{s}{}", err(&o));
    assert_banner(&s, verdict);
    assert_eq!(final_count(&s), count, "{s}");
}

#[test]
fn zing_order_runs_an_atomic_process_step_to_its_error_first() {
    // after main's async, main's whole atomic block is ZING's first successor (its assertion
    // fails), before other's division by zero: ZING says Check Failed, 2 distinct states
    let model = "class C {
        static int x;
        static void other() { x = 5 / x; }
        activate static void main() { async other(); atomic { x = 1; x = 2; assert(false); } }
    };";
    zing_order_verdict(model, &[], 3, "Check Failed", 2);
}

#[test]
fn zing_order_runs_a_cooperative_process_step_to_its_error_first() {
    // after main's yield, main's run to its assertion is ZING's first successor, before
    // other's run meets its select without a yield: ZING says Check Failed, 2 states
    let model = "class C {
        static int x;
        static bool f;
        static void other() { x = 1; select { wait(f) -> ; } }
        activate static void main() {
            int i;
            async other();
            yield;
            i = 0;
            while (i < 3) { i = i + 1; }
            assert(false);
        }
    };";
    zing_order_verdict(model, &["--cooperative"], 3, "Check Failed", 2);
}

#[test]
fn zing_order_runs_a_cooperative_endless_loop_to_its_error_first() {
    // main's run after its yield never yields again: ZING runs its million steps as one step
    // and reports the infinite loop before other's assertion (Program Runtime Error, 2 states)
    let model = "class C {
        static int x;
        static void other() { int i; i = 1; i = 2; assert(false); }
        activate static void main() { async other(); yield; while (true) { x = 1 - x; } }
    };";
    zing_order_verdict(model, &["--cooperative"], 4, "Program Runtime Error", 2);
}
