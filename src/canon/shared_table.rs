//! The visited set that several search workers share (`--workers N`, N ≥ 2).
//!
//! Fingerprints: [`SharedFpTable`], the design of LTSmin's and TLC's tables. Each of
//! [`SEGMENTS`] open-addressing segments holds 64-bit slots that workers fill with one
//! compare-and-swap, without a lock on the slot. A segment grows (by half, at 80 % full, as
//! [`super::FpTable`]'s do) under a short stop of the workers that touch it, and never loses
//! an insert. Memory per fingerprint is the single-worker table's, 10–15 bytes.
//!
//! An insert writes nothing that another worker's insert writes, but the slot it fills: a
//! worker announces that it is inside a segment in a flag of its own (a big-reader lock: the
//! grower raises the segment's `growing` and waits until no worker's flag for it is up, and
//! a worker that sees `growing` leaves and waits), and counts its new fingerprints per
//! segment itself, adding them to the segment's count every [`FLUSH`]. A reader-writer lock
//! per segment, taken for reading around each insert, made every insert write the segment's
//! lock word, whose cache line then moved between the workers' cores at most inserts.
//!
//! Measured against general concurrent maps before choosing (ARCHITECTURE.md): a map keeps a
//! key, a value and a hash or a lock per entry (24–48 bytes), and one CAS in a flat array is
//! what the search needs of it.
//!
//! `--exact`: [`SharedExact`], canonical bytes in hash sets behind one mutex per shard.

use super::fp_table::Slots;
use std::cell::UnsafeCell;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicU8, AtomicUsize};
use std::sync::Mutex;

/// The fingerprint's top bits pick a segment.
const SEGMENT_BITS: u32 = 8;
const SEGMENTS: usize = 1 << SEGMENT_BITS;

/// A worker adds its new fingerprints to a segment's count this many at a time.
const FLUSH: u8 = 8;

/// A segment: its slots, which a grower replaces only while no worker is inside.
///
/// What every insert reads (the slots' address, `growing`, the prefetch hint) shares one
/// cache line that only a growth writes; the count, which a worker writes every [`FLUSH`]
/// new fingerprints, has a line of its own, so that those writes do not take the first line
/// from the other workers' caches.
#[repr(align(64))]
struct Segment {
    slots: UnsafeCell<Slots>,
    count: Count,
    /// A grower waits for the workers inside to leave, or is copying: nobody enters.
    growing: AtomicBool,
    /// One grower at a time.
    grower: Mutex<()>,
    /// The slots' address and length for [`SharedFpTable::prefetch`], read without any
    /// lock (a prefetch of a stale address is harmless: it never faults).
    hint: AtomicU64,
    hint_len: AtomicUsize,
}

/// A segment's count of fingerprints, on a cache line of its own.
#[repr(align(64))]
struct Count {
    /// Fingerprints stored, as the workers have added them ([`FLUSH`] at a time).
    len: AtomicUsize,
    /// Grow once `len` reaches this (80 % of the slots).
    grow_at: AtomicUsize,
}

// SAFETY: `slots` is read (its slots through atomics) only by workers whose flag for the
// segment is up while `growing` is down, and replaced only by the grower once every flag is
// down with `growing` up (`SharedFpTable::insert`, `SharedFpTable::grow`)
unsafe impl Sync for Segment {}

/// One worker's flags, one per segment: up while the worker is inside that segment.
#[repr(align(64))]
struct Inside([AtomicU8; SEGMENTS]);

/// A set of 64-bit fingerprints that many workers insert into at once.
pub struct SharedFpTable {
    segments: Box<[Segment]>,
    inside: Box<[Inside]>,
}

/// What one worker keeps of its own for inserting into a [`SharedFpTable`]: its number and
/// the new fingerprints it has not yet added to each segment's count.
pub struct Inserter {
    worker: usize,
    pending: Box<[u8; SEGMENTS]>,
}

/// The first size of a segment for `workers` workers. The segment's count lags behind by at
/// most `FLUSH - 1` fingerprints a worker, and each worker may add `FLUSH` more to it before
/// seeing that it must grow, so a segment keeps more than `2 * FLUSH * workers` free slots
/// above its growth mark (20 % of its slots).
fn first_size(workers: usize) -> usize {
    64usize.max(10 * 2 * FLUSH as usize * workers + 8)
}

#[inline]
fn home(low: u64, m: usize) -> usize {
    ((low as u128 * m as u128) >> 64) as usize
}

/// The slot at `i` as an atomic.
///
/// # Safety
/// `i < slots.len()`, and the caller may read the segment's slots (its flag is up and the
/// segment is not growing, or it is the grower).
#[inline]
unsafe fn slot(slots: &Slots, i: usize) -> &AtomicU64 {
    // SAFETY: in bounds by the caller's promise; u64 and AtomicU64 have one layout, and every
    // access to the slots while workers may be inside goes through atomics
    unsafe { AtomicU64::from_ptr(slots.as_ptr().add(i) as *mut u64) }
}

/// Spins a little, then gives the processor away (workers may outnumber the cores).
fn wait_while(cond: impl Fn() -> bool) {
    let mut spins = 0u32;
    while cond() {
        if spins < 64 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

impl Segment {
    fn new(m: usize) -> Segment {
        let slots = Slots::zeroed(m);
        Segment {
            hint: AtomicU64::new(slots.as_ptr() as u64),
            hint_len: AtomicUsize::new(m),
            slots: UnsafeCell::new(slots),
            count: Count {
                len: AtomicUsize::new(0),
                grow_at: AtomicUsize::new(m / 5 * 4),
            },
            growing: AtomicBool::new(false),
            grower: Mutex::new(()),
        }
    }
}

impl SharedFpTable {
    /// A table for `workers` workers (numbered from 0: [`SharedFpTable::inserter`]).
    pub fn new(workers: usize) -> SharedFpTable {
        let workers = workers.max(1);
        let m = first_size(workers);
        SharedFpTable {
            segments: (0..SEGMENTS).map(|_| Segment::new(m)).collect(),
            inside: (0..workers)
                .map(|_| Inside(std::array::from_fn(|_| AtomicU8::new(0))))
                .collect(),
        }
    }

    /// Worker `worker`'s inserter (one per worker: two inserters of one number would share
    /// their flags).
    pub fn inserter(&self, worker: usize) -> Inserter {
        assert!(
            worker < self.inside.len(),
            "worker {worker} of a table for fewer"
        );
        Inserter {
            worker,
            pending: Box::new([0; SEGMENTS]),
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
    pub fn insert(&self, fp: u64, ins: &mut Inserter) -> bool {
        let fp = fp.max(1);
        let (s, low) = Self::split(fp);
        // SAFETY: s < 2^SEGMENT_BITS = segments.len() = each Inside's length
        let seg = unsafe { self.segments.get_unchecked(s) };
        let flag = &self.inside[ins.worker].0[s];
        loop {
            flag.store(1, Relaxed);
            // with the grower's fence: either it sees this flag up, or this sees `growing`
            fence(SeqCst);
            if seg.growing.load(Acquire) {
                flag.store(0, Release);
                wait_while(|| seg.growing.load(Acquire));
                continue;
            }
            // SAFETY: the flag is up and the segment is not growing, so no grower replaces
            // the slots until the flag is down again
            let slots = unsafe { &*seg.slots.get() };
            let new = Self::probe(slots, low, fp);
            flag.store(0, Release);
            if new {
                let p = &mut ins.pending[s];
                *p += 1;
                if *p == FLUSH {
                    *p = 0;
                    let len = seg.count.len.fetch_add(FLUSH as usize, Relaxed) + FLUSH as usize;
                    if len >= seg.count.grow_at.load(Relaxed) {
                        self.grow(s);
                    }
                }
            }
            return new;
        }
    }

    /// Looks `fp` up in `slots` and stores it where it is missing; true if it was.
    #[inline]
    fn probe(slots: &Slots, low: u64, fp: u64) -> bool {
        let m = slots.len();
        let mut i = home(low, m);
        loop {
            // SAFETY: i < m, and the caller may read the slots
            let a = unsafe { slot(slots, i) };
            let cur = a.load(Relaxed);
            if cur == fp {
                return false;
            }
            if cur == 0 {
                // a slot goes from 0 to a fingerprint once and keeps it (a growth replaces
                // the slots only while no worker is inside): the CAS decides who stores here
                match a.compare_exchange(0, fp, Relaxed, Relaxed) {
                    Ok(_) => return true,
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

    /// Grows segment `s` by half unless another worker just did: stops the workers at its door,
    /// waits for those inside to leave, copies.
    #[cold]
    fn grow(&self, s: usize) {
        let seg = &self.segments[s];
        let _one = seg.grower.lock().unwrap_or_else(|e| e.into_inner());
        if seg.count.len.load(Relaxed) < seg.count.grow_at.load(Relaxed) {
            return;
        }
        seg.growing.store(true, Relaxed);
        // with the inserters' fence: either they see `growing`, or this sees their flag
        fence(SeqCst);
        for w in self.inside.iter() {
            wait_while(|| w.0[s].load(Acquire) != 0);
        }
        // SAFETY: `growing` is up and every flag for this segment was seen down after it
        // was raised, so no worker reads the slots until `growing` goes down
        let slots = unsafe { &mut *seg.slots.get() };
        let m = slots.len();
        let n = (m + m / 2).max(first_size(self.inside.len()));
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
        seg.hint.store(slots.as_ptr() as u64, Relaxed);
        seg.hint_len.store(n, Relaxed);
        seg.count.grow_at.store(n / 5 * 4, Relaxed);
        seg.growing.store(false, Release);
    }

    /// Adds a worker's not yet counted fingerprints to the segments' counts (when it stops:
    /// [`SharedFpTable::len`] is exact once every worker has).
    pub fn flush(&self, ins: &mut Inserter) {
        for (s, p) in ins.pending.iter_mut().enumerate() {
            if *p > 0 {
                self.segments[s].count.len.fetch_add(*p as usize, Relaxed);
                *p = 0;
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

    /// The fingerprints stored (exact once every worker has stopped and flushed its
    /// inserter).
    pub fn len(&self) -> usize {
        self.segments
            .iter()
            .map(|s| s.count.len.load(Relaxed))
            .sum()
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
        let mut ins = t.inserter(0);
        let mut set = HashSet::new();
        let mut next = fingerprints(0x9e37_79b9_7f4a_7c15);
        for i in 0..200_000u64 {
            let x = next();
            let fp = if i % 3 == 0 { x % 50_000 } else { x };
            assert_eq!(t.insert(fp, &mut ins), set.insert(fp.max(1)), "at {i}");
        }
        t.flush(&mut ins);
        assert_eq!(t.len(), set.len());
        assert!(t.insert(u64::MAX, &mut ins));
        assert!(!t.insert(u64::MAX, &mut ins));
        let per = t.bytes() as f64 / t.len() as f64;
        assert!((10.0..=15.5).contains(&per), "{per} bytes per fingerprint");
    }

    #[test]
    fn zero_is_stored_as_one() {
        let t = SharedFpTable::new(2);
        let mut ins = t.inserter(1);
        assert!(t.insert(0, &mut ins));
        assert!(!t.insert(1, &mut ins));
        assert!(!t.insert(0, &mut ins));
        t.flush(&mut ins);
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
                        let mut ins = t.inserter(w as usize);
                        let mut mine = Vec::new();
                        for k in (w % 2..8).step_by(2) {
                            let mut next = fingerprints(1000 + k);
                            for _ in 0..30_000 {
                                let fp = next();
                                if t.insert(fp, &mut ins) {
                                    mine.push(fp);
                                }
                            }
                        }
                        t.flush(&mut ins);
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
        let mut ins = t.inserter(0);
        for k in 0..8 {
            let mut next = fingerprints(1000 + k);
            for _ in 0..30_000 {
                assert!(!t.insert(next(), &mut ins), "lost");
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
