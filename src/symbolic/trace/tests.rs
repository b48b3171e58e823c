use super::replay::Fail;
use super::*;
use crate::runtime::{Machine, Semantics};
use crate::search;
use crate::symbolic::reach::Found;
use crate::symbolic::SymbolicOptions;

/// `det` and `spare` make no choice (a deterministic loop; an arbitrary local written before
/// it is read); `pick` assigns `*`, `outer` calls `pick`, `fresh` reads its arbitrary local.
const PROGRAM: &str = "
decl g, h;
void main()
begin
  det(); outer(); fresh(); spare();
  if (g & h) then
    HIT: skip;
  fi
end

void det()
begin
  decl a, b;
  a, b := 0, 0;
  while (!b) do
    if (!a) then a := 1; else b := 1; fi
  od
  g := a & b;
end

void pick()
begin
  h := *;
end

void outer()
begin
  pick();
end

void fresh()
begin
  decl x;
  if (x) then skip; else skip; fi
end

void spare()
begin
  decl y;
  y := g;
  g := y;
end
";

#[test]
fn forced_calls_are_gaps_that_replay_as_the_points_do() {
    let p = zingrs_lang::compile("t.bp", PROGRAM, zingrs_lang::Lang::Bp)
        .expect("the program compiles")
        .program;
    let m = Machine::new(&p, Semantics::default());
    let opts = search::Options {
        targets: vec!["HIT".into()],
        ..Default::default()
    };
    let bdd = crate::symbolic::manager_for(&p, &opts.limits, 1 << 14);
    let _gc = bdd.manager_guard();
    let mut e = Engine::new(&m, bdd, SymbolicOptions::default(), &opts.targets);
    assert!(e.run(&opts).is_none());
    // which calls are forced, by callee
    let forced = e.forced_calls();
    let mut by_callee: Vec<(String, bool)> = e
        .callsites
        .iter()
        .zip(&forced)
        .map(|(cs, &f)| (p.procs[cs.callee as usize].name.clone(), f))
        .collect();
    by_callee.sort();
    let expect = [
        ("det", true),
        ("fresh", false),
        ("outer", false),
        ("pick", false),
        ("spare", true),
    ];
    let got: Vec<(&str, bool)> = by_callee.iter().map(|(n, f)| (n.as_str(), *f)).collect();
    assert_eq!(got, expect);
    // the walk with gaps for `det` and `spare`, and without
    let Some(&Found::Target { v, .. }) = e.found.first() else {
        panic!("HIT is reachable");
    };
    let (s, meet) = e
        .first_meet(v, &e.bdd.constant(true), NONE)
        .expect("a path edge at HIT");
    let gapped = e.walk(e.point(v, &meet, s), None, true).expect("a walk");
    let full = e.walk(e.point(v, &meet, s), None, false).expect("a walk");
    assert_eq!(gapped.v.iter().filter(|&&x| x == NONE).count(), 2);
    assert!(!full.v.contains(&NONE));
    assert!(full.len() > gapped.len() + 2);
    // the gaps run on the interpreter alone, without the fallback, to the same path
    let (with_gaps, _) = match e.concretize(&gapped, false, false) {
        Ok(x) => x,
        Err(Fail::Gap) => panic!("a forced call met a choice"),
        Err(Fail::Other(why)) => panic!("{why}"),
    };
    let Ok((points, replayed)) = e.concretize(&full, false, false) else {
        panic!("the points replay");
    };
    assert_eq!(with_gaps, points);
    assert_eq!(with_gaps.choices.len(), full.len() - 1);
    assert!(replayed.violation.is_none());
}
