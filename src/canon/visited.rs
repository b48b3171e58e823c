//! The explicit search's visited set: a table of one search, or a worker's handle on the
//! table several workers share (`--workers`).

use super::{fingerprint64, FpTable, SharedExact, SharedFpTable};

/// The set of visited states: 64-bit fingerprints (hash compaction), or whole canonical forms
/// with `--exact`; a worker's handle on a set shared by several workers (`--workers`).
pub enum Visited {
    Fingerprints(FpTable),
    Exact(ahash::AHashSet<Box<[u8]>>),
    Shared(SharedHandle),
}

/// What several search workers share: one visited set and the count of stored states.
pub struct SharedVisited {
    set: SharedSet,
    workers: usize,
    /// Stored states the workers have published (each publishes its own in batches, so that
    /// counting costs no shared write per state).
    published: std::sync::atomic::AtomicU64,
}

enum SharedSet {
    Fingerprints(SharedFpTable),
    Exact(SharedExact),
}

impl SharedVisited {
    pub fn new(exact: bool, workers: usize) -> SharedVisited {
        SharedVisited {
            set: if exact {
                SharedSet::Exact(SharedExact::default())
            } else {
                SharedSet::Fingerprints(SharedFpTable::new(workers))
            },
            workers,
            published: Default::default(),
        }
    }

    /// The states stored (exact once every worker has stopped).
    pub fn len(&self) -> usize {
        match &self.set {
            SharedSet::Fingerprints(t) => t.len(),
            SharedSet::Exact(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The fingerprint table's memory in bytes (None with `--exact`).
    pub fn table_bytes(&self) -> Option<usize> {
        match &self.set {
            SharedSet::Fingerprints(t) => Some(t.bytes()),
            SharedSet::Exact(_) => None,
        }
    }
}

/// One worker's handle on a [`SharedVisited`]: it counts its own new states and publishes
/// them every `batch`.
pub struct SharedHandle {
    shared: std::sync::Arc<SharedVisited>,
    /// The worker's own part of inserting into a shared fingerprint table.
    inserter: Option<super::shared_table::Inserter>,
    unpublished: u64,
    batch: u64,
    /// The states this worker stored.
    own: u64,
}

impl SharedHandle {
    #[inline]
    fn stored(&mut self) {
        self.own += 1;
        self.unpublished += 1;
        if self.unpublished >= self.batch {
            self.publish();
        }
    }

    fn publish(&mut self) {
        use std::sync::atomic::Ordering::Relaxed;
        self.shared.published.fetch_add(self.unpublished, Relaxed);
        self.unpublished = 0;
    }
}

impl Drop for SharedHandle {
    fn drop(&mut self) {
        self.publish();
        if let (SharedSet::Fingerprints(t), Some(ins)) = (&self.shared.set, &mut self.inserter) {
            t.flush(ins);
        }
    }
}

impl Visited {
    pub fn new(exact: bool) -> Visited {
        if exact {
            Visited::Exact(Default::default())
        } else {
            Visited::Fingerprints(Default::default())
        }
    }

    /// Worker `worker`'s handle on `shared` (one handle per worker number). `max_states`
    /// (the state limit) sets how often the worker publishes its count, so that all the
    /// workers together pass the limit by at most 5 %.
    pub fn shared(
        shared: std::sync::Arc<SharedVisited>,
        worker: usize,
        max_states: Option<u64>,
    ) -> Visited {
        let w = shared.workers.max(1) as u64;
        let batch = max_states.map_or(256, |m| (m / 20 / w).clamp(1, 256));
        let inserter = match &shared.set {
            SharedSet::Fingerprints(t) => Some(t.inserter(worker)),
            SharedSet::Exact(_) => None,
        };
        Visited::Shared(SharedHandle {
            shared,
            inserter,
            unpublished: 0,
            batch,
            own: 0,
        })
    }

    /// Whether the set keeps fingerprints (so a state may be inserted by its fingerprint
    /// alone, [`Visited::insert_fp`]).
    #[inline]
    pub fn fingerprinted(&self) -> bool {
        match self {
            Visited::Fingerprints(_) => true,
            Visited::Exact(_) => false,
            Visited::Shared(h) => matches!(h.shared.set, SharedSet::Fingerprints(_)),
        }
    }

    /// Inserts a state's 64-bit fingerprint (a [`Visited::fingerprinted`] set only); true
    /// if it was new.
    #[inline]
    pub fn insert_fp(&mut self, fp: u64) -> bool {
        match self {
            Visited::Fingerprints(t) => t.insert(fp),
            Visited::Shared(h) => {
                let SharedSet::Fingerprints(t) = &h.shared.set else {
                    unreachable!("fingerprints go to a fingerprint table")
                };
                let ins = h.inserter.as_mut().expect("a fingerprint table's inserter");
                let new = t.insert(fp, ins);
                if new {
                    h.stored();
                }
                new
            }
            Visited::Exact(_) => unreachable!("fingerprints go to a fingerprint table"),
        }
    }

    /// Asks for the table slot of a fingerprint (a hint; nothing with `--exact`).
    #[inline]
    pub fn prefetch(&self, fp: u64) {
        match self {
            Visited::Fingerprints(t) => t.prefetch(fp),
            Visited::Shared(h) => {
                if let SharedSet::Fingerprints(t) = &h.shared.set {
                    t.prefetch(fp)
                }
            }
            Visited::Exact(_) => {}
        }
    }

    /// Inserts a state's canonical bytes; true if they were new.
    #[inline]
    pub fn insert(&mut self, bytes: &[u8]) -> bool {
        match self {
            Visited::Fingerprints(s) => s.insert(fingerprint64(bytes)),
            Visited::Exact(s) => {
                if s.contains(bytes) {
                    false
                } else {
                    s.insert(bytes.into())
                }
            }
            Visited::Shared(h) => {
                let fp = fingerprint64(bytes);
                let new = match &h.shared.set {
                    SharedSet::Fingerprints(t) => {
                        t.insert(fp, h.inserter.as_mut().expect("an inserter"))
                    }
                    SharedSet::Exact(s) => s.insert(bytes, fp),
                };
                if new {
                    h.stored();
                }
                new
            }
        }
    }

    /// The states stored: for a shared set, those every worker has published plus this
    /// worker's own (cheap: one shared read), exact once the workers have stopped.
    pub fn len(&self) -> usize {
        match self {
            Visited::Fingerprints(s) => s.len(),
            Visited::Exact(s) => s.len(),
            Visited::Shared(h) => {
                use std::sync::atomic::Ordering::Relaxed;
                (h.shared.published.load(Relaxed) + h.unpublished) as usize
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The states this worker stored (all of them, unless the set is shared).
    pub fn own(&self) -> usize {
        match self {
            Visited::Shared(h) => h.own as usize,
            _ => self.len(),
        }
    }

    /// The fingerprint table's memory in bytes (None with `--exact`, whose memory is the
    /// allocator's).
    pub fn table_bytes(&self) -> Option<usize> {
        match self {
            Visited::Fingerprints(s) => Some(s.bytes()),
            Visited::Exact(_) => None,
            Visited::Shared(h) => h.shared.table_bytes(),
        }
    }
}
