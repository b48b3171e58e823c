//! zingrs as a library: a boolean program from a string, checked with the default options,
//! its verdict and counterexample printed as `zingrs check` prints them, then the same program
//! checked by every engine that applies (`--engine all`).
//!
//! `cargo run --example library`

use zingrs::report::{self, exit, Format, TraceDetail};
use zingrs::{CheckOptions, Engine, Lang};

/// Two threads increment a two-bit counter without a lock: the final assertion can fail.
const MODEL: &str = "\
decl c0, c1, done0, done1;

void main() begin
  c0, c1, done0, done1 := F, F, F, F;
  start_thread goto t0;
  start_thread goto t1;
  assume(done0 & done1);
  assert(c1 & !c0);
  t0: incr(); done0 := T; end_thread;
  t1: incr(); done1 := T; end_thread;
end

void incr() begin
  decl l0, l1;
  l0, l1 := c0, c1;
  c0, c1 := !l0, l1 ^ l0;
end
";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let program = match zingrs::parse_str("counter.bp", MODEL, Lang::Bp) {
        Ok(parsed) => parsed.program,
        Err(e) => {
            // the diagnostics with their source lines, as `zingrs check` prints them
            eprint!("{}", e.render());
            std::process::exit(exit::INVALID);
        }
    };

    // the default: `zingrs check counter.bp`
    let report = zingrs::check(&program, &CheckOptions::default())?;
    println!(
        "{}: {} (engine {}, exit code {})",
        report.model,
        report.verdict.headline(),
        report.engine,
        report.exit_code
    );
    assert_eq!(report.exit_code, exit::ASSERTION);
    // the replayed counterexample, as `zingrs check` prints it
    let mut out = std::io::stdout().lock();
    report::render_to(
        &mut out,
        &report,
        Format::Text,
        TraceDetail::Full,
        false,
        false,
        false,
    )?;

    // every engine that applies, compared: `--engine all`
    let all = CheckOptions {
        engine: Engine::All,
        ..CheckOptions::default()
    };
    let report = zingrs::check(&program, &all)?;
    for run in &report.engines {
        println!("{:>14}: exit {}", run.engine, run.exit_code);
    }
    Ok(())
}
