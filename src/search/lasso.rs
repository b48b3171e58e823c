//! What a liveness property asks of a step or a state, shared by the cycle search
//! (`explore::cycles`) and the end check of a lasso counterexample ([`check`]), which `check`
//! and `replay` run on every lasso before it is shown.

use super::{Liveness, Path};
use crate::runtime::{Env, Machine, State, Value};

/// Whether thread `tid`'s next step in `s` is accepting: it runs a Zing `accept(e)` whose
/// condition is true. ZING sets the state's accepting mark as the statement runs and clears it
/// before every step, so the mark belongs to the step that ran the statement: the state it
/// reaches is accepting. An `accept` whose condition fails to evaluate is a runtime error, not
/// a step.
pub fn accepting_step(m: &Machine, s: &State, tid: usize) -> bool {
    let program = m.program;
    if program.accepts.is_empty() {
        return false;
    }
    let Some(thread) = s.threads.get(tid) else {
        return false;
    };
    let Some(frame) = thread.stack.top() else {
        return false;
    };
    if !program.accepts.contains(&(frame.proc, frame.pc)) {
        return false;
    }
    let zingrs_lang::ir::Stmt::Assign { values, .. } = &program.node(frame.proc, frame.pc).stmt
    else {
        return false;
    };
    let Some(cond) = values.first() else {
        return false;
    };
    let env = Env {
        self_id: tid as u32,
        ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
    };
    matches!(m.value(cond, &env, &mut ()), Ok(Value::Bool(true)))
}

/// Whether some thread of `s` stands at a progress label: a label whose name starts with
/// `progress` (SPIN's convention).
pub fn progress_state(m: &Machine, s: &State) -> bool {
    s.threads.iter().any(|t| {
        t.stack.top().is_some_and(|f| {
            m.program
                .node(f.proc, f.pc)
                .labels
                .iter()
                .any(|l| l.starts_with("progress"))
        })
    })
}

/// Checks that `path` is a lasso violating `property`: its choices from `cycle_start` on (at
/// least one) lead from a state back to that same state (equal canonical bytes: equal up to
/// the renaming of heap objects), and the cycle is of the kind `property` names (through an
/// accepting step; through no progress state; any cycle; a run the automaton of the negated
/// formula `ltl` accepts). Under LTL the cycle may also be empty: the path ends in a state
/// where no thread can move, which repeats forever. A sequential boolean program's cycle may
/// instead close as a pushdown lasso (see `pushdown_closes`): `Ok(true)` says it did, so that
/// the report does not claim the whole state comes back. `Err` says what is wrong.
pub fn check(
    m: &Machine,
    path: &Path,
    cycle_start: usize,
    property: Liveness,
    ltl: Option<&crate::ltl::Ltl>,
    fair: bool,
) -> Result<bool, String> {
    let (states, pushdown) = lasso_states(m, path, cycle_start, property == Liveness::Ltl)?;
    if fair {
        weakly_fair(m, path, &states, cycle_start)?;
    }
    let n = path.choices.len();
    match property {
        Liveness::Terminates => Ok(pushdown),
        Liveness::Accept => {
            let accepting = (cycle_start..n)
                .any(|i| accepting_step(m, &states[i], path.choices[i].thread as usize));
            if accepting {
                Ok(pushdown)
            } else {
                Err("its cycle runs no accepting step (`accept` with a true condition)".into())
            }
        }
        Liveness::Ltl => {
            let ltl = ltl.ok_or("it names no LTL formula")?;
            if ltl.violated_by(m, &states, cycle_start) {
                Ok(pushdown)
            } else {
                Err(format!("its run satisfies the formula {}", ltl.text))
            }
        }
        Liveness::Progress => match (cycle_start..n).find(|&i| progress_state(m, &states[i])) {
            None => Ok(pushdown),
            Some(i) => Err(format!(
                "its cycle passes a progress label (in the state after step {i})"
            )),
        },
    }
}

/// The states of the lasso `path` (the initial one, then one per choice), once the path is
/// checked to replay without an error and its cycle to close: the state after its last step
/// is the state it starts at (equal canonical bytes), or, with `empty_ok` (LTL) and the
/// cycle starting at the end, no thread can move in its last state.
fn lasso_states(
    m: &Machine,
    path: &Path,
    cycle_start: usize,
    empty_ok: bool,
) -> Result<(Vec<State>, bool), String> {
    let n = path.choices.len();
    let s = if n == 1 { "" } else { "s" };
    if !empty_ok && cycle_start >= n {
        return Err(format!(
            "its cycle is empty (it starts at step {}, the path has {n} step{s})",
            cycle_start + 1
        ));
    }
    if cycle_start > n {
        return Err(format!(
            "its cycle starts after step {cycle_start}, but the path has {n} step{s}"
        ));
    }
    let replayed = super::replay_keeping(m, path, true)?;
    if replayed.violation.is_some() {
        return Err("the path ends in an error, not in a cycle".into());
    }
    let states = replayed.states;
    if states.len() != n + 1 {
        return Err("the replay kept too few states".into());
    }
    if cycle_start == n {
        if !ends(m, &states[n]) {
            return Err("its run does not end: a thread can still move in its last state".into());
        }
        return Ok((states, false));
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    crate::canon::encode(&states[cycle_start], &mut a);
    crate::canon::encode(&states[n], &mut b);
    let pushdown = a != b;
    if pushdown {
        pushdown_closes(m, &states, cycle_start).map_err(|why| {
            format!(
                "its cycle does not close: the state after its last step is not the state it starts at (after the first {cycle_start} steps), {why}"
            )
        })?;
    }
    Ok((states, pushdown))
}

/// Checks the cycle `states[cycle_start..]` of a sequential boolean program as a *pushdown
/// lasso* (the BDD engine's pushdown LTL): its last state has the globals and the top frame
/// (procedure, pc, locals) of its first, the cycle never returns from the frame it starts in
/// (no state of it is shallower), and the frames below that one are the same at its end, so
/// new frames may sit between them and the top. Its steps touch only the top part of the
/// stack and see the same globals and top frame again, so they can be taken again and again:
/// an infinite run, whose propositions (over globals and top frames) repeat with the cycle.
/// `Err` says why the cycle is not one.
fn pushdown_closes(m: &Machine, states: &[State], cycle_start: usize) -> Result<(), String> {
    let (first, last) = (&states[cycle_start], &states[states.len() - 1]);
    if m.program.lang != zingrs_lang::Lang::Bp
        || m.program.is_concurrent()
        || first.threads.len() != 1
        || last.threads.len() != 1
    {
        return Err(
            "and only a sequential boolean program's cycle may close on its top frame alone".into(),
        );
    }
    if first.globals != last.globals {
        return Err("nor has it the same globals".into());
    }
    let (a, b) = (&first.threads[0].stack, &last.threads[0].stack);
    if a.top().is_none() || a.top() != b.top() {
        return Err("nor has it the same top frame (procedure, pc and locals)".into());
    }
    let d = a.depth();
    if let Some(i) = states[cycle_start..]
        .iter()
        .position(|s| s.threads.first().is_none_or(|t| t.stack.depth() < d))
    {
        return Err(format!(
            "nor is it a pushdown cycle: step {} returns from the frame the cycle starts in",
            cycle_start + i
        ));
    }
    let below_a: Vec<&crate::runtime::Frame> = a.iter().skip(1).collect();
    let below_b: Vec<&crate::runtime::Frame> = b.iter().collect();
    let below_b = &below_b[below_b.len() - below_a.len()..];
    if below_a.iter().zip(below_b).any(|(x, y)| x != y) {
        return Err(
            "nor is it a pushdown cycle: the frames below the one it starts in changed".into(),
        );
    }
    Ok(())
}

/// Whether no thread can take a step in `s` (every one finished or blocked).
pub fn ends(m: &Machine, s: &State) -> bool {
    (0..s.threads.len()).all(|t| !can_move(m, s, t))
}

/// Whether thread `t` can take a step in `s`.
fn can_move(m: &Machine, s: &State, t: usize) -> bool {
    if s.atomic_owner().is_some_and(|o| o != t) {
        return false;
    }
    let mut outs = Vec::new();
    m.step(s, t, &mut (), &mut outs);
    // (a step that cannot go on, a false `assume`, lists a pruned outcome)
    outs.iter()
        .any(|o| !matches!(o, crate::runtime::Outcome::Pruned))
}

/// Checks that the cycle of the lasso `path` (whose states are `states`) is weakly fair:
/// every thread that can move in each of its states moves in one of its steps (an empty
/// cycle, a run that ends, is).
fn weakly_fair(
    m: &Machine,
    path: &Path,
    states: &[State],
    cycle_start: usize,
) -> Result<(), String> {
    let n = path.choices.len();
    if cycle_start >= n {
        return Ok(());
    }
    let states = &states[cycle_start..n];
    let threads = states.iter().map(|s| s.threads.len()).max().unwrap_or(0);
    for t in 0..threads {
        let moves = path.choices[cycle_start..]
            .iter()
            .any(|c| c.thread as usize == t);
        if !moves
            && states
                .iter()
                .all(|s| t < s.threads.len() && can_move(m, s, t))
        {
            return Err(format!(
                "its cycle is not weakly fair: process {t} can move in every state of it and never does"
            ));
        }
    }
    Ok(())
}
