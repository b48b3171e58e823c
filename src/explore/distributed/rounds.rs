//! The rounds: each worker's loop (expand a batch, send its status with its messages, read
//! what arrived, decide), the status every worker sends to every worker, the decision all
//! of them take from the same statuses (another round of the level, the next level, the walk
//! back of a finding's path, the end), and the result summed over all workers.

use super::net;
use super::path::Candidate;
use super::wire::Msg;
use super::Cluster;
use super::Searcher;
use crate::search::{Finding, Limit, Options, Path, SearchResult};
use serde::{Deserialize, Serialize};

/// What a worker did, summed (or maxed) over workers for the report.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub(super) struct Counts {
    pub(super) states: u64,
    pub(super) transitions: u64,
    pub(super) initial: u64,
    pub(super) max_stack: u32,
    pub(super) max_path: u64,
    pub(super) interior: u64,
    pub(super) alone: u64,
    pub(super) cut: bool,
    pub(super) thread_cut: bool,
    /// States sent to another worker, and the bytes of their messages (with those of
    /// [`super::wire::Msg::Better`]).
    pub(super) sent: u64,
    pub(super) sent_bytes: u64,
    /// Successors for another worker whose state was not sent again (see `Searcher::send`).
    pub(super) unsent: u64,
    /// Successors for another worker sent without their state, kept by the sender
    /// ([`super::wire::Msg::Claim`]), and those of them it was asked to expand.
    pub(super) claimed: u64,
    pub(super) expanded_held: u64,
}

/// A worker's status at the end of a round, sent to every worker.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Status {
    /// It still has states of the level being expanded.
    pub(super) more: bool,
    /// The least level of a state it has queued, waiting, or sent this round.
    pub(super) next: Option<u64>,
    pub(super) best: Option<Candidate>,
    /// A limit it reached (`Limit::code`, 0 for none).
    pub(super) limit: u8,
    pub(super) counts: Counts,
    /// It sent a step of a path's walk back this round.
    pub(super) walking: bool,
    /// The states of the level being expanded that it expanded so far or has queued.
    pub(super) load: u64,
    /// It asked holders to expand states this round ([`super::wire::Msg::Expand`]): they
    /// check and queue them when they read it, so the next round's statuses tell.
    pub(super) notified: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Expand(u64),
    Walk,
    Done,
}

/// The rebuilt finding, the counts of every worker, the limit, and the rounds taken.
pub(super) struct Outcome2 {
    pub(super) finding: Option<Finding>,
    pub(super) counts: Vec<Counts>,
    pub(super) limit: Option<Limit>,
    pub(super) rounds: u64,
    pub(super) interior_alone: (bool, bool),
}

/// The result every process reports: the finding, the counts summed over all workers.
pub(super) fn merge(
    o: Outcome2,
    cluster: &Cluster,
    elapsed: std::time::Duration,
    opts: &Options,
) -> SearchResult {
    let mut r = SearchResult::default();
    let mut total = Counts::default();
    for c in &o.counts {
        total.states += c.states;
        total.transitions += c.transitions;
        total.initial += c.initial;
        total.max_stack = total.max_stack.max(c.max_stack);
        total.max_path = total.max_path.max(c.max_path);
        total.interior += c.interior;
        total.alone += c.alone;
        total.cut |= c.cut;
        total.thread_cut |= c.thread_cut;
        total.sent += c.sent;
        total.sent_bytes += c.sent_bytes;
        total.unsent += c.unsent;
        total.claimed += c.claimed;
        total.expanded_held += c.expanded_held;
    }
    r.findings.extend(o.finding);
    r.limit = o.limit;
    r.cut = total.cut;
    r.thread_cut = total.thread_cut;
    r.stats.states = total.states;
    r.stats.transitions = total.transitions;
    r.stats.initial_states = total.initial;
    r.stats.max_stack = total.max_stack;
    r.stats.max_path = total.max_path;
    r.stats.elapsed = elapsed;
    let (interior, alone) = o.interior_alone;
    if interior {
        r.stats
            .counters
            .push(("states inside transactions not stored", total.interior));
    }
    if alone {
        r.stats.counters.push((
            "states expanded by one thread (partial-order reduction)",
            total.alone,
        ));
    }
    r.stats.counters.extend([
        ("processes", cluster.processes as u64),
        ("workers", o.counts.len() as u64),
        ("rounds", o.rounds),
        ("states sent to another worker", total.sent),
        ("successors claimed and kept by their sender", total.claimed),
        (
            "states expanded by the worker that reached them",
            total.expanded_held,
        ),
        (
            "bytes sent per successor sent",
            total
                .sent_bytes
                .checked_div(total.sent + total.claimed)
                .unwrap_or(0),
        ),
        ("successors not sent again", total.unsent),
    ]);
    let _ = opts;
    r
}

impl Searcher<'_, '_, '_> {
    pub(super) fn status(&self, phase: Phase) -> Status {
        let more = match phase {
            Phase::Expand(l) => self.queue.get(&l).is_some_and(|q| !q.is_empty()),
            _ => false,
        };
        let queued = self
            .queue
            .iter()
            .find(|(_, q)| !q.is_empty())
            .map(|(l, _)| *l);
        let waiting = self.waiting.keys().next().copied();
        let next = [queued, waiting, self.sent_min].into_iter().flatten().min();
        let stats = &self.ex.result.stats;
        Status {
            more,
            next,
            best: self.best,
            limit: self.limit.map_or(0, Limit::code),
            counts: Counts {
                states: self.ex.visited.len() as u64,
                transitions: stats.transitions,
                initial: stats.initial_states,
                max_stack: stats.max_stack,
                max_path: stats.max_path,
                interior: self.ex.interior_skipped,
                alone: self.ex.expanded_alone,
                cut: self.ex.result.cut,
                thread_cut: self.ex.result.thread_cut,
                sent: self.sent,
                sent_bytes: self.sent_bytes,
                unsent: self.unsent,
                claimed: self.claimed,
                expanded_held: self.expanded_held,
            },
            walking: self.walking,
            load: self.at_level.1
                + self
                    .queue
                    .get(&self.at_level.0)
                    .map_or(0, |q| q.len() as u64),
            notified: self.notified,
        }
    }

    /// Rounds until the search is over: expansion level by level, then the walk back of
    /// the finding's path.
    pub(super) fn run(&mut self, net: &mut net::Net) {
        self.initial();
        // the initial states are a round of their own: its status says where to begin
        let mut phase = Phase::Expand(0);
        let mut first = true;
        loop {
            if !first {
                match phase {
                    Phase::Expand(l) if self.limit.is_none() => self.expand_batch(l),
                    _ => {}
                }
            }
            let status = self.status(if first { Phase::Done } else { phase });
            for w in 0..self.peers {
                self.out
                    .push((w, Msg::Status(self.me, Box::new(status.clone()))));
            }
            self.sent_min = None;
            self.walking = false;
            self.notified = false;
            let Ok(inbox) = net.round(&mut self.out) else {
                // a connection lost: `net::run` returns it as the search's error
                return;
            };
            self.rounds += 1;
            let mut walks = Vec::new();
            for msg in inbox {
                match msg {
                    Msg::Arrive {
                        fp,
                        level,
                        from,
                        from_fp,
                        choice,
                        state,
                    } => {
                        let body = super::Arrival::Bytes(state.0);
                        self.arrive(fp, level, from, from_fp, choice, body)
                    }
                    Msg::Claim {
                        fp,
                        level,
                        from,
                        from_fp,
                        choice,
                        slot,
                    } => {
                        let body = super::Arrival::Held(slot);
                        self.arrive(fp, level, from, from_fp, choice, body)
                    }
                    Msg::Expand {
                        slot,
                        level,
                        at,
                        from,
                        from_fp,
                        choice,
                    } => self.expand_held(slot, level, at, (from, from_fp, choice)),
                    Msg::Better {
                        fp,
                        level,
                        from,
                        from_fp,
                        choice,
                    } => self.improve(fp, level, from, from_fp, choice),
                    Msg::Status(w, st) => self.statuses[w as usize] = *st,
                    Msg::Walk { node, choices } => walks.push((node, choices)),
                    Msg::Path { init, choices } => {
                        let init = crate::runtime::wire::Reader {
                            bytes: &init,
                            at: 0,
                        }
                        .values()
                        .unwrap_or_else(|| panic!("a path's initial valuation does not decode"));
                        let mut choices = choices;
                        choices.reverse();
                        self.path = Some(Path { init, choices });
                    }
                }
            }
            if let Some(n) = self.drop_after.take() {
                // every owner's requests for the states of level `n` were in this round
                self.drop_held(n);
            }
            phase = self.decide(if first { None } else { Some(phase) });
            first = false;
            match phase {
                Phase::Done => return,
                Phase::Walk => {
                    for (node, choices) in walks {
                        self.walk(node, choices);
                    }
                }
                Phase::Expand(_) => {}
            }
        }
    }

    /// The next phase, from every worker's status (the same decision on every worker).
    pub(super) fn decide(&mut self, phase: Option<Phase>) -> Phase {
        if self.path.is_some() {
            return Phase::Done;
        }
        if self.statuses.iter().any(|s| s.limit != 0) {
            return Phase::Done;
        }
        let states: u64 = self.statuses.iter().map(|s| s.counts.states).sum();
        if self.ex.opts.limits.max_states.is_some_and(|m| states >= m) {
            self.limit = Some(Limit::States);
            self.statuses[self.me as usize].limit = self.limit.map_or(0, Limit::code);
            return Phase::Done;
        }
        if phase == Some(Phase::Walk) {
            if !self.statuses.iter().any(|s| s.walking) {
                panic!("the walk back of a counterexample's path was lost");
            }
            return Phase::Walk;
        }
        if let Some(Phase::Expand(l)) = phase {
            if self.statuses.iter().any(|s| s.notified) {
                // the states asked for this round are checked and queued by their holders
                // as they read it: their findings and queues are in the next statuses
                return Phase::Expand(l);
            }
        }
        let best = self
            .statuses
            .iter()
            .filter_map(|s| s.best)
            .min_by_key(|c| c.key());
        // every finding of length up to the level settled last is known: the steps from the
        // levels before it are all taken, and its states all checked
        let settled = match phase {
            Some(Phase::Expand(l)) => Some(l),
            _ => None,
        };
        let next = self.statuses.iter().filter_map(|s| s.next).min();
        if let Some(b) = best {
            let complete = settled.is_some_and(|l| b.len <= l) || next.is_none_or(|n| b.len < n);
            if complete {
                self.best = Some(b);
                if b.at.worker == self.me {
                    self.walk(b.at.node, b.last.into_iter().collect());
                }
                return Phase::Walk;
            }
        }
        if let Some(l) = settled {
            if self.statuses.iter().any(|s| s.more) {
                return Phase::Expand(l);
            }
        }
        match next {
            // (with nothing left every finding is complete: none was found)
            None => Phase::Done,
            Some(n) => {
                self.settle(n);
                Phase::Expand(n)
            }
        }
    }
}
