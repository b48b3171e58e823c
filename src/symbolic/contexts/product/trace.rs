//! The product search's counterexample on the original program: the sequential engine's
//! path on the product program, each step of a thread taken again on the interpreter and
//! matched against the next product state.

use super::{Product, Role, Shape};
use crate::runtime::{Machine, Outcome, State, Value};
use crate::search::{Finding, Replayed, Replayer};
use crate::symbolic::bdd::Bdds;
use crate::symbolic::reach::{Engine, Found};
use zingrs_lang::ir::Pc;

/// The finding's path on the original program: the sequential engine's counterexample on
/// the product program, each step of a thread taken again on `m` and matched against the
/// next product state.
pub(super) fn counterexample<B: Bdds>(
    e: &Engine<B>,
    prod: &Product,
    shape: &Shape,
    m: &Machine,
    f: Found,
) -> Result<(Finding, Replayed), String> {
    let (_, pr) = e.finding(f, true)?;
    let ps = &pr.states;
    let pg = |s: &State, x: u32| s.globals[x as usize];
    let first = ps.first().ok_or("the product path has no state")?;
    let (init, _) = shape.init.expect("the Getafix layout");
    let mut start: Vec<Value> = prod.gmap.iter().map(|&x| pg(first, x)).collect();
    start.extend(prod.imap.iter().map(|&x| pg(first, x)));
    let mut r = Replayer::start(m, start, true)?;
    let globals_agree = |s: &State, tid: usize, p: &State| {
        let gv = m.global_values(s, Some(tid));
        prod.gmap
            .iter()
            .enumerate()
            .all(|(g, &x)| gv[g] == pg(p, x))
    };
    // thread j of `s` is at v with the live locals of `p`
    let thread_agrees = |s: &State, j: usize, v: Pc, p: &State| {
        let Some(fr) = s.threads.get(j).and_then(|t| t.stack.top()) else {
            return false;
        };
        let f = &prod.flats[j];
        let (inst, pc) = f.at[v as usize];
        let inst = &f.insts[inst as usize];
        fr.proc == inst.proc
            && fr.pc == pc
            && prod.live[inst.proc as usize][pc as usize]
                .iter()
                .all(|l| fr.locals[l as usize] == pg(p, inst.locals[l as usize]))
    };
    // where thread j is in product state `p`, if its frame is at one of its nodes
    let at = |p: &State| -> Option<(usize, Pc)> {
        let fr = p.threads.first()?.stack.top()?;
        if fr.proc != prod.proc {
            return None;
        }
        match prod.role[fr.pc as usize] {
            Role::At { thread, v } | Role::Runs { thread, v } => Some((thread, v)),
            _ => None,
        }
    };
    let take = |r: &mut Replayer, tid: usize, ok: &dyn Fn(&State) -> bool| {
        let hit = r.outcomes(tid as u32)?.iter().position(|o| match o {
            Outcome::Next { state, .. } => ok(state),
            _ => false,
        });
        let i = hit.ok_or_else(|| format!("no step of thread {tid} matches the product path"))?;
        r.take(i as u32)
    };
    for w in ps.windows(2) {
        let (p0, p1) = (&w[0], &w[1]);
        let fr = p0.threads[0]
            .stack
            .top()
            .ok_or("the product thread ended")?;
        let role = if fr.proc == prod.proc {
            prod.role[fr.pc as usize]
        } else {
            // inside a procedure `init` calls
            Role::Init
        };
        match role {
            Role::Aux | Role::At { .. } => {}
            Role::Init if fr.proc == prod.proc && fr.pc == shape.init.unwrap().1 => {
                // the threads start, each with the locals it has in the product
                take(&mut r, 0, &|s| {
                    (0..prod.flats.len()).all(|j| thread_agrees(s, j, shape.starts[j].1, p1))
                })?;
            }
            Role::Init => {
                let f1 = p1.threads[0]
                    .stack
                    .top()
                    .ok_or("the product thread ended")?;
                let ok = |s: &State| {
                    let Some(fo) = s.threads.first().and_then(|t| t.stack.top()) else {
                        return false;
                    };
                    if !globals_agree(s, 0, p1) {
                        return false;
                    }
                    if f1.proc == prod.proc {
                        fo.proc == init
                            && fo.pc == f1.pc
                            && prod
                                .imap
                                .iter()
                                .enumerate()
                                .all(|(l, &x)| fo.locals[l] == pg(p1, x))
                    } else {
                        fo.proc == f1.proc && fo.pc == f1.pc && fo.locals == f1.locals
                    }
                };
                take(&mut r, 0, &ok)?;
            }
            Role::Runs { thread, .. } => {
                let (j, v1) = at(p1).ok_or("a thread's step leaves its code")?;
                if j != thread {
                    return Err("a thread's step lands in another thread".into());
                }
                take(&mut r, j, &|s| {
                    globals_agree(s, j, p1) && thread_agrees(s, j, v1, p1)
                })?;
            }
        }
    }
    let (path, replayed) = r.finish();
    Ok((e.finding_of(f, path), replayed))
}
