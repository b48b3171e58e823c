//! Turning a replayed path into source-level trace steps.

use super::{Binding, Trace, TraceStep};
use crate::explore::{Path, Replayed};
use crate::runtime::{Machine, State};

fn step_at(m: &Machine, state: &State, tid: usize, index: usize) -> Option<TraceStep> {
    let p = m.program;
    let thread = state.threads.get(tid)?;
    let frame = thread.stack.top()?;
    let proc = &p.procs[frame.proc as usize];
    let node = &proc.nodes[frame.pc as usize];
    let mut values: Vec<Binding> = p
        .globals
        .iter()
        .zip(m.global_values(state, Some(tid)))
        .filter(|(g, _)| !proc.locals.iter().any(|l| l.name == g.name))
        .map(|(g, v)| Binding {
            name: g.name.clone(),
            value: v.to_string(),
        })
        .collect();
    values.extend(
        proc.locals
            .iter()
            .zip(frame.locals.iter())
            .map(|(l, v)| Binding {
                name: l.name.clone(),
                value: v.to_string(),
            }),
    );
    let statement = match p.source.snippet(node.span) {
        "" => m.program.describe(frame.proc, frame.pc),
        s => s.to_string(),
    };
    Some(TraceStep {
        step: index,
        thread: tid as u32,
        depth: thread.stack.depth(),
        procedure: proc.name.clone(),
        line: p.line_of(frame.proc, frame.pc),
        statement,
        values,
    })
}

/// The trace of a replayed path: one step per choice (the statement about to run and the
/// values before it), then, when the path ends at a target label, the labelled statement.
pub fn build_trace(
    m: &Machine,
    path: &Path,
    replayed: &Replayed,
    end_thread: Option<u32>,
) -> Trace {
    let mut steps = Vec::new();
    for (i, c) in path.choices.iter().enumerate() {
        if let Some(s) = replayed.states.get(i) {
            steps.extend(step_at(m, s, c.thread as usize, i));
        }
    }
    if let (Some(t), Some(last)) = (end_thread, replayed.states.last()) {
        steps.extend(step_at(m, last, t as usize, path.choices.len()));
    }
    let threads = replayed
        .states
        .iter()
        .map(|s| s.threads.len() as u32)
        .max()
        .unwrap_or(1);
    Trace { threads, steps }
}
