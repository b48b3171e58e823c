//! Which statements ran (`check --coverage`, SPIN's "unreached in proctype"): one flag per
//! node, set when a thread's step starts at it, or runs on into it, from a state the search
//! reached. Shared between threads (workers, the engines of a portfolio) as relaxed atomic
//! flags: a flag only ever goes from unset to set.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use zingrs_lang::ir::{Pc, ProcId, Program};

/// The nodes of a program that ran.
#[derive(Debug)]
pub struct Coverage {
    /// Where each procedure's nodes start in `ran`.
    base: Vec<u32>,
    ran: Box<[AtomicBool]>,
}

impl Coverage {
    /// No node of `program` has run.
    pub fn new(program: &Program) -> Coverage {
        let mut base = Vec::with_capacity(program.procs.len());
        let mut n = 0u32;
        for q in &program.procs {
            base.push(n);
            n += q.nodes.len() as u32;
        }
        Coverage {
            base,
            ran: (0..n).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// Node `pc` of `proc` ran.
    #[inline]
    pub fn mark(&self, proc: ProcId, pc: Pc) {
        if let Some(f) = self.ran.get((self.base[proc as usize] + pc) as usize) {
            if !f.load(Relaxed) {
                f.store(true, Relaxed);
            }
        }
    }

    /// Whether node `pc` of `proc` ran.
    pub fn ran(&self, proc: ProcId, pc: Pc) -> bool {
        self.ran
            .get((self.base[proc as usize] + pc) as usize)
            .is_some_and(|f| f.load(Relaxed))
    }
}
