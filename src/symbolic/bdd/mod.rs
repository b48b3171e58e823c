//! The BDD package behind a small trait of our own.
//!
//! The engine talks only to [`Bdds`]: constants, variables, the boolean connectives, existential
//! quantification (alone and fused with conjunction), parallel renaming, restriction, and picking
//! one satisfying assignment. [`Oxidd`] implements it with oxidd's complement-edge BDDs (shared
//! unique table, apply cache, garbage collection). Allocation failures do not panic: the
//! operation returns `false` and [`Bdds::out_of_memory`] turns true, so that the search can stop
//! with a memory limit. The passes that work on oxidd's raw edges (our renaming among them)
//! are in `edges`.

use oxidd::bcdd::{BCDDFunction, BCDDManagerRef};
use oxidd::util::OptBool;
use oxidd::{BooleanFunction, BooleanFunctionQuant, BooleanOperator, Function};
use oxidd::{InnerNode, Manager, ManagerRef};
use std::cell::Cell;

mod edges;

use edges::{IndexTable, Memo};

/// A BDD manager: every method takes and returns functions of this manager only.
pub trait Bdds {
    /// A boolean function (a handle; cloning is cheap).
    type F: Clone + PartialEq + Eq + std::hash::Hash;
    /// A prepared renaming of variables (built once, applied many times).
    type Renaming;

    /// The number of variables (levels); variable `i` is at level `i` and never moves.
    fn num_vars(&self) -> u32;
    /// The function that is true iff variable `i` is.
    fn var(&self, i: u32) -> Self::F;
    /// The constant `b`.
    fn constant(&self, b: bool) -> Self::F;
    /// `¬a`.
    fn not(&self, a: &Self::F) -> Self::F;
    /// `a ∧ b`.
    fn and(&self, a: &Self::F, b: &Self::F) -> Self::F;
    /// `a ∨ b`.
    fn or(&self, a: &Self::F, b: &Self::F) -> Self::F;
    /// `a ∧ ¬b`.
    fn and_not(&self, a: &Self::F, b: &Self::F) -> Self::F;
    /// `a ↔ b`.
    fn equiv(&self, a: &Self::F, b: &Self::F) -> Self::F;
    /// `c ? t : e`.
    fn ite(&self, c: &Self::F, t: &Self::F, e: &Self::F) -> Self::F;
    /// `∃ vars. f`, where `vars` is a [`Bdds::cube`] of positive literals.
    fn exists(&self, f: &Self::F, vars: &Self::F) -> Self::F;
    /// `∃ vars. f ∧ g` in one pass (the relational product).
    fn and_exists(&self, f: &Self::F, g: &Self::F, vars: &Self::F) -> Self::F;
    /// The conjunction of the positive literals of `vars`.
    fn cube(&self, vars: &[u32]) -> Self::F;
    /// The conjunction of the literals `(var, value)`.
    fn literals(&self, lits: &[(u32, bool)]) -> Self::F;
    /// Prepares the parallel renaming `from[i] ↦ to[i]`.
    fn renaming(&self, pairs: &[(u32, u32)]) -> Self::Renaming;
    /// Applies a prepared renaming.
    fn rename(&self, f: &Self::F, r: &Self::Renaming) -> Self::F;
    /// `rename(∃ vars. f ∧ g, r)` in one pass: the part of `f` above every variable of `g`,
    /// `vars` and `r` is rebuilt unchanged around the operation on its sub-functions, so that
    /// no intermediate copy of it is made (the result usually shares it with `f`).
    fn and_exists_rename(
        &self,
        f: &Self::F,
        g: &Self::F,
        vars: &Self::F,
        r: &Self::Renaming,
    ) -> Self::F {
        self.rename(&self.and_exists(f, g, vars), r)
    }
    /// `∃ (every variable but keep). f`, `keep` sorted.
    fn project(&self, f: &Self::F, keep: &[u32]) -> Self::F;
    /// The variable a prepared renaming maps `v` to (`v` itself if it does not rename it).
    fn renamed(&self, r: &Self::Renaming, v: u32) -> u32;
    /// The value of `f` under the assignment `vals` (sorted by variable), or `None` if the
    /// evaluation meets a variable `vals` does not assign.
    fn eval(&self, f: &Self::F, vals: &[(u32, bool)]) -> Option<bool>;
    /// `f` with the variables of the literal conjunction `lits` fixed to their values.
    fn restrict(&self, f: &Self::F, lits: &Self::F) -> Self::F;
    /// The top variable of `f` (the smallest it depends on), `u32::MAX` for a constant: the
    /// encoder combines associative chains by it (see `model::Encoder`).
    fn top_var(&self, f: &Self::F) -> u32;
    /// Whether `f` is the constant false.
    fn is_false(&self, f: &Self::F) -> bool;
    /// Whether `f` is the constant true.
    fn is_true(&self, f: &Self::F) -> bool;
    /// One satisfying partial assignment, indexed by variable (`None` = either value), or
    /// `None` if `f` is false.
    fn pick(&self, f: &Self::F) -> Option<Vec<Option<bool>>>;
    /// The number of satisfying assignments to `k` variables, `f` depending on no others
    /// (saturating at `f64::INFINITY`).
    fn count(&self, f: &Self::F, k: u32) -> f64;
    /// Frees the nodes no function refers to any more; returns how many.
    fn collect_garbage(&self) -> usize;
    /// The number of nodes of `f`.
    fn size(&self, f: &Self::F) -> usize;
    /// The number of live nodes in the manager (approximately).
    fn live_nodes(&self) -> usize;
    /// Whether an operation failed for lack of node space.
    fn out_of_memory(&self) -> bool;
}

/// A prepared renaming: the new variable of each renamed one, indexed by variable.
#[derive(Clone)]
pub struct Renaming {
    /// `(from, to)`, sorted by `from` (sparse: the order can have thousands of variables and
    /// a program thousands of renamings).
    pairs: Vec<(u32, u32)>,
    /// One past the deepest renamed variable (0 if none).
    end: u32,
    /// The smallest variable renamed or renamed to (`u32::MAX` if none).
    top: u32,
}

/// A manager kept for the next check on the same thread. oxidd starts two threads per manager
/// and its garbage-collection thread can miss the signal to stop when a manager lives only a
/// few microseconds, so short checks (the differential test runs thousands) leaked threads and
/// memory; reusing one manager per thread avoids creating them at all.
struct Pooled {
    manager: BCDDManagerRef,
    vars: Vec<BCDDFunction>,
    nodes: usize,
    cache: usize,
}

thread_local! {
    static POOL: std::cell::RefCell<Option<Pooled>> = const { std::cell::RefCell::new(None) };
}

/// oxidd's complement-edge BDDs.
pub struct Oxidd {
    manager: BCDDManagerRef,
    /// Every variable the manager has (a reused manager may have more than this check uses).
    all_vars: Vec<BCDDFunction>,
    nodes: usize,
    cache: usize,
    vars: Vec<BCDDFunction>,
    f: BCDDFunction,
    t: BCDDFunction,
    oom: Cell<bool>,
    count_memo: std::cell::RefCell<ahash::AHashMap<BCDDFunction, f64>>,
    /// Index tables for the walks on raw edges (see `Memo`).
    memo_pool: std::cell::RefCell<Vec<IndexTable>>,
    /// The last boundary computed (see `deep_boundary`): the function, the level, the
    /// sub-functions.
    boundary_cache: std::cell::RefCell<Option<(BCDDFunction, u32, Vec<BCDDFunction>)>>,
}

impl Oxidd {
    /// Another reference to the manager. oxidd stops a manager's garbage-collection thread when
    /// the second-to-last manager reference is dropped; holding this one until every function
    /// is gone makes that happen (otherwise each check leaks two threads).
    pub fn manager_guard(&self) -> BCDDManagerRef {
        self.manager.clone()
    }

    /// A manager with `vars` variables, room for `node_capacity` inner nodes and an apply cache
    /// of `cache_capacity` entries.
    /// A manager of this thread's pool is reused when it is large enough.
    pub fn new(vars: u32, node_capacity: usize, cache_capacity: usize) -> Oxidd {
        let pooled = POOL.with(|p| p.borrow_mut().take());
        let (manager, mut all_vars, nodes, cache) = match pooled {
            Some(p) if p.nodes >= node_capacity && p.cache >= cache_capacity => {
                (p.manager, p.vars, p.nodes, p.cache)
            }
            _ => (
                oxidd::bcdd::new_manager(node_capacity, cache_capacity, 1),
                Vec::new(),
                node_capacity,
                cache_capacity,
            ),
        };
        let (f, t) = manager.with_manager_exclusive(|m| {
            if all_vars.len() < vars as usize {
                // variables are added at the bottom: variable `i` is at level `i`
                let new = m.add_vars(vars - all_vars.len() as u32);
                for v in new {
                    all_vars.push(BCDDFunction::var(m, v).expect("room for the variables"));
                }
            }
            (BCDDFunction::f(m), BCDDFunction::t(m))
        });
        // nodes left by an earlier check on this manager are garbage now
        manager.with_manager_shared(|m| m.gc());
        let vars = all_vars[..vars as usize].to_vec();
        Oxidd {
            manager,
            all_vars,
            nodes,
            cache,
            vars,
            f,
            t,
            oom: Cell::new(false),
            count_memo: Default::default(),
            memo_pool: Default::default(),
            boundary_cache: Default::default(),
        }
    }
}

impl Drop for Oxidd {
    fn drop(&mut self) {
        self.count_memo.get_mut().clear();
        *self.boundary_cache.get_mut() = None;
        let pooled = Pooled {
            manager: self.manager.clone(),
            vars: std::mem::take(&mut self.all_vars),
            nodes: self.nodes,
            cache: self.cache,
        };
        // `try_with`: during thread teardown the pool may be gone; then the manager just drops
        let _ = POOL.try_with(|p| *p.borrow_mut() = Some(pooled));
    }
}

impl Bdds for Oxidd {
    type F = BCDDFunction;
    type Renaming = Renaming;

    fn num_vars(&self) -> u32 {
        self.vars.len() as u32
    }
    fn var(&self, i: u32) -> BCDDFunction {
        self.vars[i as usize].clone()
    }
    fn constant(&self, b: bool) -> BCDDFunction {
        if b {
            self.t.clone()
        } else {
            self.f.clone()
        }
    }
    #[inline]
    fn not(&self, a: &BCDDFunction) -> BCDDFunction {
        self.ok(a.not())
    }
    #[inline]
    fn and(&self, a: &BCDDFunction, b: &BCDDFunction) -> BCDDFunction {
        if *a == self.t || *b == self.f {
            return b.clone();
        }
        if *b == self.t || *a == self.f {
            return a.clone();
        }
        self.ok(a.and(b))
    }
    #[inline]
    fn or(&self, a: &BCDDFunction, b: &BCDDFunction) -> BCDDFunction {
        if *a == self.f || *b == self.t {
            return b.clone();
        }
        if *b == self.f || *a == self.t {
            return a.clone();
        }
        self.ok(a.or(b))
    }
    #[inline]
    fn and_not(&self, a: &BCDDFunction, b: &BCDDFunction) -> BCDDFunction {
        if *b == self.f || *a == self.f {
            return a.clone();
        }
        // imp_strict(x, y) = ¬x ∧ y
        self.ok(b.imp_strict(a))
    }
    #[inline]
    fn equiv(&self, a: &BCDDFunction, b: &BCDDFunction) -> BCDDFunction {
        self.ok(a.equiv(b))
    }
    #[inline]
    fn ite(&self, c: &BCDDFunction, t: &BCDDFunction, e: &BCDDFunction) -> BCDDFunction {
        self.ok(c.ite(t, e))
    }
    #[inline]
    fn exists(&self, f: &BCDDFunction, vars: &BCDDFunction) -> BCDDFunction {
        if *vars == self.t || *f == self.f || *f == self.t {
            return f.clone();
        }
        self.ok(f.exists(vars))
    }
    #[inline]
    fn and_exists(&self, f: &BCDDFunction, g: &BCDDFunction, vars: &BCDDFunction) -> BCDDFunction {
        if *g == self.t {
            return self.exists(f, vars);
        }
        if *f == self.t {
            return self.exists(g, vars);
        }
        if *f == self.f || *g == self.f {
            return self.f.clone();
        }
        if *vars == self.t {
            return self.ok(f.and(g));
        }
        self.ok(f.apply_exists(BooleanOperator::And, g, vars))
    }
    fn cube(&self, vars: &[u32]) -> BCDDFunction {
        let lits: Vec<(u32, bool)> = vars.iter().map(|&v| (v, true)).collect();
        self.literals(&lits)
    }
    fn literals(&self, lits: &[(u32, bool)]) -> BCDDFunction {
        let mut sorted = lits.to_vec();
        sorted.sort_unstable_by_key(|l| std::cmp::Reverse(l.0));
        // bottom-up on raw edges, so that each conjunction adds one node on top and no
        // intermediate function handle is made
        let r = self.manager.with_manager_shared(|m| {
            let mut acc = m.clone_edge(self.t.as_edge(m));
            for (v, b) in sorted {
                let var = self.vars[v as usize].as_edge(m);
                let next = if b {
                    BCDDFunction::and_edge(m, var, acc.borrowed())
                } else {
                    // ¬var ∧ acc
                    BCDDFunction::imp_strict_edge(m, var, acc.borrowed())
                };
                m.drop_edge(acc);
                acc = next?;
            }
            Ok(BCDDFunction::from_edge(m, acc))
        });
        self.ok(r)
    }
    fn renaming(&self, pairs: &[(u32, u32)]) -> Renaming {
        let mut sorted = pairs.to_vec();
        sorted.sort_unstable();
        let end = sorted.last().map_or(0, |p| p.0 + 1);
        let top = pairs.iter().map(|p| p.0.min(p.1)).min().unwrap_or(u32::MAX);
        Renaming {
            pairs: sorted,
            end,
            top,
        }
    }
    fn project(&self, f: &BCDDFunction, keep: &[u32]) -> BCDDFunction {
        if self.is_false(f) || self.is_true(f) {
            return f.clone();
        }
        if let Some(&top) = keep.first() {
            if let Some(bs) = self.deep_boundary(f, top) {
                // no kept variable above `top`: quantifying those variables is the
                // disjunction of the sub-functions the paths through them end in
                let mut acc = self.constant(false);
                for b in &bs {
                    acc = self.or(&acc, &self.project(b, keep));
                    if self.is_true(&acc) {
                        break;
                    }
                }
                return acc;
            }
        }
        let r = f.with_manager_shared(|m, e| {
            let mut memo = Memo::new(self);
            let out = self.project_e(m, e, keep, &mut memo);
            memo.finish(m, self);
            Ok(BCDDFunction::from_edge(m, out?))
        });
        self.ok(r)
    }
    fn and_exists_rename(
        &self,
        f: &BCDDFunction,
        g: &BCDDFunction,
        vars: &BCDDFunction,
        r: &Renaming,
    ) -> BCDDFunction {
        let top = self.level(g).min(self.level(vars)).min(r.top);
        if let Some(bs) = self.deep_boundary(f, top) {
            // the operation commutes with the Shannon expansion above `top`: when it leaves
            // every sub-function at the boundary unchanged, it leaves `f` unchanged
            let same = bs.iter().all(|b| {
                let x = f.with_manager_shared(|m, _| {
                    self.and_exists_rename_e(m, b.as_edge(m), g, vars, r)
                });
                self.ok(x) == *b
            });
            if same {
                return f.clone();
            }
        }
        let res = f.with_manager_shared(|m, f| self.and_exists_rename_e(m, f, g, vars, r));
        self.ok(res)
    }
    fn rename(&self, f: &BCDDFunction, r: &Renaming) -> BCDDFunction {
        if *f == self.f || *f == self.t || r.pairs.is_empty() {
            return f.clone();
        }
        let res = f.with_manager_shared(|m, e| {
            let mut memo = Memo::new(self);
            let out = self.rename_e(m, e, r, &mut memo);
            memo.finish(m, self);
            Ok(BCDDFunction::from_edge(m, out?))
        });
        self.ok(res)
    }
    fn renamed(&self, r: &Renaming, v: u32) -> u32 {
        match r.pairs.binary_search_by_key(&v, |p| p.0) {
            Ok(i) => r.pairs[i].1,
            Err(_) => v,
        }
    }
    fn eval(&self, f: &BCDDFunction, vals: &[(u32, bool)]) -> Option<bool> {
        f.with_manager_shared(|m, e| {
            let none = Default::default();
            let mut neg = e.tag() != none;
            let mut e = e;
            loop {
                let n = m.get_node(e);
                let level = n.level();
                if level == u32::MAX {
                    return Some(!neg);
                }
                let i = vals.binary_search_by_key(&level, |p| p.0).ok()?;
                let child = n.unwrap_inner().child(if vals[i].1 { 0 } else { 1 });
                neg ^= child.tag() != none;
                e = child;
            }
        })
    }
    #[inline]
    fn restrict(&self, f: &BCDDFunction, lits: &BCDDFunction) -> BCDDFunction {
        self.ok(f.restrict(lits))
    }
    #[inline]
    fn top_var(&self, f: &BCDDFunction) -> u32 {
        self.level(f)
    }
    #[inline]
    fn is_false(&self, f: &BCDDFunction) -> bool {
        *f == self.f
    }
    #[inline]
    fn is_true(&self, f: &BCDDFunction) -> bool {
        *f == self.t
    }
    fn pick(&self, f: &BCDDFunction) -> Option<Vec<Option<bool>>> {
        let cube = f.pick_cube(|_, _, _| false)?;
        Some(
            cube.into_iter()
                .map(|b| match b {
                    OptBool::None => None,
                    OptBool::False => Some(false),
                    OptBool::True => Some(true),
                })
                .collect(),
        )
    }
    fn count(&self, f: &BCDDFunction, k: u32) -> f64 {
        if self.is_false(f) {
            return 0.0;
        }
        let n = self.num_vars();
        let mut memo = self.count_memo.borrow_mut();
        // log2 of the count over all variables, minus the free ones outside the k
        let all = if self.is_true(f) {
            n as f64
        } else {
            self.level(f) as f64 + self.log_count(f, &mut memo)
        };
        (all - (n - k) as f64).exp2()
    }
    fn collect_garbage(&self) -> usize {
        self.count_memo.borrow_mut().clear();
        self.manager.with_manager_shared(|m| m.gc())
    }
    fn size(&self, f: &BCDDFunction) -> usize {
        f.node_count()
    }
    fn live_nodes(&self) -> usize {
        self.manager
            .with_manager_shared(|m| m.approx_num_inner_nodes())
    }
    fn out_of_memory(&self) -> bool {
        self.oom.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Oxidd {
        fn xor_for_test(&self) -> BCDDFunction {
            let mut f = self.constant(false);
            for i in 0..6 {
                f = self.ok(f.xor(&self.var(i)));
            }
            f
        }
    }

    fn m() -> Oxidd {
        Oxidd::new(6, 1 << 16, 1 << 12)
    }

    #[test]
    fn connectives() {
        let m = m();
        let (a, b) = (m.var(0), m.var(1));
        let t = m.constant(true);
        assert!(m.is_true(&m.or(&a, &m.not(&a))));
        assert!(m.is_false(&m.and(&a, &m.not(&a))));
        assert!(m.and_not(&a, &b) == m.and(&a, &m.not(&b)));
        assert!(m.ite(&a, &b, &t) == m.or(&m.not(&a), &b));
        assert!(m.is_true(&m.equiv(&m.equiv(&a, &b), &m.equiv(&b, &a))));
        assert_eq!(m.count(&a, 3), 4.0);
        assert_eq!(m.count(&m.or(&a, &b), 2), 3.0);
        assert_eq!(m.count(&m.and(&b, &m.var(4)), 4), 4.0);
        assert_eq!(m.count(&m.constant(true), 2), 4.0);
        assert_eq!(m.count(&m.xor_for_test(), 6), 32.0);
    }

    #[test]
    fn quantification_and_relational_product() {
        let m = m();
        let (a, b, c) = (m.var(0), m.var(1), m.var(2));
        let f = m.and(&a, &b);
        assert!(m.exists(&f, &m.cube(&[1])) == a);
        let g = m.equiv(&b, &c);
        let direct = m.exists(&m.and(&f, &g), &m.cube(&[1]));
        assert!(m.and_exists(&f, &g, &m.cube(&[1])) == direct);
        assert!(direct == m.and(&a, &c));
    }

    /// Managers made and dropped one after another on one thread: oxidd 0.10 kept the thread's
    /// cache of free node slots tied to a dropped manager's address, and a new manager at that
    /// address then handed out slots of live nodes (wrong answers, cyclic diagrams).
    #[test]
    fn managers_replaced_on_one_thread_stay_sound() {
        std::thread::spawn(|| {
            for round in 0..400u32 {
                // two at once, so that each round drops one manager and makes another
                let a = Oxidd::new(10, 1 << 12, 1 << 10);
                let b = Oxidd::new(10, 1 << 12, 1 << 10);
                for m in [&a, &b] {
                    // eval touches no node; then a function built from many new nodes
                    assert_eq!(m.eval(&m.var(0), &[(0, true)]), Some(true));
                    let mut f = m.constant(false);
                    for i in 0..10 {
                        let lit = if (round >> (i % 5)) & 1 == 1 {
                            m.var(i)
                        } else {
                            m.not(&m.var(i))
                        };
                        f = m.or(&m.and(&f, &m.var((i + 3) % 10)), &lit);
                    }
                    let swap = m.renaming(&(0..10).map(|i| (i, 9 - i)).collect::<Vec<_>>());
                    let g = m.rename(&m.rename(&f, &swap), &swap);
                    assert!(g == f, "round {round}");
                    let x = m.xor_for_test();
                    assert_eq!(m.count(&x, 10), 512.0, "round {round}");
                    m.collect_garbage();
                }
                // `a` is the manager the thread used first: drop it for good, and give its
                // garbage-collection thread (which holds it too) time to let it go
                drop(a);
                drop(b);
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        })
        .join()
        .expect("no fault");
    }

    #[test]
    fn renaming_is_parallel() {
        let m = m();
        let (a, b) = (m.var(0), m.var(1));
        let f = m.and(&a, &m.not(&b));
        let swap = m.renaming(&[(0, 1), (1, 0)]);
        assert!(m.rename(&f, &swap) == m.and(&b, &m.not(&a)));
        let down = m.renaming(&[(0, 4)]);
        assert!(m.rename(&a, &down) == m.var(4));
    }

    #[test]
    fn pick_and_restrict() {
        let m = m();
        let f = m.and(&m.var(2), &m.not(&m.var(4)));
        let p = m.pick(&f).unwrap();
        assert_eq!(p[2], Some(true));
        assert_eq!(p[4], Some(false));
        assert_eq!(p[0], None);
        assert!(m.pick(&m.constant(false)).is_none());
        let lits = m.literals(&[(2, true), (4, false)]);
        assert!(m.is_true(&m.restrict(&f, &lits)));
        assert!(m.is_false(&m.restrict(&f, &m.literals(&[(4, true)]))));
    }
}
