//! Concrete interleavings for the errors the tree finds.
//!
//! The tree's branch to an error is a list of (local state of the thread that moves, outcome).
//! When no count on it was accelerated, each step names a thread that exists, and the branch
//! replays as it is. Otherwise some thread the branch moves exists only after a repetition
//! the acceleration stood for. A short breadth-first search of the concrete states from the
//! branch's initial valuation (threads in one local state stepped once: they are
//! interchangeable) is tried first, for a shortest interleaving with the fewest threads;
//! then the branch with its accelerated segments repeated, for growing counts; then the
//! search without a budget, which ends because the error is reachable (the tree is sound).

use super::local::{LId, Table};
use super::tree::{Reached, What};
use crate::runtime::{InitialStates, Machine, Outcome, State};
use crate::search::{Choice, Finding, Limit, Path, Replayer, Watch};
use ahash::AHashSet;

/// The most steps a pumped branch may have before pumping is given up for the search.
const MAX_PUMPED: usize = 1 << 16;

/// Replays the branch of `r` on the interpreter, its repeatable segments run again after
/// themselves: with k = 0 (the branch as it is), then k = 1, 2, 4, 8, the last segment k
/// more times, the one before it 2k, and so on, doubling towards the start of the branch
/// (a later repetition may use up threads an earlier one made, never the other way round).
/// Segments inside a repeated one repeat again. The first replay that ends as the tree said
/// is the witness; `None`: the search must find one.
pub fn replay_pumped(m: &Machine, table: &mut Table, r: &Reached) -> Option<Path> {
    // end -> (start, repetitions per k)
    let mut ends: ahash::AHashMap<usize, (usize, usize)> = ahash::AHashMap::default();
    let mut by_end: Vec<(usize, usize)> = r.pumps.clone();
    by_end.sort_by_key(|p| std::cmp::Reverse(p.1));
    for (i, &(start, end)) in by_end.iter().enumerate() {
        ends.insert(end, (start, 1usize << i.min(20)));
    }
    for k in [0usize, 1, 2, 4, 8] {
        let mut steps = Vec::new();
        if !pumped(&r.steps, &ends, 0, r.steps.len(), true, k, &mut steps) {
            return None;
        }
        if let Some(p) = replay_steps(m, table, r, &steps) {
            return Some(p);
        }
        if r.pumps.is_empty() {
            return None;
        }
    }
    None
}

/// Appends `steps[lo..hi]` to `out`, each segment ending inside (or at `hi` when `top`)
/// followed by its repetitions. Returns false past [`MAX_PUMPED`] steps.
fn pumped(
    steps: &[(LId, u32)],
    ends: &ahash::AHashMap<usize, (usize, usize)>,
    lo: usize,
    hi: usize,
    top: bool,
    k: usize,
    out: &mut Vec<(LId, u32)>,
) -> bool {
    for i in lo..hi {
        out.push(steps[i]);
        if out.len() > MAX_PUMPED {
            return false;
        }
        let end = i + 1;
        if let Some(&(start, times)) = ends.get(&end) {
            if start >= lo && (end < hi || top) {
                for _ in 0..k.saturating_mul(times) {
                    if !pumped(steps, ends, start, end, false, k, out) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// Replays `steps` (mover's local state, outcome) from `r`'s initial valuation; `None` when a
/// step names a thread that is not there or the path does not end as `r` says.
fn replay_steps(m: &Machine, table: &mut Table, r: &Reached, steps: &[(LId, u32)]) -> Option<Path> {
    let mut rp = Replayer::start(m, r.init.clone(), false).ok()?;
    for &(l, k) in steps {
        let s = rp.state();
        let t = match s.atomic_owner() {
            Some(o) => (table.known(&s.threads[o]) == Some(l)).then_some(o)?,
            None => s.threads.iter().position(|t| table.known(t) == Some(l))?,
        };
        rp.outcomes(t as u32).ok()?;
        rp.take(k).ok()?;
    }
    let (path, replayed) = rp.finish();
    let ends_right = match r.what {
        What::Violation(v) => replayed.violation == Some(v),
        What::Target(i) => replayed.states.last().is_some_and(|s| {
            s.threads
                .iter()
                .any(|t| table.known(t).and_then(|l| table.target(l)) == Some(i))
        }),
    };
    ends_right.then_some(path)
}

/// A finding for `r`'s error kind on `path`.
pub fn finding(what: What, path: Path, targets: &[String]) -> Finding {
    match what {
        What::Violation(v) => Finding::of_violation(v, path),
        What::Target(i) => Finding::Target {
            label: targets[i as usize].clone(),
            path,
        },
    }
}

/// Breadth-first search of the concrete states from the initial valuation `init` for the first
/// error (any violation or target): the interleaving and its kind, or the limit that stopped
/// it (`Err(None)`: more than `budget` states). `states` counts the states expanded. Returns
/// `Ok(None)` only if the states from `init` are finitely many and none errs, which the
/// tree's answer rules out.
pub fn search(
    m: &Machine,
    table: &mut Table,
    init: Vec<crate::runtime::Value>,
    watch: &mut Watch,
    states: &mut u64,
    budget: Option<u64>,
) -> Result<Option<(Path, What)>, Option<Limit>> {
    let mut expanded = 0u64;
    let s0 = InitialStates::build(m, &init);
    // parent index and the choice that led here, per stored state
    let mut links: Vec<(u32, Choice)> = vec![(
        u32::MAX,
        Choice {
            thread: 0,
            outcome: 0,
        },
    )];
    let mut frontier: Vec<State> = vec![s0.clone()];
    let mut first = 0usize;
    let mut seen: AHashSet<(u32, Vec<LId>)> = AHashSet::default();
    seen.insert(key(table, &s0));
    let path_to = |links: &[(u32, Choice)], mut i: u32, last: Option<Choice>| {
        let mut choices: Vec<Choice> = last.into_iter().collect();
        while links[i as usize].0 != u32::MAX {
            choices.push(links[i as usize].1);
            i = links[i as usize].0;
        }
        choices.reverse();
        Path {
            init: init.clone(),
            choices,
        }
    };
    let mut outs: Vec<Outcome> = Vec::new();
    while first < frontier.len() {
        let i = first as u32;
        // states are kept until the search ends: the links name them by index
        let s = frontier[first].clone();
        first += 1;
        *states += 1;
        expanded += 1;
        if budget.is_some_and(|b| expanded > b) {
            return Err(None);
        }
        if let Some(l) = watch.check(*states) {
            return Err(Some(l));
        }
        let movers: Vec<usize> = match s.atomic_owner() {
            Some(o) => vec![o],
            None => {
                let mut met: AHashSet<LId> = AHashSet::default();
                (0..s.threads.len())
                    .filter(|&t| met.insert(table.local(&s.threads[t])))
                    .collect()
            }
        };
        for t in movers {
            outs.clear();
            m.step(&s, t, &mut (), &mut outs);
            for (k, o) in outs.drain(..).enumerate() {
                let c = Choice {
                    thread: t as u32,
                    outcome: k as u32,
                };
                match o {
                    Outcome::Violation(v) => {
                        return Ok(Some((path_to(&links, i, Some(c)), What::Violation(v))))
                    }
                    Outcome::Next { state, .. } => {
                        if !seen.insert(key(table, &state)) {
                            continue;
                        }
                        let target = state.threads.iter().find_map(|th| {
                            let l = table.local(th);
                            table.target(l)
                        });
                        links.push((i, c));
                        let id = links.len() as u32 - 1;
                        if let Some(x) = target {
                            return Ok(Some((path_to(&links, id, None), What::Target(x))));
                        }
                        frontier.push(state);
                    }
                    Outcome::Pruned | Outcome::Moved { .. } => {}
                }
            }
        }
    }
    Ok(None)
}

/// A concrete state up to the order of its threads: its globals and its threads' local states,
/// sorted.
fn key(table: &mut Table, s: &State) -> (u32, Vec<LId>) {
    let mut ls: Vec<LId> = s.threads.iter().map(|t| table.local(t)).collect();
    ls.sort_unstable();
    (table.global(&s.globals), ls)
}
