//! The `zingrs` command: everything happens in `zingrs::cli`.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// A model checker allocates and frees millions of small states; mimalloc does that markedly
/// faster than the system allocator (measured on bebop-t: see README, Performance). Requests
/// aligned to at most a word (all but a few) take its plain entry points, whose blocks are
/// always word-aligned: the `_aligned` ones that the `mimalloc` crate calls cost about twice as
/// many instructions, a visible share on large models (millions of allocations).
struct Allocator;

/// The alignment of every mimalloc block (its bins are whole words, its pages 16-aligned).
const WORD: usize = std::mem::size_of::<usize>();

/// Large allocations are checked against the memory limit first: an array or a list of
/// outcomes too large for it ends the run with exit 9 instead of being attempted.
#[inline]
fn check_size(size: usize) {
    if size >= zingrs::explore::watchdog::LARGE {
        zingrs::explore::watchdog::before_allocation(size);
    }
}

unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        if layout.align() <= WORD {
            unsafe { libmimalloc_sys::mi_malloc(layout.size()) as *mut u8 }
        } else {
            unsafe { libmimalloc_sys::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        if layout.align() <= WORD {
            unsafe { libmimalloc_sys::mi_zalloc(layout.size()) as *mut u8 }
        } else {
            unsafe { libmimalloc_sys::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        unsafe { libmimalloc_sys::mi_free(ptr as *mut c_void) }
    }
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            check_size(new_size - layout.size());
        }
        if layout.align() <= WORD {
            unsafe { libmimalloc_sys::mi_realloc(ptr as *mut c_void, new_size) as *mut u8 }
        } else {
            unsafe {
                libmimalloc_sys::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align())
                    as *mut u8
            }
        }
    }
}

#[global_allocator]
static GLOBAL: Allocator = Allocator;

fn main() {
    // a closed standard output (`zingrs gen ... | head -1`) ends the process quietly, as it
    // does for other Unix tools, instead of making the next print panic (Rust ignores SIGPIPE
    // by default, so writes fail and `print!` panics)
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(zingrs::cli::main());
}
