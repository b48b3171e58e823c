//! A static variable order for a program's globals.
//!
//! The declaration order can be far from what a BDD wants: `fib-bp` declares `i0..i7` and then
//! `j0..j7`, but `i := i + j` relates bit k of `i` to bit k of `j` (and the bits below), and
//! with the two integers apart a set of pairs `(i, j)` needs a node per distinct `i` at the cut
//! between them. This order places the globals as the program's statements first relate
//! them: for each component `x := e` of an assignment, `x` and then the globals `e` reads, in
//! the order `e` mentions them, the components that read the most globals first; the globals
//! of a condition, of a call's arguments and of a return in the order they are mentioned.
//! The widest component first is how circuits are ordered (the output with the deepest cone
//! traced back first): for `i := i + j`, the top bit's sum mentions `i7, j7` and then the bits
//! below, so the integers are interleaved from their top bits down. A set of pairs of
//! numbers that grow together (fib-bp's `(i, j)`) is then split by magnitude first: on
//! fib-bp 9 at K = 16 the widest context's path edges have 1.5 M nodes instead of 1.8 M
//! with the bottom bits first, and the search takes 0.25 s instead of 0.45 s.
//!
//! An assignment of a constant (or of `*`) relates nothing and places nothing, so `init`'s
//! `i0, …, j7 := …` does not fix the declaration order again. The globals no statement
//! relates keep their declaration order, last.

use crate::symbolic::model::reads_global;
use zingrs_lang::ir::{Expr, LValue, Program, Stmt};

/// `rank[x]`: the position of global `x` in the order (a permutation of `0..globals`).
pub fn globals(p: &Program) -> Vec<u32> {
    let g = p.globals.len();
    let mut rank = vec![u32::MAX; g];
    let mut next = 0u32;
    let mut place = |x: u32| {
        if rank[x as usize] == u32::MAX {
            rank[x as usize] = next;
            next += 1;
        }
    };
    let read = |e: &Expr, place: &mut dyn FnMut(u32)| {
        e.walk(&mut |e| {
            if let Expr::Global(x) | Expr::PrimedGlobal(x) = e {
                place(*x)
            }
        })
    };
    for q in &p.procs {
        for n in &q.nodes {
            match &n.stmt {
                Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => {
                    read(cond, &mut place)
                }
                Stmt::Constrain { expr } => read(expr, &mut place),
                Stmt::Assign {
                    targets,
                    values,
                    constrain,
                } => {
                    // the components that read the most globals first, as a circuit's
                    // deepest output is traced back first: an adder's top bit reads every bit
                    // below it, from the top down
                    let mut parts: Vec<(usize, &Option<LValue>, &Expr)> = targets
                        .iter()
                        .zip(values)
                        .filter(|(_, v)| reads_global(v))
                        .map(|(t, v)| (globals_read(v), t, v))
                        .collect();
                    parts.sort_by_key(|p| std::cmp::Reverse(p.0));
                    for (_, t, v) in parts {
                        if let Some(LValue::Global(x)) = t {
                            place(*x);
                        }
                        read(v, &mut place);
                    }
                    if let Some(c) = constrain {
                        read(c, &mut place);
                    }
                }
                Stmt::Call { args, .. } => args.iter().for_each(|a| read(a, &mut place)),
                Stmt::Return { values } => {
                    values.iter().flatten().for_each(|v| read(v, &mut place))
                }
                _ => {}
            }
        }
    }
    for r in rank.iter_mut() {
        if *r == u32::MAX {
            *r = next;
            next += 1;
        }
    }
    rank
}

/// The number of distinct globals `e` reads.
fn globals_read(e: &Expr) -> usize {
    let mut seen = Vec::new();
    e.walk(&mut |e| {
        if let Expr::Global(x) | Expr::PrimedGlobal(x) = e {
            if !seen.contains(x) {
                seen.push(*x);
            }
        }
    });
    seen.len()
}

#[cfg(test)]
mod tests {
    use zingrs_lang::Lang;

    /// The globals' names in the order [`super::globals`] gives them.
    fn order(text: &str) -> Vec<String> {
        let program = zingrs_lang::compile("t.bp", text, Lang::Bp)
            .expect("the model compiles")
            .program;
        let rank = super::globals(&program);
        let mut names = vec![String::new(); rank.len()];
        for (x, &r) in rank.iter().enumerate() {
            names[r as usize] = program.globals[x].name.clone();
        }
        names
    }

    #[test]
    fn an_addition_interleaves_its_operands_bit_by_bit_from_the_top() {
        // i := i + j over three bits: i0' = i0 ^ j0, i1' = i1 ^ j1 ^ (i0 & j0), i2' = …
        // reads every bit and comes first; init's constants relate nothing, so they do not
        // keep the declaration order
        let text = "decl i0, i1, i2, j0, j1, j2, unused;
            void main() begin
              i0, i1, i2, j0, j1, j2 := T, F, F, T, F, F;
              i0, i1, i2 := i0 ^ j0, i1 ^ j1 ^ (i0 & j0),
                i2 ^ j2 ^ ((i1 & j1) | ((i0 & j0) & (i1 | j1)));
            end";
        assert_eq!(order(text), ["i2", "j2", "i1", "j1", "i0", "j0", "unused"]);
    }

    #[test]
    fn conditions_calls_and_returns_relate_what_they_read() {
        let text = "decl a, b, c, d, e, f;
            bool g(x) begin return e & b; end
            void main() begin
              if (d | a) then skip; fi
              c := g(f);
            end";
        // g's return first (procedures in order), then main's condition, then the call's
        // argument and the assignment of its result (which reads no global: c stays last)
        assert_eq!(order(text), ["e", "b", "d", "a", "f", "c"]);
    }
}
