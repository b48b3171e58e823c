//! The `zingrs` command: everything happens in `zingrs::cli`.

use std::alloc::{GlobalAlloc, Layout};

/// A model checker allocates and frees millions of small states; mimalloc does that markedly
/// faster than the system allocator (measured on bebop-t: see docs/performance.md). The
/// `mimalloc` crate calls mimalloc's `_aligned` entry points for every request, and those take
/// a slow path whenever the size class's page has no free block at hand: a size that is not a
/// power of two (24, 40, 48 bytes...) then goes to an over-allocation of `size + align - 1`
/// bytes from another size class (callgrind on bebop-t 6400: 401,000 such requests, 105
/// million instructions). mimalloc's blocks are all multiples of 8 bytes from 16-byte aligned
/// page starts, so a request aligned to 8 or less is served by the plain entry points, which
/// keep their fast path; larger alignments go through the crate as before.
struct Allocator;

/// Large allocations are checked against the memory limit first: an array or a list of
/// outcomes too large for it ends the run with exit 9 instead of being attempted.
#[inline]
fn check_size(size: usize) {
    if size >= zingrs::limits::watchdog::LARGE {
        zingrs::limits::watchdog::before_allocation(size);
    }
}

/// The alignment every block of mimalloc has (a word: its size classes are multiples of 8).
const PLAIN_ALIGN: usize = 8;

unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        if layout.align() <= PLAIN_ALIGN {
            unsafe { libmimalloc_sys::mi_malloc(layout.size()).cast() }
        } else {
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        if layout.align() <= PLAIN_ALIGN {
            unsafe { libmimalloc_sys::mi_zalloc(layout.size()).cast() }
        } else {
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            check_size(new_size - layout.size());
        }
        if layout.align() <= PLAIN_ALIGN {
            unsafe { libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
}

#[global_allocator]
static GLOBAL: Allocator = Allocator;

/// No transparent huge pages for the process: mimalloc asks for them on its arenas, and then
/// the first touch of any byte of a 2 MB range commits and zeroes all of it. That made the
/// resident floor 47 MB where 22 MB are used (bebop-t 800) and the kernel's page clearing a
/// fifth of the run on mid-sized models (bebop-t 6400: 0.2 of 0.7 CPU s); on large BDDs the
/// huge pages' fewer TLB misses gained about what the clearing cost (docs/performance.md).
/// It runs as a constructor, before the first allocation: set in `main`, the pages the
/// runtime had touched already stayed huge (25 MB at bebop-t 800).
#[cfg(target_os = "linux")]
extern "C" fn no_huge_pages() {
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array.00100"]
static NO_HUGE_PAGES: extern "C" fn() = no_huge_pages;

/// mimalloc's way of handing freed memory back to the system, for
/// [`zingrs::limits::release_freed_memory`].
fn release_freed_memory() {
    unsafe { libmimalloc_sys::mi_collect(true) }
}

fn main() {
    zingrs::limits::set_release_hook(release_freed_memory);
    // a closed standard output (`zingrs gen ... | head -1`) ends the process quietly, as it
    // does for other Unix tools, instead of making the next print panic (Rust ignores SIGPIPE
    // by default, so writes fail and `print!` panics)
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(zingrs::cli::main());
}
