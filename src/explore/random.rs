//! `check --search random` (ZING's `-randomsample`): random walks from the initial states,
//! each at most `--max-depth` steps long, every step chosen uniformly among the outcomes of
//! every thread that may move (only the atomic owner while there is one), until a walk meets
//! an error, or a limit ends the run: `--max-states` counts the steps of all walks together
//! (default [`DEFAULT_RANDOM_STEPS`](crate::search::swarm::DEFAULT_RANDOM_STEPS)), or
//! `--timeout`. Nothing is stored, so a walk costs its steps and no memory; and nothing is
//! proved: a run that finds no error ends at its limit, never as a pass. An error is reported
//! as a path of choices, replayed and verified as every search's is.

use super::*;
use crate::search::swarm::{mix, Rng, DEFAULT_RANDOM_SEED};

/// The most initial states the walks start from (the first ones the lazy enumeration lists):
/// a boolean program with many unconstrained bits has more than a run could ever visit.
const MAX_INITIAL: usize = 4096;

/// Runs the random walks of `opts` on `m`'s program.
pub(super) fn walks(m: &Machine, opts: &Options, how: &ExplicitOptions) -> SearchResult {
    let mut rng = Rng::new(mix(how.swarm.seed.unwrap_or(DEFAULT_RANDOM_SEED)));
    let mut watch = Watch::new(&opts.limits);
    watch.unit = "steps";
    let targets = crate::search::targets_at(m.program, &opts.targets);
    let target = |s: &State| {
        s.threads.iter().find_map(|t| {
            let f = t.stack.top()?;
            targets[f.proc as usize][f.pc as usize]
        })
    };
    let mut result = SearchResult::default();
    let inits: Vec<(Vec<Value>, State)> = InitialStates::new(m).take(MAX_INITIAL).collect();
    result.stats.initial_states = inits.len() as u64;
    let bound = u64::from(opts.limits.max_depth);
    let (mut walks, mut steps, mut deepest) = (0u64, 0u64, 0u64);
    let mut outs: Vec<(Choice, Outcome)> = Vec::new();
    let mut scratch: Vec<Outcome> = Vec::new();
    let finish = |result: &mut SearchResult, walks: u64, steps: u64, deepest: u64| {
        result.stats.transitions = steps;
        result.stats.max_path = deepest;
        result.stats.counters = vec![
            ("random walks", walks),
            ("random-walk steps", steps),
            ("deepest random walk", deepest),
        ];
    };
    if inits.is_empty() {
        // no initial state (an `assume` false from the start): nothing can go wrong
        result.limit = Some(Limit::States);
        finish(&mut result, 0, 0, 0);
        return result;
    }
    let start = std::time::Instant::now();
    'walks: loop {
        walks += 1;
        let (init, s0) = &inits[rng.below(inits.len())];
        let mut s = s0.clone();
        let mut choices: Vec<Choice> = Vec::new();
        loop {
            let path = |last: Option<Choice>| Path {
                init: init.clone(),
                choices: choices.iter().copied().chain(last).collect(),
            };
            if let Some(t) = target(&s) {
                let label = opts.targets[t as usize].clone();
                result.findings.push(Finding::Target {
                    label,
                    path: path(None),
                });
                break 'walks;
            }
            if m.deadlocked(&s) {
                result.findings.push(Finding::Deadlock { path: path(None) });
                break 'walks;
            }
            let depth = s.threads.iter().map(|t| t.stack.depth()).max().unwrap_or(0);
            result.stats.max_stack = result.stats.max_stack.max(depth);
            if choices.len() as u64 >= bound || depth > opts.limits.max_depth {
                break;
            }
            outs.clear();
            let runnable = match s.atomic_owner() {
                Some(o) => o..o + 1,
                None => 0..s.threads.len(),
            };
            for tid in runnable {
                // a step with more outcomes than a window (a parallel assignment of many `*`)
                // is drawn from among its first window of them
                scratch.clear();
                let take = crate::runtime::OUTCOME_WINDOW as u64;
                m.step_window(&s, tid, &mut (), &mut scratch, 0, take);
                outs.extend(scratch.drain(..).enumerate().map(|(k, o)| {
                    (
                        Choice {
                            thread: tid as u32,
                            outcome: k as u32,
                        },
                        o,
                    )
                }));
            }
            if outs.is_empty() {
                // the run ends here (every thread done, or blocked where that is no error)
                break;
            }
            let (choice, outcome) = outs.swap_remove(rng.below(outs.len()));
            steps += 1;
            match outcome {
                Outcome::Violation(v) => {
                    deepest = deepest.max(choices.len() as u64 + 1);
                    result
                        .findings
                        .push(Finding::of_violation(v, path(Some(choice))));
                    break 'walks;
                }
                Outcome::Next { state, .. } => s = state,
                Outcome::Moved { mv, .. } => s = mv.apply(&s),
                Outcome::Pruned => unreachable!("a step lists no pruned outcome"),
            }
            choices.push(choice);
            deepest = deepest.max(choices.len() as u64);
            watch.depth = choices.len() as u64;
            if let Some(l) = watch.check(steps) {
                result.limit = Some(l);
                break 'walks;
            }
        }
    }
    finish(&mut result, walks, steps, deepest);
    result.stats.elapsed = start.elapsed();
    result
}
