//! Criterion benchmarks of the BDD engine (`--engine bdd`): whole searches over the
//! benchmarks.md families `bebop-t N` (seed 001 Figure 4, linear in N) and `bp-parity K` (linear
//! in K, 2^K states for the explicit engines), and the image operation of an assignment (the
//! fused relational product and next→current renaming).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use zingrs::runtime::{Machine, Semantics};
use zingrs::search::Options;
use zingrs::symbolic::bdd::{Bdds, Oxidd};
use zingrs::symbolic::{search, SymbolicOptions};

/// Seed 001 Figure 4: the template T(N) (as in tests/bdd.rs).
fn bebop_t(n: usize) -> String {
    let mut s = String::from(
        "decl g;\nvoid main()\nbegin\n  level1();\n  level1();\n  if(!g) then\n    reach: skip;\n  else\n    skip;\n  fi\nend\n",
    );
    for i in 1..=n {
        let stmt = if i < n {
            format!("level{}()", i + 1)
        } else {
            "skip".to_string()
        };
        s.push_str(&format!(
            "void level{i}()\nbegin\n  decl a,b,c;\n  if(g) then\n    a,b,c := 0,0,0;\n    while(!a|!b|!c) do\n      if (!a) then\n        a := 1;\n      elsif (!b) then\n        a,b := 0,1;\n      elsif (!c) then\n        a,b,c := 0,0,1;\n      fi\n    od\n  else\n    {stmt}; {stmt};\n  fi\n  g := !g;\nend\n"
        ));
    }
    s
}

/// benchmarks.md `bp-parity K` (as in tests/bdd.rs).
fn bp_parity(k: usize) -> String {
    fn balanced(xs: &[String]) -> String {
        if xs.len() == 1 {
            return xs[0].clone();
        }
        let (a, b) = xs.split_at(xs.len() / 2);
        format!("({} ^ {})", balanced(a), balanced(b))
    }
    let names: Vec<String> = (1..=k).map(|i| format!("g{i}")).collect();
    let parity = balanced(&names);
    let mut s = format!("decl {};\n", names.join(", "));
    for i in 1..k {
        s.push_str(&format!(
            "void flip{i}() begin g{i}, g{j} := !g{i}, !g{j}; end\n",
            j = i + 1
        ));
    }
    s.push_str(&format!("void main() begin\n  decl p;\n  p := {parity};\n"));
    for i in 1..k {
        s.push_str(&format!("  flip{i}();\n"));
    }
    s.push_str(&format!("  assert(p = {parity});\nend\n"));
    s
}

fn compile(text: &str) -> zingrs_lang::ir::Program {
    zingrs_lang::compile("bench.bp", text, zingrs_lang::Lang::Bp)
        .expect("the generated program compiles")
        .program
}

/// The symbolic search alone (front end outside the timing), counterexample included.
fn searches(c: &mut Criterion) {
    let mut g = c.benchmark_group("bdd-search");
    g.sample_size(10);
    let sym = SymbolicOptions {
        measure: false,
        ..Default::default()
    };
    for n in [100usize, 800, 3200] {
        let p = compile(&bebop_t(n));
        let opts = Options {
            targets: vec!["reach".into()],
            ..Default::default()
        };
        g.bench_with_input(BenchmarkId::new("bebop-t", n), &p, |b, p| {
            b.iter(|| {
                let m = Machine::new(p, Semantics::default());
                black_box(
                    search(&m, &opts, &sym)
                        .expect("a sequential boolean program")
                        .0
                        .findings
                        .len(),
                )
            })
        });
    }
    for k in [100usize, 250, 500] {
        let p = compile(&bp_parity(k));
        g.bench_with_input(BenchmarkId::new("bp-parity", k), &p, |b, p| {
            b.iter(|| {
                let m = Machine::new(p, Semantics::default());
                black_box(
                    search(&m, &Options::default(), &sym)
                        .expect("a sequential boolean program")
                        .0
                        .findings
                        .len(),
                )
            })
        });
    }
    g.finish();
}

/// The image of `x_0..x_k := ¬x_0..¬x_k` on a parity-like chain over 3 interleaved copies:
/// `rename(∃ C. R ∧ T, N→C)`, unfused and fused.
fn image(c: &mut Criterion) {
    let slots = 64u32;
    let b = Oxidd::new(3 * slots, 1 << 20, 1 << 16);
    let cv = |s: u32| 3 * s + 1;
    let nv = |s: u32| 3 * s + 2;
    // R: the parity of the current copies
    let mut r = b.constant(false);
    for s in (0..slots).rev() {
        let x = b.var(cv(s));
        r = b.ite(&x, &b.not(&r), &r);
    }
    let mut g = c.benchmark_group("bdd-image");
    for at in [8u32, 56] {
        let targets = [at, at + 1];
        let mut rel = b.constant(true);
        for &s in targets.iter().rev() {
            rel = b.and(&b.equiv(&b.var(nv(s)), &b.not(&b.var(cv(s)))), &rel);
        }
        let cube = b.cube(&targets.map(cv));
        let ren = b.renaming(&targets.map(|s| (nv(s), cv(s))));
        g.bench_function(BenchmarkId::new("rename-and-exists", at), |bch| {
            bch.iter(|| black_box(b.rename(&b.and_exists(&r, &rel, &cube), &ren)))
        });
        g.bench_function(BenchmarkId::new("and-exists-rename", at), |bch| {
            bch.iter(|| black_box(b.and_exists_rename(&r, &rel, &cube, &ren)))
        });
    }
    g.finish();
}

criterion_group!(benches, searches, image);
criterion_main!(benches);
