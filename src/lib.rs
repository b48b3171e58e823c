//! zingrs: the engines, the reports and the command line.
//!
//! Data flows one way: `zingrs_lang` turns text into an `ir::Program`; [`runtime`] executes it
//! one statement at a time; [`explore`] searches the state space (states identified through
//! [`canon`]); [`report`] turns the result into text, JSON or Bebop's layout; [`cli`] does the
//! I/O.

pub mod canon;
pub mod cli;
pub mod coverability;
pub mod explore;
pub mod gen;
pub mod report;
pub mod runtime;
pub mod search;
pub mod summary;
pub mod symbolic;
