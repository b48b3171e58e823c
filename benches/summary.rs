//! Criterion benchmarks of the summary engine: whole searches on seed 004's Figures 1, 2 and 10
//! families and seed 001's T(N), and the hot paths Match and Apply on one summarized call.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use zingrs::gen::families;
use zingrs::runtime::{InitialStates, Kind, Machine, Outcome, Semantics, State};
use zingrs::search::effects::visible_of;
use zingrs::search::Options;
use zingrs::summary;

fn compile(name: &str, text: &str) -> zingrs_lang::ir::Program {
    let lang = zingrs_lang::Lang::from_path(name).expect("a known extension");
    zingrs_lang::compile(name, text, lang)
        .expect("the generated model compiles")
        .program
}

fn searches(c: &mut Criterion) {
    let mut g = c.benchmark_group("summary-search");
    g.sample_size(10);
    for n in [50u64, 200] {
        let p = compile("clone.zing", &families::zing_clone(n));
        g.bench_with_input(BenchmarkId::new("zing-clone", n), &p, |b, p| {
            b.iter(|| {
                let m = Machine::new(p, Semantics::default());
                black_box(
                    summary::search(&m, &Options::default())
                        .expect("a sequential model")
                        .stats
                        .states,
                )
            })
        });
    }
    for n in [100u64, 400] {
        let p = compile("t.bp", &families::bebop_t(n));
        g.bench_with_input(BenchmarkId::new("bebop-t", n), &p, |b, p| {
            b.iter(|| {
                let m = Machine::new(p, Semantics::default());
                black_box(
                    summary::search(&m, &Options::default())
                        .expect("a sequential model")
                        .stats
                        .states,
                )
            })
        });
    }
    // seed 004's Figures 1 and 2: one size each (unbounded allocation in a recursion, and a
    // pattern-sensitive assertion)
    for (family, text) in [
        ("zing-alloc", families::zing_alloc()),
        ("zing-patterns", families::zing_patterns()),
    ] {
        let p = compile("f.zing", &text);
        g.bench_with_input(BenchmarkId::new(family, 1), &p, |b, p| {
            b.iter(|| {
                let m = Machine::new(p, Semantics::default());
                black_box(
                    summary::search(&m, &Options::default())
                        .expect("a sequential model")
                        .findings
                        .len(),
                )
            })
        });
    }
    g.finish();
}

/// The first state reached (taking each step's first outcome) that stands at a call, with the
/// callee's frame pushed.
fn first_call(m: &Machine) -> State {
    let (_, mut s) = InitialStates::new(m).next().expect("an initial state");
    let mut outs = Vec::new();
    for _ in 0..10_000 {
        outs.clear();
        m.step(&s, 0, &mut (), &mut outs);
        match outs.swap_remove(0) {
            Outcome::Next {
                state,
                kind: Kind::Call,
            } => return state,
            Outcome::Next { state, .. } => s = state,
            other => panic!("no call reached: {other:?}"),
        }
    }
    panic!("no call within 10,000 steps")
}

fn match_apply(c: &mut Criterion) {
    let p = compile("clone.zing", &families::zing_clone(20));
    let m = Machine::new(&p, Semantics::default());
    let at_call = first_call(&m);
    let visible = visible_of(&at_call, 0);
    let opts = Options::default();
    let tx = summary::summarize_transaction(&m, &opts, visible.clone()).expect("no limit");
    let map = tx.matches(&m, &visible).expect("its own entry matches");
    c.bench_function("match", |b| {
        b.iter(|| black_box(tx.matches(&m, black_box(&visible)).is_some()))
    });
    c.bench_function("apply", |b| {
        b.iter(|| black_box(tx.apply(&m, 0, &map, black_box(&at_call), 0).is_some()))
    });
}

criterion_group!(benches, searches, match_apply);
criterion_main!(benches);
