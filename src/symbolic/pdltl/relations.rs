//! The product's transfer relations: the slots' variables, the automaton's moves with the
//! atoms they read, and each vertex's and call site's relations ([`Pd::build`]), made once
//! before the fixpoint of [`super`].

use super::*;

impl Pd<'_, '_> {
    pub(super) fn var(&self, s: u32, c: Copy) -> u32 {
        match c {
            Copy::E => self.lay.ev(s),
            Copy::C => self.lay.cv(s),
            Copy::N => self.lay.nv(s),
        }
    }

    pub(super) fn acc(&self) -> u32 {
        self.g + self.k
    }

    pub(super) fn local(&self, j: u32) -> u32 {
        self.g + self.k + 1 + j
    }

    /// The number of variables of a head-graph node's set (globals, automaton state,
    /// locals: current copies).
    pub(crate) fn node_vars(&self, _v: u32) -> u32 {
        self.g + self.k + self.l
    }

    /// The program's slots (globals and locals, not the automaton's).
    pub(super) fn prog_slots(&self) -> impl Iterator<Item = u32> {
        let (g, k, l) = (self.g, self.k, self.l);
        (0..g).chain(g + k + 1..g + k + 1 + l)
    }

    pub(super) fn atoms(&mut self) {
        let enc = Encoder {
            bdd: &self.b,
            layout: self.lay,
        };
        let un = enc.unprimed();
        let to = |c: Copy| {
            let pairs: Vec<(u32, u32)> = (0..self.g)
                .map(|i| (self.lay.cv(i), self.var(i, c)))
                .collect();
            self.b.renaming(&pairs)
        };
        let (rn, re) = (to(Copy::N), to(Copy::E));
        for a in self.ltl.atoms() {
            match a {
                Atom::Expr(x) => {
                    let t = enc.sets(x, &un).t;
                    self.atom_n.push(Some(self.b.rename(&t, &rn)));
                    self.atom_e.push(Some(self.b.rename(&t, &re)));
                    self.atom_c.push(Some(t));
                }
                Atom::At(_) => {
                    self.atom_c.push(None);
                    self.atom_n.push(None);
                    self.atom_e.push(None);
                }
            }
        }
    }

    /// The location atoms that hold at vertex `v` (`done`: none), one bit each.
    pub(super) fn loc_mask(&self, v: u32) -> u64 {
        if v == self.done {
            return 0;
        }
        let q = self.proc_of[v as usize];
        let pc = v - self.base[q as usize];
        self.ltl
            .atoms()
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(a, Atom::At(pts) if pts.contains(&(q, pc as Pc))))
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// `copy` holds automaton state `q`.
    pub(super) fn qis(&self, q: u32, c: Copy) -> F {
        let lits: Vec<(u32, bool)> = (0..self.k)
            .map(|i| (self.var(self.g + i, c), q >> i & 1 == 1))
            .collect();
        self.b.literals(&lits)
    }

    /// The automaton is in an accepting state in `copy`.
    pub(super) fn fin(&self, c: Copy) -> F {
        let mut f = self.b.constant(false);
        for q in 0..self.ltl.automaton.labels.len() as u32 {
            if self.ltl.accepting(q) {
                f = self.b.or(&f, &self.qis(q, c));
            }
        }
        f
    }

    /// The model states automaton state `q`'s label admits at a vertex whose location atoms
    /// are `mask`, reading the expression atoms `atoms` (one copy's globals).
    pub(super) fn label(&self, q: u32, atoms: &[Option<F>], mask: u64) -> F {
        let b = &self.b;
        let lab = self.ltl.automaton.labels[q as usize];
        let mut f = b.constant(true);
        for (i, a) in atoms.iter().enumerate() {
            let (pos, neg) = (lab.pos >> i & 1 == 1, lab.neg >> i & 1 == 1);
            if !pos && !neg {
                continue;
            }
            let holds = match a {
                Some(x) => x.clone(),
                None => b.constant(mask >> i & 1 == 1),
            };
            f = b.and(&f, &if pos { holds } else { b.not(&holds) });
        }
        f
    }

    /// The automaton's move from state `from` to `to` into a model state at a vertex whose
    /// location atoms are `mask`, its globals in copy `gl`.
    pub(super) fn aut(&mut self, mask: u64, from: Copy, to: Copy, gl: Copy) -> F {
        if let Some(f) = self.aut_cache.get(&(mask, from, to, gl)) {
            return f.clone();
        }
        let b = &self.b;
        let atoms = match gl {
            Copy::C => &self.atom_c,
            Copy::N => &self.atom_n,
            Copy::E => &self.atom_e,
        };
        let nq = self.ltl.automaton.labels.len() as u32;
        let labels: Vec<F> = (0..nq).map(|q| self.label(q, atoms, mask)).collect();
        let mut rel = b.constant(false);
        for q in 0..nq {
            let mut tos = b.constant(false);
            for &r in &self.ltl.automaton.succ[q as usize] {
                tos = b.or(&tos, &b.and(&self.qis(r, to), &labels[r as usize]));
            }
            rel = b.or(&rel, &b.and(&self.qis(q, from), &tos));
        }
        self.aut_cache.insert((mask, from, to, gl), rel.clone());
        rel
    }

    /// A step into vertex `w`: the automaton moves reading the next copies, and the bit is
    /// set if it enters an accepting state.
    pub(super) fn step_into(&mut self, w: u32) -> F {
        let mask = self.loc_mask(w);
        let a = self.aut(mask, Copy::C, Copy::N, Copy::N);
        let b = &self.b;
        let acc = self.acc();
        let bit = b.equiv(
            &b.var(self.lay.nv(acc)),
            &b.or(&b.var(self.lay.cv(acc)), &self.fin(Copy::N)),
        );
        b.and(&a, &bit)
    }

    /// `N = C` on `slots`.
    pub(super) fn same(&self, slots: impl Iterator<Item = u32>) -> F {
        let mut s: Vec<u32> = slots.collect();
        s.sort_by_key(|&x| std::cmp::Reverse(self.lay.cv(x)));
        let mut f = self.b.constant(true);
        for x in s {
            let eq = self
                .b
                .equiv(&self.b.var(self.lay.nv(x)), &self.b.var(self.lay.cv(x)));
            f = self.b.and(&eq, &f);
        }
        f
    }

    pub(super) fn slot(&self, lv: &LValue) -> u32 {
        match lv {
            LValue::Global(i) => *i,
            LValue::Local(j) => self.local(*j),
            _ => unreachable!("applies() rejects non-boolean lvalues"),
        }
    }

    /// The relations of every vertex and call site.
    pub(super) fn build(&mut self) {
        let p = self.m.program;
        let enc_lay = self.lay;
        let un = move |gl: bool, i: u32| {
            if gl {
                enc_lay.cv(i)
            } else {
                enc_lay.cv(enc_lay.g + i)
            }
        };
        let main = p.activations[0];
        let prog_n: Vec<u32> = {
            let mut v: Vec<u32> = self.prog_slots().map(|s| self.lay.nv(s)).collect();
            v.sort_unstable();
            v
        };
        let cube_prog_n = self.b.cube(&prog_n);
        for (q, proc) in p.procs.iter().enumerate() {
            let q = q as ProcId;
            for (pc, node) in proc.nodes.iter().enumerate() {
                let v = self.base[q as usize] + pc as u32;
                let succs: Vec<u32> = model::successors(p, q, pc as Pc)
                    .into_iter()
                    .map(|s| self.base[q as usize] + s)
                    .collect();
                let enc = Encoder {
                    bdd: &self.b,
                    layout: self.lay,
                };
                let mut prog: Vec<(u32, F)> = Vec::new();
                match &node.stmt {
                    Stmt::Skip | Stmt::Goto => {
                        let id = self.same(self.prog_slots());
                        prog.extend(succs.iter().map(|&w| (w, id.clone())));
                    }
                    Stmt::Branch { cond } => {
                        let s = enc.sets(cond, &un);
                        let id = self.same(self.prog_slots());
                        prog.push((succs[0], self.b.and(&s.t, &id)));
                        prog.push((succs[1], self.b.and(&s.f, &id)));
                    }
                    Stmt::Assume { cond } | Stmt::Assert { cond } => {
                        // a checked assertion cannot fail here: safety was checked first
                        let s = enc.sets(cond, &un);
                        let id = self.same(self.prog_slots());
                        prog.push((succs[0], self.b.and(&s.t, &id)));
                    }
                    Stmt::Assign {
                        targets,
                        values,
                        constrain,
                    } => {
                        let mut tslots: Vec<u32> = Vec::new();
                        let mut rel = self.b.constant(true);
                        for (i, t) in targets.iter().enumerate().rev() {
                            let Some(t) = t else { continue };
                            let s = self.slot(t);
                            if tslots.contains(&s) {
                                continue;
                            }
                            tslots.push(s);
                            rel = self
                                .b
                                .and(&rel, &enc.takes(self.lay.nv(s), &values[i], &un));
                        }
                        if let Some(c) = constrain {
                            let primed = |gl: bool, i: u32| {
                                let s = if gl { i } else { self.local(i) };
                                if tslots.contains(&s) {
                                    self.lay.nv(s)
                                } else {
                                    self.lay.cv(s)
                                }
                            };
                            rel = self.b.and(&rel, &enc.sets(c, &primed).t);
                        }
                        let id = self.same(self.prog_slots().filter(|s| !tslots.contains(s)));
                        prog.push((succs[0], self.b.and(&rel, &id)));
                    }
                    Stmt::Havoc { targets } => {
                        let ts: Vec<u32> = targets.iter().map(|t| self.slot(t)).collect();
                        let id = self.same(self.prog_slots().filter(|s| !ts.contains(s)));
                        prog.push((succs[0], id));
                    }
                    Stmt::Constrain { expr } => {
                        let nloc = proc.locals.len() as u32;
                        let primed = |gl: bool, i: u32| {
                            if gl {
                                self.lay.nv(i)
                            } else {
                                self.lay.nv(self.local(i))
                            }
                        };
                        let rel = enc.sets(expr, &primed).t;
                        let (g, lo) = (self.g, self.local(nloc));
                        let id = self.same(self.prog_slots().filter(|&s| s >= g && s >= lo));
                        prog.push((succs[0], self.b.and(&rel, &id)));
                    }
                    Stmt::Call {
                        callee,
                        args,
                        results,
                    } => {
                        let site = self.site(v, succs[0], *callee, args, results);
                        self.site_of[v as usize] = self.sites.len() as u32;
                        self.sites_of[*callee as usize].push(self.sites.len() as u32);
                        self.sites.push(site);
                        continue;
                    }
                    Stmt::Return { .. } if q == main => {
                        // the run ends: the thread has no frame left
                        let mut rel = self.same(0..self.g);
                        let lits: Vec<(u32, bool)> = (0..self.l)
                            .map(|j| (self.lay.nv(self.local(j)), false))
                            .collect();
                        rel = self.b.and(&rel, &self.b.literals(&lits));
                        prog.push((self.done, rel));
                    }
                    Stmt::Return { .. } => continue,
                    _ => unreachable!("applies() rejects concurrent and non-boolean programs"),
                }
                // where no statement outcome exists, the run ends: a stutter edge
                let mut en = self.b.constant(false);
                for (_, r) in &prog {
                    en = self.b.or(&en, &self.b.exists(r, &cube_prog_n));
                }
                let stuck = self.b.not(&en);
                if self.stutter && !self.b.is_false(&stuck) {
                    let id = self.same(self.prog_slots());
                    prog.push((v, self.b.and(&stuck, &id)));
                }
                for (w, r) in prog {
                    let st = self.step_into(w);
                    let rel = self.b.and(&r, &st);
                    self.edges[v as usize].push(Edge { to: w, rel });
                }
            }
        }
        // the finished run stutters
        let id = self.same(self.prog_slots());
        let st = self.step_into(self.done);
        let rel = self.b.and(&id, &st);
        if self.stutter {
            self.edges[self.done as usize].push(Edge { to: self.done, rel });
        }
    }

    pub(super) fn site(
        &mut self,
        c: u32,
        w: u32,
        callee: ProcId,
        args: &[Expr],
        results: &[Option<LValue>],
    ) -> Site {
        let p = self.m.program;
        let qp = &p.procs[callee as usize];
        let lay = self.lay;
        let un = move |gl: bool, i: u32| {
            if gl {
                lay.cv(i)
            } else {
                lay.cv(lay.g + i)
            }
        };
        let entry = self.base[callee as usize];
        let mask_entry = self.loc_mask(entry);
        let mask_w = self.loc_mask(w);
        let a_push = self.aut(mask_entry, Copy::C, Copy::N, Copy::N);
        let a_link = self.aut(mask_entry, Copy::C, Copy::E, Copy::E);
        let a_ret = self.aut(mask_w, Copy::E, Copy::N, Copy::N);
        let fin_n = self.fin(Copy::N);
        let b = &self.b;
        let enc = Encoder {
            bdd: b,
            layout: lay,
        };
        let acc = self.acc();
        // entering: globals kept, formals bound, other locals initialised
        let mut push = self.same(0..self.g);
        let mut link = b.constant(true);
        for j in (0..self.g).rev() {
            link = b.and(&b.equiv(&b.var(lay.ev(j)), &b.var(lay.cv(j))), &link);
        }
        for (j, a) in args.iter().enumerate().rev() {
            let s = self.local(j as u32);
            push = b.and(&enc.takes(lay.nv(s), a, &un), &push);
            link = b.and(&enc.takes(lay.ev(s), a, &un), &link);
        }
        let mut init = Vec::new();
        for j in qp.params..self.l {
            let fixed = match qp.locals.get(j as usize) {
                Some(v) => model::fixed_init(v.init),
                None => Some(false),
            };
            if let Some(val) = fixed {
                init.push((lay.nv(self.local(j)), val));
            }
        }
        push = b.and(&push, &b.literals(&init));
        push = b.and(&push, &a_push);
        push = b.and(&push, &b.equiv(&b.var(lay.nv(acc)), &fin_n));
        link = b.and(&link, &a_link);
        // returning: result k sits in the next copy of local slot k
        let nret = qp.returns.len() as u32;
        let mut recv: Vec<Option<u32>> = (0..nret)
            .map(|i| {
                results
                    .get(i as usize)
                    .and_then(|r| r.as_ref())
                    .map(|lv| self.slot(lv))
            })
            .collect();
        for i in (0..recv.len()).rev() {
            if let Some(s) = recv[i] {
                if recv[i + 1..].contains(&Some(s)) {
                    recv[i] = None;
                }
            }
        }
        let global_recv: Vec<u32> = recv
            .iter()
            .flatten()
            .filter(|&&s| s < self.g)
            .map(|&s| lay.nv(s))
            .collect();
        let mut park: Vec<(u32, u32)> = (0..nret)
            .map(|i| (lay.nv(self.local(i)), lay.ev(self.local(i))))
            .collect();
        for i in self.g..=acc {
            park.push((lay.nv(i), lay.ev(i)));
        }
        let mut park_cube: Vec<u32> = park.iter().map(|x| x.1).collect();
        park_cube.sort_unstable();
        let recv_slots: Vec<u32> = recv.iter().flatten().copied().collect();
        let mut ret = self.same(
            (0..self.l)
                .map(|j| self.local(j))
                .filter(|s| !recv_slots.contains(s)),
        );
        for (i, r) in recv.iter().enumerate() {
            if let Some(s) = r {
                let eq = b.equiv(&b.var(lay.nv(*s)), &b.var(lay.ev(self.local(i as u32))));
                ret = b.and(&ret, &eq);
            }
        }
        ret = b.and(&ret, &a_ret);
        let bit = b.or(&b.or(&b.var(lay.cv(acc)), &b.var(lay.ev(acc))), &fin_n);
        ret = b.and(&ret, &b.equiv(&b.var(lay.nv(acc)), &bit));
        Site {
            c,
            w,
            callee,
            push,
            link,
            global_recv: b.cube(&{
                let mut v = global_recv;
                v.sort_unstable();
                v
            }),
            park: b.renaming(&park),
            park_cube: b.cube(&park_cube),
            ret,
            sum: b.constant(false),
        }
    }
}
