//! Lowering of procedures to control-flow graphs (§3, §5), with the statement checks of §2.7
//! (E1–E9, E13). Nodes are allocated in text order, so node 0 is the entry; successors that
//! are not yet known are "exits" patched once the next statement is lowered.

use super::ast::{self, Ident, Item, StmtKind};
use super::lower_expr::Primes;
use super::scope::{bool_var, check_declarable, duplicate, init_of, NameMap, Tables};
use crate::diag::Diagnostic;
use crate::ir::{BinOp, Expr, Init, LValue, Node, Pc, Proc, ProcId, Source, Span, Stmt, Type, Var};

/// A successor not patched yet.
pub(super) const HOLE: Pc = Pc::MAX;

/// A slot `succ[i]` of node `pc` waiting for the next node.
pub(super) type Exit = (Pc, usize);

/// The nodes of a statement or list: where it starts (none if it lowered to nothing) and
/// the slots that flow to whatever follows it.
pub(super) struct Frag {
    pub(super) entry: Option<Pc>,
    pub(super) exits: Vec<Exit>,
}

impl Frag {
    pub(super) fn empty() -> Frag {
        Frag {
            entry: None,
            exits: Vec::new(),
        }
    }
    pub(super) fn single(pc: Pc) -> Frag {
        Frag {
            entry: Some(pc),
            exits: vec![(pc, 0)],
        }
    }
}

/// A `goto` (or `start_thread goto`) whose targets are resolved after the whole body.
pub(super) struct PendingGoto {
    pub(super) pc: Pc,
    pub(super) targets: Vec<Ident>,
}

/// State while lowering one procedure.
pub struct ProcLower<'a> {
    pub(super) tables: &'a Tables,
    pub(super) src: &'a Source,
    pub(super) diags: &'a mut Vec<Diagnostic>,
    pub(super) name: String,
    results: usize,
    locals: Vec<Var>,
    /// Locals declared textually before the current point.
    pub(super) visible: NameMap<u32>,
    /// Every local and formal of the procedure, with the span of its declaration.
    pub(super) declared: NameMap<Span>,
    pub(super) nodes: Vec<Node>,
    pub(super) labels: NameMap<Vec<Pc>>,
    pub(super) gotos: Vec<PendingGoto>,
    /// Conditions of the `enforce` clauses in force (head ones first).
    invariant: Vec<Expr>,
    /// Whether the expression or target being lowered may name a passive variable `y$`
    /// (inside a broadcast assignment only).
    pub(super) passive_ok: bool,
    /// Where passive variables are named (the thread-context check, per statement, points at
    /// them).
    pub(super) passive_uses: &'a mut Vec<Span>,
}

/// Lowers procedure number `id` (file order); diagnostics go to `diags`.
pub fn lower_proc(
    tables: &Tables,
    src: &Source,
    diags: &mut Vec<Diagnostic>,
    id: usize,
    p: &ast::ProcDecl,
    passive_uses: &mut Vec<Span>,
) -> Proc {
    let results = tables.sigs.get(id).map_or(0, |s| s.results);
    let mut l = ProcLower {
        tables,
        src,
        diags,
        name: p.name.name.clone(),
        results,
        locals: Vec::new(),
        visible: NameMap::default(),
        declared: NameMap::default(),
        nodes: Vec::new(),
        labels: NameMap::default(),
        gotos: Vec::new(),
        invariant: Vec::new(),
        passive_ok: false,
        passive_uses,
    };
    for formal in &p.params {
        l.declare(formal, Init::Any, "parameter");
    }
    let head_len = p
        .body
        .iter()
        .take_while(|i| !matches!(i, Item::Stmt(_)))
        .count();
    let (head, rest) = p.body.split_at(head_len.min(p.body.len()));
    for item in head {
        match item {
            Item::Decl(group) => {
                for d in &group.items {
                    l.declare(&d.name, init_of(d.init), "local variable");
                }
            }
            Item::Enforce(e, _) => {
                let cond = l.expr(e, Primes::Forbidden);
                l.invariant.push(cond);
            }
            Item::Stmt(_) => {}
        }
    }
    let frag = l.list(rest);
    let values = if results == 0 { Some(Vec::new()) } else { None };
    let ret = l.push(Stmt::Return { values }, p.end_span, 0);
    l.patch(&frag.exits, ret);
    l.resolve_gotos();
    Proc {
        name: p.name.name.clone(),
        params: p.params.len() as u32,
        locals: l.locals,
        returns: vec![Type::Bool; results],
        atomic: false,
        nodes: l.nodes,
        span: p.span,
        tries: Vec::new(),
    }
}

/// The conjunction of `conds` as a balanced tree, so that its depth stays logarithmic.
fn conjunction(conds: &[Expr]) -> Option<Expr> {
    match conds {
        [] => None,
        [one] => Some(one.clone()),
        _ => {
            let (a, b) = conds.split_at(conds.len() / 2);
            match (conjunction(a), conjunction(b)) {
                (Some(a), Some(b)) => Some(Expr::bin(BinOp::And, a, b)),
                (a, b) => a.or(b),
            }
        }
    }
}

impl ProcLower<'_> {
    /// Adds a local (or formal) and makes it visible from here on.
    fn declare(&mut self, name: &Ident, init: Init, what: &str) -> Option<u32> {
        if !check_declarable(name, what, self.diags) {
            return None;
        }
        if let Some(&first) = self.declared.get(&name.name) {
            let d = duplicate(self.src, what, name, first);
            self.diags.push(d);
            return None;
        }
        if self.tables.global_index.contains_key(&name.name) {
            self.diags.push(
                Diagnostic::warning(
                    name.span,
                    format!("{what} `{}` hides the global of the same name", name.name),
                )
                .with_label("hides a global"),
            );
        }
        let slot = self.locals.len() as u32;
        self.locals.push(bool_var(name, init, false));
        self.declared.insert(name.name.clone(), name.span);
        self.visible.insert(name.name.clone(), slot);
        Some(slot)
    }

    /// Appends a node with `holes` unknown successors and the invariant in force.
    pub(super) fn push(&mut self, stmt: Stmt, span: Span, holes: usize) -> Pc {
        let pc = self.nodes.len() as Pc;
        self.nodes.push(Node {
            stmt,
            succ: vec![HOLE; holes],
            span,
            labels: Vec::new(),
            invariant: conjunction(&self.invariant),
            glue: Default::default(),
        });
        pc
    }

    pub(super) fn patch(&mut self, exits: &[Exit], target: Pc) {
        for &(pc, slot) in exits {
            if let Some(s) = self
                .nodes
                .get_mut(pc as usize)
                .and_then(|n| n.succ.get_mut(slot))
            {
                *s = target;
            }
        }
    }

    /// Lowers a statement list; mid-body `enforce` scopes end with it.
    pub(super) fn list(&mut self, items: &[Item]) -> Frag {
        let mark = self.invariant.len();
        let mut entry = None;
        let mut pending: Vec<Exit> = Vec::new();
        for item in items {
            let frag = match item {
                Item::Decl(group) => self.mid_decl(group),
                Item::Enforce(e, span) => {
                    let cond = self.expr(e, Primes::Forbidden);
                    let pc = self.push(Stmt::Assume { cond: cond.clone() }, *span, 1);
                    self.invariant.push(cond);
                    Frag::single(pc)
                }
                Item::Stmt(s) => self.stmt(s),
            };
            if let Some(e) = frag.entry {
                self.patch(&pending, e);
                entry.get_or_insert(e);
                pending = frag.exits;
            }
        }
        self.invariant.truncate(mark);
        Frag {
            entry,
            exits: pending,
        }
    }

    /// A declaration after the first statement: new locals, havocked (or initialised) here.
    fn mid_decl(&mut self, group: &ast::DeclGroup) -> Frag {
        let mut targets = Vec::new();
        let mut values = Vec::new();
        for d in &group.items {
            if let Some(slot) = self.declare(&d.name, Init::Any, "local variable") {
                targets.push(Some(LValue::Local(slot)));
                values.push(match init_of(d.init) {
                    Init::Value(c) => Expr::Const(c),
                    Init::Any => Expr::Nondet,
                });
            }
        }
        let stmt = if values.iter().all(|v| *v == Expr::Nondet) {
            Stmt::Havoc {
                targets: targets.into_iter().flatten().collect(),
            }
        } else {
            Stmt::Assign {
                targets,
                values,
                constrain: None,
            }
        };
        Frag::single(self.push(stmt, group.span, 1))
    }

    /// Lowers a statement and attaches its labels to its first node.
    fn stmt(&mut self, s: &ast::Stmt) -> Frag {
        let frag = self.bare(s);
        if let Some(pc) = frag.entry {
            let mut names: Vec<String> = Vec::new();
            for l in &s.labels {
                if !names.contains(&l.name) {
                    names.push(l.name.clone());
                }
            }
            for n in &names {
                self.labels.entry(n.clone()).or_default().push(pc);
            }
            if let Some(node) = self.nodes.get_mut(pc as usize) {
                node.labels = names;
            }
        }
        frag
    }

    fn simple(&mut self, stmt: Stmt, span: Span) -> Frag {
        Frag::single(self.push(stmt, span, 1))
    }

    fn bare(&mut self, s: &ast::Stmt) -> Frag {
        let span = s.span;
        match &s.kind {
            StmtKind::Skip | StmtKind::Sync | StmtKind::Print(_) | StmtKind::Rejected => {
                if let StmtKind::Print(args) = &s.kind {
                    self.exprs(args);
                }
                self.simple(Stmt::Skip, span)
            }
            StmtKind::Goto(targets) => {
                let pc = self.push(Stmt::Goto, span, 0);
                self.gotos.push(PendingGoto {
                    pc,
                    targets: targets.clone(),
                });
                Frag {
                    entry: Some(pc),
                    exits: Vec::new(),
                }
            }
            StmtKind::Assign {
                targets,
                values,
                constrain,
            } => self.assign(targets, values, constrain.as_ref(), span),
            StmtKind::Call {
                receivers,
                callee,
                args,
            } => self.call(s, receivers, callee, args),
            StmtKind::Return(values, kw) => self.ret(values, *kw, span),
            StmtKind::If { arms, els } => self.if_stmt(arms, els.as_deref()),
            StmtKind::While { cond, head, body } => self.while_stmt(cond, *head, body),
            StmtKind::Assert(e) => {
                let cond = self.expr(e, Primes::Forbidden);
                self.simple(Stmt::Assert { cond }, span)
            }
            StmtKind::Assume(e) => {
                let cond = self.expr(e, Primes::Forbidden);
                self.simple(Stmt::Assume { cond }, span)
            }
            StmtKind::Abortif(e) => {
                let cond = Expr::not(self.expr(e, Primes::Forbidden));
                self.simple(Stmt::Assert { cond }, span)
            }
            StmtKind::Constrain(e) => {
                let expr = self.expr(e, Primes::Allowed);
                self.simple(Stmt::Constrain { expr }, span)
            }
            StmtKind::Dead(names) => {
                let mut targets = Vec::new();
                for n in names {
                    if n.name == "_" {
                        self.diags.push(
                            Diagnostic::error(n.span, "`dead _` names no variable")
                                .with_code("E13")
                                .with_label("`_` is only a discard target"),
                        );
                    } else if let Some(lv) = self.lvalue(n) {
                        targets.push(lv);
                    }
                }
                self.simple(Stmt::Havoc { targets }, span)
            }
            StmtKind::StartThread { callee, args } => {
                let (callee, args) = self.callee(callee, args);
                self.simple(Stmt::StartThread { callee, args }, span)
            }
            StmtKind::StartThreadGoto(target) => {
                let pc = self.push(Stmt::StartThreadGoto, span, 2);
                self.gotos.push(PendingGoto {
                    pc,
                    targets: vec![target.clone()],
                });
                Frag::single(pc)
            }
            StmtKind::EndThread => {
                let pc = self.push(Stmt::EndThread, span, 0);
                Frag {
                    entry: Some(pc),
                    exits: Vec::new(),
                }
            }
            StmtKind::AtomicBegin => self.simple(Stmt::AtomicBegin, span),
            StmtKind::AtomicEnd => self.simple(Stmt::AtomicEnd, span),
        }
    }

    fn assign(
        &mut self,
        targets: &[ast::Target],
        values: &[ast::Expr],
        constrain: Option<&ast::Expr>,
        span: Span,
    ) -> Frag {
        // a broadcast assignment (one with a `y$` target) may read passive names in the values
        // of its passive targets and in its constraint; nowhere else
        self.passive_ok = true;
        let lvs = self.targets(targets);
        let broadcast = lvs
            .iter()
            .any(|t| matches!(t, Some(LValue::PassiveLocal(_))));
        let values = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                self.passive_ok = matches!(lvs.get(i), Some(Some(LValue::PassiveLocal(_))));
                self.expr(v, Primes::Forbidden)
            })
            .collect::<Vec<_>>();
        self.passive_ok = broadcast;
        let constrain = constrain.map(|c| self.expr(c, Primes::Allowed));
        self.passive_ok = false;
        if lvs.len() != values.len() {
            self.diags.push(
                Diagnostic::error(
                    span,
                    format!(
                        "{} targets but {} values in an assignment",
                        lvs.len(),
                        values.len()
                    ),
                )
                .with_label("the numbers of targets and values must be equal"),
            );
        }
        self.simple(
            Stmt::Assign {
                targets: lvs,
                values,
                constrain,
            },
            span,
        )
    }

    /// Resolves a callee and its arguments (E2, E3); an unknown callee yields id 0.
    fn callee(&mut self, callee: &Ident, args: &[ast::Expr]) -> (ProcId, Vec<Expr>) {
        let lowered = self.exprs(args);
        let Some(&id) = self.tables.procs.get(&callee.name) else {
            let mut d = Diagnostic::error(
                callee.span,
                format!("undefined procedure `{}`", callee.name),
            )
            .with_code("E2")
            .with_label("no procedure of this name");
            if callee.name == "abortif" {
                d = d.with_note("`abortif(e)` is a call; write `abortif e;` without parentheses");
            }
            self.diags.push(d);
            return (0, lowered);
        };
        let params = self.tables.sigs.get(id as usize).map_or(0, |s| s.params);
        if params != lowered.len() {
            self.diags.push(
                Diagnostic::error(
                    callee.span,
                    format!(
                        "procedure `{}` expects {} argument{}, got {}",
                        callee.name,
                        params,
                        plural(params),
                        lowered.len()
                    ),
                )
                .with_code("E3")
                .with_label("wrong number of arguments"),
            );
        }
        (id, lowered)
    }

    fn call(
        &mut self,
        s: &ast::Stmt,
        receivers: &[ast::Target],
        callee: &Ident,
        args: &[ast::Expr],
    ) -> Frag {
        let (id, args) = self.callee(callee, args);
        let results = self.targets(receivers);
        let known = self.tables.procs.contains_key(&callee.name);
        let returns = self.tables.sigs.get(id as usize).map_or(0, |s| s.results);
        if known && !receivers.is_empty() && receivers.len() != returns {
            self.diags.push(
                Diagnostic::error(
                    callee.span,
                    format!(
                        "`{}` returns {} value{} but {} receiver{} {} given",
                        callee.name,
                        returns,
                        plural(returns),
                        receivers.len(),
                        plural(receivers.len()),
                        if receivers.len() == 1 { "is" } else { "are" }
                    ),
                )
                .with_code("E4")
                .with_label("wrong number of receivers"),
            );
        }
        let asynchronous =
            receivers.is_empty() && s.labels.iter().any(|l| l.name.starts_with("ASYNC_"));
        let stmt = if asynchronous {
            Stmt::StartThread { callee: id, args }
        } else {
            Stmt::Call {
                callee: id,
                args,
                results,
            }
        };
        self.simple(stmt, s.span)
    }

    fn ret(&mut self, values: &[ast::Expr], kw: Span, span: Span) -> Frag {
        let lowered = self.exprs(values);
        if !lowered.is_empty() && lowered.len() != self.results {
            let msg = if self.results == 0 {
                format!(
                    "`return` with a value in the void procedure `{}`",
                    self.name
                )
            } else {
                format!(
                    "procedure `{}` returns {} value{}, but `return` gives {}",
                    self.name,
                    self.results,
                    plural(self.results),
                    lowered.len()
                )
            };
            self.diags.push(
                Diagnostic::error(kw, msg)
                    .with_code("E5")
                    .with_label("wrong number of results"),
            );
        }
        let values = if lowered.is_empty() && self.results > 0 {
            None
        } else {
            Some(lowered)
        };
        let pc = self.push(Stmt::Return { values }, span, 0);
        Frag {
            entry: Some(pc),
            exits: Vec::new(),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
