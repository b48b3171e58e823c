//! Random Zing models in the core subset zingrs runs: classes with bool, small-int and reference
//! fields, static fields, `new`, aliasing, recursion bounded by a decreasing argument, `choose`,
//! `assert`, `assume`, and sometimes a second process with `atomic` blocks.
//!
//! About three models in five also use some of the richer constructs, each with its own
//! probability: fixed and dynamic arrays (`a[i]`, `new D[n]`, `choose(a)`, `sizeof`), sets of ints
//! and of references (`s = s + e;`, `s = s - e;`, `e in s`, `choose(s)`), channels (`send`,
//! `select` with `receive`, `wait`, `timeout`, `first`, `end`), structs (value semantics, struct
//! fields of objects, struct channels and arrays), `foreach` over sets and arrays, exceptions
//! (`try ... with`, `raise`, propagating through calls), `self`, calls through an interface, and
//! extra `atomic` blocks. These choices are drawn from a second random stream, so a model
//! without them is exactly the one the core generator produced before.
//!
//! About one model in four also jumps (a third stream, so the others stay as they were):
//! `yield`, labels and forward `goto`s (skipping a statement, out of an `atomic` block onto a
//! label on the next one, which ZING runs as one step), and a backward `goto` that repeats a
//! block a bounded number of times, at the top level of a method body.
//!
//! The models are small (a handful of objects, short loops, at most a few elements per set,
//! array or channel) so that the explicit engine finishes in milliseconds, and every engine that
//! applies must give the same verdict (which may be an error: index out of range, null
//! dereference, invalid choose, unhandled exception, deadlock, invalid blocking select, ...).

use super::Rng;
use std::fmt::Write;

mod decls;
mod exprs;

/// Which of the richer constructs a model uses.
#[derive(Clone, Copy, Default)]
struct Features {
    arrays: bool,
    sets: bool,
    chans: bool,
    structs: bool,
    foreach: bool,
    exceptions: bool,
    iface: bool,
    selfs: bool,
    atomics: bool,
}

impl Features {
    fn any(&self) -> bool {
        self.arrays
            || self.sets
            || self.chans
            || self.structs
            || self.foreach
            || self.exceptions
            || self.iface
            || self.selfs
            || self.atomics
    }
}

/// The loop variable of the enclosing `foreach`.
#[derive(Clone, Copy, PartialEq)]
enum LoopVar {
    None,
    /// `int v` over `Main.arr` or `Main.s`.
    Int,
    /// `bool v` over `Main.darr`.
    Bool,
    /// `Node v` over `Main.ns`.
    Node,
}

/// The generator's state: the text so far and the model's shape.
struct Gen {
    rng: Rng,
    /// The stream for the richer constructs (untouched when `feat` is all off).
    ext: Rng,
    feat: Features,
    out: String,
    /// Whether a second process is started (then the model is concurrent).
    threads: bool,
    /// Whether both processes take a lock (`Lock.held`) around part of their statements: the
    /// reductions' lock movers (`runtime::locks`). Drawn from a stream of its own.
    lock: bool,
    /// Inside a lexical `atomic` block (no nested ones).
    in_atomic: bool,
    /// Inside a `foreach` body: the loop variable; no nested loops, no calls.
    loop_var: LoopVar,
    /// The set a `foreach` iterates over (no inserts into it in the body).
    iterated: &'static str,
    /// Whether the model jumps (`yield`, labels, `goto`), and the stream those are drawn from.
    jumps: bool,
    jmp: Rng,
    /// Labels used so far (each label is used once in the model).
    labels: usize,
}

/// A random Zing model, deterministic in `seed`.
pub fn random_zing(seed: u64) -> String {
    let mut rng = Rng::new(seed ^ 0x2106);
    let threads = rng.chance(50);
    let mut ext = Rng::new(seed ^ 0x7a11_c0de);
    let mut feat = Features::default();
    if ext.chance(60) {
        while !feat.any() {
            feat = Features {
                arrays: ext.chance(40),
                sets: ext.chance(40),
                chans: ext.chance(35),
                structs: ext.chance(35),
                foreach: ext.chance(35),
                exceptions: ext.chance(35),
                iface: ext.chance(25),
                selfs: ext.chance(20),
                atomics: ext.chance(25),
            };
        }
        // foreach needs something to iterate over
        if feat.foreach && !feat.arrays && !feat.sets {
            feat.sets = true;
        }
    }
    let mut g = Gen {
        rng,
        ext,
        feat,
        out: String::new(),
        threads,
        lock: threads && Rng::new(seed ^ 0x6c6f_636b).chance(50),
        in_atomic: false,
        loop_var: LoopVar::None,
        iterated: "",
        jumps: Rng::new(seed ^ 0x6a75_6d70).chance(25),
        jmp: Rng::new(seed ^ 0x676f_746f),
        labels: 0,
    };
    g.model(seed);
    g.out
}

const INTS: [&str; 3] = ["Main.a", "Main.b", "n.v"];
const BOOLS: [&str; 3] = ["Main.f", "n.w", "m.w"];

impl Gen {
    /// With [`Gen::lock`]: the process's local `ll` takes the lock (an atomic test-and-set)
    /// and counts itself in the lock's `inside`, data only touched under the lock (which the
    /// reductions treat as a both-mover, `runtime::guarded`).
    fn acquire(&mut self) {
        if self.lock {
            self.line(2, "ll = Main.lk;");
            self.line(2, "atomic { select { wait(!ll.held) -> ll.held = true; } }");
            self.line(2, "ll.inside = ll.inside + 1;");
        }
    }

    /// With [`Gen::lock`]: the holder checks that it is alone inside, and releases the lock.
    fn release(&mut self) {
        if self.lock {
            self.line(2, "assert(ll.inside == 1);");
            self.line(2, "ll.inside = ll.inside - 1;");
            self.line(2, "ll.held = false;");
        }
    }

    fn line(&mut self, depth: usize, s: &str) {
        let _ = writeln!(self.out, "{}{s}", "    ".repeat(depth));
    }

    fn ext_on(&self) -> bool {
        self.feat.any()
    }

    /// One short assignment (used as a select branch or handler body when the budget is spent).
    fn simple_stmt(&mut self, depth: usize) {
        match self.ext.below(3) {
            0 => {
                let e = self.int_expr();
                self.line(depth, &format!("Main.b = {e};"));
            }
            1 => {
                let e = self.bool_expr();
                self.line(depth, &format!("Main.f = {e};"));
            }
            _ => {
                let e = self.int_expr();
                self.line(depth, &format!("Main.a = {e};"));
            }
        }
    }

    /// A block body: a few statements, or one simple one when the budget is spent.
    fn body(&mut self, depth: usize, budget: &mut usize, most: usize) {
        if *budget == 0 {
            self.simple_stmt(depth);
            return;
        }
        let inner = self.ext.range(1, most);
        for _ in 0..inner {
            self.stmt(depth, budget);
        }
    }

    /// One statement with the richer constructs (falls back to a simple one).
    fn ext_stmt(&mut self, depth: usize, budget: &mut usize) {
        let in_loop = self.loop_var != LoopVar::None;
        let f = self.feat;
        // the kinds of statement that apply, with repeats as weights
        let mut kinds: Vec<usize> = Vec::new();
        if f.arrays {
            kinds.extend([0, 1, 2, 3, 4]);
        }
        if f.sets {
            kinds.extend([5, 6, 7, 8]);
        }
        if f.chans {
            kinds.extend([9, 10, 11, 12]);
        }
        if f.structs {
            kinds.extend([13, 14]);
        }
        if f.foreach && !in_loop && *budget > 1 {
            kinds.extend([15, 16, 16]);
        }
        if f.exceptions {
            if *budget > 1 {
                kinds.extend([17, 18]);
            }
            kinds.push(19);
        }
        if f.iface {
            kinds.extend([20, 20]);
        }
        if f.selfs {
            kinds.push(21);
        }
        if f.atomics && !self.in_atomic && *budget > 1 {
            kinds.extend([22, 22]);
        }
        if f.atomics || f.chans {
            kinds.push(23);
        }
        kinds.push(24);
        match *self.ext.pick(&kinds) {
            // arrays
            0 | 1 if f.arrays => {
                let i = self.index();
                let e = self.int_expr();
                self.line(depth, &format!("Main.arr[{i}] = {e};"));
            }
            2 if f.arrays => {
                let i = self.dindex();
                let e = self.bool_expr();
                self.line(depth, &format!("Main.darr[{i}] = {e};"));
            }
            3 if f.arrays => {
                // a loop over the array re-reads its size: keep that bounded
                let size = if self.iterated == "Main.darr" {
                    "2"
                } else {
                    *self
                        .ext
                        .pick(&["k", "2", "0", "Main.a", "sizeof(arr)", "k + 1"])
                };
                self.line(depth, &format!("Main.darr = new D[{size}];"));
            }
            4 if f.arrays => {
                if self.ext.chance(50) {
                    self.line(depth, "Main.a = choose(Main.arr);");
                } else {
                    self.line(depth, "Main.f = choose(Main.darr);");
                }
            }
            // sets
            5 | 6 if f.sets => {
                let e = self.int_expr();
                let op = if self.ext.chance(65) { "+" } else { "-" };
                if op == "+" && self.iterated == "Main.s" {
                    self.line(depth, &format!("Main.s = Main.s - ({e});"));
                } else {
                    self.line(depth, &format!("Main.s = Main.s {op} ({e});"));
                }
            }
            7 if f.sets => {
                let who = *self.ext.pick(&["n", "m"]);
                if self.ext.chance(60) && self.iterated != "Main.ns" {
                    self.line(depth, &format!("Main.ns = Main.ns + {who};"));
                } else {
                    self.line(depth, &format!("Main.ns = Main.ns - {who};"));
                }
            }
            8 if f.sets => {
                if self.ext.chance(50) {
                    self.line(depth, "Main.a = choose(Main.s);");
                } else {
                    self.line(depth, "m = choose(Main.ns);");
                }
            }
            // channels
            9 | 10 if f.chans => {
                if f.structs && self.ext.chance(30) {
                    self.line(depth, "send(Main.pc, Main.p);");
                } else {
                    let e = self.int_expr();
                    self.line(depth, &format!("send(Main.c, {e});"));
                }
            }
            11 | 12 if f.chans => self.select(depth, budget),
            // structs
            13 if f.structs => match self.ext.below(6) {
                0 => {
                    let e = self.int_expr();
                    self.line(depth, &format!("Main.p.x = {e};"));
                }
                1 => {
                    let e = self.bool_expr();
                    self.line(depth, &format!("q.b = {e};"));
                }
                2 => self.line(depth, "q = Main.p;"),
                3 => self.line(depth, "Main.p = q;"),
                4 => self.line(depth, "n.pt = Main.p;"),
                _ => {
                    let e = self.int_expr();
                    self.line(depth, &format!("m.pt.x = {e};"));
                }
            },
            14 if f.structs => {
                if f.arrays {
                    let i = self.index();
                    if self.ext.chance(50) {
                        self.line(depth, &format!("Main.parr[{i}] = q;"));
                    } else {
                        self.line(depth, &format!("q = Main.parr[{i}];"));
                    }
                } else {
                    let e = self.int_expr();
                    self.line(depth, &format!("q.x = {e};"));
                }
            }
            // foreach
            15 | 16 if f.foreach && !in_loop && *budget > 1 => {
                let mut srcs: Vec<(&'static str, &'static str, LoopVar)> = Vec::new();
                if f.arrays {
                    srcs.push(("int", "Main.arr", LoopVar::Int));
                    srcs.push(("bool", "Main.darr", LoopVar::Bool));
                }
                if f.sets {
                    srcs.push(("int", "Main.s", LoopVar::Int));
                    srcs.push(("Node", "Main.ns", LoopVar::Node));
                }
                let (ty, src, lv) = *self.ext.pick(&srcs);
                self.line(depth, &format!("foreach ({ty} v in {src}) {{"));
                self.loop_var = lv;
                self.iterated = src;
                self.body(depth + 1, budget, 2);
                self.loop_var = LoopVar::None;
                self.iterated = "";
                self.line(depth, "}");
            }
            // exceptions
            17 | 18 if f.exceptions && *budget > 1 => {
                self.line(depth, "try {");
                self.body(depth + 1, budget, 3);
                self.line(depth, "} with {");
                let shape = self.ext.below(4);
                let names: &[&str] = match shape {
                    0 => &["Oops"],
                    1 => &["Boom", "*"],
                    2 => &["*"],
                    _ => &["Oops", "Boom"],
                };
                for name in names {
                    self.line(depth + 1, &format!("{name} -> {{"));
                    let mut b = (*budget).min(1);
                    self.body(depth + 2, &mut b, 1);
                    self.line(depth + 1, "}");
                }
                self.line(depth, "}");
            }
            19 if f.exceptions => {
                let e = *self.ext.pick(&["Oops", "Boom"]);
                if self.ext.chance(75) {
                    let c = self.bool_expr();
                    self.line(depth, &format!("if ({c}) {{ raise {e}; }}"));
                } else {
                    self.line(depth, &format!("raise {e};"));
                }
            }
            // interface calls
            20 if f.iface => match self.ext.below(4) {
                0 | 1 => {
                    let e = self.int_expr();
                    let t = *self.ext.pick(&["Main.a", "Main.b"]);
                    self.line(depth, &format!("{t} = Main.op.Apply({e});"));
                }
                2 => {
                    let who = *self.ext.pick(&["n", "m"]);
                    self.line(depth, &format!("Main.op.Mark({who});"));
                }
                _ => {
                    let c = *self.ext.pick(&["Inc", "Neg"]);
                    self.line(depth, &format!("Main.op = new {c};"));
                }
            },
            // self
            21 if f.selfs => {
                let e = if self.ext.chance(50) {
                    "self".to_string()
                } else {
                    format!("Main.a + self + {}", self.ext.below(2))
                };
                self.line(depth, &format!("Main.a = {e};"));
            }
            // atomic blocks
            22 if f.atomics && !self.in_atomic && *budget > 1 => {
                self.line(depth, "atomic {");
                self.in_atomic = true;
                self.body(depth + 1, budget, 3);
                self.in_atomic = false;
                self.line(depth, "}");
            }
            23 if f.atomics || f.chans => {
                // a wait for another process's progress, or a timeout
                let c = self.bool_expr();
                self.line(depth, "select {");
                self.line(depth + 1, &format!("wait({c}) -> Main.b = Main.b + 1;"));
                if self.ext.chance(50) {
                    self.line(depth + 1, "timeout -> Main.f = !Main.f;");
                }
                self.line(depth, "}");
            }
            _ => self.simple_stmt(depth),
        }
    }

    /// A `select` over the channels (and sometimes a `wait` or a `timeout`).
    fn select(&mut self, depth: usize, budget: &mut usize) {
        let modifier = match self.ext.below(6) {
            0 | 1 => "first ",
            2 => "end ",
            _ => "",
        };
        self.line(depth, &format!("select {modifier}{{"));
        let mut branches: Vec<String> = Vec::new();
        let t = *self.ext.pick(&["Main.a", "Main.b"]);
        branches.push(format!("receive(Main.c, {t})"));
        if self.feat.structs && self.ext.chance(30) {
            branches.push("receive(Main.pc, q)".into());
        }
        if self.ext.chance(30) {
            let c = self.bool_expr();
            branches.push(format!("wait({c})"));
        }
        if self.ext.chance(35) {
            branches.push("timeout".into());
        }
        if self.ext.chance(15) && branches.len() < 4 {
            // two receives joined: enabled only when both channels hold messages
            if self.feat.structs {
                branches.push("receive(Main.c, Main.b) && receive(Main.pc, Main.p)".into());
            }
        }
        // the timeout is not always written last
        let n = branches.len();
        if n > 1 && self.ext.chance(40) {
            branches.swap(0, n - 1);
        }
        for b in branches {
            if *budget > 1 && self.ext.chance(30) {
                self.line(depth + 1, &format!("{b} -> {{"));
                let mut bb = 1;
                self.body(depth + 2, &mut bb, 1);
                *budget = budget.saturating_sub(1);
                self.line(depth + 1, "}");
            } else if self.ext.chance(15) {
                self.line(depth + 1, &format!("{b} -> ;"));
            } else {
                let (t, e) = if self.ext.chance(50) {
                    ("Main.f", self.bool_expr())
                } else {
                    ("Main.b", self.int_expr())
                };
                self.line(depth + 1, &format!("{b} -> {t} = {e};"));
            }
        }
        self.line(depth, "}");
    }

    /// With [`Gen::jumps`], sometimes (at the top level of a method body): a `yield`, a
    /// forward `goto` over a statement, a `goto` out of an `atomic` block onto a label on the
    /// next one, or a block repeated by a backward `goto` while a local counter `j` is below 2.
    /// Returns whether it wrote one.
    fn jump(&mut self, depth: usize, budget: &mut usize) -> bool {
        if !self.jumps || depth != 2 || self.in_atomic || !self.jmp.chance(30) {
            return false;
        }
        *budget = budget.saturating_sub(1);
        self.labels += 1;
        let l = format!("L{}", self.labels);
        match self.jmp.below(5) {
            0 | 1 => self.line(depth, "yield;"),
            2 => {
                let c = self.bool_expr();
                self.line(depth, &format!("if ({c}) {{ goto {l}; }}"));
                self.stmt(depth, budget);
                self.line(depth - 1, &format!("{l}: ;"));
            }
            3 => {
                self.line(depth, "atomic {");
                self.in_atomic = true;
                self.simple_stmt(depth + 1);
                let c = self.bool_expr();
                self.line(depth + 1, &format!("if ({c}) {{ goto {l}; }}"));
                self.simple_stmt(depth + 1);
                self.in_atomic = false;
                self.line(depth, "}");
                self.line(depth - 1, &format!("{l}: atomic {{"));
                self.simple_stmt(depth + 1);
                self.line(depth, "}");
            }
            _ => {
                // `j`: a local of every method that has statements, in a model that jumps
                self.line(depth, "j = 0;");
                self.line(depth - 1, &format!("{l}: j = j + 1;"));
                self.simple_stmt(depth);
                self.line(depth, &format!("if (j < 2) {{ goto {l}; }}"));
            }
        }
        true
    }

    /// One statement of a method body with locals `n`, `m` (non-null `Node`s) and `k`.
    fn stmt(&mut self, depth: usize, budget: &mut usize) {
        if self.jump(depth, budget) {
            return;
        }
        if self.ext_on() && self.ext.chance(35) {
            *budget = budget.saturating_sub(1);
            self.ext_stmt(depth, budget);
            return;
        }
        *budget = budget.saturating_sub(1);
        match self.rng.below(14) {
            0 | 1 => {
                let t = *self.rng.pick(&INTS);
                let e = self.int_expr();
                self.line(depth, &format!("{t} = {e};"));
            }
            2 | 3 => {
                let t = *self.rng.pick(&BOOLS);
                let e = self.bool_expr();
                self.line(depth, &format!("{t} = {e};"));
            }
            4 => {
                let t = *self.rng.pick(&BOOLS);
                self.line(depth, &format!("{t} = choose(bool);"));
            }
            5 => self.line(depth, "m = n;"),
            6 => {
                self.line(depth, "m = new Node;");
                self.line(depth, "m.next = n;");
            }
            7 => self.line(depth, "n.next = m;"),
            8 => {
                let c = self.bool_expr();
                self.line(depth, &format!("assume({c});"));
            }
            9 => {
                let c = self.bool_expr();
                self.line(depth, &format!("assert({c});"));
            }
            10 if *budget > 2 => {
                let c = self.bool_expr();
                self.line(depth, &format!("if ({c}) {{"));
                let inner = self.rng.range(1, 3);
                for _ in 0..inner {
                    self.stmt(depth + 1, budget);
                }
                self.line(depth, "} else {");
                self.stmt(depth + 1, budget);
                self.line(depth, "}");
            }
            // no calls in foreach bodies: a call could grow the set being iterated
            11 | 12 if self.loop_var != LoopVar::None => {
                let c = self.bool_expr();
                self.line(depth, &format!("Main.f = {c};"));
            }
            11 => self.line(depth, "if (k > 0) { Step(k - 1, n); }"),
            12 => self.line(depth, "Main.b = Count(m, 2);"),
            _ => {
                let c = self.bool_expr();
                self.line(depth, &format!("Main.f = {c};"));
            }
        }
    }

    fn model(&mut self, seed: u64) {
        self.line(
            0,
            &format!("// a random Zing model (zingrs gen random-zing {seed})"),
        );
        self.ext_types();
        self.line(0, "class Node {");
        self.line(1, "int v;");
        self.line(1, "bool w;");
        self.line(1, "Node next;");
        if self.feat.structs {
            self.line(1, "P pt;");
        }
        self.line(0, "};");
        self.line(0, "");
        if self.lock {
            self.line(0, "class Lock {");
            self.line(1, "bool held;");
            self.line(1, "int inside;");
            self.line(0, "};");
            self.line(0, "");
        }
        self.line(0, "class Main {");
        self.line(1, "static int a;");
        self.line(1, "static int b;");
        self.line(1, "static bool f;");
        self.line(1, "static Node root;");
        if self.lock {
            self.line(1, "static Lock lk;");
        }
        let init = self.ext_statics();
        self.line(0, "");
        // a recursive procedure bounded by its first argument
        self.line(1, "static void Step(int k, Node n) {");
        self.line(2, "Node m;");
        if self.jumps {
            self.line(2, "int j;");
        }
        self.ext_locals(2);
        self.line(2, "m = n;");
        let mut budget = self.rng.range(3, 7);
        while budget > 0 {
            self.stmt(2, &mut budget);
        }
        self.line(1, "}");
        self.line(0, "");
        // a function over the list, returning a count
        self.line(1, "static int Count(Node n, int limit) {");
        self.line(2, "int c;");
        self.line(2, "c = 0;");
        self.line(2, "while (n != null && c < limit) {");
        self.line(3, "if (n.w) { c = c + 1; }");
        self.line(3, "n = n.next;");
        self.line(2, "}");
        self.line(2, "return c;");
        self.line(1, "}");
        self.line(0, "");
        if self.threads {
            self.line(1, "static void Other() {");
            self.line(2, "Node n;");
            self.line(2, "Node m;");
            self.line(2, "int k;");
            if self.jumps {
                self.line(2, "int j;");
            }
            self.ext_locals(2);
            if self.lock {
                self.line(2, "Lock ll;");
            }
            self.line(2, "n = Main.root;");
            self.line(2, "m = n;");
            self.line(2, "k = 0;");
            self.acquire();
            let atomic = self.rng.chance(50);
            if atomic {
                self.line(2, "atomic {");
                self.in_atomic = true;
            }
            let mut budget = self.rng.range(1, 3);
            while budget > 0 {
                self.stmt(3, &mut budget);
            }
            if atomic {
                self.line(2, "}");
                self.in_atomic = false;
            }
            self.release();
            // a producer for main's selects
            if self.feat.chans && self.ext.chance(60) {
                let e = self.int_expr();
                self.line(2, &format!("send(Main.c, {e});"));
            }
            self.line(1, "}");
            self.line(0, "");
        }
        self.line(1, "activate static void main() {");
        self.line(2, "Node n;");
        self.line(2, "Node m;");
        self.line(2, "int k;");
        if self.jumps {
            self.line(2, "int j;");
        }
        self.ext_locals(2);
        if self.feat.iface {
            self.line(2, "bool c0;");
        }
        if self.lock {
            self.line(2, "Lock ll;");
            self.line(2, "Main.lk = new Lock;");
        }
        self.line(2, "n = new Node;");
        self.line(2, "Main.root = n;");
        self.line(2, "m = n;");
        let k = self.rng.range(1, 3);
        self.line(2, &format!("k = {k};"));
        for l in init {
            self.line(2, &l);
        }
        if self.threads {
            self.line(2, "async Other();");
        }
        self.acquire();
        let mut budget = self.rng.range(3, 8);
        while budget > 0 {
            self.stmt(2, &mut budget);
        }
        self.release();
        self.line(2, "Step(k, n);");
        let c = self.bool_expr();
        self.line(2, &format!("assert({c});"));
        self.line(1, "}");
        self.line(0, "};");
    }
}

#[cfg(test)]
mod tests {
    use super::random_zing;

    #[test]
    fn some_models_jump_and_the_others_are_unchanged() {
        let texts: Vec<String> = (0..200).map(random_zing).collect();
        for w in ["yield;", "goto L", ": ;", ": atomic {", ": j = j + 1;"] {
            assert!(texts.iter().any(|t| t.contains(w)), "no model writes `{w}`");
        }
        // a model that does not jump declares no `j` (it is the one the generator wrote
        // before jumps: seed 0 has none)
        assert!(!texts[0].contains("int j;") && !texts[0].contains("goto"));
    }

    #[test]
    fn models_are_deterministic_and_compile() {
        assert_eq!(random_zing(5), random_zing(5));
        for seed in 0..200 {
            let text = random_zing(seed);
            if let Err(d) = zingrs_lang::compile("r.zing", &text, zingrs_lang::Lang::Zing) {
                let src = zingrs_lang::ir::Source::new("r.zing", text.clone());
                panic!(
                    "seed {seed} does not compile:\n{text}\n{}",
                    zingrs_lang::diag::render(&src, &d)
                );
            }
        }
    }
}
