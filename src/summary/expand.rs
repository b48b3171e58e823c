//! A node's successors in a root's search: the steps of an execute node (Figure 9), and at a
//! call node the callee's summaries applied (`Match` and `Apply`, Figures 7 and 8) or a root
//! made for the callee (Figure 6).

use super::{Edge, Frontier, More, NodeId, NodeKind, RootId, Stop, Succ, Summarizer, Via, Wmap};
use crate::runtime::{Kind, Loc, Outcome, State, Value};
use crate::search::effects::{
    apply_effect, effect_at_return, visible_of, AddrMap, Effect, PathEffect,
};
use crate::search::{Choice, Finding};
use zingrs_lang::ir::Stmt;

impl Summarizer<'_, '_> {
    pub(super) fn expand(
        &mut self,
        r: RootId,
        id: NodeId,
        s: &State,
        wmap: &Wmap,
        kind: NodeKind,
    ) -> Result<Frontier, Stop> {
        match kind {
            NodeKind::Execute => self.expand_execute(r, id, s, wmap, 0),
            NodeKind::Call => self.expand_call(r, id, s, wmap),
        }
    }

    /// `GetNextSuccessorExecute` (Figure 9), plus the RETURN nodes that add effects: the
    /// successors from outcome `skip` on, a window of them ([`Frontier`]).
    pub(super) fn expand_execute(
        &mut self,
        r: RootId,
        id: NodeId,
        s: &State,
        wmap: &Wmap,
        skip: u64,
    ) -> Result<Frontier, Stop> {
        let m = self.m;
        let f = s.threads[0]
            .stack
            .top()
            .expect("a visible state has a frame");
        let mut rec = std::mem::take(&mut self.rec);
        rec.clear();
        if let Stmt::Return { .. } = m.program.node(f.proc, f.pc).stmt {
            let results = m.return_values(s, 0, &mut rec);
            self.learn(r, s, wmap, &rec.reads);
            self.rec = rec;
            let results = match results {
                Ok(v) => v,
                Err(e) => {
                    // the step lists this error as its only outcome
                    let choice = Choice {
                        thread: 0,
                        outcome: 0,
                    };
                    // (`check --property`: an error left out ends the execution unreported)
                    if m.semantics.reports_error(f.proc, f.pc, e) {
                        let path = self.path_to(r, id, Some(choice));
                        let finding = Finding::Runtime { error: e, path };
                        let key = finding.violation_key((f.proc, f.pc));
                        self.found(finding, key)?;
                    }
                    return Ok(Frontier::of(Vec::new()));
                }
            };
            for (k, rets) in results.into_iter().enumerate() {
                let e = effect_at_return(m, &self.roots[r as usize].entry, s, wmap, &rets);
                let root = &mut self.roots[r as usize];
                if root.effect_set.insert(e.clone()) {
                    root.effects.push((e, id, k as u32));
                    root.updated = true;
                }
            }
            return Ok(Frontier::of(Vec::new()));
        }
        let mut outs = std::mem::take(&mut self.outs);
        outs.clear();
        let window = crate::runtime::OUTCOME_WINDOW;
        m.step_window(s, 0, &mut rec, &mut outs, skip, window as u64 + 1);
        let wide = outs.len() > window;
        outs.truncate(window);
        self.learn(r, s, wmap, &rec.reads);
        if skip + outs.len() as u64 > u64::from(u32::MAX) {
            // a path cannot name these outcomes
            self.outs = outs;
            self.rec = rec;
            return Err(Stop::Limit(crate::search::Limit::States));
        }
        let mut succs = Vec::new();
        let mut stop = None;
        for (k, o) in outs.drain(..).enumerate() {
            let choice = Choice {
                thread: 0,
                outcome: (skip + k as u64) as u32,
            };
            match o {
                Outcome::Pruned => {}
                Outcome::Moved { .. } => unreachable!("Machine::step builds every successor"),
                Outcome::Violation(v) => {
                    let path = self.path_to(r, id, Some(choice));
                    let finding = Finding::of_violation(v, path);
                    let key = finding.violation_key((f.proc, f.pc));
                    if let Err(e) = self.found(finding, key) {
                        stop = Some(e);
                        break;
                    }
                }
                Outcome::Next { state, kind } => {
                    let via = Via::Step { parent: id, choice };
                    if kind == Kind::Call {
                        succs.push(Succ {
                            state,
                            wmap: wmap.clone(),
                            kind: NodeKind::Call,
                            via,
                        });
                    } else {
                        let mut w = wmap.clone();
                        for &a in &rec.allocs {
                            if let Some(obj) = state.heap.get(&a) {
                                w.allocs.push((a, obj.class));
                            }
                        }
                        for &loc in &rec.writes {
                            w.set(loc, m.read_loc(&state, 0, loc));
                        }
                        succs.push(Succ {
                            state,
                            wmap: w,
                            kind: NodeKind::Execute,
                            via,
                        });
                    }
                }
            }
        }
        outs.clear();
        self.rec = rec;
        self.outs = outs;
        if let Some(e) = stop {
            return Err(e);
        }
        let mut f = Frontier::of(succs);
        if wide {
            f.more = Some(Box::new(More {
                state: s.clone(),
                wmap: wmap.clone(),
                skip: skip + window as u64,
            }));
        }
        Ok(f)
    }

    /// `GetNextSuccessorCall` (Figure 6): match or create the callee's root, learn its pattern,
    /// and apply every effect not yet applied (`Apply`, Figure 8).
    pub(super) fn expand_call(
        &mut self,
        r: RootId,
        id: NodeId,
        s: &State,
        wmap: &Wmap,
    ) -> Result<Frontier, Stop> {
        let empty = Frontier::of(Vec::new());
        let key = self.key(s, wmap);
        let (target, cached) = match self.graph.get(&(r, key)) {
            Some(e) => (e.target, e.map.clone()),
            None => {
                let visible = visible_of(s, 0);
                let target = match self.find_root(&visible) {
                    Some((t, _)) => t,
                    None => self.new_root(visible, None, Some((r, id)))?,
                };
                self.graph.insert(
                    (r, key),
                    Edge {
                        target,
                        num: 0,
                        map: None,
                    },
                );
                self.users.entry(target).or_default().push((r, key));
                self.call_nodes
                    .insert((r, key), (s.clone(), wmap.clone(), id));
                (target, None)
            }
        };
        // the map through the target's current pattern; when the pattern no longer matches,
        // the target has changed and this call node is searched again after the target's
        // search (the stale edges of Figure 4)
        let pattern_len = self.roots[target as usize].pattern.len();
        let map = match cached {
            Some((map, len)) if len == pattern_len => map,
            _ => match self.match_root(target, &visible_of(s, 0)) {
                Some(map) => map,
                None => return Ok(empty),
            },
        };
        // the caller now depends on what the callee read
        let reads: Vec<Loc> = self.roots[target as usize]
            .pattern
            .iter()
            .filter_map(|&(l, _)| map.loc(l))
            .collect();
        self.learn(r, s, wmap, &reads);
        let from = self.graph.get(&(r, key)).map_or(0, |e| e.num) as usize;
        let count = self.roots[target as usize].effects.len();
        let mut succs = Vec::new();
        let mut rec = std::mem::take(&mut self.rec);
        for j in from..count {
            let effect = self.roots[target as usize].effects[j].0.clone();
            self.counters.applies += 1;
            let Some((applied, mut w, rets)) = self.apply(&effect, &map, s, wmap) else {
                continue;
            };
            rec.clear();
            let mut out = self.m.finish_return(&applied, 0, &rets, &mut rec);
            // reads after the return (receivers, the caller's `enforce`) see the callee's writes
            self.learn(r, s, &w, &rec.reads);
            let at_entry = self.m.zing_count(s, 0).0;
            if let Err(n) = effect.count_steps(self.m, 0, at_entry, &mut out) {
                // ZING's infinite-loop error inside the call that the summary stands for, on
                // the path cut at the step that raised it (whose node the key approximates by
                // the callee's entry)
                let error = crate::runtime::RtError::InfiniteLoop;
                let f = s.threads[0].stack.top().expect("a callee frame");
                if !self.m.semantics.reports_error(f.proc, f.pc, error) {
                    continue;
                }
                let steps = self.expand_summary(target, j as u32);
                let mut path = self.path_to(r, id, None);
                path.choices
                    .extend_from_slice(&steps[..n.map_or(steps.len(), |n| n.min(steps.len()))]);
                let finding = Finding::Runtime { error, path };
                let key = finding.violation_key((f.proc, f.pc));
                if let Err(e) = self.found(finding, key) {
                    self.rec = rec;
                    return Err(e);
                }
                continue;
            }
            if let Outcome::Next { state, .. } = out {
                for &loc in &rec.writes {
                    w.set(loc, self.m.read_loc(&state, 0, loc));
                }
                succs.push(Succ {
                    state,
                    wmap: w,
                    kind: NodeKind::Execute,
                    via: Via::Summary {
                        parent: id,
                        callee: target,
                        effect: j as u32,
                    },
                });
            } else if let Outcome::Violation(v) = out {
                // a receiver through null: the interpreter reports it on the return step
                let f = s.threads[0].stack.top().expect("a caller frame");
                let crate::runtime::Violation::Runtime(error) = v else {
                    unreachable!("a return step fails only at a runtime error")
                };
                // (`check --property`: the step starts at one of the callee's returns; the
                // state is the caller's at its call, or the callee's at its entry)
                let callee = match &self.m.program.node(f.proc, f.pc).stmt {
                    Stmt::Call { callee, .. } => *callee,
                    _ => f.proc,
                };
                let returns = self.m.program.procs[callee as usize]
                    .nodes
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| matches!(n.stmt, Stmt::Return { .. }));
                let reported = returns
                    .map(|(pc, _)| (callee, pc as u32))
                    .any(|(q, pc)| self.m.semantics.reports_error(q, pc, error));
                if !reported {
                    continue;
                }
                let mut path = self.path_to(r, id, None);
                path.choices.extend(self.expand_summary(target, j as u32));
                let finding = Finding::of_violation(v, path);
                let key = finding.violation_key((f.proc, f.pc));
                if let Err(e) = self.found(finding, key) {
                    self.rec = rec;
                    return Err(e);
                }
            }
        }
        self.rec = rec;
        if let Some(e) = self.graph.get_mut(&(r, key)) {
            e.num = count as u32;
            e.map = Some((map, pattern_len));
        }
        Ok(Frontier::of(succs))
    }

    /// `Apply` (Figure 8): allocates fresh objects for the effect's allocations, extends the
    /// map to them, and writes the effect's locations through the map. Returns the state just
    /// before the return completes, the caller's path effect grown by what was applied, and the
    /// mapped results.
    pub(super) fn apply(
        &self,
        effect: &Effect,
        map: &AddrMap,
        s: &State,
        wmap: &PathEffect,
    ) -> Option<(State, PathEffect, Box<[Value]>)> {
        let a = apply_effect(self.m, effect, map, s, 0)?;
        let mut w = wmap.clone();
        w.allocs.extend(a.allocs);
        for (l, v) in a.writes {
            w.set(l, v);
        }
        Some((a.state, w, a.rets))
    }
}
