//! Verdicts, counterexamples and refusals of the coverability engine on small programs whose
//! answers are derived by hand in each test.

use super::*;
use crate::runtime::{Semantics, Violation};
use crate::search::{replay, Finding, Options};

fn program(text: &str) -> Program {
    zingrs_lang::compile("t.bp", text, zingrs_lang::Lang::Bp)
        .expect("the test program compiles")
        .program
}

fn check(text: &str, targets: &[&str]) -> SearchResult {
    let p = program(text);
    let m = Machine::new(&p, Semantics::default());
    let opts = Options {
        targets: targets.iter().map(|t| t.to_string()).collect(),
        ..Default::default()
    };
    let r = search(&m, &opts).unwrap_or_else(|e| panic!("refused: {}", e.message));
    // every finding replays on the interpreter and ends as it says
    for f in &r.findings {
        let replayed = replay(&m, f.path()).expect("the counterexample replays");
        match f {
            Finding::Assertion { .. } => {
                assert_eq!(replayed.violation, Some(Violation::Assertion))
            }
            Finding::Target { .. } => assert!(replayed.violation.is_none()),
            other => panic!("unexpected finding {other:?}"),
        }
    }
    r
}

/// Threads started along a path (the choices whose thread is new afterwards).
fn threads_started(text: &str, path: &crate::search::Path) -> usize {
    let p = program(text);
    let m = Machine::new(&p, Semantics::default());
    let replayed = replay(&m, path).expect("replays");
    let mut started = 0;
    for w in replayed.states.windows(2) {
        if w[1].threads.len() > w[0].threads.len() {
            started += 1;
        }
    }
    started
}

const FOUR_FLAGS: &str = "decl f1, f2, f3, f4;
void clearer() begin
  if (*) then f1 := F; elsif (*) then f2 := F; elsif (*) then f3 := F; else f4 := F; fi
  assert(f1 | f2 | f3 | f4);
end
void main() begin
  f1, f2, f3, f4 := T, T, T, T;
  while (*) do start_thread clearer(); od
end";

#[test]
fn four_clearers_clear_four_flags() {
    // each clearer clears one flag; four clearers choosing f1..f4 leave none set when the
    // last asserts, and fewer than four always leave one: the counterexample starts at least
    // four (more when it comes from the tree's repeated segments)
    let r = check(FOUR_FLAGS, &[]);
    assert!(r.limit.is_none());
    let [Finding::Assertion { path }] = &r.findings[..] else {
        panic!("expected one assertion failure, got {:?}", r.findings);
    };
    assert!(threads_started(FOUR_FLAGS, path) >= 4);
}

#[test]
fn only_one_thread_wins_a_flag_read_and_cleared_atomically() {
    // the first worker through the atomic section reads flag = T and clears it; every later
    // one reads F, so `won` is set once and the assertion before it always holds
    let text = "decl flag, won;
void worker() begin
  decl mine;
  atomic_begin; mine := flag; flag := F; atomic_end;
  if (mine) then assert(!won); won := T; fi
end
void main() begin
  flag, won := T, F;
  while (*) do start_thread worker(); od
end";
    let r = check(text, &[]);
    assert!(r.findings.is_empty() && r.limit.is_none());
    // the tree had to accelerate: the number of workers is unbounded
    let acc = r.stats.counters.iter().find(|c| c.0 == "accelerations");
    assert!(acc.is_some_and(|c| c.1 > 0), "{:?}", r.stats.counters);
}

#[test]
fn without_the_atomic_section_two_workers_both_win() {
    // both workers read flag = T before either clears it: the second to assert sees won = T
    let text = "decl flag, won;
void worker() begin
  decl mine;
  mine := flag; flag := F;
  if (mine) then assert(!won); won := T; fi
end
void main() begin
  flag, won := T, F;
  while (*) do start_thread worker(); od
end";
    let r = check(text, &[]);
    let [Finding::Assertion { path }] = &r.findings[..] else {
        panic!("expected one assertion failure, got {:?}", r.findings);
    };
    assert_eq!(threads_started(text, path), 2);
}

#[test]
fn a_target_label_reached_by_the_second_thread() {
    let text = "decl lo;
void w() begin
  if (lo) then HIT: skip; else lo := T; fi
end
void main() begin
  lo := F;
  while (*) do start_thread w(); od
end";
    let r = check(text, &["HIT"]);
    let [Finding::Target { label, path }] = &r.findings[..] else {
        panic!("expected the target, got {:?}", r.findings);
    };
    assert_eq!(label, "HIT");
    assert_eq!(threads_started(text, path), 2);
    // without the label as a target the program passes
    assert!(check(text, &[]).findings.is_empty());
}

#[test]
fn start_thread_goto_in_a_loop_is_counted_too() {
    // every child of `start_thread goto W` runs W with main's locals: it sets g; main's own
    // copy asserts !g at the end, which fails once one child ran
    let text = "decl g;
void main() begin
  decl child;
  g, child := F, F;
  L: if (*) then
    start_thread goto W;
    goto L;
  fi
  assert(!g);
  end_thread;
  W: g := T;
end";
    let r = check(text, &[]);
    assert!(matches!(&r.findings[..], [Finding::Assertion { .. }]));
}

#[test]
fn recursion_is_refused_with_the_call_that_makes_it() {
    let p = program(
        "decl g;
void a() begin b(); end
void b() begin if (*) then a(); fi g := T; end
void main() begin while (*) do start_thread a(); od end",
    );
    let r = refusal(&p).expect("refused");
    assert!(r.message.contains("do not recurse"), "{}", r.message);
    assert!(r.message.contains("a → b → a"), "{}", r.message);
    let shown = r.render(&p);
    assert!(shown.contains("t.bp:3:"), "{shown}");
    assert!(shown.contains('^'), "{shown}");
}

#[test]
fn zing_and_getafix_programs_are_refused() {
    let z = zingrs_lang::compile(
        "t.zing",
        "class M { activate static void main() { assert(true); } };",
        zingrs_lang::Lang::Zing,
    )
    .expect("compiles")
    .program;
    assert!(applies(&z).unwrap_err().contains("boolean programs only"));
    let g = program(
        "decl atomic, x; void init() begin atomic := F; endinit: skip; end \
         void thread1() begin x := T; end void thread2() begin skip; end",
    );
    if matches!(g.layout, Layout::Getafix { .. }) {
        assert!(applies(&g).unwrap_err().contains("Getafix"));
    }
}

#[test]
fn a_sequential_program_is_checked_as_one_thread() {
    let fails = check(
        "decl g; void main() begin g := T; if (*) then g := F; fi assert(g); end",
        &[],
    );
    assert!(matches!(&fails.findings[..], [Finding::Assertion { .. }]));
    let passes = check(
        "decl g; void main() begin g := T; if (*) then g := T; fi assert(g); end",
        &[],
    );
    assert!(passes.findings.is_empty());
}
