//! Passes over oxidd's raw edges inside one manager access: renaming, projection, fused
//! conjunction with quantification, and the walks the counterexample search needs. They skip
//! the reference-count traffic of function handles and reuse a node whose cofactors come back
//! unchanged instead of looking it up again in the unique table.

use super::{Bdds, Oxidd, Renaming};
use oxidd::bcdd::BCDDFunction;
use oxidd::util::Ref;
use oxidd::Manager;
use oxidd::{BooleanFunction, BooleanFunctionQuant, BooleanOperator, Function};
use oxidd_core::util::Own;

/// The manager and edge types of oxidd's index-based complement-edge BDDs, for the passes below
/// that work on raw edges inside one manager access (no function handle, no reference-count
/// traffic per visited node, and a node whose cofactors come back unchanged is reused as it
/// is instead of being looked up again in the unique table).
type Mgr<'id> = <BCDDFunction as Function>::Manager<'id>;
type Ed<'id> = <Mgr<'id> as Manager>::Edge;
/// An edge that holds a reference to its node (given back with `drop_edge`).
type OwnEd<'id> = Own<Ed<'id>>;
/// An edge borrowed from one that holds a reference.
type RefEd<'a, 'id> = Ref<'a, Ed<'id>>;

/// Both halves of a node's walk once the second is done; if it failed, the first is given
/// back to the manager (an edge not dropped would leak).
fn with_first<'id>(
    m: &Mgr<'id>,
    h: OwnEd<'id>,
    l: oxidd::util::AllocResult<OwnEd<'id>>,
) -> oxidd::util::AllocResult<(OwnEd<'id>, OwnEd<'id>)> {
    match l {
        Ok(l) => Ok((h, l)),
        Err(x) => {
            m.drop_edge(h);
            Err(x)
        }
    }
}

/// Results per visited edge (node and complement tag): an index into `out`, or [`SAME`] when
/// the result is the visited edge itself. The index table is taken from a pool and given back
/// with its capacity (growing a table from empty at each call was a large part of long walks).
///
/// The memo holds a reference to every node it has a key for: oxidd's garbage collector runs
/// on a thread of its own, and a node freed while the walk goes on could come back under the
/// same index as another function and meet the old function's result.
pub(super) struct Memo<'id> {
    ix: IndexTable,
    out: Vec<OwnEd<'id>>,
    keys: Vec<OwnEd<'id>>,
}

/// Keys are node indices with the complement bit: Fx hashing (one multiplication) suffices.
pub(super) type IndexTable =
    std::collections::HashMap<u64, u32, std::hash::BuildHasherDefault<oxidd::util::FxHasher>>;

/// The result is the visited edge.
const SAME: u32 = u32::MAX;

impl<'id> Memo<'id> {
    pub(super) fn new(o: &Oxidd) -> Memo<'id> {
        Memo {
            ix: o.memo_pool.borrow_mut().pop().unwrap_or_default(),
            out: Vec::new(),
            keys: Vec::new(),
        }
    }
    #[inline]
    pub(super) fn get(&self, m: &Mgr<'id>, e: RefEd<'_, 'id>) -> Option<OwnEd<'id>> {
        self.ix.get(&key(e)).map(|&i| {
            if i == SAME {
                m.clone_edge(e)
            } else {
                m.clone_edge(self.out[i as usize].borrowed())
            }
        })
    }
    /// Records `out` as the result for `e` (`same`: `out` is `e`).
    #[inline]
    pub(super) fn put(&mut self, m: &Mgr<'id>, e: RefEd<'_, 'id>, out: RefEd<'_, 'id>, same: bool) {
        let i = if same {
            SAME
        } else {
            self.out.push(m.clone_edge(out));
            self.out.len() as u32 - 1
        };
        if self.ix.insert(key(e), i).is_none() {
            self.keys.push(m.clone_edge(e));
        }
    }
    /// Drops the recorded edges and gives the table back to the pool.
    pub(super) fn finish(mut self, m: &Mgr<'id>, o: &Oxidd) {
        for e in self.out.drain(..).chain(self.keys.drain(..)) {
            m.drop_edge(e);
        }
        // clearing costs the table's capacity: do not keep a huge table for small walks
        if self.ix.capacity() > 1 << 16 && self.ix.len() * 8 < self.ix.capacity() {
            self.ix = Default::default();
        }
        self.ix.clear();
        o.memo_pool.borrow_mut().push(self.ix);
    }
}

#[inline]
fn key(e: RefEd<'_, '_>) -> u64 {
    ((e.node_id() as u64) << 1) | (e.tag() != Default::default()) as u64
}

#[inline]
fn level_of<'id>(m: &Mgr<'id>, e: RefEd<'_, 'id>) -> u32 {
    m.get_node(e).level()
}

impl Oxidd {
    /// `level ? hi : lo` (consumes `hi` and `lo`); `orig` if `same` (the caller found that
    /// these are `orig`'s level and cofactors).
    pub(super) fn node_e<'id>(
        &self,
        m: &Mgr<'id>,
        orig: RefEd<'_, 'id>,
        same: bool,
        level: u32,
        hi: OwnEd<'id>,
        lo: OwnEd<'id>,
    ) -> oxidd::util::AllocResult<OwnEd<'id>> {
        let out = if same {
            Ok(m.clone_edge(orig))
        } else {
            BCDDFunction::ite_edge(
                m,
                self.vars[level as usize].as_edge(m),
                hi.borrowed(),
                lo.borrowed(),
            )
        };
        m.drop_edge(hi);
        m.drop_edge(lo);
        out
    }

    /// Renames below the root of `e`; nodes under the deepest renamed variable stay shared.
    /// (oxidd's `substitute` prepares a table over every level above the deepest renamed one
    /// at each call and was measured quadratic on long BDDs; this walk touches only the
    /// nodes above that variable.)
    pub(super) fn rename_e<'id>(
        &self,
        m: &Mgr<'id>,
        e: RefEd<'_, 'id>,
        r: &Renaming,
        memo: &mut Memo<'id>,
    ) -> oxidd::util::AllocResult<OwnEd<'id>> {
        let level = level_of(m, e);
        if level >= r.end {
            return Ok(m.clone_edge(e));
        }
        if let Some(x) = memo.get(m, e) {
            return Ok(x);
        }
        let (hi, lo) = BCDDFunction::cofactors_edge(m, e).expect("an inner node");
        let h = self.rename_e(m, hi, r, memo)?;
        let (h, l) = with_first(m, h, self.rename_e(m, lo, r, memo))?;
        let to = self.renamed(r, level);
        let same = to == level && h.borrowed() == hi && l.borrowed() == lo;
        let out = self.node_e(m, e, same, to, h, l)?;
        memo.put(m, e, out.borrowed(), same);
        Ok(out)
    }

    /// `∃ (every variable but keep). e`, `keep` sorted.
    pub(super) fn project_e<'id>(
        &self,
        m: &Mgr<'id>,
        e: RefEd<'_, 'id>,
        keep: &[u32],
        memo: &mut Memo<'id>,
    ) -> oxidd::util::AllocResult<OwnEd<'id>> {
        let level = level_of(m, e);
        if level == u32::MAX {
            return Ok(m.clone_edge(e));
        }
        // below the last kept variable, a satisfiable function projects to true
        if keep.last().is_none_or(|&k| level > k) {
            return Ok(m.clone_edge(self.t.as_edge(m)));
        }
        if let Some(x) = memo.get(m, e) {
            return Ok(x);
        }
        let (hi, lo) = BCDDFunction::cofactors_edge(m, e).expect("an inner node");
        let h = self.project_e(m, hi, keep, memo)?;
        let out = if keep.binary_search(&level).is_ok() {
            let (h, l) = with_first(m, h, self.project_e(m, lo, keep, memo))?;
            let same = h.borrowed() == hi && l.borrowed() == lo;
            self.node_e(m, e, same, level, h, l)?
        } else if h.borrowed() == self.t.as_edge(m) {
            h
        } else {
            let (h, l) = with_first(m, h, self.project_e(m, lo, keep, memo))?;
            let o = BCDDFunction::or_edge(m, h.borrowed(), l.borrowed());
            m.drop_edge(h);
            m.drop_edge(l);
            o?
        };
        let same = out.borrowed() == e;
        memo.put(m, e, out.borrowed(), same);
        Ok(out)
    }

    /// `∃ vars. f ∧ g` on edges, with the same shortcuts as [`Bdds::and_exists`].
    pub(super) fn and_exists_e<'id>(
        &self,
        m: &Mgr<'id>,
        f: RefEd<'_, 'id>,
        g: RefEd<'_, 'id>,
        vars: RefEd<'_, 'id>,
    ) -> oxidd::util::AllocResult<OwnEd<'id>> {
        let (t, fl) = (self.t.as_edge(m), self.f.as_edge(m));
        if f == fl || g == fl {
            return Ok(m.clone_edge(fl));
        }
        if vars == t {
            return BCDDFunction::and_edge(m, f, g);
        }
        if g == t {
            return if f == t {
                Ok(m.clone_edge(f))
            } else {
                BCDDFunction::exists_edge(m, f, vars)
            };
        }
        if f == t {
            return BCDDFunction::exists_edge(m, g, vars);
        }
        BCDDFunction::apply_exists_edge(m, BooleanOperator::And, f, g, vars)
    }

    /// [`Bdds::and_exists_rename`] inside one manager access.
    pub(super) fn and_exists_rename_e<'id>(
        &self,
        m: &Mgr<'id>,
        f: RefEd<'_, 'id>,
        g: &BCDDFunction,
        vars: &BCDDFunction,
        r: &Renaming,
    ) -> oxidd::util::AllocResult<BCDDFunction> {
        let (g, vars) = (g.as_edge(m), vars.as_edge(m));
        let top = level_of(m, g).min(level_of(m, vars)).min(r.top);
        // one renaming memo for every sub-function: renaming a node does not depend on
        // where it was reached from
        let mut rmemo = Memo::new(self);
        let mut op = |h: RefEd<'_, 'id>| {
            let x = self.and_exists_e(m, h, g, vars)?;
            if r.pairs.is_empty() {
                return Ok(x);
            }
            let out = self.rename_e(m, x.borrowed(), r, &mut rmemo);
            m.drop_edge(x);
            out
        };
        let out = if level_of(m, f) >= top {
            op(f)
        } else {
            let mut memo = Memo::new(self);
            let out = self.above_e(m, f, top, &mut memo, &mut op);
            memo.finish(m, self);
            out
        };
        rmemo.finish(m, self);
        Ok(BCDDFunction::from_edge(m, out?))
    }

    /// `e` with `op` applied to each maximal sub-function whose root is at or below `top`,
    /// for an `op` that commutes with the Shannon expansion on the variables above `top`.
    /// The part above `top` is walked once per node and rebuilt only where a sub-function
    /// changed.
    pub(super) fn above_e<'id>(
        &self,
        m: &Mgr<'id>,
        e: RefEd<'_, 'id>,
        top: u32,
        memo: &mut Memo<'id>,
        op: &mut dyn FnMut(RefEd<'_, 'id>) -> oxidd::util::AllocResult<OwnEd<'id>>,
    ) -> oxidd::util::AllocResult<OwnEd<'id>> {
        let level = level_of(m, e);
        if level >= top {
            return op(e);
        }
        if let Some(x) = memo.get(m, e) {
            return Ok(x);
        }
        let (hi, lo) = BCDDFunction::cofactors_edge(m, e).expect("an inner node");
        let h = self.above_e(m, hi, top, memo, op)?;
        let (h, l) = with_first(m, h, self.above_e(m, lo, top, memo, op))?;
        let same = h.borrowed() == hi && l.borrowed() == lo;
        let out = self.node_e(m, e, same, level, h, l)?;
        memo.put(m, e, out.borrowed(), same);
        Ok(out)
    }

    /// The maximal sub-functions of `f` whose roots are at or below level `top` (terminals
    /// included), when `top` lies deep below `f`'s root; `None` otherwise. The last answer is
    /// kept: a caller's path edges are passed to call after call whose callees touch deeper
    /// and deeper variables (bp-parity), and extending the boundary from the last one instead
    /// of walking down from the root each time keeps such a sequence linear.
    pub(super) fn deep_boundary(&self, f: &BCDDFunction, top: u32) -> Option<Vec<BCDDFunction>> {
        /// Fewer levels than this above `top`: walking from the root is cheap enough.
        const DEEP: u32 = 96;
        let level = self.level(f);
        if top == u32::MAX || level >= top || top - level < DEEP {
            return None;
        }
        let mut cache = self.boundary_cache.borrow_mut();
        let mut stack = match &*cache {
            Some((root, t, bs)) if root == f && *t <= top => bs.clone(),
            _ => vec![f.clone()],
        };
        let mut seen = ahash::AHashSet::new();
        let mut out = Vec::new();
        while let Some(e) = stack.pop() {
            if !seen.insert(e.clone()) {
                continue;
            }
            if self.level(&e) >= top {
                out.push(e);
            } else {
                let (hi, lo) = e.cofactors().expect("an inner node");
                stack.push(lo);
                stack.push(hi);
            }
        }
        *cache = Some((f.clone(), top, out.clone()));
        Some(out)
    }

    /// log2 of the number of assignments to the levels from `f`'s top level down that satisfy
    /// the inner node `f`.
    pub(super) fn log_count(
        &self,
        f: &BCDDFunction,
        memo: &mut ahash::AHashMap<BCDDFunction, f64>,
    ) -> f64 {
        if let Some(&x) = memo.get(f) {
            return x;
        }
        let n = self.num_vars();
        let top = self.level(f);
        let (hi, lo) = f.cofactors().expect("an inner node");
        let mut parts = [f64::NEG_INFINITY; 2];
        for (i, g) in [hi, lo].iter().enumerate() {
            parts[i] = if self.is_false(g) {
                f64::NEG_INFINITY
            } else if self.is_true(g) {
                (n - top - 1) as f64
            } else {
                let below = self.level(g);
                self.log_count(g, memo) + (below - top - 1) as f64
            };
        }
        let (a, b) = (parts[0].max(parts[1]), parts[0].min(parts[1]));
        let x = if b == f64::NEG_INFINITY {
            a
        } else {
            a + (1.0 + (b - a).exp2()).log2()
        };
        memo.insert(f.clone(), x);
        x
    }

    /// The level of `f`'s root (`u32::MAX` for a constant).
    pub(super) fn level(&self, f: &BCDDFunction) -> u32 {
        f.with_manager_shared(|m, e| m.get_node(e).level())
    }

    #[inline]
    pub(super) fn ok(&self, r: oxidd::util::AllocResult<BCDDFunction>) -> BCDDFunction {
        match r {
            Ok(f) => f,
            Err(_) => {
                self.oom.set(true);
                self.f.clone()
            }
        }
    }
}
