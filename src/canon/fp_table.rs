//! The explicit search's visited set under hash compaction: 64-bit fingerprints in flat
//! open-addressing tables.
//!
//! The fingerprint's top bits pick one of [`SEGMENTS`] tables, each growing on its own. A
//! single table would need its old and its new array at once while it grows: 2.5 times its
//! size for a moment, which is what stopped the largest searches (a 10 GB table needed 25 GB).
//! Segments grow one at a time, so the moment costs one segment's worth. Their arrays come
//! from the kernel and go back to it when freed ([`Slots`]): an allocator keeps freed memory
//! for a while, and every segment grows at about the same moment, so the old arrays would
//! still count when the new ones are full.

/// How many segments (the fingerprint's top 4 bits choose one).
const SEGMENT_BITS: u32 = 4;
pub const SEGMENTS: usize = 1 << SEGMENT_BITS;

/// A segment's first size, in slots.
const FIRST: usize = 16;

/// A set of 64-bit fingerprints: 8 bytes a slot, no per-entry overhead. Within a segment,
/// linear probing starts at the slot `low·m / 2⁶⁴` for the fingerprint's remaining bits `low`
/// (so the segment size `m` need not be a power of two). A segment grows by half when it is
/// 80% full, so it stays between 53% and 80% full: 10 to 15 bytes per stored fingerprint.
pub struct FpTable {
    segments: Box<[Segment]>,
    len: usize,
}

struct Segment {
    slots: Slots,
    len: usize,
    grow_at: usize,
}

impl Segment {
    fn with_slots(m: usize) -> Segment {
        Segment {
            slots: Slots::zeroed(m),
            len: 0,
            grow_at: m / 5 * 4,
        }
    }

    #[inline]
    fn home(low: u64, m: usize) -> usize {
        ((low as u128 * m as u128) >> 64) as usize
    }

    /// Inserts `fp` (never 0) whose bits below the segment's are `low`; true if it was new.
    #[inline]
    fn insert(&mut self, fp: u64, low: u64) -> bool {
        let m = self.slots.len();
        let mut i = Self::home(low, m);
        loop {
            // SAFETY: i < m = slots.len(): home() < m, and i wraps to 0 at m
            let slot = unsafe { self.slots.get_unchecked_mut(i) };
            if *slot == fp {
                return false;
            }
            if *slot == 0 {
                *slot = fp;
                self.len += 1;
                return true;
            }
            i += 1;
            if i == m {
                i = 0;
            }
        }
    }

    #[cold]
    fn grow(&mut self) {
        let m = self.slots.len();
        let mut bigger = Segment::with_slots(m + m / 2);
        // the old slots are nearly sorted by fingerprint, so the new ones fill nearly in order
        for &fp in self.slots.iter() {
            if fp != 0 {
                bigger.insert(fp, fp << SEGMENT_BITS);
            }
        }
        *self = bigger;
    }
}

/// A zeroed array of slots mapped from the kernel (which zeroes pages as they are first
/// touched) and unmapped when dropped.
pub(super) struct Slots {
    ptr: std::ptr::NonNull<u64>,
    len: usize,
}

// SAFETY: `Slots` owns its mapping as a `Box<[u64]>` owns its array; shared access reads it
// (or, in `shared_table`, goes through atomics under the segment's read lock)
unsafe impl Send for Slots {}
unsafe impl Sync for Slots {}

impl Slots {
    fn layout(len: usize) -> std::alloc::Layout {
        std::alloc::Layout::array::<u64>(len).expect("a visited table within the address space")
    }

    #[cfg(unix)]
    pub(super) fn zeroed(len: usize) -> Slots {
        let bytes = Self::layout(len).size();
        // SAFETY: an anonymous private mapping of `bytes` bytes, checked below
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            std::alloc::handle_alloc_error(Self::layout(len));
        }
        #[cfg(target_os = "linux")]
        if bytes >= 1 << 21 {
            // large tables are probed at random: 2 MB pages spare most TLB misses (a hint)
            // SAFETY: advice on the mapping just made
            unsafe { libc::madvise(p, bytes, libc::MADV_HUGEPAGE) };
        }
        // every table is filled as soon as it is made (a growth copies 2/3 of its slots in),
        // so its pages are made now, in one call: probing reads a slot before writing it, and
        // a page first read maps the shared zero page, whose first write is a second fault
        // that, with several workers, also flushes the other processors' TLBs (measured: 2 %
        // of a 2-worker search). Only advice: an older kernel refuses it and faults as before.
        #[cfg(target_os = "linux")]
        // SAFETY: advice on the mapping just made
        unsafe {
            libc::madvise(p, bytes, libc::MADV_POPULATE_WRITE)
        };
        Slots {
            ptr: std::ptr::NonNull::new(p as *mut u64).expect("mmap gives a non-null address"),
            len,
        }
    }

    #[cfg(not(unix))]
    pub(super) fn zeroed(len: usize) -> Slots {
        // SAFETY: a non-zero size (segments have at least FIRST slots)
        let p = unsafe { std::alloc::alloc_zeroed(Self::layout(len)) } as *mut u64;
        Slots {
            ptr: std::ptr::NonNull::new(p)
                .unwrap_or_else(|| std::alloc::handle_alloc_error(Self::layout(len))),
            len,
        }
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        // SAFETY: the mapping (or allocation) made by `zeroed` with this length
        #[cfg(unix)]
        unsafe {
            libc::munmap(
                self.ptr.as_ptr() as *mut libc::c_void,
                Self::layout(self.len).size(),
            );
        }
        #[cfg(not(unix))]
        unsafe {
            std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, Self::layout(self.len))
        };
    }
}

impl std::ops::Deref for Slots {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        // SAFETY: `len` initialised (zeroed) slots, owned by self
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for Slots {
    fn deref_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in deref, and &mut self is unique
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Default for FpTable {
    fn default() -> Self {
        FpTable {
            segments: (0..SEGMENTS).map(|_| Segment::with_slots(FIRST)).collect(),
            len: 0,
        }
    }
}

impl FpTable {
    /// The segment of a fingerprint, and its bits below the segment's.
    #[inline]
    fn split(fp: u64) -> (usize, u64) {
        ((fp >> (64 - SEGMENT_BITS)) as usize, fp << SEGMENT_BITS)
    }

    /// Inserts a fingerprint; true if it was new. 0 marks an empty slot, so it is stored as 1.
    #[inline]
    pub fn insert(&mut self, fp: u64) -> bool {
        let fp = fp.max(1);
        let (s, low) = Self::split(fp);
        // SAFETY: s < 2^SEGMENT_BITS = segments.len()
        let seg = unsafe { self.segments.get_unchecked_mut(s) };
        if seg.len >= seg.grow_at {
            seg.grow();
        }
        let new = seg.insert(fp, low);
        self.len += new as usize;
        new
    }

    /// Asks the processor to fetch the slot where `fp` would start its probe (a hint: it
    /// changes nothing).
    #[inline]
    pub fn prefetch(&self, fp: u64) {
        let (s, low) = Self::split(fp.max(1));
        let slots = &self.segments[s].slots;
        let i = Segment::home(low, slots.len());
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch never faults, and i < slots.len()
        #[allow(unused_unsafe)]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = slots.as_ptr().add(i);
            _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
            // a probe often runs on into the next cache line
            if i + 8 < slots.len() {
                _mm_prefetch::<_MM_HINT_T0>(p.add(8) as *const i8);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The table's memory in bytes.
    pub fn bytes(&self) -> usize {
        let slots: usize = self.segments.iter().map(|s| s.slots.len()).sum();
        slots * std::mem::size_of::<u64>()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A xorshift generator: uniform fingerprints, as xxh3 gives.
    pub(in crate::canon) fn fingerprints(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    #[test]
    fn agrees_with_a_hash_set_across_growth() {
        let mut t = FpTable::default();
        let mut set = std::collections::HashSet::new();
        let mut next = fingerprints(0x9e37_79b9_7f4a_7c15);
        // repeats of earlier fingerprints, so both new and known ones are inserted; the small
        // ones all fall into segment 0, which grows far beyond the others
        for i in 0..300_000u64 {
            let x = next();
            let fp = if i % 3 == 0 { x % 50_000 } else { x };
            assert_eq!(t.insert(fp), set.insert(fp.max(1)), "at {i}");
        }
        assert_eq!(t.len(), set.len());
        // the largest fingerprints sit at the end of the last segment and wrap around
        assert!(t.insert(u64::MAX));
        assert!(t.insert(u64::MAX - 1));
        assert!(!t.insert(u64::MAX));
        // a segment's first fingerprints and the last segment's last ones
        assert!(t.insert(1 << (64 - SEGMENT_BITS)));
        assert!(!t.insert(1 << (64 - SEGMENT_BITS)));
    }

    #[test]
    fn stays_between_half_and_four_fifths_full() {
        let mut t = FpTable::default();
        let mut next = fingerprints(12345);
        for _ in 0..400_000 {
            t.insert(next());
        }
        // 53% to 80% full: 10 to 15 bytes per fingerprint (segments grow at slightly
        // different moments, so the whole table is within those bounds too)
        let per = t.bytes() as f64 / t.len() as f64;
        assert!((10.0..=15.1).contains(&per), "{per} bytes per fingerprint");
    }

    #[test]
    fn zero_is_stored_as_one() {
        let mut t = FpTable::default();
        assert!(t.insert(0));
        assert!(!t.insert(1));
        assert!(!t.insert(0));
        assert_eq!(t.len(), 1);
    }
}
