//! Transfer relations: what processing a vertex does with its path edges, built once from its
//! statement and the live locals around it (and shared between vertices with the same key),
//! and the relations of each call site that enter the callee and apply its summaries.

use super::Engine;
use crate::symbolic::bdd::Bdds;
use crate::symbolic::model;
use zingrs_lang::ir::{Expr, LValue, ProcId, Program, Stmt};

/// What processing a vertex does with its new path edges.
pub enum Xfer<B: Bdds> {
    /// `skip`, `goto`: the path edges go on unchanged to every successor (`kill[i]`: the
    /// locals that die on the way to successor `i`).
    Jump { kill: Vec<B::F> },
    /// A test: `t` to `succ[0]`, `f` to `succ[1]`.
    Branch {
        t: B::F,
        f: B::F,
        kt: B::F,
        kf: B::F,
    },
    /// `assume`, and `assert` when assertions only filter.
    Assume { t: B::F, kill: B::F },
    /// A checked assertion: `bad` is where it fails, `t` where the path goes on.
    Assert { t: B::F, bad: B::F, kill: B::F },
    /// Assignment, `dead`, `constrain`: `∃ C_targets. PE ∧ rel`, then next→current.
    Update {
        rel: B::F,
        cube: B::F,
        ren: B::Renaming,
        /// current→next of the targets and the next-copy cube, for pre-images.
        back: B::Renaming,
        ncube: B::F,
    },
    /// A call: index into the call sites.
    Call(u32),
    /// A return: `rel` binds the result values to the next copies of local slots 0..k.
    Return { rel: B::F },
}

/// What a transfer relation depends on besides the layout: the statement, and the live
/// locals at the vertex and at each successor. Vertices with equal keys (the same statement
/// in procedures with the same shape, as in bebop-t) share one built relation. The key borrows
/// the statement from the program (the product program of the context-bounded search holds
/// thousands of copies of large expressions: cloning them for the keys cost more than the
/// hashing).
#[derive(PartialEq, Eq)]
pub struct XferKey<'p> {
    /// The hash of the rest, computed once: the cache's table rehashes every key each time it
    /// grows, and a key's statement can be an expression over thousands of variables
    /// (bp-parity 64000: hashing them again was 6% of the run). First, so that unequal keys
    /// usually differ at the first comparison.
    hash: u64,
    stmt: StmtKey<'p>,
    live: Vec<u64>,
}

impl std::hash::Hash for XferKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

#[derive(Hash, PartialEq, Eq)]
enum StmtKey<'p> {
    Jump,
    Branch(&'p Expr),
    Assume(&'p Expr),
    Assert(&'p Expr),
    Assign(&'p [Option<LValue>], &'p [Expr], Option<&'p Expr>),
    Havoc(&'p [LValue]),
    Constrain(&'p Expr, u32),
    Return(Option<&'p [Expr]>),
}

/// One call site, with the relations used to enter the callee and to apply its summary.
pub struct CallSite<B: Bdds> {
    pub c: u32,
    pub w: u32,
    pub callee: ProcId,
    /// `∧ N_{formal j} ∈ args_j(C)`.
    pub argrel_n: B::F,
    /// Everything but the touched globals' current copies and the formals' next copies
    /// (only when there are arguments: without, the seed is a projection on `seed_keep`).
    pub seed_cube: Option<B::F>,
    /// The touched globals' current copies, sorted.
    pub seed_keep: Vec<u32>,
    pub formal_ren: B::Renaming,
    /// Discarded results and global receivers (whose callee values are overwritten).
    pub lift_pre: B::F,
    /// Entry globals → current, exit globals → next, result temporaries → receivers' next.
    pub lift_ren: B::Renaming,
    /// `∧ E_{formal j} ∈ args_j(C)` and the cube of the formals' entry copies.
    pub argrel_e: B::F,
    pub formals_e: B::F,
    /// The current copies the summary replaces (and the locals that die at the return point),
    /// and the next→current renaming of those that live on.
    pub ret_cube: B::F,
    pub ret_ren: B::Renaming,
    /// The slots whose current copies the summary replaces.
    pub ret_slots: Vec<u32>,
    /// The receiver slot of each result (`None`: discarded).
    pub recv: Vec<Option<u32>>,
    /// The number of caller slots a summary edge reads: the callee's touched globals and the
    /// variables its arguments read (a summary edge is a pair of a valuation of these and of
    /// the next copies of `ret_slots`).
    pub inputs: u32,
    /// The summary edges found so far (caller current → caller next).
    pub sum: B::F,
}

impl<'p, B: Bdds> Engine<'_, 'p, B> {
    /// The key under which vertex `v`'s transfer relation can be shared (`None` for calls,
    /// whose call sites are per vertex).
    pub(super) fn xfer_key(&self, v: u32) -> Option<XferKey<'p>> {
        let p: &'p Program = self.m.program;
        let q = self.proc_of[v as usize];
        let node = p.node(q, self.pc(v));
        let stmt = match &node.stmt {
            Stmt::Skip | Stmt::Goto => StmtKey::Jump,
            Stmt::Branch { cond } => StmtKey::Branch(cond),
            Stmt::Assume { cond } => StmtKey::Assume(cond),
            // an assertion not checked is an assume (`--no-assertions`, `check --property`)
            Stmt::Assert { cond } if self.m.semantics.checks_assertion(q, self.pc(v)) => {
                StmtKey::Assert(cond)
            }
            Stmt::Assert { cond } => StmtKey::Assume(cond),
            Stmt::Assign {
                targets,
                values,
                constrain,
            } => StmtKey::Assign(targets, values, constrain.as_ref()),
            Stmt::Havoc { targets } => StmtKey::Havoc(targets),
            Stmt::Constrain { expr } => {
                StmtKey::Constrain(expr, p.procs[q as usize].locals.len() as u32)
            }
            Stmt::Return { values } => StmtKey::Return(values.as_deref()),
            _ => return None,
        };
        let live = &self.procs[q as usize].live;
        let mut words = Vec::new();
        for &w in std::iter::once(&v).chain(self.succs(v)) {
            let b = live[self.pc(w) as usize].words();
            words.push(b.len() as u64);
            words.extend_from_slice(b);
        }
        let hash = {
            use std::hash::{Hash, Hasher};
            let mut h = ahash::AHasher::default();
            stmt.hash(&mut h);
            words.hash(&mut h);
            h.finish()
        };
        Some(XferKey {
            hash,
            stmt,
            live: words,
        })
    }

    pub(super) fn build_xfer(&mut self, v: u32) -> Xfer<B> {
        let p = self.m.program;
        let q = self.proc_of[v as usize];
        let pc = self.pc(v);
        let node = p.node(q, pc);
        if let Stmt::Call {
            callee,
            args,
            results,
        } = &node.stmt
        {
            let cs = self.build_callsite(v, *callee, args, results);
            let i = self.callsites.len() as u32;
            self.callsites.push(cs);
            self.callsite_of[v as usize] = i;
            self.procs[*callee as usize].callsites.push(i);
            return Xfer::Call(i);
        }
        let enc = self.enc();
        let b = &self.bdd;
        let unprimed = enc.unprimed();
        let slot = |lv: &LValue| match lv {
            LValue::Global(i) => *i,
            LValue::Local(j) => self.g + j,
            _ => unreachable!("applies() rejects non-boolean lvalues"),
        };
        let succs = self.succs(v);
        let kill = |w: u32| b.cube(&self.dying(v, w, &[]));
        let update = |targets: Vec<u32>, rel: B::F| {
            let w = succs[0];
            let lives = |s: u32| self.lives_at(w, s);
            let mut quant: Vec<u32> = targets.iter().map(|&s| self.layout.cv(s)).collect();
            quant.extend(self.dying(v, w, &targets));
            quant.extend(
                targets
                    .iter()
                    .filter(|&&s| !lives(s))
                    .map(|&s| self.layout.nv(s)),
            );
            quant.sort_unstable();
            let cube = b.cube(&quant);
            let ncube = b.cube(
                &targets
                    .iter()
                    .map(|&s| self.layout.nv(s))
                    .collect::<Vec<_>>(),
            );
            let kept: Vec<u32> = targets.iter().copied().filter(|&s| lives(s)).collect();
            let pairs: Vec<(u32, u32)> = kept
                .iter()
                .map(|&s| (self.layout.nv(s), self.layout.cv(s)))
                .collect();
            let back: Vec<(u32, u32)> = kept
                .iter()
                .map(|&s| (self.layout.cv(s), self.layout.nv(s)))
                .collect();
            Xfer::Update {
                rel,
                cube,
                ren: b.renaming(&pairs),
                back: b.renaming(&back),
                ncube,
            }
        };
        match &node.stmt {
            Stmt::Skip | Stmt::Goto => Xfer::Jump {
                kill: succs.iter().map(|&w| kill(w)).collect(),
            },
            Stmt::Branch { cond } => {
                let s = enc.sets(cond, &unprimed);
                Xfer::Branch {
                    t: s.t,
                    f: s.f,
                    kt: kill(succs[0]),
                    kf: kill(succs[1]),
                }
            }
            Stmt::Assume { cond } => Xfer::Assume {
                t: enc.sets(cond, &unprimed).t,
                kill: kill(succs[0]),
            },
            Stmt::Assert { cond } => {
                let s = enc.sets(cond, &unprimed);
                if self.m.semantics.checks_assertion(q, pc) {
                    Xfer::Assert {
                        t: s.t,
                        bad: s.f,
                        kill: kill(succs[0]),
                    }
                } else {
                    Xfer::Assume {
                        t: s.t,
                        kill: kill(succs[0]),
                    }
                }
            }
            Stmt::Assign {
                targets,
                values,
                constrain,
            } => {
                // the last write to a variable wins; earlier ones only need a value
                let mut tslots: Vec<u32> = Vec::new();
                let mut rel = b.constant(true);
                for (k, t) in targets.iter().enumerate().rev() {
                    let Some(t) = t else { continue };
                    let s = slot(t);
                    if tslots.contains(&s) {
                        continue;
                    }
                    tslots.push(s);
                    rel = b.and(&rel, &enc.takes(self.layout.nv(s), &values[k], &unprimed));
                }
                if let Some(c) = constrain {
                    let primed = |gl: bool, i: u32| {
                        let s = if gl { i } else { self.g + i };
                        if tslots.contains(&s) {
                            self.layout.nv(s)
                        } else {
                            self.layout.cv(s)
                        }
                    };
                    rel = b.and(&rel, &enc.sets(c, &primed).t);
                }
                tslots.sort_unstable();
                update(tslots, rel)
            }
            Stmt::Havoc { targets } => {
                let mut tslots: Vec<u32> = targets.iter().map(slot).collect();
                tslots.sort_unstable();
                tslots.dedup();
                update(tslots, b.constant(true))
            }
            Stmt::Constrain { expr } => {
                let nloc = p.procs[q as usize].locals.len() as u32;
                let tslots: Vec<u32> = (0..self.g + nloc).collect();
                let primed = |gl: bool, i: u32| {
                    if gl {
                        self.layout.nv(i)
                    } else {
                        self.layout.nv(self.g + i)
                    }
                };
                let rel = enc.sets(expr, &primed).t;
                update(tslots, rel)
            }
            Stmt::Return { values } => {
                let rel = match values {
                    None => b.constant(true),
                    Some(vs) => {
                        let mut rel = b.constant(true);
                        for (k, e) in vs.iter().enumerate().rev() {
                            rel = b.and(
                                &enc.takes(self.layout.nv(self.g + k as u32), e, &unprimed),
                                &rel,
                            );
                        }
                        rel
                    }
                };
                Xfer::Return { rel }
            }
            Stmt::Call { .. } => unreachable!("handled above"),
            _ => unreachable!("applies() rejects concurrent and non-boolean programs"),
        }
    }

    pub(super) fn build_callsite(
        &self,
        c: u32,
        callee: ProcId,
        args: &[zingrs_lang::ir::Expr],
        results: &[Option<LValue>],
    ) -> CallSite<B> {
        let p = self.m.program;
        let b = &self.bdd;
        let enc = self.enc();
        let unprimed = enc.unprimed();
        let g = self.g;
        let qi = &self.procs[callee as usize];
        let params = p.procs[callee as usize].params;
        let w = self.succs(c)[0];
        // entering the callee
        let mut argrel_n = b.constant(true);
        let mut argrel_e = b.constant(true);
        for (j, a) in args.iter().enumerate().rev() {
            argrel_n = b.and(
                &enc.takes(self.layout.nv(g + j as u32), a, &unprimed),
                &argrel_n,
            );
            argrel_e = b.and(
                &enc.takes(self.layout.ev(g + j as u32), a, &unprimed),
                &argrel_e,
            );
        }
        // the seed keeps the touched globals' current copies and the live formals' next copies
        let keep: Vec<(u32, bool)> = qi
            .touched
            .iter()
            .map(|i| (self.layout.cv(i), true))
            .collect();
        let live_formal = |j: u32| qi.live[0].contains(j);
        let dead_formals: Vec<u32> = (0..params)
            .filter(|&j| !live_formal(j))
            .map(|j| self.layout.nv(g + j))
            .collect();
        // without arguments the seed is a projection: no cube over every other variable (one
        // per call site, each as long as the variable order) is built
        let mut seed_keep: Vec<u32> = keep.iter().map(|l| l.0).collect();
        seed_keep.sort_unstable();
        let seed_cube = if args.is_empty() && params == 0 {
            None
        } else {
            Some(b.and(
                &b.restrict(&self.all_ec, &b.literals(&keep)),
                &b.cube(&dead_formals),
            ))
        };
        let formal_pairs: Vec<(u32, u32)> = (0..params)
            .filter(|&j| live_formal(j))
            .map(|j| (self.layout.nv(g + j), self.layout.cv(g + j)))
            .collect();
        let formals_e = b.cube(
            &(0..params)
                .map(|j| self.layout.ev(g + j))
                .collect::<Vec<_>>(),
        );
        // returning: result k is in N of local slot k
        let nret = p.procs[callee as usize].returns.len() as u32;
        let mut recv: Vec<Option<u32>> = (0..nret)
            .map(|k| {
                results
                    .get(k as usize)
                    .and_then(|r| r.as_ref())
                    .map(|lv| match lv {
                        LValue::Global(i) => *i,
                        LValue::Local(j) => g + j,
                        _ => unreachable!("applies() rejects non-boolean lvalues"),
                    })
            })
            .collect();
        // the last receiver of a variable wins
        for k in (0..recv.len()).rev() {
            if let Some(s) = recv[k] {
                if recv[k + 1..].contains(&Some(s)) {
                    recv[k] = None;
                }
            }
        }
        let mut pre: Vec<u32> = Vec::new();
        let mut ren: Vec<(u32, u32)> = Vec::new();
        let mut ret_slots: Vec<u32> = Vec::new();
        for (k, r) in recv.iter().enumerate() {
            match r {
                None => pre.push(self.layout.nv(g + k as u32)),
                Some(s) => {
                    ren.push((self.layout.nv(g + k as u32), self.layout.nv(*s)));
                    ret_slots.push(*s);
                    if *s < g {
                        pre.push(self.layout.cv(*s));
                    }
                }
            }
        }
        for i in qi.touched.iter() {
            ren.push((self.layout.ev(i), self.layout.cv(i)));
            if !ret_slots.contains(&i) {
                ren.push((self.layout.cv(i), self.layout.nv(i)));
                ret_slots.push(i);
            }
        }
        ret_slots.sort_unstable();
        ret_slots.dedup();
        // at the return point: replace the written slots that live on, forget the others and
        // the locals that die across the call
        let mut quant: Vec<u32> = ret_slots.iter().map(|&s| self.layout.cv(s)).collect();
        quant.extend(self.dying(c, w, &ret_slots));
        quant.extend(
            ret_slots
                .iter()
                .filter(|&&s| !self.lives_at(w, s))
                .map(|&s| self.layout.nv(s)),
        );
        quant.sort_unstable();
        let ret_cube = b.cube(&quant);
        let ret_pairs: Vec<(u32, u32)> = ret_slots
            .iter()
            .filter(|&&s| self.lives_at(w, s))
            .map(|&s| (self.layout.nv(s), self.layout.cv(s)))
            .collect();
        // the touched globals and the other slots the arguments read
        let mut inputs = qi.touched.len();
        if !args.is_empty() {
            let mut read = model::Bits::new(self.nslots as usize);
            for a in args {
                model::read_slots(a, g, &mut read);
            }
            inputs += read.iter().filter(|&s| !qi.touched.contains(s)).count() as u32;
        }
        let mut cs = CallSite {
            inputs,
            c,
            w,
            callee,
            argrel_n,
            seed_cube,
            seed_keep,
            formal_ren: b.renaming(&formal_pairs),
            lift_pre: b.cube(&pre),
            lift_ren: b.renaming(&ren),
            argrel_e,
            formals_e,
            ret_cube,
            ret_ren: b.renaming(&ret_pairs),
            ret_slots,
            recv,
            sum: b.constant(false),
        };
        if !b.is_false(&qi.exits) {
            cs.sum = self.lift(&cs, &qi.exits);
        }
        cs
    }
}
