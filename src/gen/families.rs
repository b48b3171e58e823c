//! The benchmark families of `../shared/spec/benchmarks.md`: scalable models with known
//! verdicts (`zingrs gen FAMILY N`, `zingrs bench FAMILY --sizes ...`).
//!
//! | family                  | language | verdict                              |
//! |-------------------------|----------|--------------------------------------|
//! | `bebop-t N`             | bp       | label `reach` reachable (exit 3)     |
//! | `zing-clone N`          | zing     | passes (exit 0)                      |
//! | `zing-alloc`            | zing     | passes (summary engine, exit 0)      |
//! | `zing-patterns`         | zing     | assertion fails (exit 3)             |
//! | `zing-deep-alloc N`     | zing     | passes (exit 0; `--max-depth` > N + 1) |
//! | `bp-parity K`           | bp       | passes (exit 0)                      |
//! | `bp-parity-flat K`      | bp       | label `ERR` unreachable (exit 0)     |
//! | `bp-parity-flat-rev K`  | bp       | label `ERR` unreachable (exit 0)     |
//! | `bp-call-chain N`       | bp       | label `ERR` unreachable (exit 0)     |
//! | `philosophers N`        | zing     | deadlock (exit 2)                    |
//! | `philosophers-ordered N`| zing     | passes (exit 0)                      |
//! | `threads-local N`       | bp       | passes (exit 0)                      |
//! | `owners N`              | zing     | passes (exit 0)                      |
//! | `lockers N`             | zing     | passes (exit 0)                      |
//! | `fib-bp N`              | bp       | `SLIC_ERROR` iff `--contexts` ≥ 2N − 1 |
//! | `bluetooth-bp A S`      | bp       | seed 002 Figure 3 (see [`super::concurrent`]) |
//!
//! `philosophers-promela N` (printed by `zingrs gen`, not checked by zingrs) is
//! `philosophers-ordered N` in Promela, to compare with SPIN side by side.
//!
//! Every generator is a pure function of its size.

use std::fmt::Write;

/// One benchmark family: its name, the language of its models, and whether `N` matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Family {
    /// The name used on the command line.
    pub name: &'static str,
    /// True for boolean programs (`.bp`), false for Zing models (`.zing`).
    pub is_bp: bool,
    /// False for the one-model families (`zing-alloc`, `zing-patterns`), which ignore `N`.
    pub scalable: bool,
    /// The label that must be passed with `--target` (`bebop-t`, and `SLIC_ERROR` for the
    /// Getafix-layout families).
    pub target: Option<&'static str>,
}

impl Family {
    /// The file extension of this family's models (`bp` or `zing`).
    pub fn extension(&self) -> &'static str {
        if self.is_bp {
            "bp"
        } else {
            "zing"
        }
    }

    /// The model of size `n`.
    pub fn generate(&self, n: u64) -> String {
        match self.name {
            "bebop-t" => bebop_t(n),
            "zing-clone" => zing_clone(n),
            "zing-alloc" => zing_alloc(),
            "zing-patterns" => zing_patterns(),
            "zing-deep-alloc" => zing_deep_alloc(n),
            "bp-parity" => bp_parity(n),
            "bp-parity-flat" => bp_parity_flat(n, false),
            "bp-parity-flat-rev" => bp_parity_flat(n, true),
            "bp-call-chain" => bp_call_chain(n),
            "philosophers" => philosophers(n, false),
            "philosophers-ordered" => philosophers(n, true),
            "threads-local" => threads_local(n),
            "owners" => owners(n),
            "lockers" => lockers(n),
            "fib-bp" => super::concurrent::fib_bp(n),
            // one size: as many stoppers as adders (`zingrs gen bluetooth-bp A S` gives both)
            "bluetooth-bp" => super::concurrent::bluetooth_bp(n, n),
            "deep-bug" => deep_bug(n),
            other => unreachable!("unknown family {other}"),
        }
    }
}

/// Every benchmark family, in the order of benchmarks.md.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "bebop-t",
        is_bp: true,
        scalable: true,
        target: Some("reach"),
    },
    Family {
        name: "zing-clone",
        is_bp: false,
        scalable: true,
        target: None,
    },
    Family {
        name: "zing-alloc",
        is_bp: false,
        scalable: false,
        target: None,
    },
    Family {
        name: "zing-patterns",
        is_bp: false,
        scalable: false,
        target: None,
    },
    Family {
        name: "zing-deep-alloc",
        is_bp: false,
        scalable: true,
        target: None,
    },
    Family {
        name: "bp-parity",
        is_bp: true,
        scalable: true,
        target: None,
    },
    Family {
        name: "bp-parity-flat",
        is_bp: true,
        scalable: true,
        target: Some("ERR"),
    },
    Family {
        name: "bp-parity-flat-rev",
        is_bp: true,
        scalable: true,
        target: Some("ERR"),
    },
    Family {
        name: "bp-call-chain",
        is_bp: true,
        scalable: true,
        target: Some("ERR"),
    },
    Family {
        name: "philosophers",
        is_bp: false,
        scalable: true,
        target: None,
    },
    Family {
        name: "philosophers-ordered",
        is_bp: false,
        scalable: true,
        target: None,
    },
    Family {
        name: "threads-local",
        is_bp: true,
        scalable: true,
        target: None,
    },
    Family {
        name: "owners",
        is_bp: false,
        scalable: true,
        target: None,
    },
    Family {
        name: "lockers",
        is_bp: false,
        scalable: true,
        target: None,
    },
    Family {
        name: "fib-bp",
        is_bp: true,
        scalable: true,
        target: Some("SLIC_ERROR"),
    },
    Family {
        name: "bluetooth-bp",
        is_bp: true,
        scalable: true,
        target: Some("SLIC_ERROR"),
    },
    Family {
        name: "deep-bug",
        is_bp: false,
        scalable: true,
        target: None,
    },
];

/// The family called `name`, if there is one.
pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}

/// The names of all families, comma-separated (for error messages and help).
pub fn family_names() -> String {
    FAMILIES
        .iter()
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// How far each process of [`deep_bug`] counts.
pub const DEEP_BUG_COUNT: u32 = 10;

/// `deep-bug N`: a planted bug deep in a large state space, for swarm runs (docs/scale.md).
/// N processes (at least 2) each count their own shared counter from 0 to
/// [`DEEP_BUG_COUNT`], one atomic step per increment, and the step that makes every counter
/// equal to half of it fails an assertion. The state space holds every combination of
/// counts (11^N, times each process's place in its loop), and the only error sits in its
/// middle, N * 5 increments deep: the depth-first
/// search's fixed order (lowest process first) runs the first process to its end before
/// anything else and so reaches the balanced combination only after the combinations where
/// the first process is ahead (about half the space), while a random interleaving keeps the
/// counters close together and passes through it often (if every increment were drawn
/// uniformly among the processes, a walk would meet it with probability
/// (5N)! / (5!^N N^(5N)): 1 in 94 at N = 4, 1 in 2,500 at N = 6, 1 in 13,000 at N = 7).
/// Every search that completes finds it.
pub fn deep_bug(n: u64) -> String {
    let n = n.clamp(2, 64) as usize;
    let k = DEEP_BUG_COUNT;
    let half = k / 2;
    let mut s = format!(
        "// deep-bug {n}: {n} processes each count to {k}; the step that makes every count {half} fails\n\
         // (the only error, {n} x {half} increments deep among 11^{n} combinations of counts;\n\
         // `zingrs gen deep-bug N`, docs/scale.md)\n\
         class DeepBug {{\n"
    );
    for i in 0..n {
        let _ = writeln!(s, "    static int c{i};");
    }
    let balanced = (0..n)
        .map(|i| format!("c{i} == {half}"))
        .collect::<Vec<_>>()
        .join(" && ");
    for i in 0..n {
        let _ = write!(
            s,
            "
    activate static void P{i}() {{
        while (c{i} < {k}) {{
            atomic {{
                c{i} = c{i} + 1;
                assert(!({balanced}));
            }}
        }}
    }}
"
        );
    }
    s.push_str(
        "};
",
    );
    s
}

/// Seed 001, Figure 4: the template T(N). One unconstrained global `g`; `main` calls `level1`
/// twice and reaches `reach` when `!g`; `level<i>` runs a three-bit counter over its locals when
/// `g`, otherwise calls `level<i+1>` twice (two `skip`s at level N), and negates `g` at its end.
pub fn bebop_t(n: u64) -> String {
    let n = n.max(1);
    let mut s = String::new();
    s.push_str(
        "// bebop-t: seed 001, Figure 4 (label `reach` is reachable)\n\
         decl g;\n\
         void main()\nbegin\n  level1();\n  level1();\n  if (!g) then\n    reach: skip;\n  else\n    skip;\n  fi\nend\n\n",
    );
    for i in 1..=n {
        let call = if i < n {
            format!("level{}()", i + 1)
        } else {
            "skip".to_string()
        };
        let _ = write!(
            s,
            "void level{i}()\nbegin\n  decl a, b, c;\n  if (g) then\n    a, b, c := 0, 0, 0;\n    \
             while (!a | !b | !c) do\n      if (!a) then\n        a := 1;\n      elsif (!b) then\n        \
             a, b := 0, 1;\n      elsif (!c) then\n        a, b, c := 0, 0, 1;\n      fi\n    od\n  \
             else\n    {call}; {call};\n  fi\n  g := !g;\nend\n\n"
        );
    }
    s
}

/// Seed 004, Figure 10, with `N` as a literal: the assertion holds; a plain search explores
/// 2^N calls, summaries need 2N.
pub fn zing_clone(n: u64) -> String {
    format!(
        "// zing-clone: seed 004, Figure 10 (passes)\n\
class Foo {{
    bool x;
    Foo Clone() {{
        Foo t = new Foo;
        t.x = x;
        return t;
    }}
}};

class Main {{
    static Foo g;

    static void M(int i) {{
        Foo f;
        bool b;
        if (i < {n}) {{
            f = g.Clone();
            b = choose(bool);
            g.x = b;
            M(i + 1);
            assert(g.x == b);
            g.x = f.x;
        }}
    }}

    activate static void main() {{
        g = new Foo;
        M(0);
        assert(g.x == false);
    }}
}};
"
    )
}

/// Recursion `N + 1` calls deep in which every frame allocates an object, keeps it in a local
/// and checks it after the call returns: one path, so a search stores a number of states
/// linear in N, with a heap and a stack that grow together. The explicit engine's cost per
/// state must not grow with the depth (issue 18). Passes; needs `--max-depth` above N + 1.
pub fn zing_deep_alloc(n: u64) -> String {
    format!(
        "// zing-deep-alloc: a new object per frame, {n} calls deep (passes)
class Node {{
    int v;
}};

class Main {{
    static void f(int n) {{
        Node x;
        x = new Node;
        x.v = n;
        if (n > 0) {{
            f(n - 1);
        }}
        assert(x.v == n);
    }}

    activate static void main() {{
        f({n});
    }}
}};
"
    )
}

/// Seed 004, Figure 1: an unbounded stack and heap; the check passes (summary engine).
pub fn zing_alloc() -> String {
    "// zing-alloc: seed 004, Figure 1 (passes)
class BoolBox { bool x; };

class Main {
    static BoolBox g1;
    static BoolBox g2;

    static void M() {
        BoolBox f;
        bool c;
        f = new BoolBox;
        f.x = true;
        c = choose(bool);
        if (c) {
            f.x = g1.x;
            g1 = f;
            M();
        }
    }

    activate static void main() {
        g1 = new BoolBox;
        g2 = g1;
        g1.x = false;
        M();
        assert(g1.x == false && g2.x == false);
    }
};
"
    .to_string()
}

/// Seed 004, Figure 2: the assertion fails on the second call of `foo`.
pub fn zing_patterns() -> String {
    "// zing-patterns: seed 004, Figure 2 (assertion fails)
class Main {
    static int x;
    static int y;
    static int z;

    static void foo() {
        bool c;
        c = choose(bool);
        if (c) {
            assume(x == 0);
            z = 1;
        } else {
            assume(y == 1);
            assert(false);
        }
    }

    activate static void main() {
        x = 0; y = 0; z = 0;
        foo();
        y = 1;
        foo();
    }
};
"
    .to_string()
}

/// The xor of `names[lo..hi]` as a balanced tree of parentheses (depth log2 of the count, so
/// the parser's nesting bound is never reached).
fn xor_tree(names: &[String]) -> String {
    match names.len() {
        0 => "0".to_string(),
        1 => names[0].clone(),
        n => {
            let (l, r) = names.split_at(n / 2);
            format!("({} ^ {})", xor_tree(l), xor_tree(r))
        }
    }
}

/// `bp-parity K`: K unconstrained globals; `main` stores their parity, calls `flip_i` (negating
/// `g_i` and `g_{i+1}`) for i = 1..K-1, and asserts the parity is unchanged. The check passes.
pub fn bp_parity(k: u64) -> String {
    let k = k.max(1);
    let names: Vec<String> = (1..=k).map(|i| format!("g{i}")).collect();
    let mut s = String::from("// bp-parity: the parity of the globals is invariant (passes)\n");
    let _ = writeln!(s, "decl {};\n", names.join(", "));
    let _ = writeln!(
        s,
        "void main()\nbegin\n  decl p;\n  p := {};",
        xor_tree(&names)
    );
    for i in 1..k {
        let _ = writeln!(s, "  flip{i}();");
    }
    let _ = writeln!(s, "  assert(p = {});\nend\n", xor_tree(&names));
    for i in 1..k {
        let _ = writeln!(
            s,
            "void flip{i}()\nbegin\n  g{i}, g{j} := !g{i}, !g{j};\nend\n",
            j = i + 1
        );
    }
    s
}

/// `bp-parity-flat K` and `bp-parity-flat-rev K`: `bp-parity K` with its parity written as one
/// flat chain, `g1 ^ g2 ^ ... ^ gK` (left to right, as Moped's examples and most hand-written
/// programs write it) or `gK ^ ... ^ g1`, and the check as a label `ERR` reached when the parity
/// changed (Moped checks labels only). `ERR` is unreachable. The two directions cost the same
/// when the engine combines a chain in the order of its BDD variables; left to right as
/// written, the forward one builds K²/2 nodes.
pub fn bp_parity_flat(k: u64, reversed: bool) -> String {
    let k = k.max(1);
    let names: Vec<String> = (1..=k).map(|i| format!("g{i}")).collect();
    let mut chain = names.clone();
    if reversed {
        chain.reverse();
    }
    let chain = chain.join(" ^ ");
    let mut s = format!(
        "// bp-parity-flat{}: the parity of the globals, written as one chain, is invariant \
         (label ERR unreachable)\n",
        if reversed { "-rev" } else { "" }
    );
    let _ = writeln!(s, "decl {};\n", names.join(", "));
    let _ = writeln!(s, "void main()\nbegin\n  decl p;\n  p := {chain};");
    for i in 1..k {
        let _ = writeln!(s, "  flip{i}();");
    }
    let _ = writeln!(
        s,
        "  if (!(p = ({chain}))) then\n    ERR: skip;\n  fi\nend\n"
    );
    for i in 1..k {
        let _ = writeln!(
            s,
            "void flip{i}()\nbegin\n  g{i}, g{j} := !g{i}, !g{j};\nend\n",
            j = i + 1
        );
    }
    s
}

/// `bp-call-chain N`: calls N levels deep, `main` → `level1` → … → `levelN`; `level_i` sets
/// `g_i`, calls the next level and then reads `g_i` and `g_{i+1}`, so what is live at a level's
/// exit comes from every level above it, and what is live at its entry from every level below
/// (the front end's global liveness must carry both across N call levels). `ERR` is reached
/// if `g1` is false at the end; every `g_i` ends true, so it is unreachable.
pub fn bp_call_chain(n: u64) -> String {
    let n = n.max(1);
    let names: Vec<String> = (1..=n).map(|i| format!("g{i}")).collect();
    let mut s = String::from(
        "// bp-call-chain: calls N levels deep, globals read after each return \
         (label ERR unreachable)\n",
    );
    let _ = writeln!(s, "decl {};\n", names.join(", "));
    s.push_str("void main()\nbegin\n  level1();\n  if (!g1) then\n    ERR: skip;\n  fi\nend\n\n");
    for i in 1..n {
        let _ = writeln!(
            s,
            "void level{i}()\nbegin\n  g{i} := T;\n  level{j}();\n  g{i} := g{i} & g{j};\nend\n",
            j = i + 1
        );
    }
    let _ = writeln!(s, "void level{n}()\nbegin\n  g{n} := T;\nend");
    s
}

/// `philosophers N` (deadlocks) and `philosophers-ordered N` (the last philosopher takes its
/// right fork first; passes). Forks are static fields `Main.f0..f{N-1}` (no arrays yet); all
/// philosophers are started by `main` inside one atomic block.
pub fn philosophers(n: u64, ordered: bool) -> String {
    let n = n.max(2);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// philosophers{}: {} philosophers, {}\n",
        if ordered { "-ordered" } else { "" },
        n,
        if ordered {
            "the last one takes its right fork first (passes)"
        } else {
            "deadlock"
        }
    );
    s.push_str("class Fork {\n    bool taken;\n};\n\nclass Main {\n");
    for i in 0..n {
        let _ = writeln!(s, "    static Fork f{i};");
    }
    s.push_str(&philosopher_method("Philosopher", "left", "right"));
    if ordered {
        // The last philosopher takes its right fork before its left one.
        s.push_str(&philosopher_method(
            "PhilosopherRightFirst",
            "right",
            "left",
        ));
    }
    s.push_str("\n    activate static void main() {\n        atomic {\n");
    for i in 0..n {
        let _ = writeln!(s, "            f{i} = new Fork;");
    }
    for i in 0..n {
        let (left, right) = (i, (i + 1) % n);
        let method = if ordered && i == n - 1 {
            "PhilosopherRightFirst"
        } else {
            "Philosopher"
        };
        let _ = writeln!(s, "            async {method}(f{left}, f{right});");
    }
    s.push_str("        }\n    }\n};\n");
    s
}

/// A philosopher that forever takes fork `first` then fork `second` (each in a blocking atomic
/// select), then puts the right fork and the left fork back.
fn philosopher_method(name: &str, first: &str, second: &str) -> String {
    format!(
        "
    static void {name}(Fork left, Fork right) {{
        while (true) {{
            atomic {{ select {{ wait(!{first}.taken) -> {first}.taken = true; }} }}
            atomic {{ select {{ wait(!{second}.taken) -> {second}.taken = true; }} }}
            right.taken = false;
            left.taken = false;
        }}
    }}
"
    )
}

/// `threads-local N`: `main` starts N threads, each of which makes 14 nondeterministic
/// assignments to a local of its own and then asserts `T` (passes). Without partial-order
/// reduction the 14·N steps interleave in every order; with it, each thread runs alone.
pub fn threads_local(n: u64) -> String {
    let mut s = format!(
        "// threads-local: {n} threads, each 14 nondeterministic assignments to a local (passes)\n\n\
         void worker()\nbegin\n  decl l;\n"
    );
    for _ in 0..14 {
        s.push_str("  l := *;\n");
    }
    s.push_str("  assert(T);\nend\n\nvoid main()\nbegin\n");
    for _ in 0..n {
        s.push_str("  start_thread worker();\n");
    }
    s.push_str("end\n");
    s
}

/// `owners N`: `main` starts N identical processes inside one atomic block; each allocates an
/// object of its own and sets its field to `choose(bool)` (passes). Without reductions its
/// states grow as 5^N; the processes are interchangeable (symmetry) and their steps private
/// (partial-order reduction).
pub fn owners(n: u64) -> String {
    let mut s = String::from(
        "class C { bool v; };\nclass Main {\n\
         static void W() { C c; c = new C; c.v = choose(bool); }\n\
         activate static void main() { atomic {\n",
    );
    for _ in 0..n {
        s.push_str("    async W();\n");
    }
    s.push_str("} } };\n");
    s
}

/// `lockers N`: `main` allocates a lock object and starts N processes inside one atomic
/// block; each takes the lock (an atomic `select` that waits for it to be free and sets it),
/// increments a shared counter, releases the lock and returns (passes).
pub fn lockers(n: u64) -> String {
    let mut s = String::from(
        "class Lock { bool taken; };\nclass Main {\n\
         static Lock l;\n static int x;\n\
         static void W() {\n\
             atomic { select { wait(!l.taken) -> l.taken = true; } }\n\
             x = x + 1;\n\
             l.taken = false;\n\
         }\n\
         activate static void main() { atomic {\n    l = new Lock;\n",
    );
    for _ in 0..n {
        s.push_str("    async W();\n");
    }
    s.push_str("} } };\n");
    s
}

/// `philosophers-ordered N` in Promela, for SPIN (`spin -a`, `gcc -O2 -DSAFETY -DNOREDUCE
/// pan.c`, `./pan -m10000000`): one process per philosopher, each take an `atomic` guarded
/// assignment, each put back a plain assignment; the last philosopher takes its right fork
/// first.
pub fn philosophers_promela(n: u64) -> String {
    let n = n.max(2);
    let mut s = format!(
        "/* philosophers-ordered {n} for SPIN (zingrs gen philosophers-promela {n}) */\n\
         bool taken[{n}];\n\n\
         proctype phil(byte first; byte second) {{\n\
         \x20 do\n\
         \x20 :: atomic {{ !taken[first] -> taken[first] = true }};\n\
         \x20    atomic {{ !taken[second] -> taken[second] = true }};\n\
         \x20    taken[second] = false;\n\
         \x20    taken[first] = false\n\
         \x20 od\n\
         }}\n\n\
         init {{\n  atomic {{\n"
    );
    for i in 0..n {
        let (l, r) = (i, (i + 1) % n);
        let (a, b) = if i == n - 1 { (r, l) } else { (l, r) };
        let _ = writeln!(s, "    run phil({a}, {b});");
    }
    s.push_str("  }\n}\n");
    s
}

/// philosophers-ordered N where each philosopher has a method of its own that raises a flag
/// `e{i}` of its own while it holds both forks, for liveness properties about who eats
/// (`--ltl 'G F Main.e0'`); `zingrs gen philosophers-eating N`. Not a benchmark family (its
/// flags add states): [`philosophers_eating_promela`] is its twin for SPIN.
pub fn philosophers_eating(n: u64) -> String {
    let n = n.max(2);
    let mut s = format!(
        "// philosophers-eating: {n} philosophers as in philosophers-ordered, each raising its flag e<i> while it eats\n\n\
         class Fork {{\n    bool taken;\n}};\n\nclass Main {{\n"
    );
    for i in 0..n {
        let _ = writeln!(s, "    static Fork f{i};");
    }
    for i in 0..n {
        let _ = writeln!(s, "    static bool e{i};");
    }
    for i in 0..n {
        let (first, second) = if i == n - 1 {
            ("right", "left")
        } else {
            ("left", "right")
        };
        let _ = write!(
            s,
            "
    static void Philosopher{i}(Fork left, Fork right) {{
        while (true) {{
            atomic {{ select {{ wait(!{first}.taken) -> {first}.taken = true; }} }}
            atomic {{ select {{ wait(!{second}.taken) -> {second}.taken = true; }} }}
            e{i} = true;
            e{i} = false;
            right.taken = false;
            left.taken = false;
        }}
    }}
"
        );
    }
    s.push_str("\n    activate static void main() {\n        atomic {\n");
    for i in 0..n {
        let _ = writeln!(s, "            f{i} = new Fork;");
    }
    for i in 0..n {
        let _ = writeln!(
            s,
            "            async Philosopher{i}(f{i}, f{});",
            (i + 1) % n
        );
    }
    s.push_str("        }\n    }\n};\n");
    s
}

/// [`philosophers_eating`] in Promela, for SPIN (`zingrs gen philosophers-eating-promela N`):
/// the same steps, the flags in `eat[]`, and the LTL property that every philosopher eats
/// infinitely often as `ltl all_eat`.
pub fn philosophers_eating_promela(n: u64) -> String {
    let n = n.max(2);
    let mut s = format!(
        "/* philosophers-eating {n} for SPIN (zingrs gen philosophers-eating-promela {n}) */\n\
         bool taken[{n}];\n\
         bool eat[{n}];\n\n\
         proctype phil(byte id; byte first; byte second) {{\n\
         \x20 do\n\
         \x20 :: atomic {{ !taken[first] -> taken[first] = true }};\n\
         \x20    atomic {{ !taken[second] -> taken[second] = true }};\n\
         \x20    eat[id] = true;\n\
         \x20    eat[id] = false;\n\
         \x20    taken[(id + 1) % {n}] = false;\n\
         \x20    taken[id] = false\n\
         \x20 od\n\
         }}\n\n\
         init {{\n  atomic {{\n"
    );
    for i in 0..n {
        let (l, r) = (i, (i + 1) % n);
        let (a, b) = if i == n - 1 { (r, l) } else { (l, r) };
        let _ = writeln!(s, "    run phil({i}, {a}, {b});");
    }
    s.push_str("  }\n}\n\nltl all_eat { ");
    let conj: Vec<String> = (0..n).map(|i| format!("[]<> eat[{i}]")).collect();
    s.push_str(&conj.join(" && "));
    s.push_str(" }\n");
    s
}

/// `recursive-liveness N`, the pushdown LTL family of the bdd engine (`check --engine bdd
/// --ltl`): procedures `p0..p{N-1}` call each other in a ring, each choosing whether to go
/// on. A call raises `req` and clears `ack` on entry and answers (`ack`) only as it returns,
/// so `--ltl 'G (req -> F ack)'` fails, and only on the run that goes round the ring forever:
/// its lasso's cycle leaves N new frames on the stack each time round, which no depth bound
/// lets the explicit engine close. Each procedure also flips a bit of its own and a shared
/// one, so that its frames differ from each other.
pub fn recursive_liveness(n: u64) -> String {
    let n = n.max(1);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// recursive-liveness {n}: {n} procedures call each other in a ring; `G (req -> F ack)`\n\
         // fails only on the run that recurses forever (its stack grows by {n} frames a round)\n\
         decl req, ack, t;\n"
    );
    for i in 0..n {
        let j = (i + 1) % n;
        let _ = writeln!(
            s,
            "void p{i}() begin\n  decl l, a;\n  req, ack := T, F;\n  a := t;\n  l := *;\n  \
             if (l) then\n    p{j}();\n  fi\n  t := !a;\n  req, ack := F, T;\nend\n"
        );
    }
    s.push_str("void main() begin\n  L: p0();\n  goto L;\nend\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xor_tree_is_balanced() {
        let names: Vec<String> = (1..=4).map(|i| format!("g{i}")).collect();
        assert_eq!(xor_tree(&names), "((g1 ^ g2) ^ (g3 ^ g4))");
        let many: Vec<String> = (0..5000).map(|i| format!("g{i}")).collect();
        let t = xor_tree(&many);
        let mut depth = 0i32;
        let mut max = 0;
        for c in t.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            max = max.max(depth);
        }
        assert!(max <= 14, "{max}");
    }

    #[test]
    fn every_family_generates() {
        for f in FAMILIES {
            assert!(!f.generate(3).is_empty(), "{}", f.name);
        }
        assert_eq!(family("bebop-t").unwrap().extension(), "bp");
        assert!(family("nope").is_none());
    }
}
