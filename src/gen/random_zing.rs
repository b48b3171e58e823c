//! Random Zing models in the core subset zingrs runs: classes with bool, small-int and reference
//! fields, static fields, `new`, aliasing, recursion bounded by a decreasing argument, `choose`,
//! `assert`, `assume`, and sometimes a second process with `atomic` blocks.
//!
//! The models are small (a handful of objects, short loops) so that the explicit engine
//! finishes in milliseconds, and every engine that applies must give the same verdict.

use super::Rng;
use std::fmt::Write;

/// The generator's state: the text so far and the model's shape.
struct Gen {
    rng: Rng,
    out: String,
    /// Whether a second process is started (then the model is concurrent).
    threads: bool,
}

/// A random Zing model, deterministic in `seed`.
pub fn random_zing(seed: u64) -> String {
    let mut rng = Rng::new(seed ^ 0x2106);
    let threads = rng.chance(30);
    let mut g = Gen {
        rng,
        out: String::new(),
        threads,
    };
    g.model(seed);
    g.out
}

const INTS: [&str; 3] = ["Main.a", "Main.b", "n.v"];
const BOOLS: [&str; 3] = ["Main.f", "n.w", "m.w"];

impl Gen {
    fn line(&mut self, depth: usize, s: &str) {
        let _ = writeln!(self.out, "{}{s}", "    ".repeat(depth));
    }

    fn int_expr(&mut self) -> String {
        match self.rng.below(5) {
            0 => self.rng.below(4).to_string(),
            1 => format!("{} + 1", self.rng.pick(&INTS)),
            2 => format!("{} - {}", self.rng.pick(&INTS), self.rng.below(3)),
            3 => "k".to_string(),
            _ => self.rng.pick(&INTS).to_string(),
        }
    }

    fn bool_expr(&mut self) -> String {
        match self.rng.below(7) {
            0 => format!("{} == {}", self.rng.pick(&INTS), self.rng.below(4)),
            1 => format!("{} < {}", self.rng.pick(&INTS), self.int_expr()),
            2 => format!("!{}", self.rng.pick(&BOOLS)),
            3 => "n == m".to_string(),
            4 => "n.next != null && n.next.w".to_string(),
            5 => format!("{} || {}", self.rng.pick(&BOOLS), self.rng.pick(&BOOLS)),
            _ => self.rng.pick(&BOOLS).to_string(),
        }
    }

    /// One statement of a method body with locals `n`, `m` (non-null `Node`s) and `k`.
    fn stmt(&mut self, depth: usize, budget: &mut usize) {
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
        self.line(0, "class Node {");
        self.line(1, "int v;");
        self.line(1, "bool w;");
        self.line(1, "Node next;");
        self.line(0, "};");
        self.line(0, "");
        self.line(0, "class Main {");
        self.line(1, "static int a;");
        self.line(1, "static int b;");
        self.line(1, "static bool f;");
        self.line(1, "static Node root;");
        self.line(0, "");
        // a recursive procedure bounded by its first argument
        self.line(1, "static void Step(int k, Node n) {");
        self.line(2, "Node m;");
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
            self.line(2, "n = Main.root;");
            self.line(2, "m = n;");
            self.line(2, "k = 0;");
            let atomic = self.rng.chance(50);
            if atomic {
                self.line(2, "atomic {");
            }
            let mut budget = self.rng.range(1, 3);
            while budget > 0 {
                self.stmt(3, &mut budget);
            }
            if atomic {
                self.line(2, "}");
            }
            self.line(1, "}");
            self.line(0, "");
        }
        self.line(1, "activate static void main() {");
        self.line(2, "Node n;");
        self.line(2, "Node m;");
        self.line(2, "int k;");
        self.line(2, "n = new Node;");
        self.line(2, "Main.root = n;");
        self.line(2, "m = n;");
        let k = self.rng.range(1, 3);
        self.line(2, &format!("k = {k};"));
        if self.threads {
            self.line(2, "async Other();");
        }
        let mut budget = self.rng.range(3, 8);
        while budget > 0 {
            self.stmt(2, &mut budget);
        }
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
