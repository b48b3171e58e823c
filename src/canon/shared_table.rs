//! The visited set that several search workers share (`--workers N`, N ≥ 2).
//!
//! Fingerprints: [`SharedFpTable`], the design of LTSmin's and TLC's tables. Each of
//! [`SEGMENTS`] open-addressing segments holds 64-bit slots that workers fill with one
//! compare-and-swap, without a lock on the slot; a segment's reader-writer lock is taken for
//! reading around a probe and for writing only while that segment grows (by half, at 80 %
//! full, as [`super::FpTable`]'s do), so a growth stops only the workers that touch that
//! 1/256 of the table, for the time of one segment's copy, and never loses an insert. Memory
//! per fingerprint is the single-worker table's, 10–15 bytes.
//!
//! Measured against general concurrent maps before choosing (ARCHITECTURE.md): a map keeps a
//! key, a value and a hash or a lock per entry (24–48 bytes), and one CAS in a flat array is
//! what the search needs of it.
//!
//! `--exact`: [`SharedExact`], canonical bytes in hash sets behind one mutex per shard.

use super::fp_table::Slots;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, RwLock};

/// The fingerprint's top bits pick a segment.
const SEGMENT_BITS: u32 = 8;
const SEGMENTS: usize = 1 << SEGMENT_BITS;

/// A segment: its slots, behind a lock that growth takes for writing.
struct Segment {
    slots: RwLock<Slots>,
    /// Fingerprints stored (a worker adds its own after its CAS succeeds).
    len: AtomicUsize,
    /// Grow before an insert once `len` reaches this (80 % of the slots).
    grow_at: AtomicUsize,
    /// The slots' address and length for [`SharedFpTable::prefetch`], read without the lock
    /// (a prefetch of a stale address is harmless: it never faults).
    hint: AtomicU64,
    hint_len: AtomicUsize,
}

/// A set of 64-bit fingerprints that many workers insert into at once.
pub struct SharedFpTable {
    segments: Box<[Segment]>,
}

/// The first size of a segment for `workers` workers: several workers may each store one
/// fingerprint between a segment's growth check and its count, so a segment keeps more than
/// `workers` free slots above its growth mark.
fn first_size(workers: usize) -> usize {
    (16usize).max(8 * (workers + 1))
}

#[inline]
fn home(low: u64, m: usize) -> usize {
    ((low as u128 * m as u128) >> 64) as usize
}

/// The slot at `i` as an atomic.
///
/// # Safety
/// `i < slots.len()`, and the caller holds the segment's lock (reading or writing).
#[inline]
unsafe fn slot(slots: &Slots, i: usize) -> &AtomicU64 {
    // SAFETY: in bounds by the caller's promise; u64 and AtomicU64 have one layout, and every
    // access to the slots while the lock is shared goes through atomics
    unsafe { AtomicU64::from_ptr(slots.as_ptr().add(i) as *mut u64) }
}

impl Segment {
    fn new(m: usize) -> Segment {
        let slots = Slots::zeroed(m);
        Segment {
            hint: AtomicU64::new(slots.as_ptr() as u64),
            hint_len: AtomicUsize::new(m),
            slots: RwLock::new(slots),
            len: AtomicUsize::new(0),
            grow_at: AtomicUsize::new(m / 5 * 4),
        }
    }

    /// Grows the segment by half unless another worker just did.
    #[cold]
    fn grow(&self, workers: usize) {
        let mut slots = self.slots.write().unwrap_or_else(|e| e.into_inner());
        if self.len.load(Relaxed) < self.grow_at.load(Relaxed) {
            return;
        }
        let m = slots.len();
        let n = (m + m / 2).max(first_size(workers));
        let mut bigger = Slots::zeroed(n);
        for &fp in slots.iter() {
            if fp == 0 {
                continue;
            }
            let mut i = home(fp << SEGMENT_BITS, n);
            while bigger[i] != 0 {
                i += 1;
                if i == n {
                    i = 0;
                }
            }
            bigger[i] = fp;
        }
        *slots = bigger;
        self.hint.store(slots.as_ptr() as u64, Relaxed);
        self.hint_len.store(n, Relaxed);
        self.grow_at.store(n / 5 * 4, Relaxed);
    }
}

impl SharedFpTable {
    /// A table for `workers` workers.
    pub fn new(workers: usize) -> SharedFpTable {
        let m = first_size(workers);
        SharedFpTable {
            segments: (0..SEGMENTS).map(|_| Segment::new(m)).collect(),
        }
    }

    #[inline]
    fn split(fp: u64) -> (usize, u64) {
        ((fp >> (64 - SEGMENT_BITS)) as usize, fp << SEGMENT_BITS)
    }

    /// Inserts a fingerprint; true if it was new (to every worker: of several workers
    /// inserting the same fingerprint at once, exactly one is told it is new). 0 is stored
    /// as 1.
    #[inline]
    pub fn insert(&self, fp: u64, workers: usize) -> bool {
        let fp = fp.max(1);
        let (s, low) = Self::split(fp);
        // SAFETY: s < 2^SEGMENT_BITS = segments.len()
        let seg = unsafe { self.segments.get_unchecked(s) };
        loop {
            if seg.len.load(Relaxed) >= seg.grow_at.load(Relaxed) {
                seg.grow(workers);
            }
            let slots = seg.slots.read().unwrap_or_else(|e| e.into_inner());
            // grown by another worker between the check and the lock? its new mark holds
            if seg.len.load(Relaxed) >= seg.grow_at.load(Relaxed) {
                continue;
            }
            let m = slots.len();
            let mut i = home(low, m);
            loop {
                // SAFETY: i < m, and the read lock is held
                let a = unsafe { slot(&slots, i) };
                let cur = a.load(Relaxed);
                if cur == fp {
                    return false;
                }
                if cur == 0 {
                    // a slot goes from 0 to a fingerprint once and keeps it (until a growth,
                    // which holds the lock for writing): the CAS decides who stores here
                    match a.compare_exchange(0, fp, Relaxed, Relaxed) {
                        Ok(_) => {
                            seg.len.fetch_add(1, Relaxed);
                            return true;
                        }
                        Err(x) if x == fp => return false,
                        Err(_) => {}
                    }
                }
                i += 1;
                if i == m {
                    i = 0;
                }
            }
        }
    }

    /// Asks the processor to fetch the slot where `fp` would start its probe (a hint).
    #[inline]
    pub fn prefetch(&self, fp: u64) {
        let (s, low) = Self::split(fp.max(1));
        let seg = &self.segments[s];
        let n = seg.hint_len.load(Relaxed);
        let p = seg.hint.load(Relaxed) as *const u64;
        let i = home(low, n);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch never faults, whatever the address (a stale one included)
        #[allow(unused_unsafe)]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(i) as *const i8);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (p, i);
    }

    /// The fingerprints stored (exact once the workers have stopped).
    pub fn len(&self) -> usize {
        self.segments.iter().map(|s| s.len.load(Relaxed)).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The table's memory in bytes.
    pub fn bytes(&self) -> usize {
        let slots: usize = self.segments.iter().map(|s| s.hint_len.load(Relaxed)).sum();
        slots * std::mem::size_of::<u64>()
    }
}

/// Canonical bytes that many workers insert into at once (`--exact`): hash sets in shards
/// picked by the bytes' hash, each behind its own mutex.
pub struct SharedExact {
    shards: Box<[Shard]>,
    len: AtomicUsize,
}

const EXACT_SHARDS: usize = 64;

/// One shard of [`SharedExact`]: the canonical forms whose fingerprint falls in it.
type Shard = Mutex<ahash::AHashSet<Box<[u8]>>>;

impl Default for SharedExact {
    fn default() -> Self {
        SharedExact {
            shards: (0..EXACT_SHARDS).map(|_| Mutex::default()).collect(),
            len: AtomicUsize::new(0),
        }
    }
}

impl SharedExact {
    /// Inserts canonical bytes whose 64-bit fingerprint is `fp`; true if they were new.
    pub fn insert(&self, bytes: &[u8], fp: u64) -> bool {
        let shard = &self.shards[(fp >> 58) as usize % EXACT_SHARDS];
        let mut set = shard.lock().unwrap_or_else(|e| e.into_inner());
        if set.contains(bytes) {
            return false;
        }
        set.insert(bytes.into());
        self.len.fetch_add(1, Relaxed);
        true
    }

    pub fn len(&self) -> usize {
        self.len.load(Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::fp_table::tests::fingerprints;
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn agrees_with_a_hash_set_across_growth() {
        let t = SharedFpTable::new(1);
        let mut set = HashSet::new();
        let mut next = fingerprints(0x9e37_79b9_7f4a_7c15);
        for i in 0..200_000u64 {
            let x = next();
            let fp = if i % 3 == 0 { x % 50_000 } else { x };
            assert_eq!(t.insert(fp, 1), set.insert(fp.max(1)), "at {i}");
        }
        assert_eq!(t.len(), set.len());
        assert!(t.insert(u64::MAX, 1));
        assert!(!t.insert(u64::MAX, 1));
        let per = t.bytes() as f64 / t.len() as f64;
        assert!((10.0..=15.5).contains(&per), "{per} bytes per fingerprint");
    }

    #[test]
    fn zero_is_stored_as_one() {
        let t = SharedFpTable::new(2);
        assert!(t.insert(0, 2));
        assert!(!t.insert(1, 2));
        assert!(!t.insert(0, 2));
        assert_eq!(t.len(), 1);
    }

    /// Eight threads insert overlapping streams (each fingerprint by four of them at once):
    /// every fingerprint is reported new exactly once, and none is lost across growth.
    #[test]
    fn concurrent_inserts_report_each_fingerprint_new_once() {
        let t = SharedFpTable::new(8);
        let news: Vec<Vec<u64>> = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..8u64)
                .map(|w| {
                    let t = &t;
                    sc.spawn(move || {
                        // workers w and w + 4 (mod 8) … share streams: stream k is inserted by
                        // the four workers whose number is k mod 2
                        let mut mine = Vec::new();
                        for k in (w % 2..8).step_by(2) {
                            let mut next = fingerprints(1000 + k);
                            for _ in 0..30_000 {
                                let fp = next();
                                if t.insert(fp, 8) {
                                    mine.push(fp);
                                }
                            }
                        }
                        mine
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all: Vec<u64> = news.into_iter().flatten().collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a fingerprint reported new twice");
        assert_eq!(n, 8 * 30_000);
        assert_eq!(t.len(), n);
        for k in 0..8 {
            let mut next = fingerprints(1000 + k);
            for _ in 0..30_000 {
                assert!(!t.insert(next(), 8), "lost");
            }
        }
    }

    #[test]
    fn exact_sets_report_each_form_new_once() {
        let s = SharedExact::default();
        let n = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    let s = &s;
                    sc.spawn(move || {
                        (0..5_000u32)
                            .filter(|i| {
                                let b = i.to_le_bytes();
                                s.insert(&b, super::super::fingerprint64(&b))
                            })
                            .count()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum::<usize>()
        });
        assert_eq!(n, 5_000);
        assert_eq!(s.len(), 5_000);
    }
}
