//! Whether the bound cut the product search: a switch out of the last context could happen
//! ([`cut`]), unless more switches would find nothing new ([`saturated`]).

use super::{Product, Shape};
use crate::symbolic::bdd::Bdds;
use crate::symbolic::reach::Engine;
use zingrs_lang::ir::Stmt;

/// Whether a switch out of the last context could happen: a thread at a switch point with
/// the lock free (or ending), while another thread can take a step where it is: it has not
/// ended, and is not at an `assume` that cannot hold. A thread resumed that takes no step
/// changes nothing (a thread that could run after it could have run in its place, and is
/// counted there), and a blocked thread stays blocked while it does not move. Still
/// conservative: an assignment's `constrain` or an `enforce` after the step may block it too.
pub(super) fn cut<B: Bdds>(e: &Engine<B>, prod: &Product, shape: &Shape) -> bool {
    let b = &e.bdd;
    let cv = |s: u32| e.layout.cv(s);
    let unlocked = match shape.atomic {
        Some(a) => b.not(&b.var(cv(prod.gmap[a as usize]))),
        None => b.constant(true),
    };
    // per thread: the states where it can take a step (its code is in the product's globals)
    let running: Vec<B::F> = prod
        .pcbits
        .iter()
        .zip(&prod.flats)
        .zip(&shape.created)
        .map(|((bits, f), created)| {
            // a thread the standard layout creates: once it is
            let mut can = match created {
                Some(x) => b.var(cv(prod.gmap[*x as usize])),
                None => b.constant(true),
            };
            let mut at_one = b.constant(false);
            for (v, node) in f.nodes.iter().enumerate() {
                let enabled = match &node.stmt {
                    Stmt::Return { .. } => continue,
                    Stmt::Assume { cond } => e.can_hold(cond),
                    _ => b.constant(true),
                };
                let at: Vec<(u32, bool)> = bits
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| (cv(x), v >> i & 1 == 1))
                    .collect();
                at_one = b.or(&at_one, &b.and(&b.literals(&at), &enabled));
            }
            can = b.and(&can, &at_one);
            can
        })
        .collect();
    let base = e.entry(prod.proc);
    prod.last.iter().any(|&(n, j, ending)| {
        let r = &e.reached[(base + n) as usize];
        if b.is_false(r) {
            return false;
        }
        let mut other = b.constant(false);
        for (u, run) in running.iter().enumerate() {
            if u != j {
                other = b.or(&other, run);
            }
        }
        let s = b.and(r, &other);
        let s = if ending { s } else { b.and(&s, &unlocked) };
        !b.is_false(&s)
    })
}

/// Whether more switches would find nothing new: every state of the last context at a
/// statement where a thread is resumed was reached at the same statement in an earlier
/// context. A run with more than `k` switches enters context `k` at such a statement with
/// such a state; the run that reached it earlier, with fewer switches, goes on from there with
/// the same steps, so (repeating the exchange) every state any run reaches is reached within
/// `k` switches, and a pass is a proof for every bound. The same-statement pruning
/// ([`Engine::shadow`]) looks two contexts back only; this looks at all of them, once, at the
/// end (looping threads whose states come back every other context end here).
pub(super) fn saturated<B: Bdds>(e: &Engine<B>, prod: &Product, k: u32) -> bool {
    let b = &e.bdd;
    let base = e.entry(prod.proc);
    let nodes = &prod.program.procs[prod.proc as usize].nodes;
    // the statement the leaf for node v of thread j leads to, in context c
    let entry = |c: usize, j: usize, v: u32| base + nodes[(prod.leaves[c][j] + v) as usize].succ[0];
    let k = k as usize;
    prod.flats.iter().enumerate().all(|(j, f)| {
        (0..f.nodes.len() as u32).all(|v| {
            let mut rest = e.reached[entry(k, j, v) as usize].clone();
            // one state first: if no earlier context reached it here (fib-bp: the sums only
            // grow), the answer needs no subtraction of whole contexts
            if let Some(p) = b.pick(&rest) {
                let vals: Vec<(u32, bool)> = (0..)
                    .zip(&p)
                    .map(|(x, val)| (x, val.unwrap_or(false)))
                    .collect();
                let anywhere = (0..k)
                    .any(|c| b.eval(&e.reached[entry(c, j, v) as usize], &vals) != Some(false));
                if !anywhere {
                    return false;
                }
            }
            for c in (0..k).rev() {
                if b.is_false(&rest) {
                    break;
                }
                rest = b.and_not(&rest, &e.reached[entry(c, j, v) as usize]);
            }
            b.is_false(&rest)
        })
    })
}
