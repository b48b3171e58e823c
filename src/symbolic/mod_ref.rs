//! MOD/REF (seed 001 §3.3): the globals each procedure reads or writes, itself or through its
//! callees. The BDD engine keeps the others out of a procedure's path edges.

use super::model::{reads, Bits, Reads};
use zingrs_lang::ir::{LValue, Proc, Program, Stmt};

/// The globals each procedure reads or writes, itself or through its callees (MOD ∪ REF).
///
/// Solved one strongly connected component of the call graph at a time, callees first, so
/// each set is built once from its members' own globals and its callees' finished sets (the
/// worklist it replaced merged whole bit sets along every call edge again and again, and kept
/// a bit per global per procedure: quadratic on bp-parity K, K procedures over K globals).
pub fn touched_globals(program: &Program) -> Vec<GlobalSet> {
    let g = program.globals.len();
    let n = program.procs.len();
    // what each procedure touches itself (sorted, or `None` for every global), and its callees
    let mut own: Vec<Option<Vec<u32>>> = Vec::with_capacity(n);
    let mut graph = petgraph::graph::DiGraph::<(), ()>::with_capacity(n, 0);
    for _ in 0..n {
        graph.add_node(());
    }
    let mut mark = Bits::new(g);
    for (p, proc) in program.procs.iter().enumerate() {
        for node in &proc.nodes {
            if let Stmt::Call { callee, .. } = &node.stmt {
                graph.add_edge(
                    petgraph::graph::NodeIndex::new(p),
                    petgraph::graph::NodeIndex::new(*callee as usize),
                    (),
                );
            }
        }
        own.push(own_globals(proc, g, &mut mark));
    }
    let mut touched: Vec<GlobalSet> = vec![GlobalSet::default(); n];
    // the component each procedure's callees were last merged into (each merged once)
    let mut merged_into = vec![usize::MAX; n];
    // `kosaraju_scc` (iterative: call chains are 100,000 deep) lists a component after every
    // component it calls
    for (k, comp) in petgraph::algo::kosaraju_scc(&graph).into_iter().enumerate() {
        let mut list: Vec<u32> = Vec::new();
        let mut all = false;
        let mut add = |i: u32, list: &mut Vec<u32>| {
            if mark.insert(i) {
                list.push(i);
            }
        };
        for &p in &comp {
            merged_into[p.index()] = k;
        }
        'members: for &p in &comp {
            match &own[p.index()] {
                None => all = true,
                Some(l) => l.iter().for_each(|&i| add(i, &mut list)),
            }
            for c in graph.neighbors(p) {
                if all || list.len() == g {
                    all = true;
                    break 'members;
                }
                if std::mem::replace(&mut merged_into[c.index()], k) == k {
                    continue;
                }
                match &touched[c.index()] {
                    GlobalSet::All(_) => all = true,
                    GlobalSet::Sparse(l) => l.iter().for_each(|&i| add(i, &mut list)),
                    GlobalSet::Dense(b, _) => b.iter().for_each(|i| add(i, &mut list)),
                }
            }
        }
        for &i in &list {
            mark.remove(i);
        }
        let set = if all || list.len() == g {
            GlobalSet::All(g as u32)
        } else {
            list.sort_unstable();
            GlobalSet::from_sorted(list, g)
        };
        for &p in &comp {
            touched[p.index()] = set.clone();
        }
    }
    touched
}

/// A set of globals, kept as a sorted list while that is smaller than a bit per global: a
/// procedure usually touches few of a program's globals, and a bit set each made the sets of
/// MOD/REF quadratic in the program (bp-parity K: K procedures over K globals).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GlobalSet {
    /// Every one of this many globals.
    All(u32),
    /// The members, sorted.
    Sparse(Vec<u32>),
    /// The members as bits, and how many there are.
    Dense(Bits, u32),
}

impl Default for GlobalSet {
    fn default() -> Self {
        GlobalSet::Sparse(Vec::new())
    }
}

impl GlobalSet {
    /// The set of `list` (sorted, no repeats) out of `g` globals, in the smaller form.
    pub fn from_sorted(list: Vec<u32>, g: usize) -> GlobalSet {
        if list.len() == g {
            GlobalSet::All(g as u32)
        } else if list.len() * 32 > g {
            let mut b = Bits::new(g);
            for &i in &list {
                b.insert(i);
            }
            GlobalSet::Dense(b, list.len() as u32)
        } else {
            GlobalSet::Sparse(list)
        }
    }
    /// Whether global `i` is a member.
    pub fn contains(&self, i: u32) -> bool {
        match self {
            GlobalSet::All(g) => i < *g,
            GlobalSet::Sparse(l) => l.binary_search(&i).is_ok(),
            GlobalSet::Dense(b, _) => b.contains(i),
        }
    }
    /// The number of members.
    pub fn len(&self) -> u32 {
        match self {
            GlobalSet::All(g) => *g,
            GlobalSet::Sparse(l) => l.len() as u32,
            GlobalSet::Dense(_, n) => *n,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let (all, list, bits) = match self {
            GlobalSet::All(g) => (0..*g, &[][..], None),
            GlobalSet::Sparse(l) => (0..0, &l[..], None),
            GlobalSet::Dense(b, _) => (0..0, &[][..], Some(b.iter())),
        };
        all.chain(list.iter().copied())
            .chain(bits.into_iter().flatten())
    }
}

/// The globals `proc` itself reads or writes (not through its callees), sorted, or `None` when
/// that is every one of the program's `g` (a `constrain` may relate them all). `mark` is a
/// scratch set of `g` bits, left empty.
fn own_globals(proc: &Proc, g: usize, mark: &mut Bits) -> Option<Vec<u32>> {
    let mut list: Vec<u32> = Vec::new();
    let mut r = Reads::default();
    for node in &proc.nodes {
        if list.len() == g {
            break;
        }
        if let Some(inv) = &node.invariant {
            reads(inv, &mut r);
        }
        let lvs = |ts: &mut dyn Iterator<Item = &LValue>, r: &mut Reads| {
            for lv in ts {
                if let LValue::Global(i) = lv {
                    r.globals.push(*i);
                }
            }
        };
        match &node.stmt {
            Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => {
                reads(cond, &mut r)
            }
            Stmt::Assign {
                targets,
                values,
                constrain,
            } => {
                values.iter().for_each(|v| reads(v, &mut r));
                if let Some(c) = constrain {
                    reads(c, &mut r);
                }
                lvs(&mut targets.iter().flatten(), &mut r);
            }
            Stmt::Havoc { targets } => lvs(&mut targets.iter(), &mut r),
            Stmt::Constrain { .. } => {
                for &i in &list {
                    mark.remove(i);
                }
                return None;
            }
            Stmt::Call { args, results, .. } => {
                args.iter().for_each(|a| reads(a, &mut r));
                lvs(&mut results.iter().flatten(), &mut r);
            }
            Stmt::Return { values: Some(vs) } => vs.iter().for_each(|v| reads(v, &mut r)),
            _ => {}
        }
        for i in r.globals.drain(..) {
            if mark.insert(i) {
                list.push(i);
            }
        }
    }
    for &i in &list {
        mark.remove(i);
    }
    if list.len() == g {
        return None;
    }
    list.sort_unstable();
    Some(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MOD/REF as it was computed before the components: every procedure's own globals
    /// ([`own_globals`], shared: this compares the propagation) as a bit set, merged into its
    /// callers' along the call edges until nothing changes.
    fn touched_by_fixpoint(program: &Program) -> Vec<Vec<u32>> {
        let g = program.globals.len();
        let mut mark = Bits::new(g);
        let mut touched: Vec<Bits> = Vec::new();
        let mut callers: Vec<Vec<usize>> = vec![Vec::new(); program.procs.len()];
        for (p, proc) in program.procs.iter().enumerate() {
            let mut t = Bits::new(g);
            match own_globals(proc, g, &mut mark) {
                None => (0..g as u32).for_each(|i| {
                    t.insert(i);
                }),
                Some(l) => l.into_iter().for_each(|i| {
                    t.insert(i);
                }),
            }
            for node in &proc.nodes {
                if let Stmt::Call { callee, .. } = &node.stmt {
                    callers[*callee as usize].push(p);
                }
            }
            touched.push(t);
        }
        let mut changed = true;
        while changed {
            changed = false;
            for q in 0..touched.len() {
                let tq = touched[q].clone();
                for &p in &callers[q] {
                    changed |= touched[p].union_with(&tq);
                }
            }
        }
        touched.iter().map(|t| t.iter().collect()).collect()
    }

    /// The components' MOD/REF equals the fixpoint's on random programs (recursion, mutual
    /// recursion, `constrain`) and on the families with many procedures over many globals,
    /// whichever form (list, bits, all) each set takes.
    #[test]
    fn touched_globals_by_components_equal_the_fixpoint() {
        let mut texts: Vec<String> = (0..300u64)
            .map(|seed| crate::gen::random_bp::random_bp(seed, 4 + (seed % 5) as u32 * 4))
            .collect();
        texts.push(crate::gen::families::bp_parity(200));
        texts.push(crate::gen::families::bp_call_chain(40));
        texts.push(crate::gen::families::bebop_t(20));
        let (mut checked, mut forms) = (0, [false; 3]);
        for text in &texts {
            let Ok(c) = zingrs_lang::compile("t.bp", text, zingrs_lang::Lang::Bp) else {
                continue;
            };
            let ours = touched_globals(&c.program);
            let reference = touched_by_fixpoint(&c.program);
            assert_eq!(ours.len(), reference.len());
            for (q, (set, want)) in ours.iter().zip(&reference).enumerate() {
                let got: Vec<u32> = set.iter().collect();
                assert_eq!(&got, want, "procedure {q} of\n{text}");
                assert_eq!(set.len() as usize, want.len());
                let g = c.program.globals.len() as u32;
                assert!((0..g).all(|i| set.contains(i) == want.contains(&i)));
                forms[match set {
                    GlobalSet::All(_) => 0,
                    GlobalSet::Sparse(_) => 1,
                    GlobalSet::Dense(..) => 2,
                }] = true;
            }
            checked += 1;
        }
        assert!(checked > 250, "only {checked} programs compiled");
        assert_eq!(forms, [true; 3], "every form of set was met");
    }
}
