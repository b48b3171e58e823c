//! The product search's counterexample on the original program: the sequential engine's
//! path on the product program, each step of a thread taken again on the interpreter and
//! matched against the next product state.

use super::{ends_at, Product, Role, Shape, Tids};
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
    // the program's own globals (not the layout's added ones, which the interpreter keeps
    // in its threads)
    let own = &prod.gmap[..shape.own_globals as usize];
    let mut start: Vec<Value> = own.iter().map(|&x| pg(first, x)).collect();
    let mut tids = match shape.init {
        Some(_) => {
            start.extend(prod.imap.iter().map(|&x| pg(first, x)));
            Tids::getafix(prod.flats.len())
        }
        None => {
            // `main`'s first frame
            let main = &prod.flats[0].insts[0].locals;
            start.extend(main.iter().map(|&x| pg(first, x)));
            Tids::standard(&shape.sites)
        }
    };
    let mut r = Replayer::start(m, start, true)?;
    let globals_agree = |s: &State, tid: usize, p: &State| {
        let gv = m.global_values(s, Some(tid));
        own.iter().enumerate().all(|(g, &x)| gv[g] == pg(p, x))
    };
    // thread `tid` of `s` is where thread j is at v in `p`, with the same live locals
    let thread_agrees = |s: &State, tid: usize, j: usize, v: Pc, p: &State| {
        let Some(fr) = s.threads.get(tid).and_then(|t| t.stack.top()) else {
            return false;
        };
        let f = &prod.flats[j];
        let (inst, pc) = f.at[v as usize];
        let inst = &f.insts[inst as usize];
        fr.proc == shape.orig[inst.proc as usize]
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
            Role::Aux => {}
            Role::At { thread, v } => {
                // left where it ends inside the standard layout's atomic section: it ends,
                // releasing the section, before another thread runs
                let tid = tids.of(thread)?;
                let owner = r.state().threads.get(tid).is_some_and(|t| t.atomic);
                if owner && shape.release_on_end && ends_at(shape, &prod.flats[thread], v as usize)
                {
                    tids.end_in_section(&mut r, tid)?;
                }
            }
            Role::Init if fr.proc == prod.proc && Some(fr.pc) == shape.init.map(|i| i.1) => {
                // the threads start, each with the locals it has in the product
                take(&mut r, 0, &|s| {
                    (0..prod.flats.len()).all(|j| thread_agrees(s, j, j, shape.starts[j].1, p1))
                })?;
            }
            Role::Init => {
                let (init, _) = shape.init.ok_or("init's step in the standard layout")?;
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
            Role::Runs { thread, v: v0 } => {
                let (j, v1) = at(p1).ok_or("a thread's step leaves its code")?;
                if j != thread {
                    return Err("a thread's step lands in another thread".into());
                }
                let tid = tids.of(j)?;
                // a creation (standard layout) starts the next slot of its site, with the
                // first locals that slot has in the product
                let f = &prod.flats[j];
                let (inst, pc) = f.at[v0 as usize];
                let here = (f.insts[inst as usize].proc, pc);
                let site = shape.sites.iter().position(|s| s.0 == here);
                let child = site.and_then(|i| tids.child(&shape.sites, i));
                take(&mut r, tid, &|s| {
                    globals_agree(s, tid, p1)
                        && thread_agrees(s, tid, j, v1, p1)
                        && child.is_none_or(|c| {
                            thread_agrees(s, s.threads.len() - 1, c, shape.starts[c].1, p1)
                        })
                })?;
                if let (Some(i), Some(c)) = (site, child) {
                    tids.created(i, c, r.state().threads.len() - 1);
                }
            }
        }
    }
    if let Found::Assertion { .. } = f {
        // the standard layout's assertions (Getafix's are filters)
        let (j, _) = ps
            .last()
            .and_then(at)
            .ok_or("the assertion is not a thread's")?;
        let tid = tids.of(j)?;
        let i = r
            .outcomes(tid as u32)?
            .iter()
            .position(|o| matches!(o, Outcome::Violation(_)))
            .ok_or("the assertion does not fail")?;
        r.take(i as u32)?;
    }
    let (path, replayed) = r.finish();
    Ok((e.finding_of(f, path), replayed))
}
