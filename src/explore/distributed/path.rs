//! The parent records and the findings: what each worker keeps of the tree its states
//! were reached by, the order in which findings are preferred (so that the one reported is
//! the same whatever the timing), and the walk of a finding's path back through the owners
//! of its parent records.

use super::wire::Msg;
use super::Searcher;
use crate::runtime::RtError;
use crate::search::{Choice, Finding};
use serde::{Deserialize, Serialize};

/// A node of some worker's parent records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct NodeRef {
    pub(super) worker: u32,
    pub(super) node: u32,
}

/// A parent record: an initial state (its valuation's index), or the node a state came from
/// and the choice taken there.
pub(super) enum Link {
    Root(u32),
    Child(NodeRef, Choice),
}

/// What a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Found {
    Assertion,
    Runtime(RtError),
    Target(u32),
    Deadlock,
}

/// A finding and where its path starts to be rebuilt: the node it was found from (for an
/// initial state, its own) and the last choice (none for an initial state).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(super) struct Candidate {
    pub(super) len: u64,
    pub(super) from_fp: u64,
    pub(super) last: Option<Choice>,
    pub(super) kind: Found,
    pub(super) at: NodeRef,
}

impl Candidate {
    /// The order in which findings are preferred: shortest, then by the state found from
    /// and the choice (independent of timing and of who found it).
    pub(super) fn key(&self) -> (u64, u64, u32, u32, u8) {
        let c = self.last.map_or((0, 0), |c| (c.thread, c.outcome));
        let rank = match self.kind {
            Found::Target(_) => 0,
            Found::Deadlock => 1,
            Found::Assertion | Found::Runtime(_) => 2,
        };
        (self.len, self.from_fp, c.0, c.1, rank)
    }
}

impl Searcher<'_, '_, '_> {
    pub(super) fn offer(&mut self, c: Candidate) {
        if self.best.is_none_or(|b| c.key() < b.key()) {
            self.best = Some(c);
        }
    }

    /// Follows parent records from `node` of this worker back as far as they stay here,
    /// then hands the walk to the owner of the next record, or sends the whole path to
    /// every worker.
    pub(super) fn walk(&mut self, mut node: u32, mut choices: Vec<Choice>) {
        self.walking = true;
        loop {
            match self.nodes[node as usize] {
                Link::Root(i) => {
                    let mut init = Vec::new();
                    crate::runtime::wire::values(&self.inits[i as usize], &mut init);
                    for w in 0..self.peers {
                        self.out.push((
                            w,
                            Msg::Path {
                                init: init.clone(),
                                choices: choices.clone(),
                            },
                        ));
                    }
                    return;
                }
                Link::Child(from, c) => {
                    choices.push(c);
                    if from.worker == self.me {
                        node = from.node;
                    } else {
                        self.out.push((
                            from.worker,
                            Msg::Walk {
                                node: from.node,
                                choices,
                            },
                        ));
                        return;
                    }
                }
            }
        }
    }

    /// The finding, with its path rebuilt (chains expanded as the single search does).
    pub(super) fn finding(&mut self) -> Option<Finding> {
        let path = self.path.take()?;
        let b = self.best?;
        let f = match b.kind {
            Found::Assertion => Finding::Assertion { path },
            Found::Runtime(error) => Finding::Runtime { error, path },
            Found::Target(t) => Finding::Target {
                label: self.ex.opts.targets[t as usize].clone(),
                path,
            },
            Found::Deadlock => Finding::Deadlock { path },
        };
        self.ex.result.findings.clear();
        self.ex.found(f, (0, 0, 0));
        self.ex.result.findings.pop()
    }
}
