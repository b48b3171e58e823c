//! `zingrs gen FAMILY N`: prints one generated model.
//!
//! Families: `random-bp SEED` and `random-zing SEED`, random models for differential testing
//! ([`crate::gen::random_bp`], [`crate::gen::random_zing`]), and the benchmark families of
//! benchmarks.md ([`crate::gen::families`]): `bebop-t N`, `zing-clone N`, `zing-alloc`,
//! `zing-patterns` (N ignored), `bp-parity K`, `philosophers N`, `philosophers-ordered N`,
//! `fib-bp N`, `bluetooth-bp A S` (A adders, S stoppers; one number: as many of each).

use crate::report::exit;

/// Options of `zingrs gen`.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// The family: `random-bp`, `random-zing`, `bebop-t`, `zing-clone`, `zing-alloc`,
    /// `zing-patterns`, `bp-parity`, `philosophers`, `philosophers-ordered`, `fib-bp` or
    /// `bluetooth-bp`.
    pub family: String,
    /// The seed (random families) or the size N (benchmark families; ignored by `zing-alloc`
    /// and `zing-patterns`).
    pub n: u64,
    /// `bluetooth-bp` only: the number of stoppers (N is the number of adders; default N).
    pub m: Option<u64>,
    /// Scale of a random program: statements per procedure.
    #[arg(long, value_name = "S", default_value_t = 8)]
    pub size: u32,
}

/// Prints the model; returns the exit code.
pub fn run(a: &GenArgs) -> i32 {
    match a.family.as_str() {
        "random-bp" => {
            print!("{}", crate::gen::random_bp(a.n, a.size));
            exit::PASSED
        }
        "random-zing" => {
            print!("{}", crate::gen::random_zing(a.n));
            exit::PASSED
        }
        "bluetooth-bp" => {
            print!(
                "{}",
                crate::gen::concurrent::bluetooth_bp(a.n, a.m.unwrap_or(a.n))
            );
            exit::PASSED
        }
        other if a.m.is_some() => {
            eprintln!("error: only bluetooth-bp takes a second number (got one for `{other}`)");
            exit::INVALID
        }
        other => match crate::gen::families::family(other) {
            Some(f) => {
                print!("{}", f.generate(a.n));
                exit::PASSED
            }
            None => {
                eprintln!(
                    "error: unknown family `{other}` (known: random-bp, random-zing, {})",
                    crate::gen::families::family_names()
                );
                exit::INVALID
            }
        },
    }
}
