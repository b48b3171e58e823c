//! Criterion benchmarks of the explicit engine: whole searches over generated boolean programs
//! and over the `philosophers`, `philosophers-ordered` and `zing-clone` families (threads and a
//! heap), and the hot paths (step, canonicalization + fingerprint).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use zingrs::canon::{encode, fingerprint, fingerprint64, Encoder};
use zingrs::explore::search;
use zingrs::runtime::{InitialStates, Machine, Semantics};
use zingrs::search::Options;

/// A program whose main counts through all 2^k values of k locals (a ripple-carry increment in
/// a loop), then returns: 2^k reachable states and no error.
fn counter(k: usize) -> String {
    let vars: Vec<String> = (0..k).map(|i| format!("b{i}")).collect();
    let mut s = format!(
        "void main() begin\n  decl {};\n  {} := {};\n  while (!({})) do\n",
        vars.join(", "),
        vars.join(", "),
        vec!["F"; k].join(", "),
        vars.join(" & ")
    );
    // b_i' = b_i ^ (b_0 & ... & b_{i-1})
    let rhs: Vec<String> = (0..k)
        .map(|i| {
            if i == 0 {
                "!b0".to_string()
            } else {
                format!("b{i} ^ ({})", vars[..i].join(" & "))
            }
        })
        .collect();
    s.push_str(&format!(
        "    {} := {};\n  od\nend\n",
        vars.join(", "),
        rhs.join(", ")
    ));
    s
}

fn compile(text: &str) -> zingrs_lang::ir::Program {
    zingrs_lang::compile("bench.bp", text, zingrs_lang::Lang::Bp)
        .expect("the generated program compiles")
        .program
}

fn searches(c: &mut Criterion) {
    let mut g = c.benchmark_group("explicit-search");
    g.sample_size(10);
    for k in [8usize, 12] {
        let p = compile(&counter(k));
        g.bench_with_input(BenchmarkId::new("counter", k), &p, |b, p| {
            b.iter(|| {
                let m = Machine::new(p, Semantics::default());
                black_box(
                    search(&m, &Options::default(), &Default::default())
                        .stats
                        .states,
                )
            })
        });
    }
    let zing = |text: &str| {
        zingrs_lang::compile("bench.zing", text, zingrs_lang::Lang::Zing)
            .expect("the generated model compiles")
            .program
    };
    let families = [
        ("philosophers-ordered", 4u64),
        ("philosophers-ordered", 5),
        // the deadlock is found: the search stops there
        ("philosophers", 5),
        ("philosophers", 7),
        // the plain search that summaries are measured against (2^N calls)
        ("zing-clone", 8),
        ("zing-clone", 12),
    ];
    for (family, n) in families {
        let text = match family {
            "zing-clone" => zingrs::gen::families::zing_clone(n),
            _ => zingrs::gen::families::philosophers(n, family == "philosophers-ordered"),
        };
        let p = zing(&text);
        g.bench_with_input(BenchmarkId::new(family, n), &p, |b, p| {
            b.iter(|| {
                let m = Machine::new(p, Semantics::default());
                black_box(
                    search(&m, &Options::default(), &Default::default())
                        .stats
                        .states,
                )
            })
        });
    }
    g.finish();
}

fn hot_paths(c: &mut Criterion) {
    let p = compile(&counter(8));
    let m = Machine::new(&p, Semantics::default());
    let (_, s0) = InitialStates::new(&m).next().expect("an initial state");
    c.bench_function("step", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            out.clear();
            m.step(black_box(&s0), 0, &mut (), &mut out);
            black_box(out.len())
        })
    });
    c.bench_function("canon+fingerprint", |b| {
        let mut buf = Vec::new();
        b.iter(|| {
            buf.clear();
            encode(black_box(&s0), &mut buf);
            black_box(fingerprint(&buf))
        })
    });
    // what the explicit search does per successor: the reusable encoder and 64 bits
    c.bench_function("encoder+fingerprint64", |b| {
        let mut buf = Vec::new();
        let mut e = Encoder::default();
        b.iter(|| {
            buf.clear();
            e.encode(black_box(&s0), &mut buf);
            black_box(fingerprint64(&buf))
        })
    });
}

criterion_group!(benches, searches, hot_paths);
criterion_main!(benches);
