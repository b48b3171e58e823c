//! What the depth-first stack keeps of its nodes: states rebuilt by re-executing the path
//! from the nearest node that kept one, outcome lists dropped below the window and their
//! pending positions kept, the lists of popped nodes reused.

use super::*;

impl Explorer<'_, '_> {
    /// Rebuilds the path nodes above the last live one, up to the top, by re-executing their
    /// choices; their outcomes are rebuilt when each becomes the top.
    pub(super) fn restore(&mut self, stack: &mut Chunked<Entry>, spare: &mut Spare) {
        self.restore_to(stack, stack.len() - 1, spare);
    }

    /// Rebuilds the states of the path nodes from the nearest one below `top` that kept its
    /// state up to `top`; returns that nearest one's depth.
    pub(super) fn restore_to(
        &mut self,
        stack: &mut Chunked<Entry>,
        top: usize,
        spare: &mut Spare,
    ) -> usize {
        let base = (0..top)
            .rev()
            .find(|&i| stack[i].live.is_some())
            .expect("the bottom of the stack is live");
        for k in base + 1..=top {
            let c = stack[k].via;
            let parent = &stack[k - 1].live.as_ref().expect("restored in order").state;
            let mut touched = Touched::default();
            let (state, kind) = self.rerun(parent, c, &mut touched);
            let parent = stack[k - 1].live.as_ref().expect("restored in order");
            let ctx = self
                .advance(&parent.state, parent.ctx, c, kind)
                .expect("a choice on the stack stays within the context bound");
            // the state's numbering is its parent's unless the step moved a reference
            let canon = match &parent.canon {
                Some(c) => {
                    match self.hasher.successor_canon(
                        &parent.state,
                        c,
                        &state,
                        Some(&touched.addrs),
                    ) {
                        Some(canon) => {
                            if self.how.check_fingerprints {
                                let fp = self.hasher.full(&state);
                                assert_eq!(canon.fp, fp, "restored fingerprint");
                            }
                            Some(canon)
                        }
                        None => self.canon_of(&state),
                    }
                }
                None => None,
            };
            stack[k].live = Some(Self::live(spare, state, canon, ctx));
        }
        base
    }

    /// Whether path node `e` at depth `d` keeps its state when it leaves the window at the
    /// top of the stack (see [`Entry`]).
    pub(super) fn keeps_state(e: &Entry, d: usize) -> bool {
        // a macro step (a summarized call) does not re-execute by its index: the node it
        // reached keeps its state, and nothing above it re-executes it
        d.is_multiple_of(CHECKPOINT) || e.via.outcome & MACRO != 0
    }

    /// A path node's live part for `state`, with reused lists if there are some.
    pub(super) fn live(
        spare: &mut Spare,
        state: State,
        canon: Option<Canon>,
        ctx: Ctx,
    ) -> Box<Live> {
        let (outs, keys) = spare.pop().unwrap_or_default();
        Box::new(Live {
            state,
            outs,
            keys,
            next: 0,
            ready: false,
            canon,
            ctx,
            chunks: None,
        })
    }

    /// Drops a path node's outcomes (and, unless `keep_state`, its state), remembering which
    /// are still pending and keeping the lists for reuse. The outcomes are whole states,
    /// several times the node's own memory; [`Explorer::fill`] rebuilds them when the search
    /// comes back to the node.
    pub(super) fn drop_outcomes(
        spare: &mut Spare,
        pending: &mut Pending,
        e: &mut Entry,
        depth: usize,
        keep_state: bool,
    ) {
        let Some(live) = e.live.as_deref_mut() else {
            return;
        };
        if live.wide() {
            // its outcomes are one chunk, and where it stands in its step is kept with them
            return;
        }
        if live.ready {
            // a fresh node has none yet; a node that is not ready has dropped them already
            let left = live
                .outs
                .iter()
                .enumerate()
                .skip(live.next)
                .filter(|(_, (_, o))| !matches!(o, Outcome::Pruned))
                .map(|(i, _)| i as u32);
            if live.outs.len() <= MASK_BITS {
                e.pending = left.fold(0, |m, i| m | 1 << i);
            } else {
                e.spilled = true;
                pending.spill.insert(depth, left.collect());
            }
            live.ready = false;
            let outs = std::mem::take(&mut live.outs);
            let keys = std::mem::take(&mut live.keys);
            Self::keep_lists(spare, outs, keys);
        }
        if !keep_state {
            e.live = None;
        }
    }

    /// Keeps a popped node's lists for reuse.
    pub(super) fn recycle(spare: &mut Spare, live: Live) {
        Self::keep_lists(spare, live.outs, live.keys);
    }

    /// Pops the top path node, keeping its lists for reuse.
    pub(super) fn pop(stack: &mut Chunked<Entry>, spare: &mut Spare) {
        if let Some(Entry {
            live: Some(live), ..
        }) = stack.pop()
        {
            Self::recycle(spare, *live);
        }
    }

    pub(super) fn keep_lists(spare: &mut Spare, mut outs: Succs, mut keys: Vec<Key>) {
        if spare.len() < 64 {
            outs.clear();
            keys.clear();
            spare.push((outs, keys));
        }
    }
}
