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
//! philosophers for SPIN; `recursive-liveness N`, a ring of N recursive procedures for the
//! bdd engine's pushdown LTL.

use crate::report::exit;

/// Options of `zingrs gen`.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// The family: `random-bp`, `random-zing`, `random-spawn-bp` (threads created in a loop),
    /// `random-getafix` (two threads in the Getafix layout, with `--contexts`), `bebop-t`, `zing-clone`, `zing-deep-alloc`, `zing-alloc`,
    /// `zing-patterns`, `bp-parity`, `bp-parity-flat`, `bp-parity-flat-rev`,
    /// `bp-call-chain`, `philosophers`, `philosophers-ordered`, `threads-local`,
    /// `owners`, `lockers`, `fib-bp`, `bluetooth-bp`, `philosophers-promela` (philosophers-ordered in Promela,
    /// for SPIN), or `philosophers-eating` (each philosopher raises a flag of its own while
    /// it eats, for liveness) and its Promela twin `philosophers-eating-promela`, or
    /// `recursive-liveness` (a ring of recursive procedures whose LTL violation needs a growing
    /// stack, for `--engine bdd --ltl`).
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
    if let Some(e) = too_large(family, n, a) {
        eprintln!("error: {e}");
        return exit::INVALID;
    }
    match family {
        "random-bp" => super::emit(crate::gen::random_bp(n, a.size)),
        "random-zing" => super::emit(crate::gen::random_zing(n)),
        "random-spawn-bp" => super::emit(crate::gen::random_spawn_bp(n)),
        "random-getafix" => super::emit(crate::gen::concurrent::random_getafix(n, a.size)),
        "philosophers-promela" => super::emit(crate::gen::families::philosophers_promela(n)),
        "philosophers-eating" => super::emit(crate::gen::families::philosophers_eating(n)),
        "recursive-liveness" => super::emit(crate::gen::families::recursive_liveness(n)),
        "philosophers-eating-promela" => {
            super::emit(crate::gen::families::philosophers_eating_promela(n))
        }
        "bluetooth-bp" => super::emit(crate::gen::concurrent::bluetooth_bp(n, a.m.unwrap_or(n))),
        other if a.m.is_some() => {
            eprintln!("error: only bluetooth-bp takes a second number (got one for `{other}`)");
            exit::INVALID
        }
        other => match crate::gen::families::family(other) {
            Some(f) => super::emit(f.generate(n)),
            None => {
                eprintln!(
                    "error: unknown family `{other}` (known: random-bp, random-zing, random-spawn-bp, random-getafix, recursive-liveness, {})",
                    crate::gen::families::family_names()
                );
                exit::INVALID
            }
        },
    }
}

/// The most text `gen` writes: a model larger than this is no benchmark any engine finishes,
/// and building it would take that much memory first.
const MAX_OUTPUT: u64 = 1 << 30;

/// Why `gen` refuses these sizes, if it does: the model would exceed [`MAX_OUTPUT`]. The
/// size is extrapolated from two small members of the family (the random ones grow with
/// `--size`), so nothing large is built to find out.
fn too_large(family: &str, n: u64, a: &GenArgs) -> Option<String> {
    let len = |text: String| text.len() as u64;
    // the family's text at a small scale k, and its scale at the sizes asked for
    let (at, scale): (Box<dyn Fn(u64) -> u64>, u64) = match family {
        "random-bp" => (
            Box::new(|k| len(crate::gen::random_bp(n, k as u32))),
            a.size.into(),
        ),
        "random-getafix" => (
            Box::new(|k| len(crate::gen::concurrent::random_getafix(n, k as u32))),
            a.size.into(),
        ),
        "random-zing" | "random-spawn-bp" => return None,
        "philosophers-promela" => (
            Box::new(|k| len(crate::gen::families::philosophers_promela(k))),
            n,
        ),
        "philosophers-eating" => (
            Box::new(|k| len(crate::gen::families::philosophers_eating(k))),
            n,
        ),
        "philosophers-eating-promela" => (
            Box::new(|k| len(crate::gen::families::philosophers_eating_promela(k))),
            n,
        ),
        "recursive-liveness" => (
            Box::new(|k| len(crate::gen::families::recursive_liveness(k))),
            n,
        ),
        "bluetooth-bp" => (
            Box::new(|k| len(crate::gen::concurrent::bluetooth_bp(k, k))),
            n.max(a.m.unwrap_or(n)),
        ),
        other => match crate::gen::families::family(other) {
            Some(f) if f.scalable => (Box::new(move |k| len(f.generate(k))), n),
            _ => return None,
        },
    };
    if scale <= 16 {
        return None;
    }
    // a power law through two small members (exponent at least 1: no family shrinks per
    // unit), which overestimates a family that grows fast only while it is small
    let (small, large) = (at(8).max(1) as f64, at(16).max(1) as f64);
    let exponent = (large / small).log2().clamp(1.0, 4.0);
    let bytes = |k: f64| large * (k / 16.0).powf(exponent);
    let estimate = bytes(scale as f64);
    if estimate <= MAX_OUTPUT as f64 {
        return None;
    }
    let most = (16.0 * (MAX_OUTPUT as f64 / large).powf(1.0 / exponent)) as u64;
    let estimate = (estimate / (1u64 << 20) as f64).min(u64::MAX as f64) as u64;
    let what = if family.starts_with("random-") {
        format!("--size {scale}")
    } else {
        format!("size {scale}")
    };
    Some(format!(
        "`{family}` at {what} would be about {estimate} MB of text, more than the {} MB `gen` \
         writes (at most about {most} here)",
        MAX_OUTPUT >> 20
    ))
}
