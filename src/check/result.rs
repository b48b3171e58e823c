//! A search's result turned into the report: every finding replayed and verified, the verdict
//! of a search without one, the statistics.

use super::{Engine, Settings};
use crate::report::{self, Report, Verdict};
use crate::runtime::Machine;
use crate::search;
use crate::search::{Finding, Options};
use std::sync::Arc;

/// A search that ended without a finding after the watchdog requested a limit did not notice
/// the limit in time (it was between two checks): it is reported as the limit, never as
/// "passed" or "bounded", since the limit was reached before the search ended.
pub(super) fn limit_reached_during(result: &mut search::SearchResult) {
    if result.findings.is_empty() && result.limit.is_none() {
        result.limit = search::watchdog::stopped();
    }
}

/// Turns any engine's result into a replayed, reported verdict.
pub fn report_of<'p>(
    m: &Arc<Machine<'p>>,
    name: &str,
    engine: &str,
    result: &search::SearchResult,
    opts: &Settings,
) -> Report<'p> {
    report_with(m, name, engine, result, Vec::new(), opts)
}

/// [`report_of`], with the findings' replays that the engine made (`replays`, in order; the
/// others are replayed here).
pub(super) fn report_with<'p>(
    m: &Arc<Machine<'p>>,
    name: &str,
    engine: &str,
    result: &search::SearchResult,
    replays: super::Replays,
    settings: &Settings,
) -> Report<'p> {
    let opts = &settings.search;
    let mut replays = replays.into_iter();
    let mut path = None;
    let mut found = result
        .findings
        .iter()
        .map(|f| explain(m, f, replays.next().flatten(), opts));
    let (verdict, trace) = match found.next() {
        // a finding that replayed has a path, written even without its trace
        Some(first) if matches!(first.0, Verdict::InternalError { .. }) => first,
        Some(first) => {
            path = result.findings.first().map(|f| f.path().clone());
            first
        }
        None => {
            let v = if let Some(limit) = result.limit {
                Verdict::LimitReached { limit }
            } else if result.cut {
                Verdict::Bounded {
                    bound: format!("stack-depth bound (--max-depth {})", opts.limits.max_depth),
                }
            } else if let Some(n) = m.semantics.thread_bound {
                // the bound cut (or may have cut) thread creations: not a proof
                Verdict::Bounded {
                    bound: format!("thread bound (--threads {n})"),
                }
            } else if let (true, Some(b)) = (result.context_cut, settings.explicit.bounding) {
                Verdict::Bounded {
                    bound: b.describe(),
                }
            } else if result.context_cut {
                Verdict::Bounded {
                    bound: format!(
                        "{} (--contexts {})",
                        crate::report::CONTEXT_BOUND,
                        opts.contexts.unwrap_or(0)
                    ),
                }
            } else if result.deadlocks_unchecked {
                Verdict::Bounded {
                    bound: crate::report::DEADLOCKS_UNCHECKED.into(),
                }
            } else {
                Verdict::Passed
            };
            (v, None)
        }
    };
    let more = found
        .map(|(verdict, trace)| report::Finding { verdict, trace })
        .collect();
    let mut r = Report::new(name, engine, verdict, trace);
    r.more = more;
    r.assertions = m.semantics.check_assertions;
    r.cooperative = m.semantics.cooperative;
    r.max_atomic_steps = (m.semantics.max_atomic_steps != crate::runtime::MAX_ATOMIC_STEPS)
        .then_some(m.semantics.max_atomic_steps);
    r.fewest_switches = result.fewest_switches;
    // the coverability engine reports its first error only, even under --keep-going
    r.exhaustive = result.limit.is_none()
        && !result.cut
        && !result.context_cut
        && !result.thread_cut
        && !result.deadlocks_unchecked
        && m.semantics.thread_bound.is_none()
        && (result.findings.is_empty()
            || (opts.keep_going && engine != Engine::Coverability.name()));
    r.path = path;
    let s = &result.stats;
    // only the explicit engines keep a stack, a search depth and a table of fingerprints
    let explicit = engine == Engine::Explicit.name() || engine == Engine::Summary.name();
    r.stats = report::Stats {
        states: s.states,
        zing_states: s.zing_states,
        transitions: Some(s.transitions),
        initial_states: Some(s.initial_states),
        max_stack_depth: explicit.then_some(s.max_stack),
        max_search_depth: explicit.then_some(s.max_path),
        seconds: s.elapsed.as_secs_f64(),
        peak_memory_bytes: search::peak_bytes(),
        speedup: speedup(&s.workers, s.elapsed),
        // random walks store nothing: no state can be omitted by a fingerprint collision
        omission_probability: (explicit && !settings.explicit.swarm.random).then(|| {
            if settings.explicit.exact {
                0.0
            } else {
                crate::canon::omission_bound(s.states)
            }
        }),
        counters: s
            .counters
            .iter()
            .map(|(n, v)| report::Counter {
                name: report::counter_name(n),
                value: *v,
            })
            .chain(worker_counters(&s.workers))
            .collect(),
        summaries: s
            .summaries
            .iter()
            .map(|(p, r, e)| report::ProcSummaries {
                procedure: p.clone(),
                patterns: *r,
                effects: *e,
            })
            .collect(),
    };
    r
}

/// The workers' CPU time over the search's wall-clock time, with several workers.
fn speedup(workers: &[search::WorkerStats], elapsed: std::time::Duration) -> Option<f64> {
    let cpu: Option<std::time::Duration> = workers.iter().map(|w| w.cpu).sum();
    let wall = elapsed.as_secs_f64();
    (workers.len() > 1 && wall > 0.0).then_some(cpu?.as_secs_f64() / wall)
}

/// Per worker of a parallel search: the states it stored, the unexplored states it gave to
/// idle workers and took from busy ones, the milliseconds it waited for work and those its
/// thread ran.
fn worker_counters(workers: &[search::WorkerStats]) -> impl Iterator<Item = report::Counter> + '_ {
    let counter = |name: String, value: u64| report::Counter { name, value };
    workers.iter().enumerate().flat_map(move |(i, w)| {
        [
            counter(format!("worker_{i}_states"), w.states),
            counter(format!("worker_{i}_given"), w.given),
            counter(format!("worker_{i}_taken"), w.taken),
            counter(format!("worker_{i}_handed_off"), w.handed_off),
            counter(format!("worker_{i}_idle_ms"), w.idle.as_millis() as u64),
            counter(
                format!("worker_{i}_cpu_ms"),
                w.cpu.map_or(0, |c| c.as_millis() as u64),
            ),
        ]
    })
}

/// Replays a finding (unless the engine did: `replayed`) and describes it; a finding that does
/// not replay, or whose last state does not show what the finding says ([`report::verify`]),
/// is an internal error.
fn explain<'p>(
    m: &Arc<Machine<'p>>,
    f: &Finding,
    replayed: Option<search::Replayed>,
    opts: &Options,
) -> (Verdict, Option<report::Trace<'p>>) {
    let internal = |message: String| (Verdict::InternalError { message }, None);
    let path = f.path();
    // only the state the path ends in is kept: the trace replays the path again as it is
    // written
    let replayed = match replayed.map_or_else(|| search::replay_keeping(m, path, false), Ok) {
        Ok(r) => r,
        Err(e) => return internal(format!("the counterexample does not replay: {e}")),
    };
    match report::verify(m, path, &replayed, &report::Claim::of_finding(f)) {
        Ok((verdict, end)) => {
            // a trace not asked for is not written (`null` in JSON): an empty one would
            // claim a counterexample of no steps
            let trace = (!opts.verdict_only).then(|| report::build_trace(m, path, &replayed, end));
            (verdict, trace)
        }
        Err(e) => internal(format!("the counterexample is wrong: {e}")),
    }
}
