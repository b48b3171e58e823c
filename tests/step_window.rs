//! `Machine::step_window` gives exactly the positions it is asked for of `Machine::step`'s
//! list, on every reachable state of small models: products of `*` (assignments with and
//! without `constrain`, calls, stand-alone `constrain`), which enumerate from the window's
//! start, and Zing's `choose` and glued steps, which are listed and cut.

use std::collections::HashSet;
use zingrs::runtime::{InitialStates, Machine, Outcome, Semantics};
use zingrs_lang::{compile, Lang};

/// Every window of interest over a list of `n` outcomes.
fn windows(n: u64) -> Vec<(u64, u64)> {
    let mut w = vec![
        (0, 1),
        (0, 2),
        (1, 1),
        (1, 3),
        (2, 5),
        (0, n),
        (0, u64::MAX),
    ];
    w.extend([(n.saturating_sub(1), 1), (n, 1), (n + 3, 2), (n / 2, n)]);
    w
}

fn show(outs: &[Outcome]) -> Vec<String> {
    outs.iter().map(|o| format!("{o:?}")).collect()
}

/// Compares windows with the whole list on up to `max` states reached breadth-first.
fn windows_agree(name: &str, text: &str, lang: Lang, max: usize) {
    let program = compile(name, text, lang).expect("compiles").program;
    let m = Machine::new(&program, Semantics::default());
    let mut seen = HashSet::new();
    let mut todo: Vec<_> = InitialStates::new(&m).map(|(_, s)| s).collect();
    let mut checked = 0;
    let mut widest = 0;
    while let Some(s) = todo.pop() {
        if checked >= max || !seen.insert(format!("{s:?}")) {
            continue;
        }
        checked += 1;
        for tid in 0..s.threads.len() {
            let mut all = Vec::new();
            m.step(&s, tid, &mut (), &mut all);
            let whole = show(&all);
            widest = widest.max(whole.len());
            for (skip, take) in windows(whole.len() as u64) {
                let mut part = Vec::new();
                m.step_window(&s, tid, &mut (), &mut part, skip, take);
                let want: Vec<String> = whole
                    .iter()
                    .skip(skip.min(whole.len() as u64) as usize)
                    .take(take.min(whole.len() as u64) as usize)
                    .cloned()
                    .collect();
                assert_eq!(show(&part), want, "{name}: window {skip}+{take} of {s:?}");
            }
            for o in all {
                if let Outcome::Next { state, .. } = o {
                    todo.push(state);
                }
            }
        }
    }
    assert!(
        checked > 3 && widest >= 8,
        "{name}: {checked} states, widest {widest}"
    );
}

#[test]
fn windows_of_boolean_program_products_are_slices_of_the_list() {
    let text = "decl g, h;
main() begin decl a, b, c, d, e;
  a, b, c, d, e := *, *, *, *, * constrain 'a | 'b;
  f(*, a, *, e);
  g, h := *, *;
  constrain (a | g);
  assert(a | b | c | d | e | g | h);
end
f(x, y, z, w) begin
  assert(x | y | z | w | !x);
  return;
end
";
    windows_agree("t.bp", text, Lang::Bp, 400);
}

#[test]
fn windows_of_zing_choices_and_glued_steps_are_slices_of_the_list() {
    let text = "range R 0 .. 11;
array A[4] int;
class M {
    activate static void main() {
        R r;
        int i;
        A a;
        a = new A;
        r = choose(R);
        foreach (int v in a) {
            i = i + v + r;
        }
        assert(i < 100);
    }
};
";
    windows_agree("t.zing", text, Lang::Zing, 400);
}
