//! zingrs: the engines, the reports and the command line.
//!
//! Data flows one way: `zingrs_lang` turns text into an `ir::Program`; [`runtime`] executes it
//! one statement at a time; [`explore`] searches the state space (states identified through
//! [`canon`]); [`report`] turns the result into text, JSON or Bebop's layout; [`cli`] does the
//! I/O. [`limits`] (the search limits and the watchdog) sits below all of them: the runtime
//! checks the memory limit before a model allocates.
//!
//! The library's entry point is [`check()`](fn@check): a program ([`parse_str`],
//! [`parse_file`]) and [`CheckOptions`] in, the [`report::Report`] that `zingrs check` prints
//! out (`examples/library.rs` runs one).

pub mod canon;
pub mod check;
pub mod cli;
pub mod coverability;
pub mod explore;
pub mod gen;
pub mod limits;
pub mod ltl;
pub mod report;
pub mod runtime;
pub mod search;
pub mod summary;
pub mod symbolic;

pub use check::{
    check, parse_file, parse_str, CheckError, CheckOptions, Engine, ParseError, Parsed,
};
pub use zingrs_lang::ir::Program;
pub use zingrs_lang::Lang;
