//! What a worker of the parallel search (`parallel.rs`) hands to an idle one, taken off
//! its depth-first stack, and how the idle one rebuilds it.

use super::*;

impl Explorer<'_, '_> {
    /// Hands unexplored work to an idle worker, from the lowest node on the stack that has
    /// some (the largest subtrees, as in work-stealing DFS), as the path that reaches it,
    /// which the other worker re-executes ([`Explorer::rebuild`]). States are not `Send`
    /// (they share their parts through `Rc`); a path is a few bytes a step, and a worker
    /// takes one only when it has nothing else to do.
    ///
    /// Without a context bound, cooperative scheduling or call summaries, every node's
    /// bookkeeping is `Ctx::START` and a path re-executes to the very state, with the same
    /// outcomes in the same order: a node then hands over half of its pending outcome
    /// positions (among the first 64), even one that dropped its outcomes. Otherwise only a
    /// node that holds its outcomes (with call summaries, every node) hands over one
    /// successor, as the path to it with macro steps and chained transactions expanded.
    ///
    /// A node that has nothing left to take never gets more (only the top node, while it is
    /// fresh or takes a wide step chunk by chunk, can): `floor` passes over such nodes once,
    /// so a deep stack of spent nodes (a million steps inside an atomic region) is not
    /// walked again at every step.
    pub(super) fn donate(
        &mut self,
        init: &[Value],
        prefix: &[Choice],
        stack: &mut Chunked<Entry>,
        floor: &mut usize,
    ) {
        let Some(pool) = self.pool.clone() else {
            return;
        };
        let positions = self.plain_keys && !self.tx.enabled;
        let height = stack.len();
        for d in *floor..height {
            let e = &mut stack[d];
            if d == *floor && spent(e) {
                *floor = d + 1;
                continue;
            }
            if e.fresh || e.next_chunk || e.spilled {
                continue;
            }
            let ready = e.live.as_deref().is_some_and(|l| l.ready);
            if positions {
                let avail = match e.live.as_deref() {
                    Some(l) if l.ready => {
                        if l.wide() {
                            continue;
                        }
                        (l.next..l.outs.len().min(MASK_BITS))
                            .filter(|&j| {
                                matches!(l.outs[j].1, Outcome::Next { .. } | Outcome::Moved { .. })
                                    && !l.keys[j].deferred
                            })
                            .fold(0u64, |m, j| m | 1 << j)
                    }
                    _ => e.pending,
                };
                // a worker never hands over its last piece of work (two idle workers would
                // hand it back and forth): the top node keeps one of its own
                let top = d + 1 == height;
                if avail == 0 || (top && avail.count_ones() < 2) {
                    continue;
                }
                let give = half(avail);
                match e.live.as_deref_mut().filter(|_| ready) {
                    Some(l) => {
                        for j in (0..MASK_BITS).filter(|j| give >> j & 1 == 1) {
                            l.outs[j].1 = Outcome::Pruned;
                        }
                    }
                    None => e.pending &= !give,
                }
                let mut choices = Self::path_of(init, prefix, stack, None).choices;
                choices.truncate(prefix.len() + d);
                pool.give(super::parallel::Task {
                    init: init.to_vec(),
                    choices,
                    ctx: Ctx::START,
                    unchecked: false,
                    positions: Some(give),
                });
                self.parallel.given += 1;
                return;
            }
            let Some(live) = e.live.as_deref_mut() else {
                continue;
            };
            if !ready || live.wide() {
                continue;
            }
            let mut open = (live.next..live.outs.len()).rev().filter(|&j| {
                matches!(live.outs[j].1, Outcome::Next { .. } | Outcome::Moved { .. })
            });
            let Some(j) = open.next() else {
                continue;
            };
            // the top node keeps one of its own (see above)
            if d + 1 == height && open.next().is_none() {
                continue;
            }
            let (choice, _) = std::mem::replace(&mut live.outs[j], (NO_CHOICE, Outcome::Pruned));
            let key = live.keys[j];
            let mut choices = Self::path_of(init, prefix, stack, None).choices;
            choices.truncate(prefix.len() + d);
            choices.push(choice);
            // macro steps and chained transactions become the single steps they stand for
            let path = self.expand(Path {
                init: init.to_vec(),
                choices,
            });
            pool.give(super::parallel::Task {
                init: path.init,
                choices: path.choices,
                ctx: key.ctx,
                unchecked: key.deferred,
                positions: None,
            });
            self.parallel.given += 1;
            return;
        }
    }

    /// The bottom entry of a search from a handed-over state: its path re-executed.
    pub(super) fn rebuild(
        &mut self,
        task: super::parallel::Task,
        spare: &mut Spare,
    ) -> (Vec<Value>, Vec<Choice>, Entry) {
        self.parallel.taken += 1;
        let mut s = crate::runtime::InitialStates::build(self.m, &task.init);
        let mut touched = Touched::default();
        for &c in &task.choices {
            s = self.rerun(&s, c, &mut touched).0;
        }
        let canon = self.canon_of(&s);
        let live = Self::live(spare, s, canon, task.ctx);
        let root = match task.positions {
            // a node already expanded by the worker that gave it: only those outcomes
            Some(mask) => Entry {
                via: NO_CHOICE,
                pending: mask,
                live: Some(live),
                fresh: false,
                spilled: false,
                next_chunk: false,
                unchecked: false,
            },
            None => Self::root(live, task.unchecked),
        };
        (task.init, task.choices, root)
    }
}

/// Whether a path node has nothing left to take, and never will.
fn spent(e: &Entry) -> bool {
    if e.fresh || e.next_chunk {
        return false;
    }
    match e.live.as_deref() {
        Some(l) if l.ready => {
            !l.wide()
                && l.outs[l.next.min(l.outs.len())..]
                    .iter()
                    .all(|(_, o)| matches!(o, Outcome::Pruned))
        }
        _ => !e.spilled && e.pending == 0,
    }
}

/// Every other set bit of `mask` (the one bit if there is one): half of a node's pending
/// positions for another worker.
fn half(mask: u64) -> u64 {
    if mask.count_ones() == 1 {
        return mask;
    }
    let mut out = 0;
    let mut m = mask;
    let mut take = false;
    while m != 0 {
        let bit = m & m.wrapping_neg();
        if take {
            out |= bit;
        }
        take = !take;
        m &= m - 1;
    }
    out
}
