//! How a successor crosses to its owner: whole, as bytes, or as a claim while the worker that
//! reached it keeps it (see the module above); what a worker keeps for the owners, and how
//! much it sends whole to even out the workers' shares of a level.

use super::path::{Candidate, Found, NodeRef};
use super::wire::{encode_arrival, Bytes, Msg, ARRIVE_HEADER, BETTER_BYTES, CLAIM_BYTES};
use super::{Queued, Searcher};
use crate::canon::Canon;
use crate::runtime::State;
use crate::search::Choice;

/// Where a claimed successor is kept: the worker, and the place in its [`Searcher::held`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct Slot {
    pub(super) holder: u32,
    key: u64,
    index: u32,
}

/// A successor this worker keeps for its owner ([`Msg::Claim`]), checked as it was reached
/// (while it is in the cache: the check of a state reached again is wasted, but cheaper than
/// a check of a state grown cold), until the owner asks for it or its level is settled
/// without.
pub(super) enum Held {
    Expand(State, Canon),
    Found(Found),
    /// Past the stack-depth bound: stored, not expanded.
    Cut,
}

/// A successor this worker sent to its owner while expanding the current level: the least
/// (level, parent fingerprint, choice) it sent for it, and the message that carried it, if
/// that is in this round's outbox still (the round, the message's index).
pub(super) struct SentKey {
    key: (u64, u64, u32, u32),
    round: u64,
    at: usize,
}

impl Searcher<'_, '_, '_> {
    /// Sends a successor (`state`, whose canon is `child`, reached at `level` from `parent`:
    /// its node, fingerprint and the choice) to its owner: whole if it falls in this batch's
    /// share of successors sent whole ([`Searcher::whole_share`]), else as a claim, the state
    /// kept here. Unless this worker sent it already while expanding this level: then only a
    /// better parent goes (the least (level, parent fingerprint, choice) is the one every
    /// owner keeps), written into the message still in this round's outbox, or else as
    /// [`Msg::Better`], since the owner stored the state when the earlier message arrived. A
    /// state reached from several states of a level is so sent once per sender, not once per
    /// arrival.
    pub(super) fn send(
        &mut self,
        owner: u32,
        level: u64,
        parent: (NodeRef, u64, Choice),
        state: State,
        child: Canon,
    ) {
        let (from, from_fp, choice) = parent;
        let fp = child.fp;
        let key = (level, from_fp, choice.thread, choice.outcome);
        let here = (self.rounds, self.out.len());
        match self.sent_keys.entry(fp) {
            std::collections::hash_map::Entry::Occupied(mut e) => {
                let sent = e.get_mut();
                if key >= sent.key {
                    self.unsent += 1;
                    return;
                }
                sent.key = key;
                if sent.round == self.rounds {
                    if let Some((
                        _,
                        Msg::Arrive {
                            level: l,
                            from: f,
                            from_fp: ff,
                            choice: c,
                            ..
                        }
                        | Msg::Claim {
                            level: l,
                            from: f,
                            from_fp: ff,
                            choice: c,
                            ..
                        }
                        | Msg::Better {
                            level: l,
                            from: f,
                            from_fp: ff,
                            choice: c,
                            ..
                        },
                    )) = self.out.get_mut(sent.at)
                    {
                        (*l, *f, *ff, *c) = (level, from, from_fp, choice);
                        self.unsent += 1;
                        return;
                    }
                }
                (sent.round, sent.at) = here;
                self.unsent += 1;
                self.sent_bytes += BETTER_BYTES;
                self.out.push((
                    owner,
                    Msg::Better {
                        fp,
                        level,
                        from,
                        from_fp,
                        choice,
                    },
                ));
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(SentKey {
                    key,
                    round: here.0,
                    at: here.1,
                });
                if !self.sends_whole(fp) {
                    self.claimed += 1;
                    self.sent_bytes += CLAIM_BYTES;
                    let slot = self.hold(level, state, child);
                    self.out.push((
                        owner,
                        Msg::Claim {
                            fp,
                            level,
                            from,
                            from_fp,
                            choice,
                            slot,
                        },
                    ));
                    return;
                }
                let mut bytes = Vec::with_capacity(256);
                encode_arrival(&state, &child, &mut bytes, &mut self.encoded);
                self.sent += 1;
                self.sent_bytes += ARRIVE_HEADER + bytes.len() as u64;
                self.out.push((
                    owner,
                    Msg::Arrive {
                        fp,
                        level,
                        from,
                        from_fp,
                        choice,
                        state: Bytes(bytes),
                    },
                ));
            }
        }
    }

    /// The share, out of 1024, of its successors for other workers that this worker sends
    /// whole rather than keeps: how far the states it expands of the level (as the last
    /// round's statuses tell) exceed the workers' mean, as a fraction of the mean. A worker at
    /// twice the mean or more sends all of them; one at or below the mean keeps all. On a
    /// narrow level ([`Cluster::narrow`]) all go whole: a claim costs the level a round more
    /// (the owner's answer), which there costs more than the bytes.
    pub(super) fn whole_share(&self) -> u64 {
        let total: u64 = self.statuses.iter().map(|s| s.load).sum();
        if total < self.narrow.saturating_mul(u64::from(self.peers)) {
            return 1024;
        }
        let mine = self.statuses[self.me as usize].load;
        let over = (mine * u64::from(self.peers)).saturating_sub(total);
        (over * 1024).checked_div(total).unwrap_or(0).min(1024)
    }

    /// Whether the successor with fingerprint `fp` falls in this batch's share of those sent
    /// whole (by bits of the fingerprint other than those that pick its owner).
    fn sends_whole(&self, fp: u64) -> bool {
        (fp.rotate_left(7).wrapping_mul(0x2545_F491_4F6C_DD1D) >> 54) < self.whole
    }

    /// Checks a claimed successor (reached at `level`) as a new state is checked, and keeps
    /// what the owner may ask for.
    fn hold(&mut self, level: u64, state: State, canon: Canon) -> Slot {
        let held = match self.check_arrival(&state) {
            (Some(kind), _) => Held::Found(kind),
            (None, false) => Held::Cut,
            (None, true) => Held::Expand(state, canon),
        };
        let at = self.held.entry(level).or_default();
        at.push(Some(held));
        Slot {
            holder: self.me,
            key: level,
            index: at.len() as u32 - 1,
        }
    }

    /// An owner asks this worker for a state it holds: its level is settled with the parent
    /// record `at`, made from `from` (`from_fp`) and `choice`. Its finding is offered, or it
    /// is queued.
    pub(super) fn expand_held(
        &mut self,
        slot: Slot,
        level: u64,
        at: NodeRef,
        parent: (NodeRef, u64, Choice),
    ) {
        let held = self
            .held
            .get_mut(&slot.key)
            .and_then(|h| h.get_mut(slot.index as usize))
            .and_then(Option::take);
        let Some(held) = held else {
            panic!("a state claimed for its owner was not kept");
        };
        self.expanded_held += 1;
        let (from, from_fp, choice) = parent;
        match held {
            Held::Found(kind) => self.offer(Candidate {
                len: level,
                from_fp,
                last: Some(choice),
                kind,
                at: from,
            }),
            Held::Cut => {}
            Held::Expand(state, canon) => self.push_queue(level, Queued { state, at, canon }),
        }
    }

    /// Drops the held states claimed at levels up to `settled` that no owner asked for (its
    /// owners' requests are read). A level is settled once: every step costs at least one
    /// level here (`Explorer::cost`; ZING's order, whose process steps may cost none, is
    /// refused by the distributed search), so nothing reaches a level while it is expanded.
    pub(super) fn drop_held(&mut self, settled: u64) {
        while let Some(e) = self.held.first_entry() {
            if *e.key() > settled {
                break;
            }
            e.remove();
        }
    }
}
