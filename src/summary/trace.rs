//! Counterexamples of the summarizing search: a path to a node of a root's search, every
//! summary application on it expanded back into the callee's steps, so the path is on whole
//! states and replays on the interpreter like any other.

use super::{NodeId, RootId, Summarizer, Via};
use crate::search::{Choice, Path};

/// A pending piece of a trace expansion: a root's path to a node, or one choice.
enum Expand {
    Within(RootId, NodeId),
    Emit(Choice),
}

impl Summarizer<'_, '_> {
    /// The choices from root `r`'s entry to node `n`, summaries expanded into their steps.
    pub(super) fn choices_within(&self, r: RootId, n: NodeId) -> Vec<Choice> {
        let mut out = Vec::new();
        self.append_within(r, n, &mut out);
        out
    }

    /// Appends the choices from root `r`'s entry to node `n` to `out` (each nested summary is
    /// expanded in place, so the whole trace costs time linear in its length).
    pub(super) fn append_within(&self, r: RootId, n: NodeId, out: &mut Vec<Choice>) {
        self.expand_work(vec![Expand::Within(r, n)], out);
    }

    /// The steps a summary application stands for: the callee's path from its entry to the
    /// return that produced the effect, then that return.
    pub(super) fn expand_summary(&self, callee: RootId, effect: u32) -> Vec<Choice> {
        let mut out = Vec::new();
        self.append_summary(callee, effect, &mut out);
        out
    }

    pub(super) fn append_summary(&self, callee: RootId, effect: u32, out: &mut Vec<Choice>) {
        self.expand_work(self.summary_work(callee, effect), out);
    }

    /// The work that expands an application of `callee`'s effect, in stack order.
    fn summary_work(&self, callee: RootId, effect: u32) -> Vec<Expand> {
        let (_, ret_node, k) = &self.roots[callee as usize].effects[effect as usize];
        vec![
            Expand::Emit(Choice {
                thread: 0,
                outcome: *k,
            }),
            Expand::Within(callee, *ret_node),
        ]
    }

    /// Expands work items with an explicit stack (summaries nest as deep as the calls, which
    /// may be far deeper than the machine stack).
    fn expand_work(&self, mut work: Vec<Expand>, out: &mut Vec<Choice>) {
        while let Some(w) = work.pop() {
            match w {
                Expand::Emit(c) => out.push(c),
                Expand::Within(r, n) => {
                    // walking back from n pushes the last item first: they pop in path order
                    let root = &self.roots[r as usize];
                    let mut cur = n;
                    loop {
                        match root.nodes[cur as usize] {
                            Via::Entry => break,
                            Via::Step { parent, choice } => {
                                work.push(Expand::Emit(choice));
                                cur = parent;
                            }
                            Via::Summary {
                                parent,
                                callee,
                                effect,
                            } => {
                                work.extend(self.summary_work(callee, effect));
                                cur = parent;
                            }
                        }
                    }
                }
            }
        }
    }

    /// A whole path from an initial state to node `n` of root `r` (then `last`).
    pub(super) fn path_to(&self, r: RootId, n: NodeId, last: Option<Choice>) -> Path {
        let mut segments = vec![self.choices_within(r, n)];
        let mut cur = r;
        while let Some((caller, call_node)) = self.roots[cur as usize].origin {
            segments.push(self.choices_within(caller, call_node));
            cur = caller;
        }
        let init = self.roots[cur as usize].init.clone().unwrap_or_default();
        Path {
            init,
            choices: segments.into_iter().rev().flatten().chain(last).collect(),
        }
    }
}
