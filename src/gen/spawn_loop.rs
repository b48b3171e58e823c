//! Random boolean programs that create threads in a loop (`zingrs gen random-spawn-bp SEED`):
//! `main` starts workers inside a `while` (by `start_thread` or an `ASYNC_` call), so the
//! number of threads has no bound. They are what the coverability engine decides for any
//! number of threads and the explicit engine under `--threads N`; the differential test
//! compares the two, and the explicit search with and without symmetry (every worker runs the
//! same code, so the workers are interchangeable).
//!
//! Everything stays inside what the coverability engine takes: no recursion, no broadcasts,
//! no calls; globals, a worker's formal and locals, assignments (parallel ones too), `if`,
//! `while`, `assume`, `assert`, atomic sections and the lock pattern `atomic_begin;
//! assume(!lk); lk := T; atomic_end; ... lk := F;`.

use super::Rng;

/// One random program with thread creation in a loop, determined by `seed`.
pub fn random_spawn_bp(seed: u64) -> String {
    let mut g = Spawn {
        rng: Rng::new(seed ^ 0x7370_6177_6e5f_6270),
        globals: Vec::new(),
        vars: Vec::new(),
        asserts: 0,
    };
    g.program(seed)
}

struct Spawn {
    rng: Rng,
    globals: Vec<String>,
    /// The variables in scope in the procedure being written.
    vars: Vec<String>,
    asserts: usize,
}

impl Spawn {
    fn program(&mut self, seed: u64) -> String {
        let ng = self.rng.range(2, 3);
        self.globals = (0..ng).map(|i| format!("g{i}")).collect();
        let lock = self.rng.chance(30);
        let mut out = vec![format!(
            "// random boolean program with threads created in a loop, seed {seed} \
             (zingrs gen random-spawn-bp {seed})"
        )];
        let mut decl = self.globals.clone();
        if lock {
            decl.push("lk".into());
        }
        out.push(format!("decl {};", decl.join(", ")));

        // the worker
        let formal = self.rng.chance(50);
        let nlocals = self.rng.range(0, 2);
        let locals: Vec<String> = (0..nlocals).map(|i| format!("l{i}")).collect();
        out.push(format!("void w({}) begin", if formal { "a" } else { "" }));
        if !locals.is_empty() {
            out.push(format!("  decl {};", locals.join(", ")));
        }
        self.vars = self.globals.clone();
        self.vars.extend(locals.iter().cloned());
        if formal {
            self.vars.push("a".into());
        }
        let n = self.rng.range(2, 5);
        let mut body = Vec::new();
        for _ in 0..n {
            self.stmt(&mut body, "  ", 2, &locals);
        }
        if lock {
            // the lock around a part of the body
            let from = self.rng.below(body.len());
            let to = self.rng.range(from, body.len() - 1);
            body.insert(to + 1, "  lk := F;".into());
            body.insert(
                from,
                "  atomic_begin; assume(!lk); lk := T; atomic_end;".into(),
            );
        }
        out.append(&mut body);
        out.push("end".into());

        // main: initial values, the creation loop, a tail
        self.vars = self.globals.clone();
        out.push("void main() begin".into());
        let mut inits: Vec<String> = self.globals.clone();
        let mut vals: Vec<String> = (0..inits.len())
            .map(|_| (*self.rng.pick(&["T", "F", "F", "*"])).to_string())
            .collect();
        if lock {
            inits.push("lk".into());
            vals.push("F".into());
        }
        out.push(format!("  {} := {};", inits.join(", "), vals.join(", ")));
        let cond = if self.rng.chance(70) {
            "*".to_string()
        } else {
            self.expr(1, false)
        };
        out.push(format!("  while ({cond}) do"));
        if self.rng.chance(30) {
            self.stmt(&mut out, "    ", 0, &[]);
        }
        let arg = if formal {
            self.expr(1, true)
        } else {
            String::new()
        };
        if self.rng.chance(50) {
            out.push(format!("    start_thread w({arg});"));
        } else {
            out.push(format!("    ASYNC_1: w({arg});"));
        }
        out.push("  od".into());
        for _ in 0..self.rng.range(0, 2) {
            self.stmt(&mut out, "  ", 1, &[]);
        }
        if self.asserts == 0 {
            let e = self.expr(2, false);
            out.push(format!("  assert({e});"));
        }
        out.push("end".into());
        let mut text = out.join("\n");
        text.push('\n');
        text
    }

    /// Appends one statement (nested up to `depth`) at indentation `ind`; `locals` are the
    /// variables a `while` may count down on.
    fn stmt(&mut self, out: &mut Vec<String>, ind: &str, depth: u32, locals: &[String]) {
        let inner = format!("{ind}  ");
        match self.rng.below(100) {
            0..=39 => {
                let x = self.rng.pick(&self.vars).clone();
                if self.rng.chance(25) && self.vars.len() > 1 {
                    let mut y = self.rng.pick(&self.vars).clone();
                    while y == x {
                        y = self.rng.pick(&self.vars).clone();
                    }
                    let (e1, e2) = (self.expr(2, true), self.expr(2, true));
                    out.push(format!("{ind}{x}, {y} := {e1}, {e2};"));
                } else {
                    let e = self.expr(2, true);
                    out.push(format!("{ind}{x} := {e};"));
                }
            }
            40..=54 if depth > 0 => {
                let c = self.expr(2, true);
                out.push(format!("{ind}if ({c}) then"));
                self.stmt(out, &inner, depth - 1, locals);
                if self.rng.chance(50) {
                    out.push(format!("{ind}else"));
                    self.stmt(out, &inner, depth - 1, locals);
                }
                out.push(format!("{ind}fi"));
            }
            55..=64 => {
                let e = self.expr(2, false);
                self.asserts += 1;
                out.push(format!("{ind}assert({e});"));
            }
            65..=72 => {
                let e = self.expr(1, false);
                out.push(format!("{ind}assume({e});"));
            }
            73..=82 if depth > 0 => {
                out.push(format!("{ind}atomic_begin;"));
                self.stmt(out, ind, 0, locals);
                self.stmt(out, ind, 0, locals);
                out.push(format!("{ind}atomic_end;"));
            }
            83..=90 if depth > 0 && !locals.is_empty() => {
                // a loop that ends: it runs while a local is set and clears it on the way
                let l = self.rng.pick(locals).clone();
                out.push(format!("{ind}while ({l}) do"));
                self.stmt(out, &inner, 0, &[]);
                out.push(format!("{inner}{l} := F;"));
                out.push(format!("{ind}od"));
            }
            _ => {
                let x = self.rng.pick(&self.globals).clone();
                out.push(format!("{ind}{x} := !{x};"));
            }
        }
    }

    /// A random expression of depth at most `depth`; `*` only where `nondet` allows it.
    fn expr(&mut self, depth: u32, nondet: bool) -> String {
        if depth == 0 || self.rng.chance(40) {
            return match self.rng.below(10) {
                0 => "T".into(),
                1 => "F".into(),
                2 if nondet => "*".into(),
                _ => self.rng.pick(&self.vars).clone(),
            };
        }
        match self.rng.below(4) {
            0 => format!("!{}", self.expr(depth - 1, nondet)),
            _ => {
                let op = *self.rng.pick(&["&", "|", "^", "=", "!=", "=>"]);
                let a = self.expr(depth - 1, nondet);
                let b = self.expr(depth - 1, nondet);
                format!("({a} {op} {b})")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::random_spawn_bp;

    #[test]
    fn programs_compile_create_threads_in_a_loop_and_are_deterministic() {
        for seed in 0..300 {
            let text = random_spawn_bp(seed);
            assert_eq!(text, random_spawn_bp(seed));
            let c = zingrs_lang::compile("spawn.bp", &text, zingrs_lang::Lang::Bp)
                .unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
            assert!(
                zingrs_lang::spawn::unbounded_creation(&c.program),
                "seed {seed}: no unbounded creation\n{text}"
            );
            assert!(text.contains("assert("), "seed {seed}");
        }
    }
}
