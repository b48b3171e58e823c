//! `zingrs gen FAMILY N`: prints one generated model.
//!
//! Families: `random-bp SEED`, `random-zing SEED`, `random-spawn-bp SEED` (threads created
//! in a loop) and `random-getafix SEED` (two threads in the Getafix layout), random models for
//! differential testing ([`crate::gen::random_bp`], [`crate::gen::random_zing`],
//! [`crate::gen::random_spawn_bp`], [`crate::gen::concurrent::random_getafix`]), and the benchmark families of
//! benchmarks.md ([`crate::gen::families`]): `bebop-t N`, `zing-clone N`, `zing-deep-alloc N`,
//! `zing-alloc`, `zing-patterns` (no N: they are single models), `bp-parity K`,
//! `bp-parity-flat K` and `bp-parity-flat-rev K` (the parity as one flat chain), `bp-call-chain N`
//! (calls N deep), `philosophers N`,
//! `philosophers-ordered N`, `threads-local N`, `owners N`, `lockers N` (N identical
//! processes), `fib-bp N`, `bluetooth-bp A S` (A adders, S
//! stoppers; one number: as many of each); and `philosophers-promela N`, the same
//! philosophers for SPIN.

use crate::report::exit;

/// Options of `zingrs gen`.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// The family: `random-bp`, `random-zing`, `random-spawn-bp` (threads created in a loop),
    /// `random-getafix` (two threads in the Getafix layout, with `--contexts`), `bebop-t`, `zing-clone`, `zing-deep-alloc`, `zing-alloc`,
    /// `zing-patterns`, `bp-parity`, `bp-parity-flat`, `bp-parity-flat-rev`,
    /// `bp-call-chain`, `philosophers`, `philosophers-ordered`, `threads-local`,
    /// `owners`, `lockers`, `fib-bp`, `bluetooth-bp`, or `philosophers-promela` (philosophers-ordered in Promela,
    /// for SPIN).
    pub family: String,
    /// The seed (random families) or the size N (benchmark families; `zing-alloc` and
    /// `zing-patterns` are single models and take none).
    pub n: Option<u64>,
    /// `bluetooth-bp` only: the number of stoppers (N is the number of adders; default N).
    pub m: Option<u64>,
    /// Scale of a random program: statements per procedure.
    #[arg(long, value_name = "S", default_value_t = 8)]
    pub size: u32,
}

/// Prints the model; returns the exit code.
pub fn run(a: &GenArgs) -> i32 {
    let family = a.family.as_str();
    let scalable = crate::gen::families::family(family).is_none_or(|f| f.scalable);
    let n = match (a.n, scalable) {
        (Some(n), true) => n,
        (None, false) => 0,
        (None, true) => {
            eprintln!("error: the family `{family}` needs a seed or size N: zingrs gen {family} N");
            return exit::INVALID;
        }
        (Some(_), false) => {
            eprintln!("error: `{family}` is a single model and takes no N: zingrs gen {family}");
            return exit::INVALID;
        }
    };
    match family {
        "random-bp" => super::emit(crate::gen::random_bp(n, a.size)),
        "random-zing" => super::emit(crate::gen::random_zing(n)),
        "random-spawn-bp" => super::emit(crate::gen::random_spawn_bp(n)),
        "random-getafix" => super::emit(crate::gen::concurrent::random_getafix(n, a.size)),
        "philosophers-promela" => super::emit(crate::gen::families::philosophers_promela(n)),
        "bluetooth-bp" => super::emit(crate::gen::concurrent::bluetooth_bp(n, a.m.unwrap_or(n))),
        other if a.m.is_some() => {
            eprintln!("error: only bluetooth-bp takes a second number (got one for `{other}`)");
            exit::INVALID
        }
        other => match crate::gen::families::family(other) {
            Some(f) => super::emit(f.generate(n)),
            None => {
                eprintln!(
                    "error: unknown family `{other}` (known: random-bp, random-zing, random-spawn-bp, random-getafix, {})",
                    crate::gen::families::family_names()
                );
                exit::INVALID
            }
        },
    }
}
