//! A node's successors: every thread that may run, each of its step's outcomes, transactions
//! run on as one chained choice, and calls that run as one transaction replaced by their
//! summary (a macro step a reported path expands back).

use super::*;

impl Explorer<'_, '_> {
    /// One window of `s`'s successors (from `from` on, see [`Explorer::successors_from`]),
    /// each with whether the search goes through it without storing it
    /// ([`Explorer::interior`]), where the next window starts, and whether the step is wide
    /// (`wide`, or cut into windows here): a wide step is a choice, whatever a window of it
    /// holds. The breadth-first searches take a node's successors this way.
    pub(super) fn successor_window(
        &mut self,
        s: &State,
        ctx: Ctx,
        from: Option<Resume>,
        wide: bool,
    ) -> (Marked, Option<Resume>, bool) {
        self.run_costs.clear();
        let succs = self.successors_from(s, ctx, from);
        self.interior_skipped += self.chained;
        let more = self.more.take();
        let wide = wide || more.is_some();
        let interior: Vec<bool> = succs
            .iter()
            .zip(Self::branching(&succs))
            .map(|((c, o), b)| self.interior(s, ctx.hold, c.thread, o, b || wide))
            .collect();
        (succs.into_iter().zip(interior).collect(), more, wide)
    }

    /// The outcomes of every thread that may move in `s`, in the search's order, built, from
    /// `from` on (see [`Explorer::step_threads`]) and at most [`Explorer::chunk`] of one
    /// thread's; [`Explorer::more`] then says where they go on.
    pub(super) fn successors_from(&mut self, s: &State, ctx: Ctx, from: Option<Resume>) -> Succs {
        let mut out = Vec::new();
        self.step_threads(s, ctx, &mut out, from, |_, out, first| {
            for (_, o) in &mut out[first..] {
                o.materialize(s);
            }
        });
        out
    }

    /// Appends the outcomes of every thread that may move in `s` to `out`, in the search's
    /// order (only the atomic owner while there is one; in cooperative mode the running
    /// process alone unless it is blocked), calling `then` after each thread with the
    /// position of its first outcome. A thread's step with more than [`Explorer::chunk`]
    /// outcomes stops the list there, and [`Explorer::more`] says where it goes on: `from`
    /// such a point, the same expansion continues (that thread's next outcomes, then the
    /// threads after it if every thread was expanded).
    pub(super) fn step_threads(
        &mut self,
        s: &State,
        ctx: Ctx,
        out: &mut Succs,
        from: Option<Resume>,
        mut then: impl FnMut(&mut Self, &mut Succs, usize),
    ) {
        let owner = s.atomic_owner();
        self.more = None;
        self.chained = 0;
        if let Some(r) = from {
            self.ran_alone = false;
            self.expands_all = r.all && owner.is_none();
            let last = if r.all {
                s.threads.len()
            } else {
                r.tid as usize + 1
            };
            for tid in r.tid as usize..last {
                let skip = if tid == r.tid as usize { r.skip } else { 0 };
                let first = out.len();
                let more = self.steps_of(s, ctx.hold, tid, out, skip);
                then(self, out, first);
                if more {
                    self.more = Some(r.next(tid, skip, self.chunk));
                    return;
                }
            }
            return;
        }
        self.expands_all = false;
        if let (None, true) = (owner, (ctx.hold as usize) < s.threads.len()) {
            // cooperative: the running process goes on unless it is blocked
            let first = out.len();
            let tid = ctx.hold as usize;
            let more = self.steps_of(s, ctx.hold, tid, out, 0);
            if out.len() > first {
                if more {
                    self.more = Some(Resume::only(tid, 0).next(tid, 0, self.chunk));
                }
                then(self, out, first);
                return;
            }
        }
        self.ran_alone = false;
        if owner.is_none() && self.por {
            // a persistent set of one thread: the first whose next step is private and has a
            // successor (a step that cannot go on, such as a false `assume`, would otherwise
            // stop every other thread too; a wide step whose first chunk has none counts as
            // one that cannot, which only expands more threads)
            for tid in 0..s.threads.len() {
                if !self.m.may_run_alone(s, tid) {
                    continue;
                }
                let first = out.len();
                let more = self.steps_of(s, ctx.hold, tid, out, 0);
                let goes_on = out[first..]
                    .iter()
                    .any(|(_, o)| matches!(o, Outcome::Next { .. } | Outcome::Moved { .. }));
                if goes_on {
                    self.ran_alone = true;
                    if more {
                        self.more = Some(Resume::only(tid, 0).next(tid, 0, self.chunk));
                    }
                    then(self, out, first);
                    return;
                }
                out.truncate(first);
            }
        }
        let runnable = match owner {
            Some(o) => o..o + 1,
            None => 0..s.threads.len(),
        };
        self.expands_all = owner.is_none();
        for tid in runnable {
            let first = out.len();
            let more = self.steps_of(s, ctx.hold, tid, out, 0);
            then(self, out, first);
            if more {
                // with an atomic owner, no thread follows it
                let r = Resume {
                    tid: tid as u32,
                    skip: 0,
                    all: owner.is_none(),
                };
                self.more = Some(r.next(tid, 0, self.chunk));
                return;
            }
        }
    }

    /// Appends thread `tid`'s outcomes from position `skip` on, at most [`Explorer::chunk`] of
    /// them; true when more follow. `hold`: the process of `s` that must go on (cooperative
    /// scheduling).
    fn steps_of(&mut self, s: &State, hold: u32, tid: usize, out: &mut Succs, skip: u64) -> bool {
        if self.tx.enabled && self.transactional(s, tid) {
            self.touched = None;
            self.summarized_call(s, tid, out);
            return false;
        }
        self.scratch.clear();
        let touched = self.touched.get_or_insert_with(Touched::default);
        touched.addrs.clear();
        let mut more = false;
        if self.chunk == usize::MAX {
            self.m.step_moves(s, tid, touched, &mut self.scratch);
        } else {
            let take = self.chunk as u64 + 1;
            self.m
                .step_moves_window(s, tid, touched, &mut self.scratch, skip, take);
            if self.scratch.len() > self.chunk {
                self.scratch.truncate(self.chunk);
                more = true;
            }
        }
        if self.scratch.is_empty() && skip == 0 && self.m.creation_blocked(s, tid) {
            self.result.thread_cut = true;
        }
        let lone = skip == 0 && !more && self.scratch.len() == 1;
        if (self.atomic_interior || self.por || self.run_interior) && lone {
            if let Some(chained) = self.chain(s, hold, tid) {
                out.push(chained);
                return false;
            }
        }
        if skip + self.scratch.len() as u64 > u64::from(reduce::MAX_OUTCOMES) {
            // a path cannot name these outcomes: the step is beyond what the search can take
            self.scratch.clear();
            self.result.limit = Some(Limit::States);
            return false;
        }
        let base = skip as u32;
        for (k, o) in self.scratch.drain(..).enumerate() {
            out.push((
                Choice {
                    thread: tid as u32,
                    outcome: base + k as u32,
                },
                o,
            ));
        }
        more
    }

    /// Whether thread `tid` is at a call that runs as one transaction: the callee cannot start
    /// or end a thread or an atomic region, and either the thread is inside an atomic region,
    /// or it is the only thread and the callee can neither block nor yield, or the callee runs
    /// only private steps (both-movers: no other thread can tell when they ran).
    pub(super) fn transactional(&self, s: &State, tid: usize) -> bool {
        let t = &s.threads[tid];
        let Some(f) = t.stack.top() else {
            return false;
        };
        let Stmt::Call { callee, .. } = &self.m.program.node(f.proc, f.pc).stmt else {
            return false;
        };
        let c = *callee as usize;
        let alone = s.threads.iter().filter(|t| !t.stack.is_empty()).count() == 1;
        !self.tx.spawns[c]
            && (t.atomic || (alone && !self.tx.blocks[c]) || self.m.private_call(*callee))
    }

    /// The successors of a transactional call: per outcome of the call, the callee's summary
    /// (computed once per matching visible state) applied to the caller.
    fn summarized_call(&mut self, s: &State, tid: usize, out: &mut Succs) {
        self.scratch.clear();
        self.m.step(s, tid, &mut (), &mut self.scratch);
        let calls: Vec<Outcome> = self.scratch.drain(..).collect();
        for (k, o) in calls.into_iter().enumerate() {
            let choice = Choice {
                thread: tid as u32,
                outcome: k as u32,
            };
            let Outcome::Next { state: s2, kind } = o else {
                out.push((choice, o));
                continue;
            };
            if kind != Kind::Call {
                out.push((choice, Outcome::Next { state: s2, kind }));
                continue;
            }
            let visible = crate::search::effects::visible_of(&s2, tid);
            let Some((tx, map)) = self.transaction(&visible) else {
                return;
            };
            if tx.finding.is_some() {
                let c = self.macro_step(tid, k, &tx, None, None);
                out.push((c, Outcome::Violation(crate::runtime::Violation::Assertion)));
            }
            for j in 0..tx.effects.len() {
                match tx.apply(self.m, j, &map, &s2, tid) {
                    Some(Ok(o2)) => {
                        let c = self.macro_step(tid, k, &tx, Some(j), None);
                        out.push((c, o2));
                    }
                    Some(Err(n)) => {
                        // ZING's infinite-loop error inside the call, on its steps cut there
                        let c = self.macro_step(tid, k, &tx, Some(j), Some(n));
                        let error = crate::runtime::RtError::InfiniteLoop;
                        out.push((c, Outcome::Violation(Violation::Runtime(error))));
                    }
                    None => {}
                }
            }
        }
    }

    fn macro_step(
        &mut self,
        tid: usize,
        call: usize,
        tx: &std::rc::Rc<Transaction>,
        effect: Option<usize>,
        cut: Option<usize>,
    ) -> Choice {
        self.tx.macros.push(Macro {
            thread: tid as u32,
            call: call as u32,
            tx: tx.clone(),
            effect,
            cut,
        });
        Choice {
            thread: tid as u32,
            outcome: MACRO | (self.tx.macros.len() as u32 - 1),
        }
    }

    /// The transaction summary for a callee's visible state, reused when one matches.
    fn transaction(
        &mut self,
        visible: &State,
    ) -> Option<(std::rc::Rc<Transaction>, crate::search::effects::AddrMap)> {
        let shape = crate::search::effects::frame_shape(visible);
        if let Some(cands) = self.tx.cache.get(&shape) {
            for t in cands {
                if let Some(map) = t.matches(self.m, visible) {
                    self.tx.reused += 1;
                    return Some((t.clone(), map));
                }
            }
        }
        let summarize = self.how.transactions?;
        match summarize(self.m, self.opts, visible.clone()) {
            Ok(t) => {
                self.tx.summarized += 1;
                self.tx.roots += t.roots;
                let t = std::rc::Rc::new(t);
                let map = t.matches(self.m, visible)?;
                self.tx.cache.entry(shape).or_default().push(t.clone());
                Some((t, map))
            }
            Err(l) => {
                self.result.limit = Some(l);
                None
            }
        }
    }

    /// A path with its macro steps expanded into the steps they stand for.
    pub(super) fn expand(&self, p: Path) -> Path {
        let mut choices = Vec::with_capacity(p.choices.len());
        for c in p.choices {
            if c.outcome & MACRO == 0 {
                // a chained transaction: its first choice, then the lone outcome of each step
                unchain(c, &mut choices);
                continue;
            }
            let mac = &self.tx.macros[(c.outcome & !MACRO) as usize];
            choices.push(Choice {
                thread: mac.thread,
                outcome: mac.call,
            });
            let inner: &[Choice] = match mac.effect {
                Some(j) => &mac.tx.effects[j].1,
                None => mac.tx.finding.as_ref().map_or(&[], |f| &f.path().choices),
            };
            let inner = &inner[..mac.cut.map_or(inner.len(), |n| n.min(inner.len()))];
            choices.extend(inner.iter().map(|i| Choice {
                thread: mac.thread,
                outcome: i.outcome,
            }));
        }
        Path {
            init: p.init,
            choices,
        }
    }
}
