//! The transition record of seed 004 §4: what a step read, allocated and wrote.

use super::value::{Addr, Loc, GLOBALS};

/// Receives the heap locations a step touches. The explicit engine passes `()` and pays
/// nothing; the summary engine passes a [`Record`].
pub trait Recorder {
    fn read(&mut self, loc: Loc);
    fn write(&mut self, loc: Loc);
    fn alloc(&mut self, addr: Addr);
    /// The details of the runtime error the step is about to raise. Only the report asks for
    /// them ([`super::Machine::fault`]); every other recorder drops them unbuilt.
    #[inline(always)]
    fn fault(&mut self, _details: impl FnOnce() -> super::Fault) {}
}

impl Recorder for () {
    #[inline(always)]
    fn read(&mut self, _: Loc) {}
    #[inline(always)]
    fn write(&mut self, _: Loc) {}
    #[inline(always)]
    fn alloc(&mut self, _: Addr) {}
}

/// The locations read (T's r), the addresses allocated (as) and the locations written (w) by
/// one step, over every nondeterministic choice of that step, pruned ones included.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub reads: Vec<Loc>,
    pub allocs: Vec<Addr>,
    pub writes: Vec<Loc>,
}

impl Record {
    pub fn clear(&mut self) {
        self.reads.clear();
        self.allocs.clear();
        self.writes.clear();
    }
}

impl Recorder for Record {
    fn read(&mut self, loc: Loc) {
        if !self.reads.contains(&loc) {
            self.reads.push(loc);
        }
    }
    fn write(&mut self, loc: Loc) {
        if !self.writes.contains(&loc) {
            self.writes.push(loc);
        }
    }
    fn alloc(&mut self, addr: Addr) {
        if !self.allocs.contains(&addr) {
            self.allocs.push(addr);
        }
    }
}

/// The heap addresses a step wrote or allocated, over all its choices: the objects in which
/// its successors may differ from the state it left, so that the explicit search fingerprints
/// them from the parent's fingerprint without comparing heaps.
#[derive(Clone, Debug, Default)]
pub struct Touched {
    pub addrs: Vec<Addr>,
}

impl Recorder for Touched {
    #[inline(always)]
    fn read(&mut self, _: Loc) {}
    #[inline]
    fn write(&mut self, loc: Loc) {
        if loc.addr != GLOBALS {
            self.add(loc.addr);
        }
    }
    #[inline]
    fn alloc(&mut self, addr: Addr) {
        self.add(addr);
    }
}

impl Touched {
    #[inline]
    fn add(&mut self, addr: Addr) {
        if !self.addrs.contains(&addr) {
            self.addrs.push(addr);
        }
    }
}
