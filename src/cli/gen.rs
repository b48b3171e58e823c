//! `zingrs gen FAMILY N`: prints one generated model.
//!
//! Families today: `random-bp SEED` and `random-zing SEED`, random models for differential
//! testing ([`crate::gen::random_bp`], [`crate::gen::random_zing`]).

use crate::report::exit;

/// Options of `zingrs gen`.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// The family: `random-bp` or `random-zing`.
    pub family: String,
    /// The seed (random families).
    pub n: u64,
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
        other => {
            eprintln!("error: unknown family `{other}` (known: random-bp, random-zing)");
            exit::INVALID
        }
    }
}
