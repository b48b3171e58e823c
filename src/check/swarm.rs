//! What `--seed` and `--search random` combine with (swarm runs, [`crate::search::swarm`]):
//! the one place that refuses the options they mean nothing with (exit 7) and adjusts the
//! search options for a random search.

use super::Settings;
use super::{CheckError, CheckOptions, Engine, Search};
use crate::search::swarm;

/// Checks the swarm options of `o` and adjusts `opts` for them; returns notes for the user.
pub(super) fn swarm_options(
    o: &CheckOptions,
    opts: &mut Settings,
) -> Result<Vec<String>, CheckError> {
    let random = o.search == Some(Search::Random);
    if o.seed.is_none() && !random {
        return Ok(Vec::new());
    }
    let err = |m: String| Err(CheckError::Options(m));
    let flag = if random { "--search random" } else { "--seed" };
    match o.engine {
        Engine::Auto | Engine::Explicit => {}
        e => {
            return err(format!(
                "{flag} applies to the explicit engine's search, not to the {} engine (use --engine explicit)",
                e.name()
            ))
        }
    }
    if o.property().is_some() {
        let what = if o.ltl.is_some() {
            "--ltl"
        } else {
            "--liveness"
        };
        return err(format!(
            "{flag} does not combine with {what} (the nested cycle search keeps its own order)"
        ));
    }
    let mut notes = Vec::new();
    if !random {
        if o.search == Some(Search::Zing) || (o.search.is_none() && o.zing_layout) {
            return err(
                "--seed does not combine with ZING's order (--search zing, the default of --format zing), which is fixed: use --search dfs or bfs".into(),
            );
        }
        if o.workers > 1 {
            notes.push(format!(
                "--seed with --workers {}: each worker permutes its own nodes' successors, and which worker takes which node varies from run to run, so the run is not reproducible (--workers 1 is)",
                o.workers
            ));
        }
        return Ok(notes);
    }
    for (set, what, why) in [
        (
            o.contexts.is_some(),
            "--contexts",
            "a walk has no context bookkeeping",
        ),
        (
            o.bounding.is_some(),
            "--preemptions or --delays",
            "a walk has no schedule bookkeeping",
        ),
        (
            o.cooperative,
            "--cooperative",
            "a walk schedules preemptively",
        ),
        (
            o.keep_going,
            "--keep-going",
            "a random search stops at its first error",
        ),
        (
            o.coverage,
            "--coverage",
            "a random search is never complete, so nothing it missed is unreachable",
        ),
        (
            o.workers > 1,
            "--workers",
            "run several random searches with different seeds instead (docs/scale.md)",
        ),
        (o.exact, "--exact", "a random search stores no states"),
    ] {
        if set {
            return err(format!(
                "--search random does not combine with {what} ({why})"
            ));
        }
    }
    // a walk is bounded by its length: no deepening on the number of threads is needed
    opts.deepen_threads = false;
    if opts.search.limits.max_states.is_none() && opts.search.limits.timeout.is_none() {
        opts.search.limits.max_states = Some(swarm::DEFAULT_RANDOM_STEPS);
    }
    if o.seed.is_none() {
        notes.push(format!(
            "--search random uses the fixed seed {} (give --seed S for other walks)",
            swarm::DEFAULT_RANDOM_SEED
        ));
    }
    Ok(notes)
}
