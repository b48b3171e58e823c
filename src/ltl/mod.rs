//! LTL properties (`check --ltl FORMULA`): the formula ([`parse`]), its atomic propositions
//! compiled against the model ([`atoms`]), and the Büchi automaton of its negation
//! ([`buchi`]), whose product with the model the cycle search (`explore::cycles`) explores
//! and against which a lasso counterexample is checked ([`Ltl::violated_by`]).
//!
//! Runs are infinite: a run that ends (every thread finished, or stuck with deadlocks not
//! reported) is taken as its last state repeated forever, SPIN's stutter extension, so `F p`
//! is violated by a run that ends without `p`.

pub mod atoms;
pub mod buchi;
pub mod parse;

use crate::runtime::{Machine, State};
use buchi::{Buchi, Nnf};
use parse::Written;
use zingrs_lang::ir::Program;

/// The most atomic propositions a formula may have (one bit each in a state's letter).
pub const MAX_ATOMS: usize = 64;

/// A compiled LTL property of one model.
#[derive(Debug)]
pub struct Ltl {
    /// The formula as the user wrote it.
    pub text: String,
    atoms: Vec<atoms::Atom>,
    /// The automaton of the runs that violate the formula.
    pub automaton: Buchi,
}

impl PartialEq for Ltl {
    fn eq(&self, other: &Ltl) -> bool {
        self.text == other.text
    }
}
impl Eq for Ltl {}

/// A formula that cannot be checked: where (a column of the formula, 1-based; 0 if none)
/// and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LtlError {
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for LtlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The formula in negation normal form, negated if `neg`.
fn nnf(w: &Written, neg: bool) -> Nnf {
    use Nnf as N;
    let b = |w: &Written, neg| Box::new(nnf(w, neg));
    match (w, neg) {
        (Written::True, false) | (Written::False, true) => N::True,
        (Written::True, true) | (Written::False, false) => N::False,
        (Written::Atom(i), n) => N::Lit(*i, !n),
        (Written::Not(a), n) => nnf(a, !n),
        (Written::And(a, c), false) | (Written::Or(a, c), true) => N::And(b(a, neg), b(c, neg)),
        (Written::Or(a, c), false) | (Written::And(a, c), true) => N::Or(b(a, neg), b(c, neg)),
        // a -> c = !a || c; !(a -> c) = a && !c
        (Written::Implies(a, c), false) => N::Or(b(a, true), b(c, false)),
        (Written::Implies(a, c), true) => N::And(b(a, false), b(c, true)),
        // a <-> c = (a && c) || (!a && !c); its negation (a && !c) || (!a && c)
        (Written::Iff(a, c), n) => N::Or(
            Box::new(N::And(b(a, false), b(c, n))),
            Box::new(N::And(b(a, true), b(c, !n))),
        ),
        (Written::Next(a), n) => N::Next(b(a, n)),
        // G a = false R a; !G a = true U !a
        (Written::Always(a), false) => N::Release(Box::new(N::False), b(a, false)),
        (Written::Always(a), true) => N::Until(Box::new(N::True), b(a, true)),
        (Written::Eventually(a), false) => N::Until(Box::new(N::True), b(a, false)),
        (Written::Eventually(a), true) => N::Release(Box::new(N::False), b(a, true)),
        (Written::Until(a, c), false) => N::Until(b(a, false), b(c, false)),
        (Written::Until(a, c), true) => N::Release(b(a, true), b(c, true)),
        (Written::Release(a, c), false) => N::Release(b(a, false), b(c, false)),
        (Written::Release(a, c), true) => N::Until(b(a, true), b(c, true)),
        // a W c = c R (c || a); its negation !c U (!c && !a)
        (Written::WeakUntil(a, c), false) => {
            N::Release(b(c, false), Box::new(N::Or(b(c, false), b(a, false))))
        }
        (Written::WeakUntil(a, c), true) => {
            N::Until(b(c, true), Box::new(N::And(b(c, true), b(a, true))))
        }
    }
}

impl Ltl {
    /// Parses `text` and compiles its propositions against `program` (whose own source text
    /// and language compile the expressions).
    pub fn compile(text: &str, program: &Program) -> Result<Ltl, LtlError> {
        let parsed = parse::parse(text).map_err(|e| LtlError {
            column: e.column,
            message: e.message,
        })?;
        if parsed.atoms.len() > MAX_ATOMS {
            return Err(LtlError {
                column: 0,
                message: format!(
                    "the formula has {} propositions; at most {MAX_ATOMS} are supported",
                    parsed.atoms.len()
                ),
            });
        }
        let atoms = atoms::compile(&parsed.atoms, program)?;
        let automaton = Buchi::of(&nnf(&parsed.formula, true));
        Ok(Ltl {
            text: text.to_string(),
            atoms,
            automaton,
        })
    }

    /// The compiled atomic propositions, numbered as the automaton's labels number them (the
    /// BDD engine encodes them itself).
    pub fn atoms(&self) -> &[atoms::Atom] {
        &self.atoms
    }

    /// The atoms' values in `s`, one bit each (an expression that fails to evaluate, such as
    /// a null dereference, is false).
    pub fn letter(&self, m: &Machine, s: &State) -> u64 {
        self.atoms
            .iter()
            .enumerate()
            .filter(|(_, a)| a.holds(m, s))
            .fold(0, |v, (i, _)| v | 1 << i)
    }

    /// The automaton states a run may start in from `s0` (whose letter is `letter`).
    pub fn initial(&self, letter: u64) -> impl Iterator<Item = u32> + '_ {
        self.automaton
            .initial
            .iter()
            .copied()
            .filter(move |&q| self.automaton.labels[q as usize].admits(letter))
    }

    /// The automaton states that follow `q` into a model state whose letter is `letter`.
    pub fn next(&self, q: u32, letter: u64) -> impl Iterator<Item = u32> + '_ {
        self.automaton.succ[q as usize]
            .iter()
            .copied()
            .filter(move |&r| self.automaton.labels[r as usize].admits(letter))
    }

    /// Whether automaton state `q` is accepting.
    pub fn accepting(&self, q: u32) -> bool {
        self.automaton.accepting[q as usize]
    }

    /// Whether the run through `states`, whose steps from `cycle_start` on repeat forever
    /// (`states[cycle_start]` is the state after the last one; with `cycle_start` at the
    /// end, the last state repeats forever), violates the formula.
    pub fn violated_by(&self, m: &Machine, states: &[State], cycle_start: usize) -> bool {
        // the positions of the word: every state but the last, which is the cycle's first
        // again; a run that ends stutters at its last state
        let (letters, start): (Vec<u64>, usize) = if cycle_start + 1 >= states.len() {
            let all = states.iter().map(|s| self.letter(m, s)).collect();
            (all, states.len() - 1)
        } else {
            let cut = &states[..states.len() - 1];
            (cut.iter().map(|s| self.letter(m, s)).collect(), cycle_start)
        };
        self.automaton.accepts_lasso(&letters, start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `formula` (over atoms a, b) holds on the lasso of letters.
    fn holds(formula: &str, letters: &[u64], start: usize) -> bool {
        let p = parse::parse(formula).unwrap();
        // atoms are numbered in order of first appearance: write formulas with `a` first
        !Buchi::of(&nnf(&p.formula, true)).accepts_lasso(letters, start)
    }

    #[test]
    fn negation_normal_forms_keep_the_meaning() {
        let a = 0b01;
        let b = 0b10;
        assert!(holds("G (a -> F b)", &[a, 0, b, 0], 1));
        assert!(!holds("G (a -> F b)", &[a, 0, b, a, 0], 3));
        assert!(holds("a W b", &[a, a], 0));
        assert!(holds("a W b", &[a, b | a, 0], 2));
        assert!(!holds("a W b", &[a, 0, b], 2));
        // dualities are tautologies: they hold on every word
        for (w, s) in [
            (&[a, a, b][..], 2),
            (&[0, a][..], 0),
            (&[a, b | a, 0][..], 1),
        ] {
            assert!(holds("!(a U b) <-> (!a R !b)", w, s));
            assert!(holds("(a W b) <-> (b R (b || a))", w, s));
            assert!(holds("!G a <-> F !a", w, s));
        }
        assert!(holds("(a <-> b) || !(a <-> b)", &[a, b, a | b, 0], 0));
        assert!(holds("X X a", &[0, 0, a], 2));
        assert!(!holds("X X a", &[0, a, 0], 2));
        assert!(holds("a R b", &[b, b], 1));
        assert!(holds("a R b", &[b, a | b, 0], 2));
        assert!(!holds("a R b", &[b, 0, a], 2));
    }
}
