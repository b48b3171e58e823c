//! Live globals across procedures (live ranges for globals, seed 001 §3.3).
//!
//! A global is *live* before a node if some execution from there may read it before writing
//! it. A nondeterministic value given to a global that is dead where it gets it (an initial
//! value, a `*` assigned to it) is never observed, so engines give it one value instead of
//! every value: a loop that havocs 14 globals nobody reads makes one state per loop head, not
//! 2^14.
//!
//! Sequential programs (one activation, no thread creation) get a flow-sensitive,
//! context-insensitive analysis: a call reads what its callee may read from its entry, and a
//! procedure's exit reads what may be read after any of its call sites. Concurrent programs get
//! the flow-insensitive one: another thread may read a global at any time, so a global is live
//! everywhere if any statement reads it. Statements the analysis does not model (Zing's heap
//! statements, `constrain`, `raise`, threads, method calls in expressions) read every global.

use crate::ir::{LValue, Layout, Pc, Program, Stmt};
use crate::liveness::{global_use_def, global_uses, Marks};

/// The largest analysis (nodes × words of globals) kept per node; beyond it the
/// flow-insensitive answer, which is sound too, is used for every node.
const MAX_WORDS: usize = 1 << 22;

/// The live globals before every node of a program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalLive {
    words: usize,
    /// Per procedure, one run of `words` words per node; empty when `anywhere` decides.
    per_node: Vec<Vec<u64>>,
    /// The globals some statement reads: live everywhere when `per_node` is empty.
    anywhere: Vec<u64>,
}

/// What one node reads and certainly writes, as bit sets (the reference analysis's form).
struct DenseEffect {
    used: Vec<u64>,
    defs: Vec<u64>,
}

fn pack(flags: &[bool]) -> Vec<u64> {
    let mut w = vec![0u64; flags.len().div_ceil(64)];
    for (i, &f) in flags.iter().enumerate() {
        if f {
            w[i / 64] |= 1 << (i % 64);
        }
    }
    w
}

/// The globals `lvs` overwrite, and the globals their object and index expressions read
/// (into `used`); false if one of those may read globals it does not name.
fn lvalues(lvs: &[Option<LValue>], used: &mut [bool], defs: &mut [bool]) -> bool {
    let mut exact = true;
    for lv in lvs.iter().flatten() {
        match lv {
            LValue::Global(i) => defs[*i as usize] = true,
            LValue::Local(_) | LValue::PassiveLocal(_) => {}
            LValue::Field(e, _) => exact &= global_uses(e, &[], used),
            LValue::Elem(e, i, _) => exact &= global_uses(e, &[], used) & global_uses(i, &[], used),
        }
    }
    exact
}

/// The node's own reads and writes; a call's are its arguments' reads and, on its return, its
/// receivers' writes (what the callee reads is added by the caller of this function).
fn dense_effect(program: &Program, proc: usize, pc: usize) -> DenseEffect {
    let n = program.globals.len();
    let p = &program.procs[proc];
    let (mut used, mut defs) = (vec![false; n], vec![false; n]);
    match &p.nodes[pc].stmt {
        Stmt::Call { args, results, .. } => {
            let mut exact = true;
            if let Some(inv) = &p.nodes[pc].invariant {
                exact &= global_uses(inv, &[], &mut used);
            }
            for a in args {
                exact &= global_uses(a, &[], &mut used);
            }
            exact &= lvalues(results, &mut used, &mut defs);
            if !exact {
                used.fill(true);
            }
        }
        // a new thread reads its arguments; what it reads later is in its own nodes
        Stmt::StartThread { args, .. } => {
            let mut exact = true;
            if let Some(inv) = &p.nodes[pc].invariant {
                exact &= global_uses(inv, &[], &mut used);
            }
            for a in args {
                exact &= global_uses(a, &[], &mut used);
            }
            if !exact {
                used.fill(true);
            }
        }
        Stmt::StartThreadGoto => {
            if let Some(inv) = &p.nodes[pc].invariant {
                if !global_uses(inv, &[], &mut used) {
                    used.fill(true);
                }
            }
        }
        _ => global_use_def(p, pc, &mut used, &mut defs),
    }
    DenseEffect {
        used: pack(&used),
        defs: pack(&defs),
    }
}

/// The globals a node marks: a list (repeats allowed), or every global.
#[derive(Default)]
struct Sparse {
    list: Vec<u32>,
    all: bool,
}

impl crate::liveness::Marks for Sparse {
    fn mark(&mut self, i: u32) {
        if !self.all {
            self.list.push(i);
        }
    }
    fn mark_all(&mut self) {
        self.all = true;
        self.list = Vec::new();
    }
}

/// What one node reads and certainly writes, as lists of the globals it names: building them
/// costs what the node names, where a flag per global made the analysis's set-up
/// nodes × globals even when the per-node answer was too large to keep.
struct Effect {
    used: Sparse,
    defs: Vec<u32>,
}

impl Effect {
    /// `out ∪= used`; `full` is the set of every global.
    fn add_used(&self, out: &mut [u64], full: &[u64]) {
        if self.used.all {
            or_into(out, full);
            return;
        }
        for &i in &self.used.list {
            out[i as usize / 64] |= 1 << (i % 64);
        }
    }
    /// `out −= defs`.
    fn remove_defs(&self, out: &mut [u64]) {
        for &i in &self.defs {
            out[i as usize / 64] &= !(1 << (i % 64));
        }
    }
}

/// The node's own reads and writes, as [`dense_effect`] gives them.
fn effect(program: &Program, proc: usize, pc: usize) -> Effect {
    let p = &program.procs[proc];
    let mut used = Sparse::default();
    let mut defs = Sparse::default();
    let node = &p.nodes[pc];
    let mut exact = true;
    match &node.stmt {
        Stmt::Call { args, results, .. } => {
            if let Some(inv) = &node.invariant {
                exact &= global_uses(inv, &[], &mut used);
            }
            for a in args {
                exact &= global_uses(a, &[], &mut used);
            }
            for lv in results.iter().flatten() {
                match lv {
                    LValue::Global(i) => defs.mark(*i),
                    LValue::Local(_) | LValue::PassiveLocal(_) => {}
                    LValue::Field(e, _) => exact &= global_uses(e, &[], &mut used),
                    LValue::Elem(e, i, _) => {
                        exact &= global_uses(e, &[], &mut used) & global_uses(i, &[], &mut used)
                    }
                }
            }
        }
        Stmt::StartThread { args, .. } => {
            if let Some(inv) = &node.invariant {
                exact &= global_uses(inv, &[], &mut used);
            }
            for a in args {
                exact &= global_uses(a, &[], &mut used);
            }
        }
        Stmt::StartThreadGoto => {
            if let Some(inv) = &node.invariant {
                exact &= global_uses(inv, &[], &mut used);
            }
        }
        _ => global_use_def(p, pc, &mut used, &mut defs),
    }
    if !exact {
        used.mark_all();
    }
    used.list.sort_unstable();
    used.list.dedup();
    Effect {
        used,
        defs: defs.list,
    }
}

/// Whether more than one thread may run: then every read may happen at any time.
fn concurrent(program: &Program) -> bool {
    matches!(program.layout, Layout::Getafix { .. })
        || program.activations.len() > 1
        || program.procs.iter().any(|p| {
            p.nodes
                .iter()
                .any(|n| matches!(n.stmt, Stmt::StartThread { .. } | Stmt::StartThreadGoto))
        })
}

fn or_into(into: &mut [u64], from: &[u64]) -> bool {
    let mut changed = false;
    for (a, &b) in into.iter_mut().zip(from) {
        let new = *a | b;
        changed |= new != *a;
        *a = new;
    }
    changed
}

/// Lists of `u32` for vertices `0..n` in two flat arrays (one allocation each, where a vector
/// per node made the set-up of bebop-t 6400's 150,000 nodes most of the analysis's time).
struct Lists {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    /// The lists of `pairs` `(vertex, item)`, each vertex's items in the order given.
    fn of(n: usize, pairs: &[(u32, u32)]) -> Lists {
        let mut start = vec![0u32; n + 1];
        for &(v, _) in pairs {
            start[v as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; pairs.len()];
        for &(v, x) in pairs {
            items[fill[v as usize] as usize] = x;
            fill[v as usize] += 1;
        }
        Lists { start, items }
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn get(&self, v: usize) -> &[u32] {
        &self.items[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

/// The strongly connected components of the graph `v → readers[v]` (Tarjan's algorithm,
/// without recursion): the component of each vertex and their number. A component gets its
/// number after every component reachable from it.
fn components(readers: &Lists) -> (Vec<u32>, usize) {
    let n = readers.len();
    const NONE: u32 = u32::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut comp = vec![NONE; n];
    let (mut count, mut next) = (0u32, 0u32);
    let mut calls: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        calls.push((root, 0));
        while let Some(&(v, i)) = calls.last() {
            if let Some(&w) = readers.get(v).get(i) {
                let w = w as usize;
                if let Some(top) = calls.last_mut() {
                    top.1 += 1;
                }
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp[w as usize] = count;
                    if w as usize == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    (comp, count as usize)
}

impl GlobalLive {
    /// Computes the live globals of `program`, in time about linear in the program times the
    /// words of a set of globals: the values (before each node, at each procedure's exit)
    /// are taken one strongly connected component of their dependences at a time, in
    /// dependence order, with a worklist inside a component; node lists of globals, not a flag
    /// per global, describe what a node reads and writes.
    pub fn of(program: &Program) -> GlobalLive {
        let words = program.globals.len().div_ceil(64);
        let procs = &program.procs;
        let effects: Vec<Vec<Effect>> = (0..procs.len())
            .map(|q| {
                (0..procs[q].nodes.len())
                    .map(|pc| effect(program, q, pc))
                    .collect()
            })
            .collect();
        let full = pack(&vec![true; program.globals.len()]);
        let mut anywhere = vec![0u64; words];
        for e in effects.iter().flatten() {
            e.add_used(&mut anywhere, &full);
        }
        let nodes: usize = procs.iter().map(|p| p.nodes.len()).sum();
        if words == 0 || concurrent(program) || nodes.saturating_mul(words) > MAX_WORDS {
            return GlobalLive {
                words,
                per_node: Vec::new(),
                anywhere,
            };
        }
        // node (q, pc) is number start[q] + pc
        let mut start = Vec::with_capacity(procs.len() + 1);
        start.push(0usize);
        for p in procs {
            start.push(start.last().copied().unwrap_or(0) + p.nodes.len());
        }
        let id = |q: usize, pc: usize| start[q] + pc;
        let calls_nonempty = |stmt: &Stmt| match stmt {
            Stmt::Call { callee, .. } if !procs[*callee as usize].nodes.is_empty() => {
                Some(*callee as usize)
            }
            _ => None,
        };
        // who reads node n: predecessors within its procedure, as a node (`succ_readers`,
        // through `liveness::successors`) or as a call site adding to its callee's exit
        // (`site_readers`, through all of `succ`); the call sites of each procedure; the
        // returns of each procedure
        let mut succ_readers: Vec<(u32, u32)> = Vec::with_capacity(nodes + nodes / 4);
        let mut site_readers: Vec<(u32, u32)> = Vec::new();
        let mut sites: Vec<Vec<u32>> = vec![Vec::new(); procs.len()];
        let mut returns: Vec<Vec<u32>> = vec![Vec::new(); procs.len()];
        for (q, p) in procs.iter().enumerate() {
            for (pc, node) in p.nodes.iter().enumerate() {
                let me = id(q, pc) as u32;
                match &node.stmt {
                    Stmt::Return { .. } => returns[q].push(me),
                    stmt => match calls_nonempty(stmt) {
                        Some(c) => sites[c].push(me),
                        None => {
                            for &s in crate::liveness::successors(p, pc) {
                                succ_readers.push((id(q, s as usize) as u32, me));
                            }
                        }
                    },
                }
                if let Stmt::Call { .. } = &node.stmt {
                    for &s in &node.succ {
                        site_readers.push((id(q, s as usize) as u32, me));
                    }
                }
            }
        }
        let succ_readers = Lists::of(nodes, &succ_readers);
        let site_readers = Lists::of(nodes, &site_readers);
        // the proc and pc of each node number
        let mut owner = vec![0u32; nodes];
        for q in 0..procs.len() {
            owner[start[q]..start[q + 1]].fill(q as u32);
        }
        let mut live = vec![0u64; nodes * words];
        let mut exit = vec![0u64; procs.len() * words];
        let mut out = vec![0u64; words];
        // a call site's part of its callee's exit: what may be read after it returns
        let site_part = |live: &[u64], q: usize, pc: usize, out: &mut [u64]| {
            out.fill(0);
            for &s in &procs[q].nodes[pc].succ {
                let s = id(q, s as usize);
                or_into(out, &live[s * words..(s + 1) * words]);
            }
            let e = &effects[q][pc];
            e.remove_defs(out);
            e.add_used(out, &full);
        };
        // every call site's part of its callee's exit once (its own reads count even if
        // nothing is read after it)
        for (c, ss) in sites.iter().enumerate() {
            for &n in ss {
                let q = owner[n as usize] as usize;
                site_part(&live, q, n as usize - start[q], &mut out);
                or_into(&mut exit[c * words..(c + 1) * words], &out);
            }
        }
        // the values as variables (node n, the exit of procedure c is `nodes + c`) and who
        // reads each; evaluated one strongly connected component at a time, each after every
        // component it reads from, so a value is computed again only within a loop or a
        // recursion (or a procedure called twice by one caller), never because information
        // arrived one call level at a time
        let mut readers: Vec<(u32, u32)> = Vec::with_capacity(succ_readers.items.len() + nodes / 4);
        for n in 0..nodes {
            let q = owner[n] as usize;
            let me = n as u32;
            readers.extend(succ_readers.get(n).iter().map(|&r| (me, r)));
            for &site in site_readers.get(n) {
                let sq = owner[site as usize] as usize;
                if let Some(c) = calls_nonempty(&procs[sq].nodes[site as usize - start[sq]].stmt) {
                    readers.push((me, (nodes + c) as u32));
                }
            }
            if n == start[q] {
                readers.extend(sites[q].iter().map(|&r| (me, r)));
            }
        }
        for (c, rs) in returns.iter().enumerate() {
            readers.extend(rs.iter().map(|&r| ((nodes + c) as u32, r)));
        }
        drop(succ_readers);
        let readers = Lists::of(nodes + procs.len(), &readers);
        let (comp, count) = components(&readers);
        let by_comp: Vec<(u32, u32)> = comp
            .iter()
            .enumerate()
            .filter(|&(v, _)| v < nodes)
            .map(|(v, &k)| (k, v as u32))
            .collect();
        let by_comp = Lists::of(count, &by_comp);
        let mut queued = vec![false; nodes];
        let mut part = vec![0u64; words];
        let mut work: Vec<u32> = Vec::new();
        // `components` numbers a component after every one that reads from it
        for cur in (0..count as u32).rev() {
            work.extend(by_comp.get(cur as usize).iter().rev());
            for &n in &work {
                queued[n as usize] = true;
            }
            while let Some(n) = work.pop() {
                let n = n as usize;
                queued[n] = false;
                let q = owner[n] as usize;
                let pc = n - start[q];
                let p = &procs[q];
                let e = &effects[q][pc];
                out.fill(0);
                match &p.nodes[pc].stmt {
                    Stmt::Return { .. } => out.copy_from_slice(&exit[q * words..(q + 1) * words]),
                    stmt => match calls_nonempty(stmt) {
                        // the callee's entry covers the rest, through its exit
                        Some(c) => {
                            let entry = start[c];
                            out.copy_from_slice(&live[entry * words..(entry + 1) * words]);
                        }
                        None => {
                            for &s in crate::liveness::successors(p, pc) {
                                let s = id(q, s as usize);
                                or_into(&mut out, &live[s * words..(s + 1) * words]);
                            }
                            e.remove_defs(&mut out);
                        }
                    },
                }
                e.add_used(&mut out, &full);
                if !or_into(&mut live[n * words..(n + 1) * words], &out) {
                    continue;
                }
                // readers in later components are evaluated when theirs comes
                for &r in readers.get(n) {
                    let r = r as usize;
                    if r < nodes {
                        if comp[r] == cur && !std::mem::replace(&mut queued[r], true) {
                            work.push(r as u32);
                        }
                        continue;
                    }
                    // an exit: this node follows one of its call sites
                    let c = r - nodes;
                    for &site in site_readers.get(n) {
                        let sq = owner[site as usize] as usize;
                        let spc = site as usize - start[sq];
                        if calls_nonempty(&procs[sq].nodes[spc].stmt) != Some(c) {
                            continue;
                        }
                        site_part(&live, sq, spc, &mut part);
                        if or_into(&mut exit[c * words..(c + 1) * words], &part) && comp[r] == cur {
                            for &ret in &returns[c] {
                                let ret = ret as usize;
                                if comp[ret] == cur && !std::mem::replace(&mut queued[ret], true) {
                                    work.push(ret as u32);
                                }
                            }
                        }
                    }
                }
            }
        }
        let per_node = (0..procs.len())
            .map(|q| live[start[q] * words..start[q + 1] * words].to_vec())
            .collect();
        GlobalLive {
            words,
            per_node,
            anywhere,
        }
    }

    /// The same answer as [`GlobalLive::of`], by the round-robin fixpoint it replaced (issue
    /// 37): every node of every procedure again until nothing changes, the exits of callees
    /// updated once per outer pass, so information moves one call level per pass. Kept, not
    /// used by any engine, as the reference the differential test compares `of` with.
    #[doc(hidden)]
    pub fn round_robin(program: &Program) -> GlobalLive {
        let words = program.globals.len().div_ceil(64);
        let effects: Vec<Vec<DenseEffect>> = (0..program.procs.len())
            .map(|q| {
                (0..program.procs[q].nodes.len())
                    .map(|pc| dense_effect(program, q, pc))
                    .collect()
            })
            .collect();
        let mut anywhere = vec![0u64; words];
        for e in effects.iter().flatten() {
            or_into(&mut anywhere, &e.used);
        }
        let nodes: usize = program.procs.iter().map(|p| p.nodes.len()).sum();
        if words == 0 || concurrent(program) || nodes.saturating_mul(words) > MAX_WORDS {
            return GlobalLive {
                words,
                per_node: Vec::new(),
                anywhere,
            };
        }
        let procs = &program.procs;
        let mut live: Vec<Vec<u64>> = procs
            .iter()
            .map(|p| vec![0; p.nodes.len() * words])
            .collect();
        // what may be read after a procedure returns, over all its call sites
        let mut exit = vec![vec![0u64; words]; procs.len()];
        let mut out = vec![0u64; words];
        let mut changed = true;
        while changed {
            changed = false;
            for (q, p) in procs.iter().enumerate() {
                let mut inner = true;
                while inner {
                    inner = false;
                    for pc in (0..p.nodes.len()).rev() {
                        let node = &p.nodes[pc];
                        let e = &effects[q][pc];
                        out.fill(0);
                        match &node.stmt {
                            Stmt::Call { callee, .. }
                                if !procs[*callee as usize].nodes.is_empty() =>
                            {
                                // the callee's entry covers the rest, through its exit
                                out.copy_from_slice(&live[*callee as usize][..words]);
                            }
                            Stmt::Return { .. } => out.copy_from_slice(&exit[q]),
                            _ => {
                                for &s in crate::liveness::successors(p, pc) {
                                    let s = s as usize;
                                    or_into(&mut out, &live[q][s * words..(s + 1) * words]);
                                }
                                for (o, d) in out.iter_mut().zip(&e.defs) {
                                    *o &= !d;
                                }
                            }
                        }
                        for (o, u) in out.iter_mut().zip(&e.used) {
                            *o |= u;
                        }
                        if or_into(&mut live[q][pc * words..(pc + 1) * words], &out) {
                            inner = true;
                            changed = true;
                        }
                    }
                }
            }
            // a callee's exit reads what its callers may read after the call (less the
            // receivers the return writes, plus what their lvalues read)
            for (q, p) in procs.iter().enumerate() {
                for (pc, node) in p.nodes.iter().enumerate() {
                    let Stmt::Call { callee, .. } = &node.stmt else {
                        continue;
                    };
                    let e = &effects[q][pc];
                    out.fill(0);
                    for &s in &node.succ {
                        let s = s as usize;
                        or_into(&mut out, &live[q][s * words..(s + 1) * words]);
                    }
                    for ((o, d), u) in out.iter_mut().zip(&e.defs).zip(&e.used) {
                        *o = (*o & !d) | u;
                    }
                    changed |= or_into(&mut exit[*callee as usize], &out);
                }
            }
        }
        GlobalLive {
            words,
            per_node: live,
            anywhere,
        }
    }

    /// Whether global `g` may be read before it is written from node `pc` of `proc` on.
    #[inline]
    pub fn live(&self, proc: u32, pc: Pc, g: usize) -> bool {
        let w = match self.per_node.get(proc as usize) {
            Some(bits) => bits.get(pc as usize * self.words + g / 64),
            None => self.anywhere.get(g / 64),
        };
        w.is_some_and(|w| w >> (g % 64) & 1 != 0)
    }

    /// Whether some statement of the program may read global `g`.
    pub fn read_anywhere(&self, g: usize) -> bool {
        self.anywhere
            .get(g / 64)
            .is_some_and(|w| w >> (g % 64) & 1 != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live_of(src: &str) -> (Program, GlobalLive) {
        let c = crate::compile("t.bp", src, crate::Lang::Bp).expect("compiles");
        let l = GlobalLive::of(&c.program);
        (c.program, l)
    }

    /// The live globals after the first node of `proc` (its one successor).
    fn after_first(p: &Program, l: &GlobalLive, proc: &str) -> Vec<bool> {
        let q = p.proc_by_name(proc).unwrap();
        let next = p.procs[q as usize].nodes[0].succ[0];
        (0..p.globals.len()).map(|g| l.live(q, next, g)).collect()
    }

    #[test]
    fn globals_nobody_reads_are_dead_and_read_ones_live() {
        let (p, l) = live_of(
            "decl a, b, c; void main() begin a, b, c := *, *, *; b := F; assert(a | b); end",
        );
        // a is read; b is overwritten first; c is never read
        assert_eq!(after_first(&p, &l, "main"), vec![true, false, false]);
        assert!(l.read_anywhere(1) && !l.read_anywhere(2));
    }

    #[test]
    fn a_call_reads_what_its_callee_reads() {
        let (p, l) = live_of(
            "decl a, b; void f() begin assert(b); end void main() begin a, b := *, *; f(); end",
        );
        assert_eq!(after_first(&p, &l, "main"), vec![false, true]);
    }

    #[test]
    fn an_exit_reads_what_callers_read_after_the_call() {
        let (p, l) = live_of(
            "decl a, b; void f() begin a, b := *, *; end \
             void main() begin f(); assert(a); f(); end",
        );
        // a is read after the first call; b after neither
        assert_eq!(after_first(&p, &l, "f"), vec![true, false]);
    }

    #[test]
    fn a_call_result_kills_its_global() {
        let (p, l) = live_of(
            "decl a, b; bool t() begin return T; end \
             void main() begin a, b := *, *; a := t(); assert(a & b); end",
        );
        assert_eq!(after_first(&p, &l, "main"), vec![false, true]);
    }

    #[test]
    fn nothing_is_read_past_a_false_assumption() {
        let (p, l) = live_of(
            "decl a, b; void main() begin a, b := *, *; if (*) then a := T; else assume(F); fi \
             assert(a); end",
        );
        assert_eq!(after_first(&p, &l, "main"), vec![false, false]);
    }

    #[test]
    fn loops_keep_globals_live() {
        let (p, l) = live_of(
            "decl a, b; void main() begin a := *; while (*) do b := a; a := T; od assert(b); end",
        );
        assert_eq!(after_first(&p, &l, "main"), vec![true, true]);
    }

    #[test]
    fn threads_make_every_read_global_live_everywhere() {
        let (p, l) = live_of(
            "decl a, b, c; void r() begin assert(a); end \
             void main() begin start_thread r(); a, b, c := *, *, *; b := F; assert(b); end",
        );
        // b is overwritten before main reads it, but another thread might read between
        assert_eq!(after_first(&p, &l, "main"), vec![true, true, false]);
    }
}
