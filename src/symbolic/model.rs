//! The symbolic model of a program: the slot layout, the live locals (seed 001 §3.3; MOD/REF
//! of globals is [`super::mod_ref`]), and the encoding of expressions, built once.
//!
//! **Slots.** Slot `i < G` is global `i`; slot `G + j` is local `j` of whichever procedure runs
//! (formals first). There are `G + L` slots, `L` the largest frame (or result count), so the
//! number of BDD variables does not depend on the number of procedures. Each slot has three
//! interleaved variables: *entry* `3s`, *current* `3s + 1`, *next* `3s + 2`. A path edge is a
//! relation over entry and current copies; a transfer relation over current and next copies;
//! renaming next→current moves every variable by one level and keeps the order.
//!
//! **Value sets.** An expression denotes a *set* of booleans (bp-language.md §5.3); it is encoded
//! as two functions of the state, "can be true" and "can be false". Every `*` is a fresh bit
//! used once, so lifting each operator to sets is exact.

use super::bdd::Bdds;
use zingrs_lang::ir::{BinOp, Const, Expr, Init, LValue, Pc, ProcId, Program, Stmt, UnOp};

/// Where slots sit in the variable order: the frame's local slots first (they change most
/// often, and renaming or quantifying near the top of the order leaves the rest of a BDD
/// shared), then the globals.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// The number of globals; slot `i < g` is global `i`, slot `g + j` is local `j`.
    pub g: u32,
    /// The number of local slots (the largest frame).
    pub l: u32,
}

impl Layout {
    #[inline]
    fn pos(self, s: u32) -> u32 {
        if s < self.g {
            self.l + s
        } else {
            s - self.g
        }
    }
    /// The entry copy of slot `s`.
    #[inline]
    pub fn ev(self, s: u32) -> u32 {
        3 * self.pos(s)
    }
    /// The current copy of slot `s`.
    #[inline]
    pub fn cv(self, s: u32) -> u32 {
        3 * self.pos(s) + 1
    }
    /// The next copy of slot `s`.
    #[inline]
    pub fn nv(self, s: u32) -> u32 {
        3 * self.pos(s) + 2
    }
    /// The slot of a variable and its copy (0 entry, 1 current, 2 next).
    #[inline]
    pub fn slot_of(self, var: u32) -> (u32, u32) {
        let p = var / 3;
        let s = if p < self.l { self.g + p } else { p - self.l };
        (s, var % 3)
    }
}

/// A set of small integers (globals or locals). Sets of up to 128 members live inline: the
/// engine keeps one per vertex (live locals), and a heap block each made them a visible share
/// of the memory and of the set-up time on programs with hundreds of thousands of vertices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bits(smallvec::SmallVec<[u64; 2]>);

impl Bits {
    pub fn new(n: usize) -> Bits {
        Bits(smallvec::smallvec![0; n.div_ceil(64)])
    }
    pub fn full(n: usize) -> Bits {
        let mut b = Bits::new(n);
        for (w, word) in b.0.iter_mut().enumerate() {
            let rest = n - 64 * w;
            *word = if rest >= 64 {
                u64::MAX
            } else {
                (1u64 << rest) - 1
            };
        }
        b
    }
    #[inline]
    pub fn insert(&mut self, i: u32) -> bool {
        let (w, m) = ((i / 64) as usize, 1u64 << (i % 64));
        let fresh = self.0[w] & m == 0;
        self.0[w] |= m;
        fresh
    }
    #[inline]
    pub fn remove(&mut self, i: u32) {
        self.0[(i / 64) as usize] &= !(1u64 << (i % 64));
    }
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.0
            .get((i / 64) as usize)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }
    /// Adds every member of `other`; true if something was new.
    pub fn union_with(&mut self, other: &Bits) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    /// The members as bit words (bit `i % 64` of word `i / 64`).
    pub fn words(&self) -> &[u64] {
        &self.0
    }
    /// Removes every member.
    pub fn clear(&mut self) {
        self.0.fill(0);
    }
    /// Removes every member of `other`.
    pub fn remove_all(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= !*b;
        }
    }
    /// Makes room for members below `n`.
    pub fn grow(&mut self, n: usize) {
        let w = n.div_ceil(64);
        if self.0.len() < w {
            self.0.resize(w, 0);
        }
    }
    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                Some(w as u32 * 64 + b)
            })
        })
    }
    /// The number of members.
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
}

/// Which variables an expression reads: unprimed and primed locals and globals.
#[derive(Default)]
pub(super) struct Reads {
    locals: Vec<u32>,
    primed_locals: Vec<u32>,
    pub(super) globals: Vec<u32>,
}

impl Reads {
    fn clear(&mut self) {
        self.locals.clear();
        self.primed_locals.clear();
        self.globals.clear();
    }
}

/// Whether `e` reads a global (current or primed).
pub fn reads_global(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |e| found |= matches!(e, Expr::Global(_) | Expr::PrimedGlobal(_)));
    found
}

pub(super) fn reads(e: &Expr, r: &mut Reads) {
    zingrs_lang::deep::grow(|| reads_here(e, r))
}

fn reads_here(e: &Expr, r: &mut Reads) {
    match e {
        Expr::Const(_) | Expr::Nondet => {}
        Expr::Local(i) => r.locals.push(*i),
        Expr::PrimedLocal(i) => r.primed_locals.push(*i),
        Expr::Global(i) | Expr::PrimedGlobal(i) => r.globals.push(*i),
        Expr::Unary(_, a) => reads(a, r),
        Expr::Binary(_, a, b) | Expr::Schoose(a, b) => {
            reads(a, r);
            reads(b, r)
        }
        Expr::Ite(c, a, b) => {
            reads(c, r);
            reads(a, r);
            reads(b, r)
        }
        // not boolean-program expressions: `applies` rejects programs that use them
        _ => {}
    }
}

/// Adds the slots `e` reads (globals `i`, locals `g + j`) to `slots`.
pub fn read_slots(e: &Expr, g: u32, slots: &mut Bits) {
    let mut r = Reads::default();
    reads(e, &mut r);
    for i in r.globals {
        slots.insert(i);
    }
    for j in r.locals.into_iter().chain(r.primed_locals) {
        slots.insert(g + j);
    }
}

/// Whether an expression belongs to pure boolean programs.
pub fn is_boolean(e: &Expr) -> bool {
    zingrs_lang::deep::grow(|| is_boolean_here(e))
}

fn is_boolean_here(e: &Expr) -> bool {
    match e {
        Expr::Const(Const::Bool(_))
        | Expr::Local(_)
        | Expr::Global(_)
        | Expr::PrimedLocal(_)
        | Expr::PrimedGlobal(_)
        | Expr::Nondet => true,
        Expr::Unary(_, a) => is_boolean(a),
        Expr::Binary(_, a, b) | Expr::Schoose(a, b) => is_boolean(a) && is_boolean(b),
        Expr::Ite(c, a, b) => is_boolean(c) && is_boolean(a) && is_boolean(b),
        _ => false,
    }
}

/// Whether a statement belongs to pure sequential boolean programs.
pub fn is_boolean_stmt(s: &Stmt) -> bool {
    let lv = |l: &LValue| matches!(l, LValue::Local(_) | LValue::Global(_));
    match s {
        Stmt::Skip | Stmt::Goto => true,
        Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => is_boolean(cond),
        Stmt::Constrain { expr } => is_boolean(expr),
        Stmt::Assign {
            targets,
            values,
            constrain,
        } => {
            targets.iter().flatten().all(lv)
                && values.iter().all(is_boolean)
                && constrain.as_ref().is_none_or(is_boolean)
        }
        Stmt::Havoc { targets } => targets.iter().all(lv),
        Stmt::Call { args, results, .. } => {
            args.iter().all(is_boolean) && results.iter().flatten().all(lv)
        }
        Stmt::Return { values } => values.iter().flatten().all(is_boolean),
        _ => false,
    }
}

/// The successors of a node as the interpreter takes them (`next` falls back to the node itself
/// when a one-successor statement has none).
pub fn successors(program: &Program, p: ProcId, pc: Pc) -> smallvec::SmallVec<[Pc; 2]> {
    let node = program.node(p, pc);
    match node.stmt {
        Stmt::Goto | Stmt::Branch { .. } => node.succ.iter().copied().collect(),
        Stmt::Return { .. } => smallvec::SmallVec::new(),
        _ => smallvec::smallvec![node.succ.first().copied().unwrap_or(pc)],
    }
}

/// Live locals at the entry of every node of `p` (bit j = local j), seed 001 §3.3.
pub fn live_locals(program: &Program, p: ProcId) -> Vec<Bits> {
    let proc = &program.procs[p as usize];
    let n = proc.locals.len();
    let all = Bits::full(n);
    let len = proc.nodes.len();
    if n == 0 {
        // nothing to walk the expressions for (the product procedure of the context-bounded
        // search: thousands of nodes, every variable a global)
        return vec![Bits::new(0); len];
    }
    // gen(v) = use(v) ∪ inv(v) (the invariant is checked after the step, on its targets),
    // kill(v) = def(v)
    let mut live: Vec<Bits> = Vec::with_capacity(len);
    let mut defs: Vec<Bits> = Vec::with_capacity(len);
    let mut r = Reads::default();
    for node in &proc.nodes {
        r.clear();
        let mut def = Bits::new(n);
        let local_targets = |ts: &mut dyn Iterator<Item = &LValue>, def: &mut Bits| {
            for t in ts {
                if let LValue::Local(i) = t {
                    def.insert(*i);
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
                for v in values {
                    reads(v, &mut r);
                }
                local_targets(&mut targets.iter().flatten(), &mut def);
                if let Some(c) = constrain {
                    let mut rc = Reads::default();
                    reads(c, &mut rc);
                    r.locals.extend(rc.locals);
                    // a primed name that is not a target reads the unchanged current value
                    r.locals
                        .extend(rc.primed_locals.into_iter().filter(|i| !def.contains(*i)));
                }
            }
            Stmt::Havoc { targets } => local_targets(&mut targets.iter(), &mut def),
            Stmt::Constrain { expr } => {
                reads(expr, &mut r);
                r.primed_locals.clear();
                def = all.clone();
            }
            Stmt::Call { args, results, .. } => {
                for a in args {
                    reads(a, &mut r);
                }
                local_targets(&mut results.iter().flatten(), &mut def);
            }
            Stmt::Return { values: Some(vs) } => {
                for v in vs {
                    reads(v, &mut r);
                }
            }
            _ => {}
        }
        let mut u = Bits::new(n);
        for &i in &r.locals {
            u.insert(i);
        }
        if let Some(inv) = &node.invariant {
            let mut ri = Reads::default();
            reads(inv, &mut ri);
            for i in ri.locals.into_iter().chain(ri.primed_locals) {
                u.insert(i);
            }
        }
        live.push(u);
        defs.push(def);
    }
    // live_in(v) = gen(v) ∪ (live_out(v) − def(v)); successors and predecessors in flat arrays
    let succ_of = |pc: usize| -> &[Pc] {
        let node = &proc.nodes[pc];
        match node.stmt {
            Stmt::Goto | Stmt::Branch { .. } => &node.succ,
            Stmt::Return { .. } => &[],
            _ => node.succ.get(..1).unwrap_or(&[]),
        }
    };
    // a node without successor other than `return` loops on itself (see `successors`), which
    // adds nothing to its own liveness
    let mut pred_start = vec![0u32; len + 1];
    for pc in 0..len {
        for &s in succ_of(pc) {
            pred_start[s as usize + 1] += 1;
        }
    }
    for i in 0..len {
        pred_start[i + 1] += pred_start[i];
    }
    let mut fill = pred_start.clone();
    let mut preds = vec![0 as Pc; pred_start[len] as usize];
    for pc in 0..len {
        for &s in succ_of(pc) {
            preds[fill[s as usize] as usize] = pc as Pc;
            fill[s as usize] += 1;
        }
    }
    let mut work: Vec<Pc> = (0..len as Pc).rev().collect();
    let mut queued = vec![true; len];
    let mut out = Bits::new(n);
    while let Some(v) = work.pop() {
        queued[v as usize] = false;
        out.clear();
        for &s in succ_of(v as usize) {
            out.union_with(&live[s as usize]);
        }
        out.remove_all(&defs[v as usize]);
        if live[v as usize].union_with(&out) {
            for &u in &preds[pred_start[v as usize] as usize..pred_start[v as usize + 1] as usize] {
                if !queued[u as usize] {
                    queued[u as usize] = true;
                    work.push(u);
                }
            }
        }
    }
    live
}

/// The connectives whose chains are associative and commutative on value sets: `&`, `|`, and
/// parity (`^`, `!=` and `=` together, `a = b` being `!(a ^ b)`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Chain {
    And,
    Or,
    Parity,
}

impl Chain {
    fn of(op: BinOp) -> Option<Chain> {
        match op {
            BinOp::And => Some(Chain::And),
            BinOp::Or => Some(Chain::Or),
            BinOp::Xor | BinOp::Ne | BinOp::Eq => Some(Chain::Parity),
            BinOp::Implies => None,
        }
    }
}

/// The value set of an expression: "can be true" and "can be false".
pub struct Sets<F> {
    pub t: F,
    pub f: F,
}

/// Encodes expressions of one procedure over the slot variables.
pub struct Encoder<'a, B: Bdds> {
    pub bdd: &'a B,
    pub layout: Layout,
}

impl<B: Bdds> Encoder<'_, B> {
    /// The slot of a local.
    pub fn local(&self, i: u32) -> u32 {
        self.layout.g + i
    }

    /// The value set of `e`; unprimed names read current copies, primed names the variable
    /// `primed(is_global, index)` chooses.
    pub fn sets(&self, e: &Expr, primed: &dyn Fn(bool, u32) -> u32) -> Sets<B::F> {
        zingrs_lang::deep::grow(|| self.sets_here(e, primed))
    }

    fn sets_here(&self, e: &Expr, primed: &dyn Fn(bool, u32) -> u32) -> Sets<B::F> {
        let b = self.bdd;
        let lit = |v: u32| {
            let x = b.var(v);
            Sets { f: b.not(&x), t: x }
        };
        match e {
            Expr::Const(Const::Bool(v)) => Sets {
                t: b.constant(*v),
                f: b.constant(!*v),
            },
            Expr::Const(_) => Sets {
                t: b.constant(false),
                f: b.constant(true),
            },
            Expr::Local(i) => lit(self.layout.cv(self.local(*i))),
            Expr::Global(i) => lit(self.layout.cv(*i)),
            Expr::PrimedLocal(i) => lit(primed(false, *i)),
            Expr::PrimedGlobal(i) => lit(primed(true, *i)),
            Expr::Nondet => Sets {
                t: b.constant(true),
                f: b.constant(true),
            },
            Expr::Unary(UnOp::Not, a) => {
                let a = self.sets(a, primed);
                Sets { t: a.f, f: a.t }
            }
            Expr::Binary(op, _, _) if Chain::of(*op).is_some() => self.chain(e, primed),
            Expr::Binary(_, a, c) => {
                // `=>`, the one connective that is not associative
                let x = self.sets(a, primed);
                let y = self.sets(c, primed);
                Sets {
                    t: b.or(&x.f, &y.t),
                    f: b.and(&x.t, &y.f),
                }
            }
            Expr::Ite(c, a, d) => {
                let c = self.sets(c, primed);
                let x = self.sets(a, primed);
                let y = self.sets(d, primed);
                Sets {
                    t: b.or(&b.and(&c.t, &x.t), &b.and(&c.f, &y.t)),
                    f: b.or(&b.and(&c.t, &x.f), &b.and(&c.f, &y.f)),
                }
            }
            Expr::Schoose(a, d) => {
                // a | (!d & *): true if a can be true or d can be false; false if a can be
                let x = self.sets(a, primed);
                let y = self.sets(d, primed);
                Sets {
                    t: b.or(&x.t, &y.f),
                    f: x.f,
                }
            }
            _ => unreachable!("applies() rejects non-boolean expressions"),
        }
    }

    /// The value set of a chain of one associative, commutative connective (`&`, `|`, or `^`,
    /// `!=` and `=` mixed: each `=` is a negated `^`), `e` its outermost operator. Lifting a
    /// connective to value sets keeps it associative and commutative (every `*` is
    /// independent), so the operands may be combined in any order. They are combined from the
    /// one whose top variable is deepest in the BDD order upward, so that each operand joins
    /// above what was combined so far (the order CUDD-based checkers build in): written left
    /// to right in the variable order, `g1 ^ ... ^ gK` made each step copy the whole
    /// accumulated BDD under the new bottom variable, K²/2 nodes instead of K.
    fn chain(&self, e: &Expr, primed: &dyn Fn(bool, u32) -> u32) -> Sets<B::F> {
        let b = self.bdd;
        let class = match e {
            Expr::Binary(op, _, _) => Chain::of(*op),
            _ => None,
        };
        // flattened without recursion: chains of 100,000 operands are fine
        let mut operands: Vec<&Expr> = Vec::new();
        let mut negate = false;
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            match x {
                Expr::Binary(op, l, r) if Chain::of(*op) == class => {
                    negate ^= *op == BinOp::Eq;
                    stack.push(r);
                    stack.push(l);
                }
                _ => operands.push(x),
            }
        }
        let mut sets: Vec<(u32, Sets<B::F>)> = operands
            .into_iter()
            .map(|x| {
                let s = self.sets(x, primed);
                (b.top_var(&s.t).min(b.top_var(&s.f)), s)
            })
            .collect();
        // deepest top variable first (constants, at no level, before all)
        sets.sort_by_key(|(top, _)| std::cmp::Reverse(*top));
        let mut it = sets.into_iter().map(|(_, s)| s);
        let first = it.next().expect("a chain has two operands");
        let acc = it.fold(first, |x, y| match class {
            Some(Chain::And) => Sets {
                t: b.and(&x.t, &y.t),
                f: b.or(&x.f, &y.f),
            },
            Some(Chain::Or) => Sets {
                t: b.or(&x.t, &y.t),
                f: b.and(&x.f, &y.f),
            },
            _ => self.xor_sets(x, y),
        });
        if negate {
            Sets { t: acc.f, f: acc.t }
        } else {
            acc
        }
    }

    /// The value set of `x ^ y`. When neither can take both values everywhere it can be one
    /// (its "can be false" is the negation of its "can be true", no `*` in it), that is one
    /// XOR; otherwise the four cases.
    fn xor_sets(&self, x: Sets<B::F>, y: Sets<B::F>) -> Sets<B::F> {
        let b = self.bdd;
        if b.not(&x.t) == x.f && b.not(&y.t) == y.f {
            let f = b.equiv(&x.t, &y.t);
            return Sets { t: b.not(&f), f };
        }
        Sets {
            t: b.or(&b.and(&x.t, &y.f), &b.and(&x.f, &y.t)),
            f: b.or(&b.and(&x.t, &y.t), &b.and(&x.f, &y.f)),
        }
    }

    /// `var ∈ values(e)`: the variable takes one of the values `e` can take.
    pub fn takes(&self, var: u32, e: &Expr, primed: &dyn Fn(bool, u32) -> u32) -> B::F {
        let s = self.sets(e, primed);
        self.bdd.ite(&self.bdd.var(var), &s.t, &s.f)
    }

    /// Primed names read current copies (outside constraints they never occur).
    pub fn unprimed(&self) -> impl Fn(bool, u32) -> u32 {
        let l = self.layout;
        move |g, i| if g { l.cv(i) } else { l.cv(l.g + i) }
    }
}

/// The fixed initial value of a variable, if its initialiser gives one.
pub fn fixed_init(init: Init) -> Option<bool> {
    match init {
        Init::Value(Const::Bool(b)) => Some(b),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::Rng;
    use crate::symbolic::bdd::Oxidd;

    /// The encoding as it was before chains were reordered: each connective on its two
    /// operands, as written, from the value-set tables of bp-language §5.3.
    fn as_written<B: Bdds>(enc: &Encoder<'_, B>, e: &Expr) -> Sets<B::F> {
        let b = enc.bdd;
        match e {
            Expr::Binary(op, a, c) => {
                let x = as_written(enc, a);
                let y = as_written(enc, c);
                let and = |p: &B::F, q: &B::F| b.and(p, q);
                let or = |p: &B::F, q: &B::F| b.or(p, q);
                let differ = or(&and(&x.t, &y.f), &and(&x.f, &y.t));
                let agree = or(&and(&x.t, &y.t), &and(&x.f, &y.f));
                match op {
                    BinOp::And => Sets {
                        t: and(&x.t, &y.t),
                        f: or(&x.f, &y.f),
                    },
                    BinOp::Or => Sets {
                        t: or(&x.t, &y.t),
                        f: and(&x.f, &y.f),
                    },
                    BinOp::Xor | BinOp::Ne => Sets {
                        t: differ,
                        f: agree,
                    },
                    BinOp::Eq => Sets {
                        t: agree,
                        f: differ,
                    },
                    BinOp::Implies => Sets {
                        t: or(&x.f, &y.t),
                        f: and(&x.t, &y.f),
                    },
                }
            }
            Expr::Unary(UnOp::Not, a) => {
                let s = as_written(enc, a);
                Sets { t: s.f, f: s.t }
            }
            // leaves: the encoder's own (no chain in them)
            _ => enc.sets(e, &enc.unprimed()),
        }
    }

    /// A random expression over `g` globals: long chains of one class, mixed classes, `!`,
    /// `*` and constants.
    fn random_expr(rng: &mut Rng, g: u32, depth: u32) -> Expr {
        if depth == 0 || rng.chance(25) {
            return match rng.below(8) {
                0 => Expr::Nondet,
                1 => Expr::Const(Const::Bool(rng.chance(50))),
                _ => Expr::Global(rng.below(g as usize) as u32),
            };
        }
        if rng.chance(10) {
            return Expr::Unary(UnOp::Not, Box::new(random_expr(rng, g, depth - 1)));
        }
        let ops = [
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
            BinOp::Eq,
            BinOp::Ne,
            BinOp::Implies,
        ];
        let op = *rng.pick(&ops);
        // a chain, nested to the left, to the right or both, sometimes switching class
        let mut e = random_expr(rng, g, depth - 1);
        for _ in 0..rng.range(1, 6) {
            let op = if rng.chance(20) { *rng.pick(&ops) } else { op };
            let x = random_expr(rng, g, depth - 1);
            e = if rng.chance(50) {
                Expr::Binary(op, Box::new(e), Box::new(x))
            } else {
                Expr::Binary(op, Box::new(x), Box::new(e))
            };
        }
        e
    }

    #[test]
    fn chains_in_variable_order_denote_the_same_value_sets() {
        let g = 12;
        let layout = Layout { g, l: 0 };
        let bdd = Oxidd::new(3 * g, 1 << 18, 1 << 12);
        let enc = Encoder { bdd: &bdd, layout };
        let mut rng = Rng::new(37);
        let mut with_nondet = 0;
        for _ in 0..400 {
            let e = random_expr(&mut rng, g, 3);
            let ours = enc.sets(&e, &enc.unprimed());
            let reference = as_written(&enc, &e);
            assert!(ours.t == reference.t && ours.f == reference.f, "{e:?}");
            with_nondet += usize::from(bdd.not(&ours.t) != ours.f);
        }
        // the comparison covered expressions whose value sets are not single values
        assert!(with_nondet > 20, "{with_nondet}");
    }

    #[test]
    fn a_flat_chain_builds_as_many_nodes_in_either_direction() {
        // `g0 ^ g1 ^ ... ^ g199` as written (g0 on top): combined left to right each step
        // copies the accumulated BDD under a deeper variable; in the variable order, K nodes
        let k = 200u32;
        let layout = Layout { g: k, l: 0 };
        let bdd = Oxidd::new(3 * k, 1 << 20, 1 << 14);
        let enc = Encoder { bdd: &bdd, layout };
        let chain = |order: &mut dyn Iterator<Item = u32>| {
            let mut e = Expr::Global(order.next().expect("one global"));
            for i in order {
                e = Expr::Binary(BinOp::Xor, Box::new(e), Box::new(Expr::Global(i)));
            }
            e
        };
        let forward = chain(&mut (0..k));
        let backward = chain(&mut (0..k).rev());
        bdd.collect_garbage();
        let before = bdd.live_nodes();
        let f = enc.sets(&forward, &enc.unprimed());
        let grown = bdd.live_nodes() - before;
        let r = enc.sets(&backward, &enc.unprimed());
        assert!(f.t == r.t && f.f == r.f);
        // k inner nodes and the terminal
        assert_eq!(bdd.size(&f.t), k as usize + 1);
        assert!(grown < 4 * k as usize, "{grown} nodes for a chain of {k}");
        // the measure tells the orders apart: as written, the forward chain makes many more
        drop((f, r));
        bdd.collect_garbage();
        let before = bdd.live_nodes();
        let w = as_written(&enc, &forward);
        let written = bdd.live_nodes() - before;
        assert!(written > 10 * grown, "{written} against {grown}");
        drop(w);
    }
}
