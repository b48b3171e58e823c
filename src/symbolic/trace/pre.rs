//! The predecessors of a point that the walk finds without building a pre-image BDD: a step
//! that keeps the point's valuation, the batch that holds a valuation, and the few valuations
//! a step can come from, evaluated one by one.

use super::{Point, Scratch, Stamped, Vals};
use crate::symbolic::bdd::Bdds;
use crate::symbolic::reach::{Engine, Xfer, NONE};

impl<B: Bdds> Engine<'_, '_, B> {
    /// For a predecessor `u` of `v` whose step (`x`) changes no variable and whose scope is
    /// `v`'s, so that the only point at `u` that can step to `at` is `at`'s valuation itself:
    /// `Some(Some(stamp))` of the oldest batch of `u` older than `at` holding it, `Some(None)`
    /// if none does (or the step's test fails there). `None` if the shortcut does not apply.
    pub(super) fn kept_point(
        &self,
        u: u32,
        v: u32,
        x: &Xfer<B>,
        at: &Point<B::F>,
    ) -> Option<Option<u32>> {
        let b = &self.bdd;
        let cond = match x {
            Xfer::Jump { .. } => None,
            Xfer::Branch { t, f, .. } => {
                let s = self.succs(u);
                match (s[0] == v, s[1] == v) {
                    (true, false) => Some(t),
                    (false, true) => Some(f),
                    _ => return None,
                }
            }
            Xfer::Assume { t, .. } | Xfer::Assert { t, .. } => Some(t),
            _ => return None,
        };
        let q = self.proc_of[u as usize] as usize;
        if self.proc_of[v as usize] as usize != q {
            return None;
        }
        let live = &self.procs[q].live;
        if live[self.pc(u) as usize] != live[self.pc(v) as usize] {
            return None;
        }
        if let Some(c) = cond {
            if !b.eval(c, &at.vals)? {
                return Some(None);
            }
        }
        self.batch_holding(u, &at.vals, at.stamp)
    }

    /// The batch of `u` older than `below` that holds the valuation `vals` (the batches of a
    /// vertex are disjoint: each holds only edges new at that vertex), `Some(None)` if none
    /// does; `None` if a batch reads a variable `vals` does not assign.
    pub(in crate::symbolic) fn batch_holding(
        &self,
        u: u32,
        vals: &[(u32, bool)],
        below: u32,
    ) -> Option<Option<u32>> {
        let b = &self.bdd;
        let mut i = self.head[u as usize];
        while i != NONE {
            if i < below && b.eval(&self.log[i as usize].0, vals)? {
                return Some(Some(i));
            }
            i = self.log[i as usize].1;
        }
        Some(None)
    }

    /// For a step `u` → `v` that is not a call or a return: the oldest batch of `u` older than
    /// `at` holding a valuation of `u`'s scope that steps to `at`, and that valuation, found by
    /// enumerating the few valuations that agree with `at` on the variables the step keeps and
    /// evaluating the step's test or relation and the batches on them (no BDD is built). A step
    /// keeps every variable of `u`'s scope but an assignment's live targets (whose next copies
    /// `at` gives); the variables that die on the way are free. `Some(None)` if there is none;
    /// `None` when this does not apply (too many free variables, or a function reads a variable
    /// the valuations do not assign), and the caller computes the pre-image with BDDs.
    pub(super) fn pre_by_eval(
        &self,
        u: u32,
        v: u32,
        x: &Xfer<B>,
        at: &Point<B::F>,
        scratch: &mut Scratch,
    ) -> Option<Option<Stamped>> {
        /// At most 2^MAX_FREE valuations are tried.
        const MAX_FREE: usize = 4;
        let b = &self.bdd;
        // the test on the way from `u` to `v` (over `u`'s current copies)
        let either;
        let test: Option<&B::F> = match x {
            Xfer::Branch { t, f, .. } => {
                let s = self.succs(u);
                match (s[0] == v, s[1] == v) {
                    (true, false) => Some(t),
                    (false, true) => Some(f),
                    _ => {
                        either = b.or(t, f);
                        Some(&either)
                    }
                }
            }
            Xfer::Assume { t, .. } | Xfer::Assert { t, .. } => Some(t),
            Xfer::Jump { .. } | Xfer::Update { .. } => None,
            Xfer::Call(_) | Xfer::Return { .. } => return None,
        };
        // an assignment's relation and its renaming of the live targets to their next copies
        let (rel, back) = match x {
            Xfer::Update { rel, back, .. } => (Some(rel), Some(back)),
            _ => (None, None),
        };
        // the oldest batch of `u` (the tail of its list): nothing older can be found
        let mut oldest = NONE;
        let mut i = self.head[u as usize];
        while i != NONE {
            oldest = i;
            i = self.log[i as usize].1;
        }
        if oldest == NONE || oldest >= at.stamp {
            return Some(None);
        }
        let scope = self.scope_of(u);
        // the valuation at `u`: `at`'s values on the variables the step keeps (which must all
        // be in `u`'s scope), the free variables (the others) set from the bits tried; and
        // the point's next copies of the live targets, which the relation also reads
        let Scratch {
            vals,
            next,
            free,
            full,
            free_full,
        } = scratch;
        vals.clear();
        next.clear();
        free.clear();
        full.clear();
        free_full.clear();
        let mut k = 0;
        for &(x, val) in at.vals.iter() {
            let y = back.map_or(x, |r| b.renamed(r, x));
            if y != x {
                next.push((y, val));
                continue;
            }
            // `x` is kept: the scope's variables before it are free
            while k < scope.len() && scope[k] < x {
                free.push(vals.len());
                vals.push((scope[k], false));
                k += 1;
            }
            if k == scope.len() || scope[k] != x {
                return None;
            }
            vals.push((x, val));
            k += 1;
        }
        for &x in &scope[k..] {
            free.push(vals.len());
            vals.push((x, false));
        }
        if free.len() > MAX_FREE {
            return None;
        }
        next.sort_unstable_by_key(|p| p.0);
        // `vals` and `next` merged (both sorted), and where the free variables are in it
        if rel.is_some() {
            let (mut i, mut j, mut f) = (0, 0, 0);
            while i < vals.len() || j < next.len() {
                if j == next.len() || (i < vals.len() && vals[i].0 < next[j].0) {
                    if f < free.len() && free[f] == i {
                        free_full.push(full.len());
                        f += 1;
                    }
                    full.push(vals[i]);
                    i += 1;
                } else {
                    full.push(next[j]);
                    j += 1;
                }
            }
        }
        let mut best: Option<(u32, u32)> = None;
        for bits in 0u32..(1 << free.len()) {
            for (j, &at) in free.iter().enumerate() {
                vals[at].1 = bits & (1 << j) != 0;
            }
            if let Some(t) = test {
                if !b.eval(t, vals)? {
                    continue;
                }
            }
            if let Some(rel) = rel {
                for (j, &at) in free_full.iter().enumerate() {
                    full[at].1 = bits & (1 << j) != 0;
                }
                if !b.eval(rel, full)? {
                    continue;
                }
            }
            if let Some(s) = self.batch_holding(u, vals, at.stamp)? {
                if best.is_none_or(|x| s < x.0) {
                    best = Some((s, bits));
                    if s == oldest {
                        break;
                    }
                }
            }
        }
        Some(best.map(|(s, bits)| {
            for (j, &at) in free.iter().enumerate() {
                vals[at].1 = bits & (1 << j) != 0;
            }
            (s, Vals::from_slice(vals))
        }))
    }
}
