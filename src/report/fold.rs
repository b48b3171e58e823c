//! Folding repeated loop iterations out of a written trace (text and JSON).

use super::TraceStep;
use serde::Serialize;

/// An item of a written trace: a step, or a run of iterations of a loop left out.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item {
    Step(TraceStep),
    /// `iterations` repetitions, `period` steps each, of the iteration written just before:
    /// the steps numbered `from..=to`, on lines `lines.0..=lines.1`.
    Fold {
        iterations: usize,
        period: usize,
        from: usize,
        to: usize,
        lines: (u32, u32),
    },
}

/// JSON: a step as it is, a fold as `{"folded": {"iterations", "period", "from", "to",
/// "lines"}}` (docs/json-schema.json).
impl Serialize for Item {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Folded {
            iterations: usize,
            period: usize,
            from: usize,
            to: usize,
            lines: (u32, u32),
        }
        #[derive(Serialize)]
        struct Wrap {
            folded: Folded,
        }
        match self {
            Item::Step(step) => step.serialize(s),
            Item::Fold {
                iterations,
                period,
                from,
                to,
                lines,
            } => Wrap {
                folded: Folded {
                    iterations: *iterations,
                    period: *period,
                    from: *from,
                    to: *to,
                    lines: *lines,
                },
            }
            .serialize(s),
        }
    }
}

/// The longest loop body (in steps) that [`Fold`] recognizes.
pub(crate) const MAX_PERIOD: usize = 32;
/// Folding starts at this many back-to-back iterations: the first two and the last are shown.
pub(crate) const MIN_ITERATIONS: usize = 5;

/// The steps of a trace with consecutive repetitions of the same loop iteration folded: a
/// run of at least [`MIN_ITERATIONS`] repetitions of the same sequence of (thread, depth,
/// procedure, line) shows its first two iterations and its last, and one item for the rest
/// (text and JSON alike, so that a loop of a million iterations writes a report of a few
/// kilobytes; the report's path is whole, and replaying it gives every step). It reads the
/// steps as they come, holding a window of `MAX_PERIOD * MIN_ITERATIONS` of them, the two
/// first and the latest iteration of a run.
pub(crate) struct Fold<I: Iterator<Item = TraceStep>> {
    steps: I,
    /// Steps read and not yet looked at.
    window: std::collections::VecDeque<TraceStep>,
    /// Lines ready to give.
    ready: std::collections::VecDeque<Item>,
}

impl<I: Iterator<Item = TraceStep>> Fold<I> {
    pub(crate) fn new(steps: I) -> Self {
        Fold {
            steps,
            window: std::collections::VecDeque::new(),
            ready: std::collections::VecDeque::new(),
        }
    }

    /// Reads until the window holds `n` steps or the steps end.
    fn fill(&mut self, n: usize) {
        while self.window.len() < n {
            match self.steps.next() {
                Some(s) => self.window.push_back(s),
                None => break,
            }
        }
    }
}

fn fold_key(s: &TraceStep) -> (u32, u32, u32, &str) {
    (s.thread, s.depth, s.line, s.procedure.as_str())
}

impl<I: Iterator<Item = TraceStep>> Iterator for Fold<I> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if let Some(item) = self.ready.pop_front() {
            return Some(item);
        }
        self.fill(MAX_PERIOD * MIN_ITERATIONS);
        let w = &self.window;
        let n = w.len();
        // the shortest body that repeats at least MIN_ITERATIONS times from here
        let period = (1..=MAX_PERIOD.min(n / MIN_ITERATIONS)).find(|&p| {
            (1..MIN_ITERATIONS).all(|k| (0..p).all(|j| fold_key(&w[j]) == fold_key(&w[k * p + j])))
        });
        let Some(p) = period else {
            return self.window.pop_front().map(Item::Step);
        };
        let body: Vec<TraceStep> = self.window.drain(..p).collect();
        let second: Vec<TraceStep> = self.window.drain(..p).collect();
        let mut last = Vec::new();
        let mut iterations = 2;
        loop {
            self.fill(p);
            let w = &self.window;
            let again = w.len() >= p && (0..p).all(|j| fold_key(&w[j]) == fold_key(&body[j]));
            if !again {
                break;
            }
            last = self.window.drain(..p).collect();
            iterations += 1;
        }
        let lo = body.iter().map(|s| s.line).min().unwrap_or(0);
        let hi = body.iter().map(|s| s.line).max().unwrap_or(0);
        let from = second.last().map_or(0, |s| s.step + 1);
        let left_out = iterations - 3;
        self.ready.extend(body.into_iter().map(Item::Step));
        self.ready.extend(second.into_iter().map(Item::Step));
        self.ready.push_back(Item::Fold {
            iterations: left_out,
            period: p,
            from,
            to: from + left_out * p - 1,
            lines: (lo, hi),
        });
        self.ready.extend(last.into_iter().map(Item::Step));
        self.ready.pop_front()
    }
}

#[cfg(test)]
mod fold_tests {
    use super::{Fold, Item, MAX_PERIOD, MIN_ITERATIONS};
    use crate::report::TraceStep;

    /// The folding as it was written over a whole list of steps (the oracle the streaming
    /// [`Fold`] must agree with): (is a fold, step index or iterations, lines).
    fn fold_whole(steps: &[TraceStep]) -> Vec<(bool, usize, (u32, u32))> {
        let key = |s: &TraceStep| (s.thread, s.depth, s.line, s.procedure.clone());
        let n = steps.len();
        let mut out = Vec::new();
        let mut i = 0;
        while i < n {
            let mut found = None;
            for p in 1..=MAX_PERIOD.min((n - i) / MIN_ITERATIONS) {
                let same = |a: usize, b: usize| key(&steps[a]) == key(&steps[b]);
                let mut k = 1;
                while i + (k + 1) * p <= n && (0..p).all(|j| same(i + j, i + k * p + j)) {
                    k += 1;
                }
                if k >= MIN_ITERATIONS {
                    found = Some((p, k));
                    break;
                }
            }
            match found {
                Some((p, k)) => {
                    out.extend((i..i + 2 * p).map(|j| (false, steps[j].step, (0, 0))));
                    let body = &steps[i..i + p];
                    let lo = body.iter().map(|s| s.line).min().unwrap_or(0);
                    let hi = body.iter().map(|s| s.line).max().unwrap_or(0);
                    out.push((true, k - 3, (lo, hi)));
                    out.extend(
                        (i + (k - 1) * p..i + k * p).map(|j| (false, steps[j].step, (0, 0))),
                    );
                    i += k * p;
                }
                None => {
                    out.push((false, steps[i].step, (0, 0)));
                    i += 1;
                }
            }
        }
        out
    }

    fn step(i: usize, line: u32, depth: u32) -> TraceStep {
        TraceStep {
            step: i,
            thread: 0,
            depth,
            procedure: "main".into(),
            line,
            statement: String::new(),
            values: Vec::new(),
            changed: Vec::new(),
        }
    }

    #[test]
    fn streamed_folding_agrees_with_folding_the_whole_list() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |k: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % k
        };
        for case in 0..400 {
            // runs of loops of random bodies, repeated a random number of times, between
            // random steps
            let mut lines = Vec::new();
            while lines.len() < 40 + case {
                if next(3) == 0 {
                    lines.push((next(6) as u32, 1 + next(2) as u32));
                } else {
                    let long = next(4) == 0;
                    let body: Vec<(u32, u32)> = (0..1 + next(if long { 40 } else { 5 }))
                        .map(|_| (next(6) as u32, 1 + next(2) as u32))
                        .collect();
                    for _ in 0..next(12) {
                        lines.extend(body.iter().copied());
                    }
                }
            }
            let steps: Vec<TraceStep> = lines
                .iter()
                .enumerate()
                .map(|(i, &(l, d))| step(i, l, d))
                .collect();
            let streamed: Vec<(bool, usize, (u32, u32))> = Fold::new(steps.clone().into_iter())
                .map(|item| match item {
                    Item::Step(s) => (false, s.step, (0, 0)),
                    Item::Fold {
                        iterations, lines, ..
                    } => (true, iterations, lines),
                })
                .collect();
            assert_eq!(streamed, fold_whole(&steps), "case {case}: {lines:?}");
        }
    }
}
