//! Random, well-formed boolean programs (`zingrs gen random-bp SEED [--size S]`).
//!
//! A program has a few globals, `main` and one to three further procedures with formals,
//! locals and zero to three results, and uses every sequential construct of the language:
//! `if`/`elsif`/`else`, `while`, single and multi-target `goto`, every kind of nondeterminism
//! (`*`, `?`, `schoose`, `constrain` clauses with primed names, stand-alone `constrain`, `dead`,
//! arbitrary initial values, `return;` in a procedure with results), `assume`, `assert`,
//! `abortif`, head `enforce`, `? :`, receivers with `_`, and a target label `HIT` declared in an
//! `// options: --target HIT` header.
//!
//! About a third of the programs are concurrent: `main` starts a thread first. In about two in
//! five of those, `main` starts the thread's procedure twice and that procedure gets a few
//! broadcast assignments (`x, y$ := e1, e2`, SatAbs's passive variables), so that the engines
//! and reductions are compared on them too.
//!
//! At most about ten booleans are in scope anywhere, so explicit search finishes in
//! milliseconds. Recursion (direct and mutual) is made finite in most programs by a *fuel*
//! formal `k`: a call to a procedure that does not come later in the file (a back call) happens
//! only under `if (k)` and passes `F`, and forward calls pass `k` or less, so the stack depth is
//! at most about twice the number of procedures. About one program in seven drops the fuel and
//! may recurse without bound (its header then also says `--max-depth 4`); explicit search then
//! answers "bounded" unless it finds an error.

use super::Rng;

/// A procedure's signature.
struct Sig {
    name: String,
    results: usize,
    formals: Vec<String>,
    /// The first formal is the fuel `k`.
    fuel: bool,
}

/// What a statement generator needs to know about the procedure it is in.
struct Ctx {
    proc: usize,
    /// Every readable variable: globals, formals, locals.
    vars: Vec<String>,
    /// Variables that may be assigned (everything but the fuel).
    writable: Vec<String>,
    fuel: Option<String>,
    results: usize,
    /// Jump labels of the procedure.
    labels: Vec<String>,
    /// Jump labels not yet attached to a statement.
    unplaced: Vec<String>,
}

struct Gen {
    /// Whether `main` may start a thread ([`Gen::start_thread`]).
    threads: bool,
    /// Whether a second procedure like `main`, `main2`, follows ([`Gen::second_main`]).
    second: bool,
    rng: Rng,
    size: usize,
    sigs: Vec<Sig>,
    globals: Vec<String>,
    target: bool,
    asserts: bool,
    bounded: bool,
    hits: usize,
    lines: Vec<String>,
}

const BINOPS: &[&str] = &["&", "|", "^", "=", "!=", "=>", "==", "&&", "||"];
const INITS: &[&str] = &["T", "F", "0", "1", "*", "?"];

/// One random boolean program, determined by `seed`; `size` scales the number of statements
/// per procedure (default 8).
pub fn random_bp(seed: u64, size: u32) -> String {
    generate(seed, size, true, false)
}

/// [`random_bp`] without the thread `main` starts in some programs: the sequential program
/// that the concurrent layouts build on.
pub fn random_sequential_bp(seed: u64, size: u32) -> String {
    generate(seed, size, false, false)
}

/// [`random_sequential_bp`] with a second procedure like `main` (no parameters, no results),
/// `main2`, over the same globals and procedures: two different threads for the concurrent
/// layouts. The rest of the program is the one [`random_sequential_bp`] gives (but for the
/// target label added at the end of `main` where no statement has one: `main2`'s count).
pub fn random_sequential_bp_with_main2(seed: u64, size: u32) -> String {
    generate(seed, size, false, true)
}

fn generate(seed: u64, size: u32, threads: bool, second: bool) -> String {
    let mut g = Gen {
        threads,
        second,
        rng: Rng::new(seed),
        size: size.max(1) as usize,
        sigs: Vec::new(),
        globals: Vec::new(),
        target: false,
        asserts: false,
        bounded: true,
        hits: 0,
        lines: Vec::new(),
    };
    g.program(seed)
}

impl Gen {
    fn program(&mut self, seed: u64) -> String {
        self.target = self.rng.chance(60);
        self.asserts = !self.target || self.rng.chance(60);
        let no_assertions = self.target && self.rng.chance(20);
        self.bounded = !self.rng.chance(15);
        let mut header = vec![format!(
            "// random boolean program, seed {seed} (zingrs gen random-bp {seed} --size {})",
            self.size
        )];
        let mut options = Vec::new();
        if self.target {
            options.push("--target HIT");
            if no_assertions {
                options.push("--no-assertions");
            }
        }
        if !self.bounded {
            // unbounded recursion: keep the explicit search (cut at this depth) small
            options.push("--max-depth 4");
        }
        if !options.is_empty() {
            header.push(format!("// options: {}", options.join(" ")));
        }
        let nglobals = self.rng.range(1, 4);
        self.globals = (0..nglobals).map(|i| format!("g{i}")).collect();
        let nprocs = self.rng.range(1, 3);
        self.sigs.push(Sig {
            name: "main".into(),
            results: if self.rng.chance(15) { 2 } else { 0 },
            formals: Vec::new(),
            fuel: false,
        });
        for i in 1..=nprocs {
            let fuel = self.bounded;
            let mut formals: Vec<String> = if fuel { vec!["k".into()] } else { vec![] };
            for j in 0..self.rng.range(0, 2) {
                formals.push(format!("a{j}"));
            }
            let results = *self.rng.pick(&[0, 0, 1, 1, 2, 3]);
            self.sigs.push(Sig {
                name: format!("p{i}"),
                results,
                formals,
                fuel,
            });
        }
        self.lines = header;
        // globals, sometimes with initialisers
        let decls: Vec<String> = self
            .globals
            .clone()
            .iter()
            .map(|g| self.decl_item(g))
            .collect();
        self.lines.push(format!("decl {};", decls.join(", ")));
        // procedures in a random order (file order does not matter)
        let mut order: Vec<usize> = (0..self.sigs.len()).collect();
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i + 1);
            order.swap(i, j);
        }
        for p in order {
            self.procedure(p);
        }
        self.start_thread(seed);
        if self.second {
            self.second_main(seed);
        }
        if self.target && self.hits == 0 {
            // make sure the target occurs: a label at the end of main
            let at = self
                .lines
                .iter()
                .position(|l| l.starts_with("void main(") || l.starts_with("bool<2> main("))
                .expect("main");
            let end = at
                + self.lines[at..]
                    .iter()
                    .position(|l| l == "end")
                    .expect("main ends");
            self.lines.insert(end, "  HIT: skip;".into());
        }
        let mut text = self.lines.join("\n");
        text.push('\n');
        text
    }

    /// `main2`, a procedure like `main` with neither parameters nor results, drawn from a
    /// stream of its own (so the procedures before it are the same as without it).
    fn second_main(&mut self, seed: u64) {
        let saved = std::mem::replace(&mut self.rng, Rng::new(seed ^ 0x6d61_696e_3221));
        self.sigs.push(Sig {
            name: "main2".into(),
            results: 0,
            formals: Vec::new(),
            fuel: false,
        });
        self.procedure(self.sigs.len() - 1);
        self.rng = saved;
    }

    /// About one program in three is concurrent: `main` first starts a thread running another
    /// procedure. The choice comes from a stream of its own, so the other
    /// programs are the same as without threads.
    fn start_thread(&mut self, seed: u64) {
        let mut rng = Rng::new(seed ^ 0x7468_7265_6164_7321);
        if !self.threads || !rng.chance(35) {
            return;
        }
        // a thread's results, if any, are discarded (bp-language.md §5.12)
        let sig = &self.sigs[rng.range(1, self.sigs.len() - 1)];
        let args: Vec<&str> = sig
            .formals
            .iter()
            .enumerate()
            .map(|(i, _)| if i == 0 && sig.fuel { "T" } else { "*" })
            .collect();
        let line = format!("  start_thread {}({});", sig.name, args.join(", "));
        let (name, fuel) = (sig.name.clone(), sig.fuel);
        let mut at = 1 + self
            .lines
            .iter()
            .position(|l| l.starts_with("void main(") || l.starts_with("bool<2> main("))
            .expect("main");
        while self.lines[at].starts_with("  decl ") || self.lines[at].starts_with("  enforce ") {
            at += 1;
        }
        self.lines.insert(at, line.clone());
        if rng.chance(40) && self.broadcasts(&mut rng, &name, fuel) {
            // the broadcasts may have moved main's lines: start the second thread next to
            // the first
            let first = self
                .lines
                .iter()
                .position(|l| *l == line)
                .expect("inserted above");
            self.lines.insert(first, line);
        }
        if rng.chance(50) {
            self.add_lock(&mut rng, &name);
        }
    }

    /// A lock `lk` that the thread's procedure and `main` acquire (`atomic_begin; assume(!lk);
    /// lk := T; atomic_end;`) before one of their top-level statements and release (`lk := F;`)
    /// after a later one: the reductions' lock movers (`runtime::locks`), where a jump, a
    /// branch or a return may still take a path around either.
    ///
    /// In about two of three such programs a global `cs` is written only right after the
    /// acquires (`cs := T;`) and checked and cleared right before the releases (`assert(cs);
    /// cs := F;`): data under a lock, which the reductions treat as a both-mover where the
    /// analysis proves every access holds `lk` (`runtime::guarded`), and whose assertion fails
    /// where a path around an acquire breaks mutual exclusion.
    fn add_lock(&mut self, rng: &mut Rng, thread: &str) {
        let guarded = rng.chance(65);
        let decl = self
            .lines
            .iter()
            .position(|l| l.starts_with("decl "))
            .expect("globals");
        let d = &mut self.lines[decl];
        d.truncate(d.len() - 1);
        d.push_str(if guarded { ", lk, cs;" } else { ", lk;" });
        for name in ["main", thread] {
            let Some(start) = self
                .lines
                .iter()
                .position(|l| l.contains(&format!(" {name}(")) && l.ends_with("begin"))
            else {
                continue;
            };
            let end = start
                + self.lines[start..]
                    .iter()
                    .position(|l| l == "end")
                    .expect("a procedure ends");
            // after a top-level statement (not a declaration), so that the text stays a program
            let spots: Vec<usize> = (start + 1..end)
                .filter(|&i| {
                    let l = &self.lines[i];
                    l.starts_with("  ")
                        && !l.starts_with("   ")
                        && l.ends_with(';')
                        && !l.starts_with("  decl ")
                        && !l.starts_with("  enforce ")
                })
                .collect();
            if spots.len() < 2 {
                continue;
            }
            let a = rng.below(spots.len() - 1);
            let b = rng.range(a + 1, spots.len() - 1);
            let (acquire, release) = (spots[a] + 1, spots[b] + 1);
            if guarded {
                self.lines
                    .insert(release, "  assert(cs); cs := F; lk := F;".into());
                self.lines.insert(
                    acquire,
                    "  atomic_begin; assume(!lk); lk := T; atomic_end; cs := T;".into(),
                );
            } else {
                self.lines.insert(release, "  lk := F;".into());
                self.lines.insert(
                    acquire,
                    "  atomic_begin; assume(!lk); lk := T; atomic_end;".into(),
                );
            }
        }
    }

    /// Inserts one to three broadcast assignments between the top-level statements of
    /// procedure `name` (its head-declared locals and non-fuel formals are the passive
    /// candidates; the fuel is never written, so recursion stays finite). False if the
    /// procedure has no candidate.
    fn broadcasts(&mut self, rng: &mut Rng, name: &str, fuel: bool) -> bool {
        let Some(start) = self
            .lines
            .iter()
            .position(|l| l.contains(&format!(" {name}(")) && l.ends_with(" begin"))
        else {
            return false;
        };
        let end = start
            + self.lines[start..]
                .iter()
                .position(|l| l == "end")
                .expect("procedures end");
        let sig = self.sigs.iter().find(|s| s.name == name).expect("started");
        let mut own: Vec<String> = sig
            .formals
            .iter()
            .skip(usize::from(fuel))
            .cloned()
            .collect();
        let mut body = start + 1;
        if let Some(decl) = self.lines[body].strip_prefix("  decl ") {
            own.extend(
                decl.trim_end_matches(';')
                    .split(", ")
                    .map(|item| item.split(' ').next().unwrap_or(item).to_string()),
            );
            body += 1;
        }
        while self.lines[body].starts_with("  enforce ") {
            body += 1;
        }
        if own.is_empty() {
            return false;
        }
        let mut vars = self.globals.clone();
        vars.extend(sig.formals.iter().cloned());
        vars.extend(own.iter().cloned());
        let mut with_passive = vars.clone();
        with_passive.extend(own.iter().map(|v| format!("{v}$")));
        // top-level statement lines (the first at two spaces), newest insertion last
        let mut spots: Vec<usize> = (body..=end)
            .filter(|&i| {
                let l = &self.lines[i];
                l == "end" || (l.starts_with("  ") && !l.starts_with("   "))
            })
            .collect();
        let n = rng.range(1, 3);
        let saved = std::mem::replace(&mut self.rng, Rng::new(rng.below(1 << 30) as u64));
        let mut made = Vec::new();
        for _ in 0..n {
            if spots.is_empty() {
                break;
            }
            let y = own[rng.below(own.len())].clone();
            let mut targets = vec![format!("{y}$")];
            let mut values = vec![self.expr(&with_passive, 2, true, false)];
            if rng.chance(50) {
                let x = own[rng.below(own.len())].clone();
                targets.insert(0, x);
                values.insert(0, self.expr(&vars, 2, true, false));
            }
            let mut st = format!("  {} := {}", targets.join(", "), values.join(", "));
            if rng.chance(30) {
                let c = self.expr(&with_passive, 2, false, true);
                st.push_str(&format!(" constrain {c}"));
            }
            st.push(';');
            let at = spots.swap_remove(rng.below(spots.len()));
            made.push((at, st));
        }
        self.rng = saved;
        // insert from the bottom so earlier positions stay valid
        made.sort_by_key(|m| std::cmp::Reverse(m.0));
        for (at, st) in made {
            self.lines.insert(at, st);
        }
        true
    }

    fn decl_item(&mut self, name: &str) -> String {
        if self.rng.chance(15) {
            format!("{name} := {}", self.rng.pick(INITS))
        } else {
            name.to_string()
        }
    }

    fn procedure(&mut self, p: usize) {
        let sig = &self.sigs[p];
        let ty = match sig.results {
            0 => "void".to_string(),
            1 => "bool".to_string(),
            n => format!("bool<{n}>"),
        };
        let name = sig.name.clone();
        let formals = sig.formals.clone();
        let fuel = sig.fuel.then(|| "k".to_string());
        let results = sig.results;
        self.lines
            .push(format!("{ty} {name}({}) begin", formals.join(", ")));
        let nlocals = self.rng.range(0, 3);
        let locals: Vec<String> = (0..nlocals).map(|i| format!("l{i}")).collect();
        if !locals.is_empty() {
            let items: Vec<String> = locals.iter().map(|l| self.decl_item(l)).collect();
            self.lines.push(format!("  decl {};", items.join(", ")));
        }
        let mut vars = self.globals.clone();
        vars.extend(formals.iter().cloned());
        vars.extend(locals.iter().cloned());
        let writable: Vec<String> = vars
            .iter()
            .filter(|v| Some(*v) != fuel.as_ref())
            .cloned()
            .collect();
        if self.rng.chance(15) {
            let e = self.expr(&vars, 2, false, false);
            self.lines.push(format!("  enforce {e};"));
        }
        let nlabels = self.rng.range(0, 3);
        let labels: Vec<String> = (0..nlabels).map(|i| format!("L{i}")).collect();
        let mut cx = Ctx {
            proc: p,
            vars,
            writable,
            fuel,
            results,
            unplaced: labels.clone(),
            labels,
        };
        let n = self.rng.range(self.size.div_ceil(2), self.size);
        self.stmts(&mut cx, 1, n, 0);
        let rest = std::mem::take(&mut cx.unplaced);
        if !rest.is_empty() {
            let prefix: String = rest.iter().map(|l| format!("{l}: ")).collect();
            self.lines.push(format!("  {prefix}skip;"));
        }
        self.lines.push("end".into());
    }

    fn stmts(&mut self, cx: &mut Ctx, indent: usize, n: usize, depth: usize) {
        for _ in 0..n {
            self.stmt(cx, indent, depth);
        }
    }

    /// The labels to put in front of a statement.
    fn prefix(&mut self, cx: &mut Ctx) -> String {
        let mut p = String::new();
        if !cx.unplaced.is_empty() && self.rng.chance(25) {
            let i = self.rng.below(cx.unplaced.len());
            p.push_str(&cx.unplaced.swap_remove(i));
            p.push_str(": ");
        }
        if self.target && self.rng.chance(8) {
            self.hits += 1;
            p.push_str("HIT: ");
        }
        p
    }

    fn stmt(&mut self, cx: &mut Ctx, indent: usize, depth: usize) {
        let pad = "  ".repeat(indent);
        let prefix = self.prefix(cx);
        let compound = depth < 2;
        loop {
            let k = self.rng.below(100);
            let line = match k {
                0..=21 => self.assign(cx),
                22..=35 => {
                    if self.call(cx, &pad, &prefix) {
                        return;
                    }
                    None
                }
                36..=45 if compound => {
                    self.if_stmt(cx, indent, depth, &prefix);
                    return;
                }
                46..=51 if compound => {
                    let c = self.expr(&cx.vars, 2, true, false);
                    self.lines.push(format!("{pad}{prefix}while ({c}) do"));
                    let m = self.rng.range(1, 3);
                    self.stmts(cx, indent + 1, m, depth + 1);
                    let semi = self.semi();
                    self.lines.push(format!("{pad}od{semi}"));
                    return;
                }
                52..=57 => (!cx.labels.is_empty()).then(|| {
                    let m = self.rng.range(1, cx.labels.len().min(3));
                    let mut ls = cx.labels.clone();
                    let mut chosen = Vec::new();
                    for _ in 0..m {
                        let i = self.rng.below(ls.len());
                        chosen.push(ls.swap_remove(i));
                    }
                    format!("goto {};", chosen.join(", "))
                }),
                58..=64 => Some(format!("assume {};", self.paren_expr(cx, 2, true))),
                65..=71 if self.asserts => {
                    Some(format!("assert {};", self.paren_expr(cx, 2, true)))
                }
                72..=74 => Some("skip;".into()),
                75..=78 => (!cx.writable.is_empty()).then(|| {
                    let vs = self.distinct(&cx.writable, 2);
                    format!("dead {};", vs.join(", "))
                }),
                79..=81 => {
                    let mut c = self.expr(&cx.vars, 2, true, true);
                    if let Some(k) = &cx.fuel {
                        c = format!("({c}) & ('{k} = {k})");
                    }
                    Some(format!("constrain ({c});"))
                }
                82..=88 => Some(self.ret(cx)),
                89 if self.asserts => {
                    // `abortif (e);` reads as a call of a procedure `abortif`; the front end takes
                    // `abortif` as a statement only when no `(` follows.
                    Some(format!("abortif !{};", self.paren_expr(cx, 2, true)))
                }
                90 => {
                    let a = self.expr(&cx.vars, 1, true, false);
                    Some(format!("print({a});"))
                }
                91..=99 => self.assign(cx),
                _ => None,
            };
            if let Some(l) = line {
                self.lines.push(format!("{pad}{prefix}{l}"));
                return;
            }
        }
    }

    /// `;` or nothing after `fi`/`od` (both are accepted).
    fn semi(&mut self) -> &'static str {
        if self.rng.chance(30) {
            ";"
        } else {
            ""
        }
    }

    fn paren_expr(&mut self, cx: &Ctx, depth: usize, nd: bool) -> String {
        format!("({})", self.expr(&cx.vars, depth, nd, false))
    }

    /// Up to `max` distinct names from `from` (at least one).
    fn distinct(&mut self, from: &[String], max: usize) -> Vec<String> {
        let n = self.rng.range(1, max.min(from.len()));
        let mut pool = from.to_vec();
        (0..n)
            .map(|_| {
                let i = self.rng.below(pool.len());
                pool.swap_remove(i)
            })
            .collect()
    }

    fn assign(&mut self, cx: &Ctx) -> Option<String> {
        if cx.writable.is_empty() {
            return None;
        }
        let mut targets = self.distinct(&cx.writable, 3);
        if self.rng.chance(10) {
            targets.push("_".into());
        }
        let rhs: Vec<String> = targets
            .iter()
            .map(|_| self.expr(&cx.vars, 2, true, false))
            .collect();
        let mut s = format!("{} := {}", targets.join(", "), rhs.join(", "));
        if self.rng.chance(25) {
            let c = self.expr(&cx.vars, 2, true, true);
            s.push_str(&format!(" constrain {c}"));
        }
        s.push(';');
        Some(s)
    }

    fn ret(&mut self, cx: &Ctx) -> String {
        if cx.results == 0 || self.rng.chance(25) {
            return "return;".into();
        }
        let es: Vec<String> = (0..cx.results)
            .map(|_| self.expr(&cx.vars, 2, true, false))
            .collect();
        format!("return {};", es.join(", "))
    }

    /// Emits a call (maybe under a fuel guard); false if none fits here.
    fn call(&mut self, cx: &mut Ctx, pad: &str, prefix: &str) -> bool {
        if self.sigs.len() < 2 {
            return false;
        }
        let callee = self.rng.range(1, self.sigs.len() - 1);
        let back = callee <= cx.proc;
        if back && self.bounded && cx.fuel.is_none() {
            return false;
        }
        let formals = self.sigs[callee].formals.clone();
        let results = self.sigs[callee].results;
        let callee_fuel = self.sigs[callee].fuel;
        let args: Vec<String> = formals
            .iter()
            .enumerate()
            .map(|(i, _)| {
                if i == 0 && callee_fuel {
                    if back {
                        "F".to_string()
                    } else {
                        match &cx.fuel {
                            None => self.rng.pick(&["T", "*"]).to_string(),
                            Some(k) => match self.rng.below(3) {
                                0 => k.clone(),
                                1 => "F".to_string(),
                                _ => format!("{k} & {}", self.expr(&cx.vars, 1, true, false)),
                            },
                        }
                    }
                } else {
                    self.expr(&cx.vars, 2, true, false)
                }
            })
            .collect();
        let mut s = String::new();
        if results > 0 && self.rng.chance(70) {
            let mut pool = cx.writable.clone();
            let recv: Vec<String> = (0..results)
                .map(|_| {
                    if pool.is_empty() || self.rng.chance(20) {
                        "_".to_string()
                    } else {
                        let i = self.rng.below(pool.len());
                        pool.swap_remove(i)
                    }
                })
                .collect();
            s.push_str(&format!("{} := ", recv.join(", ")));
        }
        s.push_str(&format!("{}({});", self.sigs[callee].name, args.join(", ")));
        if back && self.bounded {
            let k = cx.fuel.clone().expect("fuel");
            self.lines.push(format!("{pad}{prefix}if ({k}) then"));
            self.lines.push(format!("{pad}  {s}"));
            self.lines.push(format!("{pad}fi"));
        } else {
            self.lines.push(format!("{pad}{prefix}{s}"));
        }
        true
    }

    fn if_stmt(&mut self, cx: &mut Ctx, indent: usize, depth: usize, prefix: &str) {
        let pad = "  ".repeat(indent);
        let paren = self.rng.chance(80);
        let c = self.expr(&cx.vars, 2, true, false);
        let c = if paren { format!("({c})") } else { c };
        self.lines.push(format!("{pad}{prefix}if {c} then"));
        let m = self.rng.range(0, 3);
        self.stmts(cx, indent + 1, m, depth + 1);
        while self.rng.chance(25) {
            let c = self.expr(&cx.vars, 2, true, false);
            self.lines.push(format!("{pad}elsif ({c}) then"));
            let m = self.rng.range(0, 2);
            self.stmts(cx, indent + 1, m, depth + 1);
        }
        if self.rng.chance(50) {
            self.lines.push(format!("{pad}else"));
            let m = self.rng.range(0, 2);
            self.stmts(cx, indent + 1, m, depth + 1);
        }
        let semi = self.semi();
        self.lines.push(format!("{pad}fi{semi}"));
    }

    fn expr(&mut self, vars: &[String], depth: usize, nd: bool, primed: bool) -> String {
        if depth == 0 || self.rng.chance(35) {
            return self.leaf(vars, nd, primed);
        }
        let d = depth - 1;
        match self.rng.below(12) {
            0 | 1 => format!("!{}", self.expr(vars, d, nd, primed)),
            2 => format!("~{}", self.expr(vars, d, nd, primed)),
            3..=8 => {
                let op = *self.rng.pick(BINOPS);
                let a = self.expr(vars, d, nd, primed);
                let b = self.expr(vars, d, nd, primed);
                format!("({a} {op} {b})")
            }
            9 => {
                let c = self.expr(vars, d, nd, primed);
                let a = self.expr(vars, d, nd, primed);
                let b = self.expr(vars, d, nd, primed);
                format!("({c} ? {a} : {b})")
            }
            _ => {
                let a = self.expr(vars, d, nd, primed);
                let b = self.expr(vars, d, nd, primed);
                if nd {
                    format!("schoose[{a}, {b}]")
                } else {
                    format!("({a} & {b})")
                }
            }
        }
    }

    fn leaf(&mut self, vars: &[String], nd: bool, primed: bool) -> String {
        loop {
            match self.rng.below(10) {
                0..=4 if !vars.is_empty() => return self.rng.pick(vars).clone(),
                5 | 6 => return self.rng.pick(&["T", "F", "0", "1"]).to_string(),
                7 | 8 if nd => return self.rng.pick(&["*", "?"]).to_string(),
                9 if primed && !vars.is_empty() => return format!("'{}", self.rng.pick(vars)),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::random_bp;

    #[test]
    fn deterministic() {
        assert_eq!(random_bp(42, 8), random_bp(42, 8));
        assert_ne!(random_bp(42, 8), random_bp(43, 8));
    }

    #[test]
    fn some_concurrent_programs_broadcast() {
        let n = (0..300)
            .filter(|&seed| random_bp(seed, 8).contains("$ :="))
            .count();
        assert!(n > 10, "only {n} of 300 programs broadcast");
    }

    #[test]
    fn generated_programs_compile() {
        for seed in 0..300 {
            let text = random_bp(seed, 8);
            if let Err(d) = zingrs_lang::compile("gen.bp", &text, zingrs_lang::Lang::Bp) {
                let src = zingrs_lang::ir::Source::new("gen.bp", text.clone());
                panic!(
                    "seed {seed} does not compile:\n{text}\n{}",
                    zingrs_lang::diag::render(&src, &d)
                );
            }
        }
    }
}
