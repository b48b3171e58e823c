//! What a worker of the parallel search (`parallel.rs`) hands to an idle one, taken off
//! its depth-first stack, and how the idle one rebuilds it.

use super::super::parallel::Trail;
use super::*;
use crate::runtime::Portable;

impl Explorer<'_, '_> {
    /// Hands unexplored work to an idle worker, from the lowest node on the stack that has
    /// some (the largest subtrees, as in work-stealing DFS), as a [`Portable`] copy of the
    /// state and the path that reaches it, from which the other worker rebuilds it
    /// ([`Explorer::rebuild`]). States are not `Send` (they share their parts through `Rc`);
    /// re-executing the path instead would cost the whole depth of the stack (hundreds of
    /// thousands of steps on a deep search) at every handover.
    ///
    /// Without a context bound or cooperative scheduling, every node's bookkeeping is
    /// `Ctx::START` and a state's outcomes are the same, in the same order, wherever it is
    /// expanded, unless a thread is at a call summarized as a transaction: a node then hands
    /// over half of its pending outcome positions (among the first 64), even one that dropped
    /// its outcomes ([`Explorer::give_positions`]). Otherwise (call summaries are this
    /// worker's own, and so is the order in which they list a node's outcomes) the node hands
    /// over half of its open successors as states, one task each, after listing its outcomes
    /// again if it dropped them; each with the path to it, macro steps and chained
    /// transactions expanded.
    ///
    /// A node that has nothing left to take never gets more (only the top node, while it is
    /// fresh or takes a wide step chunk by chunk, can): `floor` passes over such nodes once,
    /// so a deep stack of spent nodes (a million steps inside an atomic region) is not
    /// walked again at every step.
    pub(super) fn donate(
        &mut self,
        trails: &mut Trails,
        stack: &mut Chunked<Entry>,
        floor: &mut usize,
        spare: &mut Spare,
        pending: &mut Pending,
    ) {
        let Some(pool) = self.pool.clone() else {
            return;
        };
        let height = stack.len();
        // one node a handover: giving from the lowest 8 at once (so that an idle worker finds
        // the next piece in the pool instead of waiting to be woken) measured worse on
        // philosophers-ordered 9 unreduced, 150,000 handovers instead of 8,000 to 22,000 and
        // 14 s instead of 7 s at 2 workers: the lower nodes' pending outcomes lead mostly to
        // states already stored, and each piece costs a rebuild
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
            if self.plain_keys {
                match self.give_positions(trails, stack, d, &pool) {
                    Some(true) => return,
                    Some(false) => continue,
                    // the node's outcomes include summarized calls: successors below
                    None => {}
                }
            }
            let e = &mut stack[d];
            if e.live.as_deref().is_some_and(|l| l.wide()) {
                continue;
            }
            let top = d + 1 == height;
            if !ready {
                // a node that dropped its outcomes (or its state too) gets them back here,
                // in this worker, whose call summaries listed them in this order; the top
                // node is the search's own next step
                if top || !pending.has_any(e, d) {
                    continue;
                }
                let base = if e.live.is_none() {
                    self.restore_to(stack, d, spare)
                } else {
                    d
                };
                self.fill(&mut stack[d], d, pending);
                // each outcome's context bookkeeping, as the search's own rebuilt nodes get
                // it (the node was expanded before: nothing is stored again); without it a
                // successor went over with `Ctx::START`, which under `--cooperative` let
                // every process run in the middle of another's run
                self.settle(&mut stack[d]);
                self.give_successors(trails, stack, d, top, &pool);
                if d + WINDOW < height {
                    // below the window again: dropped as the search would have
                    for k in base + 1..d {
                        if !Self::keeps_state(&stack[k], k) {
                            stack[k].live = None;
                        }
                    }
                    let keep = Self::keeps_state(&stack[d], d);
                    Self::drop_outcomes(spare, pending, &mut stack[d], d, keep);
                }
                return;
            }
            if self.give_successors(trails, stack, d, top, &pool) {
                return;
            }
        }
    }

    /// Hands half of the pending outcome positions of path node `d` (among its first 64) to
    /// an idle worker, with a copy of its state: `Some(true)` if it did, `Some(false)` if the
    /// node has nothing to give, `None` if its outcomes include calls summarized as
    /// transactions (which this worker's summaries list, maybe not another's).
    fn give_positions(
        &mut self,
        trails: &mut Trails,
        stack: &mut Chunked<Entry>,
        d: usize,
        pool: &super::parallel::Pool,
    ) -> Option<bool> {
        let height = stack.len();
        let e = &stack[d];
        let ready = e.live.as_deref().is_some_and(|l| l.ready);
        let avail = match e.live.as_deref() {
            Some(l) if l.ready => {
                if l.wide() {
                    return Some(false);
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
        // a worker never hands over its last piece of work (two idle workers would hand it
        // back and forth): the top node keeps one of its own
        let top = d + 1 == height;
        if avail == 0 || (top && avail.count_ones() < 2) {
            return Some(false);
        }
        let state = self.state_at(stack, d);
        if self.tx.enabled && (0..state.threads.len()).any(|t| self.transactional(&state, t)) {
            return None;
        }
        let give = half(avail);
        // the positions name outcomes in this worker's order for the node (under `--seed`, a
        // function of the node's depth and step, which are not the taker's for it), and the
        // taker lists the node in that order
        let order = if self.order.is_some() || (d == 0 && self.root_order.is_some()) {
            let fp = match e.live.as_deref() {
                Some(l) => l.canon.as_ref().map_or(0, |c| c.fp),
                None => self.canon_of(&state).map_or(0, |c| c.fp),
            };
            let e = &stack[d];
            let skip = e
                .live
                .as_deref()
                .and_then(|l| l.chunks.as_ref())
                .and_then(|c| c.from)
                .map_or(0, |r| r.skip);
            self.listing_order(d, e.via, fp, skip)
        } else {
            None
        };
        let e = &mut stack[d];
        match e.live.as_deref_mut().filter(|_| ready) {
            Some(l) => {
                for j in (0..MASK_BITS).filter(|j| give >> j & 1 == 1) {
                    l.outs[j].1 = Outcome::Pruned;
                }
            }
            None => e.pending &= !give,
        }
        // the path below the node may hold this worker's macro steps (summarized calls it
        // took earlier), which mean nothing in another worker: the single steps they stand for
        let (base, choices) = self.trail_base(trails, stack, d);
        let choices = self.expand_choices(choices);
        pool.give(super::parallel::Task {
            state: Portable::of(&state),
            trail: Trail::then(&base, choices),
            ctx: Ctx::START,
            unchecked: false,
            positions: Some(give),
            order,
        });
        self.parallel.given += 1;
        Some(true)
    }

    /// Hands half of the open successors of the ready path node `d` to idle workers, one
    /// task each (the top node keeps one); whether it gave any.
    fn give_successors(
        &mut self,
        trails: &mut Trails,
        stack: &mut Chunked<Entry>,
        d: usize,
        top: bool,
        pool: &super::parallel::Pool,
    ) -> bool {
        let live = stack[d].live.as_deref().expect("a ready node");
        let open: Vec<usize> = (live.next..live.outs.len())
            .filter(|&j| matches!(live.outs[j].1, Outcome::Next { .. } | Outcome::Moved { .. }))
            .collect();
        let give = if top {
            open.len() / 2
        } else {
            open.len().div_ceil(2)
        };
        if give == 0 {
            return false;
        }
        let (base, path) = self.trail_base(trails, stack, d);
        let live = stack[d].live.as_deref_mut().expect("a ready node");
        // the last ones: the search itself takes the first next
        for &j in open.iter().rev().take(give) {
            let (choice, outcome) =
                std::mem::replace(&mut live.outs[j], (NO_CHOICE, Outcome::Pruned));
            let state = match outcome {
                Outcome::Next { state, .. } => Portable::of(&state),
                Outcome::Moved { mv, .. } => Portable::of(&mv.apply(&live.state)),
                _ => unreachable!("only successors are handed over"),
            };
            let key = live.keys[j];
            let mut choices = path.clone();
            choices.push(choice);
            // macro steps and chained transactions become the single steps they stand for
            let choices = self.expand_choices(choices);
            pool.give(super::parallel::Task {
                state,
                trail: Trail::then(&base, choices),
                ctx: key.ctx,
                unchecked: key.deferred,
                positions: None,
                order: None,
            });
            self.parallel.given += 1;
        }
        true
    }

    /// The state of path node `d`: its own, or re-executed from the nearest node below it
    /// that keeps one (at most a checkpoint's distance).
    fn state_at(&mut self, stack: &Chunked<Entry>, d: usize) -> State {
        let base = (0..=d)
            .rev()
            .find(|&i| stack[i].live.is_some())
            .expect("the bottom of the stack is live");
        let mut s = stack[base].live.as_deref().expect("live").state.clone();
        let mut touched = Touched::default();
        for k in base + 1..=d {
            s = self.rerun(&s, stack[k].via, &mut touched).0;
        }
        s
    }

    /// The bottom entry of a search from a handed-over state, rebuilt from its copy.
    pub(super) fn rebuild(
        &mut self,
        task: super::parallel::Task,
        spare: &mut Spare,
    ) -> (Arc<Trail>, Entry) {
        self.parallel.taken += 1;
        let s = task.state.state();
        if self.how.check_fingerprints {
            let path = task.trail.path();
            // the self-check: the copy is the state the path reaches (up to its garbage and
            // the names of its objects: a successor built by a move drops garbage a step
            // re-executed keeps, as the search's own restored nodes do)
            let mut r = crate::runtime::InitialStates::build(self.m, &path.init);
            let mut touched = Touched::default();
            for &c in &path.choices {
                r = self.rerun(&r, c, &mut touched).0;
            }
            assert_eq!(
                self.hasher.full(&r),
                self.hasher.full(&s),
                "a handed-over state"
            );
        }
        let canon = self.canon_of(&s);
        self.root_order = task.positions.map(|_| task.order);
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
        (task.trail, root)
    }

    /// Leaves the successor `state` of the top of `stack` (reached by `choice`, with `key`)
    /// in the pool as a task for any worker, with the trail that reaches it: `trail` (which
    /// reaches the bottom of `stack`) and the single steps since.
    pub(super) fn hand_off(
        &mut self,
        trails: &mut Trails,
        stack: &Chunked<Entry>,
        choice: Choice,
        state: &State,
        key: Key,
    ) {
        let Some(pool) = self.pool.clone() else {
            return;
        };
        let (base, mut choices) = self.trail_base(trails, stack, stack.len() - 1);
        choices.push(choice);
        let choices = self.expand_choices(choices);
        pool.give(super::parallel::Task {
            state: Portable::of(state),
            trail: Trail::then(&base, choices),
            ctx: key.ctx,
            unchecked: key.deferred,
            positions: None,
            order: None,
        });
        self.parallel.handed_off += 1;
    }

    /// The trail that reaches a path node at most [`TRAIL_SEGMENT`] below path node `d` of
    /// `stack`, and the choices from there to `d` (as they are on the stack): a task's
    /// trail is then at most that many choices of its own, however deep the stack.
    fn trail_base(
        &self,
        trails: &mut Trails,
        stack: &Chunked<Entry>,
        d: usize,
    ) -> (Arc<Trail>, Vec<Choice>) {
        while (trails.marks.len() + 1) * TRAIL_SEGMENT <= d {
            let to = (trails.marks.len() + 1) * TRAIL_SEGMENT;
            let from = trails.marks.last().unwrap_or(&trails.start).clone();
            let raw = (to - TRAIL_SEGMENT + 1..=to)
                .map(|k| stack[k].via)
                .collect();
            let mark = Trail::then(&from, self.expand_choices(raw));
            trails.marks.push(mark);
        }
        // the marks may reach higher than `d` (built for a deeper node): the last one at most `d`
        let j = d / TRAIL_SEGMENT;
        let at = match j {
            0 => trails.start.clone(),
            _ => trails.marks[j - 1].clone(),
        };
        (
            at,
            (j * TRAIL_SEGMENT + 1..=d).map(|k| stack[k].via).collect(),
        )
    }

    /// `choices` with macro steps and chained transactions expanded into single steps (which
    /// mean the same in every worker).
    fn expand_choices(&self, choices: Vec<Choice>) -> Vec<Choice> {
        self.expand(Path {
            init: Vec::new(),
            choices,
        })
        .choices
    }
}

/// The path nodes a task's trail ([`Trail`]) reaches at most this far below it.
const TRAIL_SEGMENT: usize = 256;

/// The trails to the path nodes of a depth-first stack that tasks are handed from: to its
/// bottom (`start`), and, built as handovers need them, to every [`TRAIL_SEGMENT`]-th node
/// above it (`marks[k]` reaches node `(k + 1) * TRAIL_SEGMENT`), which the tasks handed from
/// the nodes above share.
pub(super) struct Trails {
    pub start: Arc<Trail>,
    pub marks: Vec<Arc<Trail>>,
}

impl Trails {
    /// Forgets the marks above path node `depth`, the top of the stack (the nodes they
    /// reached were popped; the stack moves one node at a time, so a node replaced at a mark's
    /// depth always first passes here with the stack below it).
    pub fn cut(&mut self, depth: usize) {
        self.marks.truncate(depth / TRAIL_SEGMENT);
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
