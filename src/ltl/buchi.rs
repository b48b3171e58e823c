//! From an LTL formula to a Büchi automaton: the tableau construction of Gerth, Peled, Vardi
//! and Wolper ("Simple on-the-fly automatic verification of linear temporal logic", PSTV
//! 1995), which gives a generalized Büchi automaton with one acceptance set per `U`
//! subformula, then the usual counter construction for a single acceptance set.
//!
//! GPVW is chosen for being small, well understood and on the fly: the formulas users write
//! for models (`G F p`, `G (p -> F q)`) give automata of a handful of states, and the
//! search's cost is the product, not the translation. Its automata label *states* with the
//! literals that hold there, which is how the product reads them: a node (model state `s`,
//! automaton state `q`) exists where `s` satisfies `q`'s literals.

use std::collections::BTreeSet;

/// A formula in negation normal form: negation on atoms only.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Nnf {
    True,
    False,
    /// Atom `i` holds (`true`) or does not (`false`).
    Lit(usize, bool),
    And(Box<Nnf>, Box<Nnf>),
    Or(Box<Nnf>, Box<Nnf>),
    Next(Box<Nnf>),
    Until(Box<Nnf>, Box<Nnf>),
    Release(Box<Nnf>, Box<Nnf>),
}

/// What an automaton state asks of the model state it reads: atoms that must hold (`pos`)
/// and atoms that must not (`neg`), one bit per atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    pub pos: u64,
    pub neg: u64,
}

impl Label {
    /// Whether a model state whose atoms are `val` (one bit each) satisfies the label.
    #[inline]
    pub fn admits(self, val: u64) -> bool {
        val & self.pos == self.pos && val & self.neg == 0
    }
}

/// A Büchi automaton with labelled states: a run over model states `s0 s1 ...` is a sequence
/// of states `q0 q1 ...` with `q0` initial, `q(i+1)` a successor of `qi`, and each `si`
/// admitted by `qi`'s label; it accepts when it passes accepting states infinitely often.
#[derive(Clone, Debug)]
pub struct Buchi {
    pub labels: Vec<Label>,
    pub succ: Vec<Vec<u32>>,
    pub initial: Vec<u32>,
    pub accepting: Vec<bool>,
}

/// A node of the tableau under construction.
#[derive(Clone)]
struct Node {
    incoming: BTreeSet<usize>,
    new: Vec<Nnf>,
    old: BTreeSet<Nnf>,
    next: BTreeSet<Nnf>,
}

/// The `incoming` mark of the initial nodes.
const INIT: usize = usize::MAX;

/// A finished tableau node.
struct Done {
    incoming: BTreeSet<usize>,
    old: BTreeSet<Nnf>,
    next: BTreeSet<Nnf>,
}

fn negated(f: &Nnf) -> Option<Nnf> {
    match f {
        Nnf::Lit(i, b) => Some(Nnf::Lit(*i, !b)),
        Nnf::True => Some(Nnf::False),
        Nnf::False => Some(Nnf::True),
        _ => None,
    }
}

/// The tableau's nodes, found by expanding `start` (iteratively: nodes to expand are kept
/// on a work list, as the recursion of the paper would keep them on its stack).
fn tableau(f: Nnf) -> Vec<Done> {
    let mut done: Vec<Done> = Vec::new();
    let mut work = vec![Node {
        incoming: [INIT].into_iter().collect(),
        new: vec![f],
        old: BTreeSet::new(),
        next: BTreeSet::new(),
    }];
    while let Some(mut n) = work.pop() {
        let Some(eta) = n.new.pop() else {
            if let Some(d) = done.iter_mut().find(|d| d.old == n.old && d.next == n.next) {
                d.incoming.extend(n.incoming);
                continue;
            }
            let id = done.len();
            done.push(Done {
                incoming: n.incoming,
                old: n.old,
                next: n.next.clone(),
            });
            work.push(Node {
                incoming: [id].into_iter().collect(),
                new: n.next.into_iter().collect(),
                old: BTreeSet::new(),
                next: BTreeSet::new(),
            });
            continue;
        };
        if n.old.contains(&eta) {
            work.push(n);
            continue;
        }
        match &eta {
            Nnf::False => {}
            Nnf::True | Nnf::Lit(..) => {
                if negated(&eta).is_some_and(|neg| n.old.contains(&neg)) {
                    continue;
                }
                n.old.insert(eta);
                work.push(n);
            }
            Nnf::And(a, b) => {
                for x in [a, b] {
                    if !n.old.contains(x) {
                        n.new.push((**x).clone());
                    }
                }
                n.old.insert(eta.clone());
                work.push(n);
            }
            Nnf::Next(a) => {
                n.next.insert((**a).clone());
                n.old.insert(eta.clone());
                work.push(n);
            }
            Nnf::Or(a, b) | Nnf::Until(a, b) | Nnf::Release(a, b) => {
                // two nodes: (new1, next1) and (new2)
                let (new1, next1, new2): (Vec<&Nnf>, Option<&Nnf>, Vec<&Nnf>) = match &eta {
                    Nnf::Or(..) => (vec![a], None, vec![b]),
                    // a U b: b now, or a now and a U b next
                    Nnf::Until(..) => (vec![a], Some(&eta), vec![b]),
                    // a R b: b now and a R b next, or a and b now
                    _ => (vec![b], Some(&eta), vec![a, b]),
                };
                let mut n1 = n.clone();
                let mut n2 = n;
                for x in new1 {
                    if !n1.old.contains(x) {
                        n1.new.push(x.clone());
                    }
                }
                if let Some(x) = next1 {
                    n1.next.insert(x.clone());
                }
                n1.old.insert(eta.clone());
                for x in new2 {
                    if !n2.old.contains(x) {
                        n2.new.push(x.clone());
                    }
                }
                n2.old.insert(eta.clone());
                work.push(n1);
                work.push(n2);
            }
        }
    }
    done
}

/// The `U` subformulas of `f`.
fn untils(f: &Nnf, out: &mut BTreeSet<Nnf>) {
    match f {
        Nnf::True | Nnf::False | Nnf::Lit(..) => {}
        Nnf::Next(a) => untils(a, out),
        Nnf::And(a, b) | Nnf::Or(a, b) | Nnf::Release(a, b) => {
            untils(a, out);
            untils(b, out);
        }
        Nnf::Until(a, b) => {
            out.insert(f.clone());
            untils(a, out);
            untils(b, out);
        }
    }
}

impl Buchi {
    /// The automaton of the runs that satisfy `f`.
    pub fn of(f: &Nnf) -> Buchi {
        let nodes = tableau(f.clone());
        let mut us = BTreeSet::new();
        untils(f, &mut us);
        let us: Vec<Nnf> = us.into_iter().collect();
        // acceptance set i: the nodes where the i-th `a U b` is not pending or b holds
        let fair: Vec<Vec<bool>> = us
            .iter()
            .map(|u| {
                let Nnf::Until(_, b) = u else { unreachable!() };
                nodes
                    .iter()
                    .map(|n| !n.old.contains(u) || n.old.contains(b))
                    .collect()
            })
            .collect();
        let label = |n: &Done| {
            let mut l = Label { pos: 0, neg: 0 };
            for f in &n.old {
                if let Nnf::Lit(i, b) = f {
                    if *b {
                        l.pos |= 1 << i;
                    } else {
                        l.neg |= 1 << i;
                    }
                }
            }
            l
        };
        let k = us.len().max(1);
        // state (node, counter) = node * k + counter; the counter waits for acceptance set
        // `counter` and moves on when the node is in it
        let id = |node: usize, c: usize| (node * k + c) as u32;
        let in_set = |node: usize, c: usize| fair.get(c).is_none_or(|s| s[node]);
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        let mut initial = Vec::new();
        for (j, n) in nodes.iter().enumerate() {
            for &i in &n.incoming {
                if i == INIT {
                    initial.push(id(j, 0));
                } else {
                    preds[j].push(i);
                }
            }
        }
        let mut succ = vec![Vec::new(); nodes.len() * k];
        for (j, ps) in preds.iter().enumerate() {
            for &i in ps {
                for c in 0..k {
                    let d = if in_set(i, c) { (c + 1) % k } else { c };
                    succ[id(i, c) as usize].push(id(j, d));
                }
            }
        }
        let mut labels = Vec::with_capacity(nodes.len() * k);
        let mut accepting = Vec::with_capacity(nodes.len() * k);
        for (j, n) in nodes.iter().enumerate() {
            for c in 0..k {
                labels.push(label(n));
                accepting.push(c == 0 && in_set(j, 0));
            }
        }
        Buchi {
            labels,
            succ,
            initial,
            accepting,
        }
        .trimmed()
    }

    /// The same automaton without states that no run passes infinitely often through an
    /// accepting state from (nor are reachable): fewer product nodes to search.
    fn trimmed(self) -> Buchi {
        let n = self.labels.len();
        // reachable from the initial states
        let mut reach = vec![false; n];
        let mut stack: Vec<u32> = self.initial.clone();
        while let Some(q) = stack.pop() {
            if !std::mem::replace(&mut reach[q as usize], true) {
                stack.extend(&self.succ[q as usize]);
            }
        }
        // can reach an accepting state on a cycle: fixpoint of "can reach a kept accepting
        // state that can reach itself"; approximated by "can reach an accepting state", which
        // keeps every state a lasso may need
        let mut live = self.accepting.clone();
        loop {
            let mut changed = false;
            for q in 0..n {
                if !live[q] && self.succ[q].iter().any(|&r| live[r as usize]) {
                    live[q] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let keep: Vec<bool> = (0..n).map(|q| reach[q] && live[q]).collect();
        let mut map = vec![u32::MAX; n];
        let mut next = 0;
        for q in 0..n {
            if keep[q] {
                map[q] = next;
                next += 1;
            }
        }
        let pick = |qs: &[u32]| -> Vec<u32> {
            qs.iter()
                .filter(|&&q| keep[q as usize])
                .map(|&q| map[q as usize])
                .collect()
        };
        let mut out = Buchi {
            labels: Vec::new(),
            succ: Vec::new(),
            initial: pick(&self.initial),
            accepting: Vec::new(),
        };
        for (q, _) in keep.iter().enumerate().filter(|(_, &k)| k) {
            out.labels.push(self.labels[q]);
            out.succ.push(pick(&self.succ[q]));
            out.accepting.push(self.accepting[q]);
        }
        out
    }

    /// Whether the automaton accepts the lasso-shaped word `letters[..start]` then
    /// `letters[start..]` repeated forever (each letter the atoms' values in one model
    /// state): whether the product of the automaton with the word's positions has a reachable
    /// cycle through an accepting state.
    pub fn accepts_lasso(&self, letters: &[u64], start: usize) -> bool {
        let n = letters.len();
        if start >= n {
            return false;
        }
        let q = self.labels.len();
        let node = |p: usize, s: u32| p * q + s as usize;
        let after = |p: usize| if p + 1 == n { start } else { p + 1 };
        let mut g = petgraph::graph::DiGraph::<(), ()>::new();
        let ids: Vec<_> = (0..n * q).map(|_| g.add_node(())).collect();
        let mut reach = vec![false; n * q];
        let mut stack: Vec<usize> = self
            .initial
            .iter()
            .filter(|&&s| self.labels[s as usize].admits(letters[0]))
            .map(|&s| node(0, s))
            .collect();
        while let Some(v) = stack.pop() {
            if std::mem::replace(&mut reach[v], true) {
                continue;
            }
            let (p, s) = (v / q, v % q);
            let p2 = after(p);
            for &t in &self.succ[s] {
                if self.labels[t as usize].admits(letters[p2]) {
                    let w = node(p2, t);
                    g.add_edge(ids[v], ids[w], ());
                    stack.push(w);
                }
            }
        }
        // (Kosaraju's walk keeps its own stack: Tarjan's recursion overflowed the thread's
        // stack on a lasso of 80,000 steps, a pushdown lasso of recursive-liveness 16000)
        petgraph::algo::kosaraju_scc(&g).iter().any(|scc| {
            let cyclic = scc.len() > 1 || g.contains_edge(scc[0], scc[0]);
            cyclic
                && scc.iter().any(|&v| {
                    let v = v.index();
                    reach[v] && self.accepting[v % q]
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(i: usize) -> Box<Nnf> {
        Box::new(Nnf::Lit(i, true))
    }
    fn nlit(i: usize) -> Box<Nnf> {
        Box::new(Nnf::Lit(i, false))
    }
    /// G a = false R a; F a = true U a
    fn g(a: Box<Nnf>) -> Nnf {
        Nnf::Release(Box::new(Nnf::False), a)
    }
    fn f(a: Box<Nnf>) -> Nnf {
        Nnf::Until(Box::new(Nnf::True), a)
    }

    #[test]
    fn eventually_and_always_accept_the_words_they_should() {
        let fp = Buchi::of(&f(lit(0)));
        assert!(fp.accepts_lasso(&[0, 0, 1], 2));
        assert!(fp.accepts_lasso(&[0, 1, 0], 2));
        assert!(!fp.accepts_lasso(&[0, 0], 1));
        let gp = Buchi::of(&g(lit(0)));
        assert!(gp.accepts_lasso(&[1, 1], 0));
        assert!(!gp.accepts_lasso(&[1, 0, 1], 1));
    }

    #[test]
    fn infinitely_often_needs_the_letter_in_the_cycle() {
        // G F p
        let gfp = Buchi::of(&g(Box::new(f(lit(0)))));
        assert!(gfp.accepts_lasso(&[0, 0, 1, 0], 1));
        assert!(!gfp.accepts_lasso(&[1, 1, 0, 0], 2));
        // F G !p
        let fgnp = Buchi::of(&f(Box::new(g(nlit(0)))));
        assert!(fgnp.accepts_lasso(&[1, 1, 0, 0], 2));
        assert!(!fgnp.accepts_lasso(&[0, 0, 1, 0], 1));
    }

    #[test]
    fn until_and_next() {
        // p U q
        let u = Buchi::of(&Nnf::Until(lit(0), lit(1)));
        assert!(u.accepts_lasso(&[0b01, 0b01, 0b10, 0], 3));
        assert!(!u.accepts_lasso(&[0b01, 0b00, 0b10], 2));
        assert!(!u.accepts_lasso(&[0b01], 0));
        // X p
        let x = Buchi::of(&Nnf::Next(lit(0)));
        assert!(x.accepts_lasso(&[0, 1, 0], 2));
        assert!(!x.accepts_lasso(&[1, 0, 1], 2));
        // two eventualities: G F p && G F q, on a cycle that has both, one, none
        let both = Nnf::And(
            Box::new(g(Box::new(f(lit(0))))),
            Box::new(g(Box::new(f(lit(1))))),
        );
        let b = Buchi::of(&both);
        assert!(b.accepts_lasso(&[0, 0b01, 0b10], 1));
        assert!(!b.accepts_lasso(&[0, 0b01, 0b01], 1));
        assert!(!b.accepts_lasso(&[0b11, 0, 0], 1));
    }
}
